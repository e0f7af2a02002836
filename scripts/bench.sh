#!/usr/bin/env bash
# Sets everything up, builds if needed, then runs the CPU MatMult benchmark (bench/bench_matmult) in the
# configurations of docs/performance-cpu.md; every case writes $build/bench/<case>.json and <case>.log:
#   cpu-1rank-1thread     1 rank,  OMP_NUM_THREADS=1:      baij vs bsrcustom (the 1-thread target)
#   cpu-1rank-<N>threads  1 rank,  OMP_NUM_THREADS=nproc:  baij vs bsrcustom, thread and chunks-per-thread
#                                                          sweeps (the STREAM target)
#   cpu-<P>ranks-1thread  P = 2 (and nproc if > 2) ranks x 1 thread: mpibaij vs mpibsrcustom and the
#                                                          overlap table of the halo exchange
# Ends with every TARGET line (PASS/MISS) of all cases.
#   scripts/bench.sh [build-dir]                     (default: build)
# Environment:
#   BENCH_TIME_BUDGET <3>      seconds of timed calls per matrix, type and operation (-bench_time_budget)
#   BENCH_SWEEP_BUDGET <1.5>   the same for each sweep point (-bench_sweep_time_budget)
#   BENCH_TRIALS <7>           trials per measurement, the median is reported (-bench_trials)
#   BENCH_ARGS                 more bench_matmult options for every case (e.g. -bench_matrices thesis)
#   BENCH_SKIP_SETUP=1         do not call scripts/setup.sh (the build must exist)
# With the defaults a 2-core machine needs about 2 minutes after the build (113-123 s measured); the
# thread sweep grows with nproc. Run it on an otherwise idle machine and compare several runs.
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
run cpu-1rank-1thread 1 1 -bench_sweep false
run "cpu-1rank-${ncpu}threads" 1 "$ncpu"
run cpu-2ranks-1thread 2 1
if ((ncpu > 2)); then
  run "cpu-${ncpu}ranks-1thread" "$ncpu" 1
fi

echo
echo "=== targets (bench/bench_matmult; JSON and logs in $out), $((SECONDS - start)) s, load average now $(cut -d' ' -f1-3 /proc/loadavg)"
echo "    (the machine must be otherwise idle: other processes on the cores slow OpenMP barriers and MPI, see docs/performance-cpu.md)"
for log in "${logs[@]}"; do
  grep -h '^TARGET ' "$log" | sed "s|^|$(basename "$log" .log): |" || true
done
