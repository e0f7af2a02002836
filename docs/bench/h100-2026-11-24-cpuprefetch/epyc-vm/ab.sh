#!/bin/bash
# A/B on the 2-core VM: streams x prefetch, alternated, paired triad target
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd /work/main
for r in 1 2 3; do for cfg in "2 8192" "2 0" "1 8192" "1 0"; do set -- $cfg
  echo "== round $r streams $1 prefetch $2"
  mpiexec --bind-to none -n 1 -x OMP_NUM_THREADS=2 build/bench/bench_matmult -bench_types bsrcustom -bench_matrices thesis,stencil27 -bench_sweep false -bench_trials 7 -bench_time_budget 2 -mat_bsrcustom_cpu_streams $1 -mat_bsrcustom_cpu_prefetch $2 2>&1 | grep -E "^STREAM|TARGET.*triad|seqbsrcustom +[35] "
done; done
