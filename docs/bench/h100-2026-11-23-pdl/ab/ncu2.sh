#!/bin/bash
# ncu counters of warp_row (bs 2, 3, 4 stencils) and of the read-only reference kernel
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
V=build/variants; mkdir -p $OUT/n; NCU=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__registers_per_thread,launch__occupancy_limit_registers,launch__grid_size,launch__block_size,sm__cycles_active.avg,gpc__cycles_elapsed.max,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct
for s in long_scoreboard lg_throttle no_instruction short_scoreboard wait math_pipe_throttle not_selected selected dispatch_stall mio_throttle drain imc_miss barrier membar branch_resolving sleeping tex_throttle misc; do M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio; done
$NCU --clock-control none --kernel-name regex:"warp_row_kernel|read_stream_kernel|hybrid_kernel" --metrics $M --csv --page raw --print-units base \
  $V/bench_pdl --no-sweep --reps 1 --warmup 0 --only ${ONLY:-stencil27_bs2,stencil27_bs4,stencil7_bs3,regular_bs2,powerlaw_bs4} > $OUT/n/ncu.csv 2> $OUT/n/ncu.err
cd $OUT && tar czf n.tgz n && rm -rf n
