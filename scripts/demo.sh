#!/usr/bin/env bash
# The main job: sets everything up, builds what it needs (the plugin and examples/ksp_block_elasticity),
# then solves a 3D elasticity problem (3 unknowns per node, so 3x3 blocks) with KSP CG through an
# unchanged PETSc program that loads bsrcustom with -dll_append and picks it with -dm_mat_type
# bsrcustom; the same solve on MATBAIJ runs beside it, then MatMult is timed in alternated rounds (ours,
# BAIJ, ours, ...) and the medians are compared.
#   scripts/demo.sh [extra PETSc options]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# its own build folder, without the test suite, and without the CUDA backend where no GPU is visible
# (its cpu run would not use it): on a 2-core machine that is about a minute of compiling, not several
build=$root/build-demo
gpu=OFF
nvidia-smi -L 2>/dev/null | grep -q GPU && gpu=AUTO
BSRCUSTOM_CMAKE_ARGS="-DBSRCUSTOM_BUILD_TESTS=OFF -DBSRCUSTOM_CUDA=$gpu ${BSRCUSTOM_CMAKE_ARGS:-}" \
  "$root/scripts/setup.sh" --targets "petscbsrcustom ksp_block_elasticity" "$build"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
lib=$build/src/mat/impls/bsrcustom/libpetscbsrcustom.so
# the best backend present: our CUDA kernels where the build has CUDA and a GPU is visible
backend=cpu
if grep -q "BSRCUSTOM_HAVE_CUDA:INTERNAL=ON" "$build/CMakeCache.txt" 2>/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU; then
  backend=cuda
fi
# vectors on the device where PETSc has CUDA vectors (a PETSc configured with CUDA; Debian's has none)
vecopts=()
if [[ $backend == cuda ]] && grep -q "BSRCUSTOM_PETSC_HAS_CUDA:INTERNAL=ON" "$build/CMakeCache.txt"; then
  vecopts=(-dm_vec_type cuda -use_gpu_aware_mpi 0)
fi
echo "demo: backend $backend${vecopts:+, CUDA vectors}, threads ${OMP_NUM_THREADS:+OMP_NUM_THREADS=}${OMP_NUM_THREADS:-the plugin default (cores / ranks of the node)}"
# 30^3 nodes (81,000 unknowns): its 52 MB of matrix values do not fit a 32 MB L3, so MatMult streams
# memory as in real solves. The time per call is the median of 7 alternated rounds of 20 MatMults per
# matrix: on a 2-core VM with a busy loop on one core and other builds running (load 4-14), single
# solves' ratios read 0.96-1.43 while the alternated medians read 1.29-1.59 at 30^3 (1.69-1.93 at
# 20^3, 1.51-1.89 at 40^3, which takes a minute there).
# --bind-to none: Open MPI pins a rank to one core by default, which would stack the OpenMP threads there
log=$(mktemp)
trap 'rm -f "$log"' EXIT
mpiexec --bind-to none -n 1 "$build/examples/ksp_block_elasticity" -dll_append "$lib" \
  -dm_mat_type bsrcustom -mat_bsrcustom_backend "$backend" -compare_type baij -compare_assemble \
  -ksp_type cg -pc_type pbjacobi -ksp_rtol 1e-8 -nx 30 -ny 30 -nz 30 -compare_alternate 7 -compare_mults 20 \
  "${vecopts[@]}" "$@" | tee "$log"
median=$(sed -n 's/^Timing: MatMult alternated, \([0-9]*\) rounds.*median us\/call *\([0-9.]*\) *\([0-9.]*\)$/\1 \2 \3/p' "$log")
ratio=$(sed -n "s/^Timing: MatMult alternated, median of the rounds' compare\/ours = \([0-9.]*\).*/\1/p" "$log")
if [[ -n $median && -n $ratio ]]; then
  read -r rounds ours baij <<< "$median"
  echo "demo: MatMult, median of $rounds alternated rounds: ours $ours us, MATBAIJ $baij us a call; MATBAIJ/ours = $ratio"
fi
