# plots/latency-percentiles.gp: fio completion-latency percentiles p50,
# p99 and p99.9 per config/state, one panel per workload, two panels a row,
# log y.  Run by make-view-plots.sh with: plotdir, prefix (PREFIX.K.dat:
# "x p50 p99 p999 lo50 hi50 lo99 hi99 lo999 hi999 z50 z99 z999", a value
# NaN where it is 0 ns (zK 1: drawn at the bottom edge, labelled 0), lo/hi
# the CI of the median or NaN; PREFIX.K.gp: ptitle, pymin, pymax, and per
# percentile J the counts pnvJ, pneJ, pnzJ of values, CIs and zeros, the x
# tics), n (panels), term, out, title, sub1..sub4, random (1: the
# percentiles are random-class, tcg-icount: open symbols and a note in
# every panel that they are not comparable across rows).

if (!exists("random")) random = 0
load plotdir . '/common.gp'

# the key: the three percentiles (open symbols when random)
pc_rgb = "#0072B2 #E69F00 #D55E00"
pc_pt = random ? "6 4 8" : "7 5 9"
pc_name = "p50 p99 p99.9"
nkey = 3
do for [j=1:3] {
	KK[j] = 'pt'
	KT[j] = word(pc_name, j)
	KR[j] = word(pc_rgb, j)
	KP[j] = word(pc_pt, j) + 0
}
keycolw = 110
keycols = 3
keyrows = 1
hdr = keytop + 23 * keyrows + 52

ncols = (n > 1) ? 2 : 1
nrows = int((n + ncols - 1) / ncols)
ph = 370                    # per row of panels, with the x tic labels (px)
bot = 90                    # below the last row: three-line x tic labels
gap = 145                   # between rows: tic labels and the next title
# rows shorter (plot areas down to 150 px) where they would make the
# figure taller than HMAX (common.gp)
if (hdr + nrows * ph > HMAX) {
	ph = floor((HMAX - hdr) / nrows)
	ph = (ph < gap + 150) ? gap + 150 : ph
}
H = 1.0 * (hdr + nrows * ph)
eval setterm(int(W), int(H))
set output out

set multiplot layout nrows, ncols title title font F_title \
	margins 95.0 / W, 1 - 25.0 / W, bot / H, 1 - hdr / H \
	spacing (ncols > 1 ? 95.0 / W : 0), gap / H

set logscale y
set format y '%.0s%c'
set ylabel 'latency (ns)' font F_base
set xtics nomirror scale 0 font F_tics
set ytics nomirror (1000, 2000, 3000, 5000, 1e4, 2e4, 3e4, 5e4, 1e5, 2e5, 3e5, 5e5, 1e6, 2e6, 3e6, 5e6, 1e7, 2e7, 3e7, 5e7, 1e8)
set ytics font F_tics
# y tics 1-2-3-5 a decade, or 1-3, or 1, whichever keeps neighbouring
# labels at least 20 px apart on a panel spanning these decades
ticsA = "1000, 2000, 3000, 5000, 1e4, 2e4, 3e4, 5e4, 1e5, 2e5, 3e5, 5e5, 1e6, 2e6, 3e6, 5e6, 1e7, 2e7, 3e7, 5e7, 1e8"
ticsB = "1000, 3000, 1e4, 3e4, 1e5, 3e5, 1e6, 3e6, 1e7, 3e7, 1e8"
ticsC = "1000, 1e4, 1e5, 1e6, 1e7, 1e8"
ytics_for(decades) = ((ph - gap) / decades * log10(1.5) >= 20) ? ticsA \
	: ((ph - gap) / decades * log10(3) >= 20) ? ticsB : ticsC
do for [k=1:n] {
	dat = sprintf('%s.%d.dat', prefix, k)
	load sprintf('%s.%d.gp', prefix, k)
	unset label
	unset object
	if (k == 1) {
		eval setsubs
		load plotdir . '/key.gp'
	}
	set title ptitle font F_panel offset 0, -0.3
	ybot = pymin / 1.6
	set yrange [ybot : pymax * 2.5]
	eval 'set ytics (' . ytics_for(log10(pymax * 2.5 / ybot)) . ')'
	if (random) {
		set label 1 "random (tcg-icount):\nnot comparable across rows" \
			at graph 0.04, graph 0.96 left front font F_small tc rgb '#444444'
	}
	# p50, p99, p99.9 side by side within a category (close values
	# would hide each other)
	cmd = "plot "
	do for [j=1:3] {
		v = 1 + j
		xs = sprintf("($1 + %g)", (j - 2) * 0.1)
		if (value(sprintf('pne%d', j)) > 0) {
			cmd = cmd . sprintf("dat using %s:%d:(($%d > 0) ? $%d : ybot):%d with yerrorbars lc rgb '%s' lw 1.2 pt -1 notitle, ", \
				xs, v, 3 + 2 * j, 3 + 2 * j, 4 + 2 * j, word(pc_rgb, j))
		}
		if (value(sprintf('pnv%d', j)) > 0) {
			cmd = cmd . sprintf("dat using %s:%d with points pt %s ps 1.5 * PS lc rgb '%s' notitle, ", xs, v, word(pc_pt, j), word(pc_rgb, j))
		}
		if (value(sprintf('pnz%d', j)) > 0) {
			cmd = cmd . sprintf("dat using %s:($%d > 0 ? ybot : NaN):('0') with labels point pt 2 ps PS lc rgb '%s' tc rgb '%s' offset 0, 0.8 font F_small notitle, ", \
				xs, 10 + j, word(pc_rgb, j), word(pc_rgb, j))
		}
	}
	if (cmd eq "plot ") { cmd = "plot NaN notitle, " }
	eval substr(cmd, 1, strlen(cmd) - 2)
	eval logrange
}
unset multiplot
set output
