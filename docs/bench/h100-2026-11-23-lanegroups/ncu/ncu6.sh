#!/bin/bash
# ncu counters: sliced (sorted layout), hybrid and the read of the same bytes on power-law bs 2 and 4, cold caches
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
V=build/variants; mkdir -p $OUT/n; NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
$NCU --clock-control none --cache-control all --kernel-name regex:"sliced_kernel|hybrid_kernel|piece_fixup|read_stream_kernel|copy" --metrics $M --csv --page raw --print-units base \
  $V/bench_final --no-sweep --reps 1 --warmup 0 --only ${ONLY:-powerlaw_bs2,powerlaw_bs4} > $OUT/n/ncu-final.csv 2> $OUT/n/ncu-final.err
echo "rc $?"; wc -l $OUT/n/ncu-final.csv
cd $OUT && tar czf n.tgz n && rm -rf n
