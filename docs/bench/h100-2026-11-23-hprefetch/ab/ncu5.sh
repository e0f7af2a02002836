#!/bin/bash
# ncu counters: hybrid (and its fix-up) on power-law bs 2/4, warp_row and hybrid on the twins; base and H builds
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
V=build/variants; mkdir -p $OUT/n; NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__registers_per_thread,launch__occupancy_limit_registers,launch__grid_size,launch__block_size,sm__cycles_active.avg,gpc__cycles_elapsed.max,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
for s in long_scoreboard lg_throttle no_instruction short_scoreboard wait not_selected selected mio_throttle drain barrier branch_resolving tex_throttle; do M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio; done
for v in ${VARS:-base H}; do
$NCU --clock-control none --cache-control all --kernel-name regex:"warp_row_kernel|hybrid_kernel|piece_fixup|read_stream_kernel" --metrics $M --csv --page raw --print-units base \
  $V/bench_$v --no-sweep --reps 1 --warmup 0 --only ${ONLY:-powerlaw_bs2,regular_bs2} > $OUT/n/ncu-$v.csv 2> $OUT/n/ncu-$v.err
echo "$v rc $?"
done
cd $OUT && tar czf n.tgz n && rm -rf n
