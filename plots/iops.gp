# plots/iops.gp: IOPS median per config x state with the order-statistic CI
# of the median as error bars; one panel per workload.  Run by
# make-plots.sh (variables: see common.gp and catplot.gp; accel).
if (!exists("accel")) accel = ''
ylabel = (accel eq 'tcg-icount') ? 'IOPS (guest time = instruction count)' : 'IOPS (I/O per second)'
style = 'points'
yfloor0 = 1
load plotdir . '/catplot.gp'
