# plots/relative.gp: IOPS change vs the baseline (rel_change_pct) per
# config x state with its interval, a shaded +-threshold band and a
# zero line; one panel per workload.  Values beyond +-clip percent are
# drawn at the edge of the axis with their value printed.  Run by
# make-plots.sh (variables: see common.gp and catplot.gp; baseline =
# 'config/state', threshold and clip in percent).
if (!exists("threshold")) threshold = 1.0
if (!exists("clip")) clip = 5.0
if (!exists("baseline")) baseline = 'baseline'
ylabel = sprintf('IOPS change vs %s (%%)', baseline)
style = 'points'
band = threshold
zeroline = 1
keyx_kind = 'box'
keyx_text = sprintf('±%g%% threshold', threshold)
keyx_rgb = '#e0e0e0'
load plotdir . '/catplot.gp'
