#!/usr/bin/env bash
# The main job: sets everything up, builds, then solves a 3D elasticity problem (3 unknowns per node,
# so 3x3 blocks) with KSP CG through an unchanged PETSc program that loads bsrcustom with -dll_append
# and picks it with -dm_mat_type bsrcustom; the same solve on MATBAIJ runs beside it for comparison.
#   scripts/demo.sh [extra PETSc options]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build
"$root/scripts/setup.sh" "$build"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
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
echo "demo: backend $backend${vecopts:+, CUDA vectors}, OMP_NUM_THREADS=$OMP_NUM_THREADS"
# --bind-to none: Open MPI pins a rank to one core by default, which would stack the OpenMP threads there
exec mpiexec --bind-to none -n 1 "$build/examples/ksp_block_elasticity" -dll_append "$lib" \
  -dm_mat_type bsrcustom -mat_bsrcustom_backend "$backend" -compare_type baij -compare_assemble \
  -ksp_type cg -pc_type pbjacobi -ksp_rtol 1e-8 "${vecopts[@]}" "$@"
