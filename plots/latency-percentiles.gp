# plots/latency-percentiles.gp: fio completion-latency percentiles p50,
# p99 and p99.9 per config/state, one panel per workload, log y.  Run by
# make-view-plots.sh with: prefix (PREFIX.K.dat: "x 'config/state' p50 p99
# p999"), n (panels), names (workloads, space-separated), term, out, sub.

W = 1000
ph = 300
hdr = 110
n_cat(f) = system(sprintf('wc -l < %s', f)) + 0
H = hdr + n * ph + 40
if (term eq 'svg') {
	set terminal svg size W, H font 'DejaVu Sans,12' background rgb 'white'
} else {
	set terminal pngcairo size W, H font 'DejaVu Sans,11' background rgb 'white'
}
set output out
set multiplot title sprintf("fio completion latency percentiles per config and state\n{/*0.8 %s; log y}\n{/*0.8 ● p50    ■ p99    ▲ p99.9}", sub)
set logscale y
set grid ytics lc rgb '#dddddd'
set border 3
set ytics nomirror (1000, 2000, 5000, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 2e7, 5e7, 1e8)
set format y '%.0s%c'
set xtics nomirror scale 0
set ylabel 'latency (ns)'
unset key
set lmargin at screen 0.1
set rmargin at screen 0.97
do for [k=1:n] {
	f = sprintf('%s.%d.dat', prefix, k)
	top = 1 - (hdr + (k - 1) * ph + 25.0) / H
	set tmargin at screen top
	set bmargin at screen top - (ph - 85.0) / H
	set title word(names, k)
	set autoscale
	stats f using 3 nooutput
	lo = STATS_min
	stats f using 5 nooutput
	hi = STATS_max
	set yrange [lo / 1.5 : hi * 1.5]
	set xrange [-0.5 : n_cat(f) - 0.5]
	plot f using 1:3:xtic(2) pt 7 ps 1.5 lc rgb '#0072b2', \
		'' using 1:4 pt 5 ps 1.4 lc rgb '#e69f00', \
		'' using 1:5 pt 9 ps 1.6 lc rgb '#d55e00'
}
unset multiplot
set output
