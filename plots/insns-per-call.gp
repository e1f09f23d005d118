# plots/insns-per-call.gp: instructions per call of
# submit_bio_noacct_nocheck per config x state, as bars with their value on
# top (error bars only where the CI is not a single point); log y axis when
# the values span more than a factor 30.  Run by make-plots.sh (variables:
# see common.gp and catplot.gp; ymin, ymax = data range of the figure).
ylabel = 'instructions per call'
style = 'bars'
logy = (exists("ymin") && exists("ymax") && ymin > 0 && ymax / ymin > 30) ? 1 : 0
load plotdir . '/catplot.gp'
