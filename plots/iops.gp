# plots/iops.gp: IOPS median per config x state with the order-statistic CI
# of the median as error bars; one panel per workload.  Run by
# make-plots.sh (variables: see common.gp and catplot.gp; insn_time: 1
# where guest time counts instructions, bench/lib/accel.sh accel_exact).
if (!exists("insn_time")) insn_time = 0
ylabel = insn_time ? 'IOPS (guest time = instruction count)' : 'IOPS (I/O per second)'
style = 'points'
yfloor0 = 1
load plotdir . '/catplot.gp'
