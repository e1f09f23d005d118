# plots/catplot.gp: a categorical figure, one panel per workload, x = the
# states, one point (or bar) per config within each state, coloured by
# config.  Loaded by iops.gp, relative.gp, insns-per-call.gp and cycles.gp,
# which set the figure-specific variables below; the rest comes from the
# driver (see common.gp), plus:
#   npanels   number of panels (PREFIX.p1 .. PREFIX.pN, see reshape.awk)
# Figure variables:
#   ylabel    y axis label
#   style     'points' (median with CI error bars) or 'bars' (from 0, or
#             from the bottom of a log axis, with value labels on top)
#   logy      1 = log y axis (bars with a wide value range)
#   band      > 0: shade -band..+band on y (relative threshold), 0 = none
#   zeroline  1 = draw y = 0
#   clip      > 0: (points) the y axis shows at most -clip..+clip; values
#             beyond are drawn as a triangle at the edge with the value
#             printed next to it (so that one large change does not squash
#             the +-band); 0 = show everything.  A panel is cut only
#             when reshape.awk says so (pcut: it has values on both sides
#             of the cut); a panel whose values all lie beyond it is
#             drawn whole, with their intervals
#   yfloor0   1 = (points) the y axis starts at 0, so that a spread of a
#             fraction of a percent between absolute values (IOPS) is not
#             magnified to fill the panel; the relative figure shows changes
# A row of the random class (rnd, column 7) is an open symbol without
# error bars: it has no interval and no verdict.  A note (column 8, when
# the panel has one: pnote) is printed under each point, in a row along
# the bottom of the panel.
# Panels are one column, one under another, unless that would make the
# figure taller than HMAX (common.gp; the views run's eight or nine
# workloads): then they are a grid of two columns (grid = 1), each row
# one group of workloads (reshape.awk: pgrow, pgcol, the view's qd1 and
# deep workload side by side), the state names wrapped instead of
# rotated, one y axis label for the whole figure, and the plot areas as
# tall as fits in HMAX (at most the one-column height, at least GPMIN).

if (!exists("style")) style = 'points'
keykind = (style eq 'bars') ? 'box' : 'pt'
load plotdir . '/common.gp'
if (!exists("logy")) logy = 0
if (!exists("band")) band = 0
if (!exists("zeroline")) zeroline = 0
if (!exists("clip")) clip = 0
if (!exists("yfloor0")) yfloor0 = 0

# rotated state names (x tics) need more room below each plot area
anyrot = 0
grid = 0
grows = 1
glines = 1
do for [p=1:npanels] {
	load sprintf('%s.p%d.gp', prefix, p)
	if (prot) { anyrot = 1 }
	if (pgrow > grows) { grows = pgrow }
	if (pglines > glines) { glines = pglines }
}
# hdr (title block and key, px) comes from common.gp
ph = anyrot ? 420 : 345     # per panel, including its title and x tic labels (px)
bot = anyrot ? 150 : 60     # below the last plot area: the state names (up to ~24 characters at 30 degrees)
gap = anyrot ? 195 : 115    # between plot areas: tic labels + next panel title
H = 1.0 * (hdr + npanels * ph)
if (H > HMAX && grows < npanels) {
	grid = 1
	GPMIN = 150                 # least plot-area height of a grid row (px)
	gtl = 12 + 17 * glines      # below a plot area: its wrapped state names
	ggap = gtl + 62             # between plot areas: state names + next panel title
	gbot = gtl + 14
	gp = floor((HMAX - hdr - (grows - 1) * ggap - gbot) / grows)
	gp = (gp > ph - gap) ? ph - gap : (gp < GPMIN) ? GPMIN : gp
	H = 1.0 * (hdr + grows * gp + (grows - 1) * ggap + gbot)
	glm = 110.0                 # left of the first column: y tics (the y label is shared)
	gcg = 85.0                  # between the columns: the second one's y tics
	gcw = (W - glm - 25.0 - gcg) / 2
}
eval setterm(int(W), int(H))
set output out

if (grid) {
	set multiplot title title font F_title
} else {
	set multiplot layout npanels, 1 title title font F_title \
		margins 125.0 / W, 1 - 25.0 / W, bot / H, 1 - hdr / H spacing 0, gap / H
}

# Plot commands are built as strings for eval, so that optional elements
# are only added when they have data (gnuplot would warn about an empty
# selection even inside an empty 'for' iteration).
errbars = "dat using 1:2:3:4:5 with yerrorbars lc variable lw 1.5 pt -1 notitle, "

# gridtics(lo, hi): in a grid cell, at most about six y tics (a step of
# 1, 2, 2.5 or 5 times a power of ten); gnuplot's own choice for a
# one-column panel would crowd the shorter axis
ngstep(r) = (r <= 1) ? 1 : (r <= 2) ? 2 : (r <= 2.5) ? 2.5 : (r <= 5) ? 5 : 10
gstep(d) = (d <= 0) ? 1 : ngstep(d / 6 / 10 ** floor(log10(d / 6))) * 10 ** floor(log10(d / 6))
gridtics(lo, hi) = sprintf("set ytics %.10g", gstep(hi - lo))

do for [p=1:npanels] {
	dat = sprintf('%s.p%d.dat', prefix, p)
	load sprintf('%s.p%d.gp', prefix, p)
	set title ptitle font F_panel offset 0, -0.3
	unset object
	unset label
	unset logscale y
	set format y '%g'
	if (grid) {
		unset ylabel
		gx = glm + (pgcol - 1) * (gcw + gcg)
		gy = hdr + (pgrow - 1) * (gp + ggap)
		set lmargin at screen gx / W
		set rmargin at screen (gx + gcw) / W
		set tmargin at screen 1 - gy / H
		set bmargin at screen 1 - (gy + gp) / H
	} else {
		set ylabel ylabel font F_base
	}
	if (p == 1) {
		eval setsubs
		load plotdir . '/key.gp'
		if (grid) {
			set label 100 ylabel at screen 14.0 / W, screen 1 - (hdr + (H - hdr - gbot) / 2) / H \
				rotate by 90 center font F_base front
		}
	}

	if (style eq 'bars') {
		if (logy) {
			set logscale y
			ylo = 10 ** floor(log10(pymin))
			set yrange [ylo : pymax * 6]
		} else {
			ylo = 0
			set yrange [0 : pymax * 1.22]
		}
		if (grid) {
			if (logy) { set ytics autofreq } else { eval gridtics(0, pymax * 1.22) }
		}
		cmd = "plot dat using 1:2:($1 - 0.5 * pbw):($1 + 0.5 * pbw):(ylo):2:5 with boxxyerror lc variable notitle, " \
			. (pnerr > 0 ? errbars : "") \
			. "dat using 1:2:6 with labels rotate by 90 left offset 0, 0.35 font F_small notitle"
		eval cmd
	} else {
		lo_ = pymin
		hi_ = pymax
		offlo = 0
		offhi = 0
		cut = (clip > 0 && pcut)
		if (cut) {
			if (pvmin < -clip) { offlo = 1 }
			if (pvmax > clip) { offhi = 1 }
			if (lo_ < -clip) { lo_ = -clip }
			if (hi_ > clip) { hi_ = clip }
		}
		if (yfloor0 && lo_ > 0) { lo_ = 0 }
		if (band > 0) {
			if (lo_ > -1.5 * band) { lo_ = -1.5 * band }
			if (hi_ < 1.5 * band) { hi_ = 1.5 * band }
			set object 1 rectangle from graph 0, first -band to graph 1, first band \
				fc rgb '#e0e0e0' fs solid 1.0 noborder behind
		}
		d = hi_ - lo_
		if (d <= 0) { d = (abs(hi_) > 0) ? abs(hi_) * 0.5 : 1 }
		# notes (column 8): a row of them along the bottom of the panel
		ynote = lo_ - 0.16 * d
		set yrange [(yfloor0 && lo_ == 0) ? 0 : lo_ - (pnote ? 0.24 : 0.08) * d : hi_ + 0.08 * d]
		if (grid) { eval gridtics((yfloor0 && lo_ == 0) ? 0 : lo_ - (pnote ? 0.24 : 0.08) * d, hi_ + 0.08 * d) }
		if (zeroline) {
			set arrow from graph 0, first 0 to graph 1, first 0 nohead lc rgb '#000000' lw 1.2 front
		}
		inrange = cut ? "(abs($2) > clip ? NaN : $2)" : "2"
		cmd = "plot " . (pnerr > 0 ? errbars : "") \
			. "dat using 1:" . inrange . ":($7 > 0 ? ptopen($5) : ptof($5)):5 with points pt variable lc variable ps 1.4 * PS notitle, "
		if (pnote) {
			cmd = cmd . "dat using 1:(ynote):8:5 with labels tc variable font F_small notitle, "
		}
		if (offlo) {
			cmd = cmd . "dat using 1:($2 < -clip ? -clip : NaN):($7 > 0 ? 10 : 11):5 with points pt variable ps 1.8 * PS lc variable notitle, " \
				. "dat using 1:($2 < -clip ? -clip : NaN):(sprintf('%.1f%%', $2)) with labels rotate by 90 left offset 0, 1 font F_small notitle, "
		}
		if (offhi) {
			cmd = cmd . "dat using 1:($2 > clip ? clip : NaN):($7 > 0 ? 8 : 9):5 with points pt variable ps 1.8 * PS lc variable notitle, " \
				. "dat using 1:($2 > clip ? clip : NaN):(sprintf('%+.1f%%', $2)) with labels rotate by 90 right offset 0, -1 font F_small notitle, "
		}
		eval substr(cmd, 1, strlen(cmd) - 2)
	}
	eval logrange
}
unset multiplot
set output
