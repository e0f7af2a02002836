#!/bin/bash
# bench_matmult at its defaults (streams PETSC_DECIDE: 1 on 2 threads), 2 threads, paired target, for $1 seconds
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd /work/main; end=$((SECONDS+${1:-600})); i=0
while (( SECONDS < end )); do
  i=$((i+1)); echo "== run $i streams 1 $(date +%T)"
  mpiexec --bind-to none -n 1 -x OMP_NUM_THREADS=2 build/bench/bench_matmult -bench_types bsrcustom -bench_matrices stencil27,thesis -bench_sweep false -bench_trials 7 -bench_time_budget 2 2>&1 | grep -E 'TARGET.*paired' | sed 's/seqbsrcustom 2 thread(s) MatMult at least 90% of the STREAM triad with as many threads, paired//'
done
echo loop-done
