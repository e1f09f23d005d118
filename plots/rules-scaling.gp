# plots/rules-scaling.gp: cost vs the number N of rules on the target disk
# (states rules-N), log x; one line per config that has such states, the
# configs side by side around each N (dodged, see reshape.awk) so that equal
# values do not hide each other.  Each config's key-off value (no rules,
# N = 0, which a log axis cannot show) is a point in its colour at a "0"
# slot left of a dotted break.  Panels: one row per workload, one
# column per metric (insns_per_call, iops; those present).  Run by
# make-plots.sh; variables: see common.gp, plus
#   nrows, ncols   panel grid (PREFIX.rIcJ.{dat,ref,gp}, see reshape.awk)
#   insn_time      1 where guest time counts instructions (the IOPS axis label)

if (!exists("insn_time")) insn_time = 0
keykind = 'lp'
load plotdir . '/common.gp'

ylab(m) = (m eq 'insns_per_call') ? 'instructions per call' \
	: (m eq 'blk_error_inject_insns_per_call') ? 'instructions per call' \
	: (m eq 'iops') ? (insn_time ? 'IOPS (guest time = insn count)' : 'IOPS (I/O per second)') \
	: m
mname(m) = (m eq 'insns_per_call') ? 'instructions per call' \
	: (m eq 'blk_error_inject_insns_per_call') ? '__blk_error_inject instructions per call' \
	: (m eq 'iops') ? 'IOPS' : m

ph = 380                    # per row of panels (px)
bot = 70                    # below the last row: x label and tics
gap = 125                   # between rows: x tics, x label, next panel title
lm = 115.0                  # left of the first column (y tics + label)
cgap = (ncols > 1) ? 105.0 : 0   # between columns (y tics + label)
H = 1.0 * (hdr + nrows * ph)
eval setterm(int(W), int(H))
set output out

set multiplot layout nrows, ncols title title font F_title \
	margins lm / W, 1 - 25.0 / W, bot / H, 1 - hdr / H spacing cgap / W, gap / H

# panels in reading order; an odd last row leaves its second cell empty
do for [k=1:npanels] {
	r = (k - 1) / ncols + 1
	c = (k - 1) % ncols + 1
	{
		base = sprintf('%s.r%dc%d', prefix, r, c)
		load base . '.gp'
		dat = base . '.dat'
		ref = base . '.ref'
		unset label
		unset object
		unset arrow
		unset logscale
		set title sprintf('%s: %s', ptitle, mname(pmetric)) font F_panel offset 0, -0.3
		set ylabel ylab(pmetric) font F_base
		set xlabel (pnref > 0 ? 'rules on the target disk (N; 0: key-off)' : 'rules on the target disk (N)') font F_base offset 0, 0.3
		set logscale x
		xlo = (pnref > 0) ? pzero / 2.0 : pNmin / 2.0
		set xrange [xlo : pNmax * 2.0]
		if (pnref > 0) {
			# the break between the N = 0 slot and the log axis
			set arrow 1 from pNmin / 2.0, graph 0 to pNmin / 2.0, graph 1 nohead lc rgb '#999999' dt 3 back
		}
		set format y '%g'
		if (k == 1) {
			eval setsubs
			load plotdir . '/key.gp'
		}
		if (pempty) {
			set yrange [0 : 1]
			set label 1 'no data' at graph 0.5, graph 0.5 center font F_panel
			plot NaN notitle
		} else {
			if (pymin > 0 && pymax / pymin > 30) {
				set logscale y
				set yrange [pymin / 1.8 : pymax * 1.8]
			} else {
				# a linear axis from 0: a spread of a percent between
				# configs or N is not magnified to fill the panel
				lo_ = (pymin > 0) ? 0 : pymin
				d = pymax - lo_
				if (d <= 0) { d = (abs(pymax) > 0) ? abs(pymax) * 0.5 : 1 }
				set yrange [(lo_ == 0) ? 0 : lo_ - 0.1 * d : pymax + 0.1 * d]
			}
			if ((pmetric eq 'insns_per_call' || pmetric eq 'blk_error_inject_insns_per_call') && pslope ne '') {
				set label 1 sprintf("per rule, N=%g..%g:\n%s", pNmin, pNmax, pslope) \
					at graph 0.04, graph 0.93 left front font F_tics
			}
			# optional elements only when they have data (see catplot.gp)
			cmd = "plot " \
				. (pnref > 0 ? "ref using 3:2:(ptof($1)):1 with points pt variable lc variable ps 1.4 * PS notitle, " : "") \
				. (pnerr > 0 ? "dat using 6:2:3:4:5 with yerrorbars lc variable lw 1.5 pt -1 notitle, " : "") \
				. "dat using 6:2:(ptof($5)):5 with linespoints pt variable lc variable ps 1.4 * PS notitle"
			eval cmd
		}
		eval logrange
	}
}
unset multiplot
set output
