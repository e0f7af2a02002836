#!/bin/bash
# ncu: L2 and L1 traffic of sliced and hybrid, warm (caches as the bench leaves them)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
V=build/variants; mkdir -p $OUT/n; NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_op_read_hit_rate.pct,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,lts__t_sectors_srcunit_tex.avg.pct_of_peak_sustained_elapsed,sm__memory_throughput.avg.pct_of_peak_sustained_elapsed
$NCU --clock-control none --cache-control none --kernel-name regex:"sliced_kernel|hybrid_kernel" --launch-skip ${SKIP:-2} --metrics $M --csv --page raw --print-units base \
  $V/${BIN:-bench_cur} --no-sweep --reps 2 --warmup 1 --only ${ONLY:-powerlaw_bs2,regular_bs2,powerlaw_bs4} > $OUT/n/ncu7.csv 2> $OUT/n/ncu7.err
echo "rc $?"; wc -l $OUT/n/ncu7.csv
cd $OUT && tar czf n.tgz n && rm -rf n
