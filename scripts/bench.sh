#!/usr/bin/env bash
# Sets everything up, builds if needed, then runs the CPU MatMult benchmark (bench/bench_matmult) in the
# configurations of docs/performance.md; every case writes $build/bench/<case>.json and <case>.log:
#   cpu-1rank-1thread     1 rank,  OMP_NUM_THREADS=1:      baij vs bsrcustom (the 1-thread target)
#   cpu-1rank-<N>threads  1 rank,  OMP_NUM_THREADS=nproc:  baij vs bsrcustom, thread and chunks-per-thread
#                                                          sweeps (the STREAM target)
#   cpu-<P>ranks-1thread  P = 2 (and nproc if > 2) ranks x 1 thread: mpibaij vs mpibsrcustom and the
#                                                          overlap table of the halo exchange; with P = nproc
#                                                          also 1 rank x P threads against MATBAIJ on P ranks
#                                                          and on 1 rank, timed in the same run (-bench_one_rank)
# Where a GPU is present (and the build has CUDA), also:
#   gpu            build/bench/bench_cuda: every kernel and cuSPARSE path on every matrix, copy bandwidth,
#                  Table 13 of the thesis (gpu.json, gpu.log); a Jacobian of PETSc's snes ex19 is saved
#                  with -ksp_view_mat binary and included when the example was built
#   gpu-staging    bench_cuda --staging: host-vector products against kernel + pinned transfers
#   gpu-spmm       bench_cuda --spmm: the block SpMM (k = 1, 4, 8, 32) against a product per column and
#                  cuSPARSE's SpMM paths (gpu-spmm.json, gpu-spmm.log)
#   gpu-petsc      bench_matmult with -mat_bsrcustom_backend cuda: PETSc MatMult with host vectors
#   ksp-*          end to end: the main job (CG + PBJacobi, 3D elasticity) with MATBAIJ on nproc ranks,
#                  bsrcustom on the CPU (1 rank x nproc threads), bsrcustom cuda on 1 rank and on 4 ranks
#                  sharing the GPU
# Ends with every TARGET line (PASS/MISS) of all cases, then bench/report.py: the targets that compare
# runs, targets.md and the PNG charts (python3-matplotlib) in the same folder.
#   scripts/bench.sh [build-dir]                     (default: build)
# Environment:
#   BENCH_TIME_BUDGET <3>      seconds of timed calls per matrix, type and operation (-bench_time_budget)
#   BENCH_SWEEP_BUDGET <1.5>   the same for each sweep point (-bench_sweep_time_budget)
#   BENCH_TRIALS <7>           trials per measurement, the median is reported (-bench_trials)
#   BENCH_ARGS                 more bench_matmult options for every case (e.g. -bench_matrices thesis)
#   BENCH_SKIP_SETUP=1         do not call scripts/setup.sh (the build must exist)
#   BENCH_CPU=0 / BENCH_GPU=0  leave out the CPU cases / the GPU cases
#   BENCH_KSP_N <60>           nodes per direction of the end-to-end runs
# With the defaults a 2-core machine needs a few minutes after the build; the thread sweep grows with
# nproc. Run it on an otherwise idle machine and compare several runs.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
case $build in /*) ;; *) build=$PWD/$build ;; esac

if [[ ${BENCH_SKIP_SETUP:-0} != 1 ]]; then
  "$root/scripts/setup.sh" "$build"
fi
exe=$build/bench/bench_matmult
[[ -x $exe ]] || { echo "bench: $exe is missing (build failed?)" >&2; exit 1; }

# Open MPI refuses to run as root without these (CI and the GPU hosts run as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ncpu=$(nproc)
budget=${BENCH_TIME_BUDGET:-3}
sweep_budget=${BENCH_SWEEP_BUDGET:-1.5}
trials=${BENCH_TRIALS:-7}
read -r -a extra <<<"${BENCH_ARGS:-}"
out=$build/bench
mkdir -p "$out"

logs=()
# run <case> <ranks> <threads> <bench options...>
run() {
  local name=$1 ranks=$2 threads=$3
  shift 3
  local bind=(--bind-to none) # Open MPI pins each rank to one core by default: wrong for OpenMP threads
  if ((threads == 1 && ranks <= ncpu)); then bind=(--bind-to core); fi
  # shellcheck disable=SC2054 # the commas are in -bench_types baij,bsrcustom
  local cmd=(mpiexec --oversubscribe "${bind[@]}" -n "$ranks" -x OMP_NUM_THREADS="$threads"
             "$exe" -bench_types baij,bsrcustom -bench_trials "$trials" -bench_time_budget "$budget"
             -bench_sweep_time_budget "$sweep_budget" -bench_json "$out/$name.json" "$@" "${extra[@]}")
  echo
  echo "=== bench case $name: $ranks rank(s) x $threads thread(s), $(date -u '+%Y-%m-%d %H:%M:%S UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "    OMP_NUM_THREADS=$threads ${cmd[*]}"
  OMP_NUM_THREADS=$threads "${cmd[@]}" 2>&1 | tee "$out/$name.log"
  logs+=("$out/$name.log")
}

start=$SECONDS
echo "bench: $(lscpu | sed -n 's/^Model name: *//p'), $ncpu CPU(s); load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ ${BENCH_CPU:-1} != 0 ]]; then
  run cpu-1rank-1thread 1 1 -bench_sweep false
  run "cpu-1rank-${ncpu}threads" 1 "$ncpu"
  if ((ncpu > 2)); then
    run cpu-2ranks-1thread 2 1 -bench_one_rank false
    run "cpu-${ncpu}ranks-1thread" "$ncpu" 1
  else
    run cpu-2ranks-1thread 2 1
  fi
fi

# ---- GPU ----
gpu=0
if [[ ${BENCH_GPU:-1} != 0 && -x $build/bench/bench_cuda ]] && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  gpu=1
fi
if ((gpu)); then
  echo
  echo "=== GPU: $(nvidia-smi -L | head -1), $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  jac=()
  ex19=$build/tests/examples/petsc_snes_ex19
  if [[ -x $ex19 ]]; then
    # a real Jacobian: snes ex19 (driven cavity, 4 fields) on a 640^2 grid, saved at its first linear solve
    (cd "$out" && mpiexec -n 1 "$ex19" -da_grid_x 640 -da_grid_y 640 -snes_max_it 1 -ksp_max_it 1 -ksp_view_mat binary:ex19_jacobian.bin > ex19_jacobian.log 2>&1) &&
      jac=(--jacobian "$out/ex19_jacobian.bin:4")
  fi
  echo "    $build/bench/bench_cuda --json $out/gpu.json ${jac[*]}"
  "$build/bench/bench_cuda" --json "$out/gpu.json" "${jac[@]}" 2>&1 | tee "$out/gpu.log"
  logs+=("$out/gpu.log")
  echo "    $build/bench/bench_cuda --staging"
  OMP_NUM_THREADS=$ncpu "$build/bench/bench_cuda" --staging 2>&1 | tee "$out/gpu-staging.log"
  logs+=("$out/gpu-staging.log")
  echo "    $build/bench/bench_cuda --spmm --json $out/gpu-spmm.json"
  "$build/bench/bench_cuda" --spmm --json "$out/gpu-spmm.json" 2>&1 | tee "$out/gpu-spmm.log" || echo "    (bench_cuda --spmm failed, see $out/gpu-spmm.log)"
  logs+=("$out/gpu-spmm.log")
  # PETSc MatMult with host vectors on the same two matrices as the staging run (stencil: 52^3 grid, bs 3)
  run gpu-petsc 1 "$ncpu" -bench_sweep false -bench_matrices thesis,stencil27 -stencil_n 52 -mat_bsrcustom_backend cuda

  # end to end: the main job, same problem, four ways
  n=${BENCH_KSP_N:-60}
  ex=$build/examples/ksp_block_elasticity
  lib=$build/src/mat/impls/bsrcustom/libpetscbsrcustom.so
  common=(-ksp_type cg -pc_type pbjacobi -ksp_rtol 1e-8 -nx "$n" -ny "$n" -nz "$n")
  ksp() {
    local name=$1 ranks=$2 threads=$3
    shift 3
    echo "    ksp-$name: OMP_NUM_THREADS=$threads mpiexec -n $ranks $ex ${common[*]} $*"
    OMP_NUM_THREADS=$threads mpiexec --oversubscribe --bind-to none -n "$ranks" -x OMP_NUM_THREADS="$threads" "$ex" "${common[@]}" "$@" > "$out/ksp-$name.log" 2>&1 || echo "    (failed, see $out/ksp-$name.log)"
    grep -E "^Solve|^Timing" "$out/ksp-$name.log" | sed 's/^/      /'
  }
  ksp "baij-${ncpu}ranks" "$ncpu" 1 -dm_mat_type baij
  ksp "bsrcustom-cpu-1rank-${ncpu}threads" 1 "$ncpu" -dll_append "$lib" -dm_mat_type bsrcustom
  ksp bsrcustom-cuda-1rank 1 "$ncpu" -dll_append "$lib" -dm_mat_type bsrcustom -mat_bsrcustom_backend cuda
  ksp bsrcustom-cuda-4ranks-1gpu 4 $((ncpu / 4 > 0 ? ncpu / 4 : 1)) -dll_append "$lib" -dm_mat_type bsrcustom -mat_bsrcustom_backend cuda -mat_bsrcustom_cuda_device 0
else
  echo
  echo "=== GPU cases skipped: no NVIDIA GPU here (or BENCH_GPU=0, or a build without CUDA)"
fi

echo
echo "=== targets (bench/bench_matmult; JSON and logs in $out), $((SECONDS - start)) s, load average now $(cut -d' ' -f1-3 /proc/loadavg)"
echo "    (the machine must be otherwise idle: other processes on the cores slow OpenMP barriers and MPI, see docs/performance.md)"
for log in "${logs[@]}"; do
  grep -h '^TARGET ' "$log" | sed "s|^|$(basename "$log" .log): |" || true
done

py=python3
[[ -x /usr/bin/python3 ]] && py=/usr/bin/python3 # Debian's python3-matplotlib belongs to Debian's python
"$py" "$root/bench/report.py" "$out"
