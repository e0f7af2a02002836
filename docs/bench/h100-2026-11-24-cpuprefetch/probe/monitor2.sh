#!/bin/bash
# Waits for the VM's fast regime; then runs bench_matmult before (old) and after (new) the untimed calls in the pairs.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd /work/main; end=$((SECONDS+1500)); hits=0; slow=0
run() { mpiexec --bind-to none -n 1 -x OMP_NUM_THREADS=2 $1 -bench_types bsrcustom -bench_matrices stencil27,thesis -bench_sweep false -bench_trials 7 -bench_time_budget 2 2>&1 | grep -E 'TARGET.*triad|seqbsrcustom +[35] ' | sed 's/seqbsrcustom 2 thread(s) MatMult at least 90% of the STREAM triad with as many threads, paired//'; }
while (( SECONDS < end && hits < 4 )); do
  t=$(/tmp/probe/readceil 5 2 | sed 's/.*triad med \([0-9.]*\).*/\1/')
  echo "$(date +%T) triad $t"
  if (( ${t%.*} >= 68 )) || (( slow < 1 && ${t%.*} < 55 )); then
    if (( ${t%.*} >= 68 )); then hits=$((hits+1)); echo "== fast regime $(date +%T)"; else slow=1; echo "== slow regime $(date +%T)"; fi
    if (( hits % 2 == 0 )); then order="new old"; else order="old new"; fi
    for w in $order; do
      [[ $w == old ]] && b=/tmp/probe/bench_matmult_old || b=build/bench/bench_matmult
      echo "-- $w $(date +%T)"; run $b
    done
    /tmp/probe/readceil 5 2
  fi
  sleep 10
done
echo monitor-done
