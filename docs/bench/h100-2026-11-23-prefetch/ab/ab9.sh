#!/bin/bash
# A/B of variant bench binaries, alternated: VARS, ONLY, ROUNDS; stops starting runs after DEADLINE s.
# Prints sliced's, hybrid's and auto's median ms and % copy per matrix.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
V=build/variants; mkdir -p $OUT/p; t0=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.memory --format=csv,noheader
if [[ -n ${TESTS:-} ]]; then timeout ${TTIME:-240} stdbuf -oL build/tests/cuda/test_cuda_kernels > $OUT/p/test_cuda_kernels.log 2>&1; echo "tests rc=$? [$((SECONDS-t0))s]"; grep -E "FAIL" $OUT/p/test_cuda_kernels.log | head -20; tail -1 $OUT/p/test_cuda_kernels.log; fi
for r in ${ROUNDS:-1 2}; do for v in ${VARS:-base grp grpx}; do
  (( SECONDS - t0 > ${DEADLINE:-500} )) && { echo "deadline: stop before $v $r"; break 2; }
  $V/bench_$v --no-sweep --reps ${REPS:-30} --warmup 5 --only ${ONLY:-powerlaw_bs2,powerlaw_bs4,regular_bs2,stencil7_bs3} $EXTRA > $OUT/p/ab-$v-$r.log 2>&1
  echo "$v $r [$((SECONDS-t0))s] $(grep -E "^[a-z_0-9]+ +(auto|sliced) +0 |^[a-z_0-9]+ +auto \(beta=1\) +1 " $OUT/p/ab-$v-$r.log | awk '{if ($3=="(beta=1)") printf "%s/b1:%s:%s ", $1,$6,$9; else printf "%s/%s:%s:%s ", $1,substr($2,1,2),$5,$8}')"
  grep -ciE "fail|mismatch" $OUT/p/ab-$v-$r.log
done; done
grep -h "REFERENCE\|same bytes\|vs best cuSPARSE\|twin\|copy" $OUT/p/ab-*-1.log | sort | uniq | head -30
cd $OUT && tar czf p.tgz p && rm -rf p
