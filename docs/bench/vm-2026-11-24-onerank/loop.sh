#!/bin/bash
# 12 runs of the 2-rank case's one-rank comparison (bench_matmult -bench_one_rank, the default), make bench's settings
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for i in $(seq 1 12); do
  echo "=== run $i $(date -u +%H:%M:%S)"
  mpiexec --oversubscribe --bind-to core -n 2 -x OMP_NUM_THREADS=1 /work/main/build/bench/bench_matmult -bench_types baij -bench_trials 7 -bench_time_budget 3 2>&1 | grep -E "triad \(|^(thesis|stencil27) +[0-9]|TARGET"
done
