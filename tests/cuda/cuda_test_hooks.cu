/*
   Test hooks (cuda_test_hooks.h): compiled into the test program, against the CUDA layer's private
   headers, so that a test reaches the storage's own allocation path without the production library
   carrying a function for it.
*/
#include "cuda_test_hooks.h"

#include "bsrcuda_matrix.cuh"

using namespace bsrc;

bsrc_cuda_status cuda_test_try_alloc(bsrc_cuda_matrix *M, size_t bytes)
{
  if (!M) return fail(sink(M), BSRC_CUDA_ERR_ARG, "cuda_test_try_alloc: matrix is NULL");
  device_scope ds(M->device);
  BSRC_CUDA_CHECK(ds.error(), sink(M), "cudaSetDevice");
  dev_buffer             b;
  const bsrc_cuda_status s = dev_alloc(b, bytes, "cuda_test_try_alloc", &M->bytes, sink(M));
  dev_free(b, &M->bytes);
  return s;
}
