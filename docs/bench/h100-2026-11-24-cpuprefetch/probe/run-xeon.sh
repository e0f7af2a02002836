#!/bin/bash
# prefetch / block-sum probe on the GPU host's CPU
cd "$(dirname "$0")"
lscpu | grep -E "Model name|^CPU\(s\)|L3" ; cat /sys/kernel/mm/transparent_hugepage/enabled
for pass in 1 2; do
  for v in base blk pf512 blkpf256 blkpf512 blkpf1024 blkpf1024t0 blkpf2048; do
    for bs in 5 3; do
      echo "$pass $v $(OMP_PROC_BIND=spread OMP_PLACES=cores ./$v 20 16 $bs 4 2400 | sed 's/readsum [0-9.]* //')"
    done
  done
done
