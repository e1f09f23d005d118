# plots/cycles.gp: guest PMU cycles per I/O (cycles_per_io, KVM with a
# vPMU only) per config x state with the CI of the median; one panel per
# workload.  Run by make-plots.sh (variables: see common.gp, catplot.gp).
ylabel = 'CPU cycles per I/O (guest PMU)'
style = 'points'
yfloor0 = 1
load plotdir . '/catplot.gp'
