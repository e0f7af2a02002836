# bench_cuda_baselines: the benchmark-only cuSPARSE baselines (bench_cuda_baselines.h), kept out of
# the production CUDA layer (bsrcuda, linked into libpetscbsrcustom). Linked into bench_cuda and into
# the CUDA layer's test, which checks their products. Needs the bsrcuda target.
if(NOT TARGET bench_cuda_baselines)
  add_library(bench_cuda_baselines STATIC ${CMAKE_CURRENT_LIST_DIR}/bench_cuda_baselines.cu)
  set_target_properties(bench_cuda_baselines PROPERTIES CUDA_ARCHITECTURES "80-real;90-real;90-virtual" CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  target_include_directories(bench_cuda_baselines PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  target_compile_options(bench_cuda_baselines PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
  target_link_libraries(bench_cuda_baselines PUBLIC bsrcuda)
endif()
