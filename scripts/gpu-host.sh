#!/usr/bin/env bash
# Runs the whole test suite (gpu label included), compute-sanitizer and the main job on a lent GPU
# host that has CUDA but no PETSc and no package access.
#
# Here (the build machine), once:    scripts/gpu-host.sh prepare
#   packs this machine's PETSc + Open MPI (../shared/tools/gpu-kit -> .kit/) and, into .gpu-extra/, the
#   PETSc headers the kit lacks, GoogleTest and PETSc's example sources the tests build. Both folders
#   are git-ignored (.git/info/exclude).
# On the GPU host (device tool, carry [".kit", ".gpu-extra"]):    bash scripts/gpu-host.sh run
#   builds with CMake + nvcc in /tmp/b and writes logs to $OUT. valgrind is not there: memcheck is off.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
case "${1:-}" in
prepare)
  ../shared/tools/gpu-kit
  grep -qx '/.gpu-extra/' .git/info/exclude || echo '/.gpu-extra/' >> .git/info/exclude
  rm -rf .gpu-extra && mkdir -p .gpu-extra/examples/snes/tutorials .gpu-extra/examples/ksp/ksp/tutorials
  E=/usr/share/petsc/3.18/share/petsc/examples/src
  cp $E/snes/tutorials/ex19.c $E/snes/tutorials/ex5.c .gpu-extra/examples/snes/tutorials/
  cp $E/ksp/ksp/tutorials/ex2.c .gpu-extra/examples/ksp/ksp/tutorials/
  tar -cf - /usr/include/gtest /usr/include/gmock /usr/lib/x86_64-linux-gnu/cmake/GTest \
    /usr/lib/x86_64-linux-gnu/libgtest*.a /usr/lib/x86_64-linux-gnu/libgmock*.a 2>/dev/null | xz -T0 > .gpu-extra/gtest.tar.xz
  # the kit's include/petsc is a relative link to share/petsc/3.18/include/petsc, which it does not carry
  tar -cf - /usr/share/petsc/3.18/include 2>/dev/null | xz -T0 > .gpu-extra/petsc-include.tar.xz
  du -sh .kit .gpu-extra
  ;;
run)
  : "${OUT:=/tmp/out}"
  mkdir -p "$OUT"
  source .kit/env.sh
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  tar -xJf .gpu-extra/gtest.tar.xz -C / 2>/dev/null
  tar -xJf .gpu-extra/petsc-include.tar.xz -C /opt/petsc-kit 2>/dev/null
  nvidia-smi -L
  B=/tmp/b
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DPETSC_EXAMPLES_DIR="$root/.gpu-extra/examples" -DBSRCUSTOM_MEMCHECK=OFF > "$OUT/configure.log" 2>&1
  cmake --build $B -j "$(nproc)" -- -k > "$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
  (cd $B && ctest -L gpu --output-on-failure --timeout 140 > "$OUT/ctest_gpu.log" 2>&1; grep -E "Test +#|tests passed" "$OUT/ctest_gpu.log")
  (cd $B && ctest -LE gpu -j8 --output-on-failure --timeout 190 > "$OUT/ctest_cpu.log" 2>&1; grep -E "tests passed|Failed" "$OUT/ctest_cpu.log" | tail -5)
  S=/usr/local/cuda/bin/compute-sanitizer
  $S --tool memcheck --leak-check full $B/tests/petsc/test_gpu_backend > "$OUT/memcheck.log" 2>&1; tail -3 "$OUT/memcheck.log"
  $S --tool racecheck --kernel-name kns=bsrc $B/tests/petsc/test_gpu_backend > "$OUT/racecheck.log" 2>&1; tail -2 "$OUT/racecheck.log"
  OMP_NUM_THREADS=$(nproc) mpiexec --bind-to none -n 1 $B/examples/ksp_block_elasticity \
    -dll_append $B/src/mat/impls/bsrcustom/libpetscbsrcustom.so -dm_mat_type bsrcustom -mat_bsrcustom_backend cuda \
    -compare_type baij -compare_assemble -ksp_type cg -pc_type pbjacobi -ksp_rtol 1e-8 -nx 60 -ny 60 -nz 60 > "$OUT/demo_cuda.log" 2>&1
  grep -E "Solve \[|MatMult us/call" "$OUT/demo_cuda.log"
  ;;
*)
  echo "usage: scripts/gpu-host.sh prepare|run" >&2
  exit 2
  ;;
esac
