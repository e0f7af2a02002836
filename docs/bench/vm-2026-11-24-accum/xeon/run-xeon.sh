#!/bin/bash
# (session probe, not committed) streams 1 vs 2 on the GPU host's 16-core Xeon
set -u
: "${OUT:=/tmp/out}"; mkdir -p $OUT
grep -c "owned_rows" src/mat/impls/bsrcustom/kernels/bsrk_tasks_omp.cpp
bash scripts/gpu-host.sh build > $OUT/build.log 2>&1; tail -2 $OUT/build.log
source .kit/env.sh; export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
lscpu | grep -E "Model name|^CPU\(s\)"
B=build-gpu/bench/bench_matmult
big="-thesis_rows 64000 -thesis_density 0.025 -stencil_n 72 -stream_mb 2400"
run() { echo "== $1 streams $2 $(date +%T)"; timeout 150 mpiexec --bind-to none -n 1 -x OMP_NUM_THREADS=16 $B -bench_types bsrcustom -bench_matrices thesis,stencil27 $3 -bench_sweep false -bench_trials 7 -bench_time_budget 2 -mat_bsrcustom_cpu_streams $2 2>&1 | tee -a $OUT/xeon-full.log | grep -E "TARGET.*paired|^(thesis|stencil27) " | sed 's/seqbsrcustom 16 thread(s) MatMult at least 90% of the STREAM triad with as many threads, paired//'; }
run big 1 "$big"; run big 2 "$big"; run std 1 ""; run std 2 ""; run big 2 "$big"; run big 1 "$big"; run std 2 ""; run std 1 ""
