# plots/reshape.awk: turns a benchstat summary.csv into the whitespace data
# files and small gnuplot fragments that the plots/*.gp scripts read.
# Called by plots/make-plots.sh; POSIX awk (tested with mawk and gawk).
#
#   awk -f reshape.awk -v mode=cat -v metric=iops -v val=median \
#       -v prefix=DIR/iops summary.csv
#   awk -f reshape.awk -v mode=rules -v metrics="insns_per_call iops" \
#       -v prefix=DIR/rules summary.csv
#
# Columns are found by name in the header, so added columns do no harm.
# Orders (configs, states, workloads) are those of first appearance in the
# whole file, over all metrics, so that a config keeps its colour (its
# index, 1-based) in every figure.  Empty fields are skipped.
#
# mode=cat (one panel per workload, x = state categories, points or bars
# clustered per state, one per config present):
#   val=median: y = median, error bar = ci_lo..ci_hi
#   val=rel:    y = rel_change_pct, error bar = rel_ci_lo_pct..rel_ci_hi_pct
#   PREFIX.pK.dat  rows "x y lo hi cidx label rnd note" (lo/hi NaN: no error
#                  bar, i.e. no CI or a zero-width one, or a random-class
#                  row; rnd 1: a random-class row, drawn as an open symbol)
#   PREFIX.pK.gp   ptitle, x range/tics, group separators, boxwidth,
#                  pymin/pymax (panel data range incl. CIs), pcut (1: the
#                  panel's y axis is cut at +-clip, see below), and the
#                  panel's cell when catplot.gp draws a grid of two
#                  columns (a figure one column would make too tall):
#                  pgrow, pgcol, and the x tics for that width (state
#                  names wrapped on up to pglines lines, set when grid is
#                  1).  A grid row holds the workloads of one group (the
#                  name without its "-qdN..." tail: mq-randread-qd1 and
#                  mq-randread-qd32 are the mq view's), two a row; two
#                  groups of one workload each share a row.  The PREFIX.info
#                  line nsingle counts the error bars that are benchstat's
#                  icount repeatability interval of one run a side (a
#                  deterministic guest-time row with n < 2 on either side;
#                  singlehw: its half width in %, as a ratio), nbars all
#                  error bars
#   -v randomwl=REGEX: the guest-time rows (iops, insns_per_io, lat_ns) of
#                  the workloads matching REGEX are random too (make-plots.sh:
#                  the run's SMP_WORKLOADS, or the 2-vCPU mq-* workloads
#                  of a run without that key, under tcg-icount)
#   -v ticnote=METRIC: column 8 of each random point is the change
#                  (benchstat's delta) of METRIC in its workload, state and
#                  config, e.g. the exact instructions per call under a
#                  random IOPS change ("" when there is none; pnote 1 when
#                  any)
#   -v clip=C (C > 0): a panel is cut at +-C only when it has values on
#                  both sides of the cut (the cut keeps the in-range ones
#                  readable); a panel whose values all lie beyond it is
#                  drawn whole, with its intervals (a cut would leave
#                  nothing but a triangle at the edge)
#
# mode=rules (x = N of states rules-N, one panel per workload x metric that
# has data, numbered in reading order on a grid of up to two columns):
#   PREFIX.rIcJ.dat   rows "N y lo hi cidx xd", a blank line between configs;
#                     xd is N dodged per config (a factor DODGE^(k - (K-1)/2)
#                     for the k-th of the panel's K configs) so that configs
#                     with equal values are all visible side by side
#   PREFIX.rIcJ.ref   rows "cidx y xd" of the key-off state (N = 0), xd the
#                     dodged position of the N = 0 slot left of the break
#   PREFIX.rIcJ.gp    ptitle, pmetric, pempty, xtics, pymin/pymax, slope
#
# Both modes write PREFIX.info: KEY=VALUE lines for the driver (npanels=0
# when there is nothing to plot).

function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }

# gnuplot single-quoted string literal
function q(s) { gsub(/'/, "''", s); return "'" s "'" }

# x-axis text for a state: what it is, not its short name
function statelabel(s) {
	if (s == "off") return "compiled out"
	if (s == "key-off") return "no rules"
	if (s == "key-on-other") return "rule on other disk"
	if (s ~ /^rules-1$/) return "1 rule, no match"
	if (s ~ /^rules-[0-9]+$/) return substr(s, 7) " rules, no match"
	if (s == "match-chance") return "rule, 1-in-1000 fails"
	if (s == "rule-churn") return "rule add/remove loop"
	if (s == "fail-all") return "every read fails"
	if (s == "ei-idle") return "error injection, no rule"
	if (s == "ei-rule") return "error injection, 1 rule"
	if (s == "fmr-p0") return "fail_make_request, p=0"
	if (s == "dm-linear") return "dm-linear"
	if (s == "dm-error-unused") return "dm-error, unused range"
	if (s == "dm-flakey-up") return "dm-flakey, up"
	if (s == "dm-dust") return "dm-dust, no bad blocks"
	if (s == "bpf-detached") return "BPF, detached"
	if (s == "bpf-idle") return "BPF, no rule"
	if (s == "bpf-rule") return "BPF, 1 rule"
	return s
}

function isnum(s) { return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }

function fmtval(v,   a) {
	a = v < 0 ? -v : v
	if (v == int(v) && a < 1e7) return sprintf("%d", v)
	if (a >= 1000) return sprintf("%.0f", v)
	return sprintf("%.3g", v)
}

# add S to the space-separated set list L (stored in the array at key K)
function addset(arr, k, s,   i, n, parts) {
	n = split(arr[k], parts, " ")
	for (i = 1; i <= n; i++) if (parts[i] == s) return
	arr[k] = arr[k] (arr[k] == "" ? "" : " ") s
}

# numerically sorted copy of a space-separated list of numbers
function numsort(list,   n, a, i, j, t, out) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]
		a[j + 1] = t
	}
	out = ""
	for (i = 1; i <= n; i++) out = out (i > 1 ? " " : "") a[i]
	return out
}

# whitespace-free token for space-separated lists and data files
function tok(s) { gsub(/[ \t"']/, "_", s); return s }

# S safe inside a gnuplot double-quoted string: a backslash or double
# quote becomes "_" (wrapped() adds the "\n" escapes afterwards)
function dqsafe(s) { gsub(/[\\"]/, "_", s); return s }

# wrapped(S, W): S on lines of at most W characters (longer words stay
# whole), broken after a space or a "/", as few lines as greedy filling
# needs and, for those, the narrowest width (balanced lines); WRAPN is the
# number of lines, the result joined with "\n" (gnuplot's escape)
function wrapfill(s, w,   n, i, c, word, words, join, line, out, k) {
	n = 0; word = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == " ") { if (word != "") { words[++n] = word; join[n] = " " }; word = "" }
		else if (c == "/") { words[++n] = word c; join[n] = ""; word = "" }
		else word = word c
	}
	if (word != "") { words[++n] = word; join[n] = "" }
	out = ""; line = ""; WRAPN = 0
	for (k = 1; k <= n; k++) {
		if (line != "" && length(line join[k - 1] words[k]) > w) {
			out = out (WRAPN ? "\\n" : "") line; WRAPN++; line = words[k]
		} else
			line = line (line == "" ? "" : join[k - 1]) words[k]
	}
	if (line != "") { out = out (WRAPN ? "\\n" : "") line; WRAPN++ }
	return out
}
function wrapped(s, w,   best, nl, t) {
	best = wrapfill(s, w); nl = WRAPN
	for (t = w - 1; t >= 1; t--) {
		wrapfill(s, t)
		if (WRAPN > nl) break
		best = wrapfill(s, t)
	}
	WRAPN = nl
	return best
}

# the group of workload W: W without its "-qdN..." tail
function wgroup(w) { sub(/-qd[0-9]+.*$/, "", w); return w }

BEGIN {
	FS = ","
	# rules mode: configs side by side (a factor 1.3 is ~12 px on the log
	# axis); the N = 0 (key-off) slot sits a factor 4 left of the smallest N
	DODGE = 1.3
	ZERO_AT = 4
	need = "config state workload metric class n median ci_lo ci_hi ci_level delta rel_change_pct rel_ci_lo_pct rel_ci_hi_pct verdict deterministic"
	nrows = 0; ncfg = 0; nst = 0; nwl = 0
}

{ sub(/\r$/, "") }
NR == 1 { sub(/^\357\273\277/, "") }
NR == 1 {
	for (i = 1; i <= NF; i++) col[trim($i)] = i
	nn = split(need, nd, " ")
	for (i = 1; i <= nn; i++)
		if (!(nd[i] in col)) {
			printf "reshape.awk: %s: header has no column '%s'\n", FILENAME, nd[i] > "/dev/stderr"
			bad = 1
			exit 2
		}
	next
}
/^[ \t]*$/ { next }
{
	c = tok($col["config"]); s = tok($col["state"]); w = tok($col["workload"])
	if (!(c in cidx)) { cidx[c] = ++ncfg; cname[ncfg] = c }
	if (!(s in sidx)) { sidx[s] = ++nst; sname[nst] = s }
	if (!(w in widx)) { widx[w] = ++nwl; wname[nwl] = w }
	nrows++
	R_c[nrows] = c; R_s[nrows] = s; R_w[nrows] = w
	R_m[nrows] = $col["metric"]
	for (i = 1; i <= nn; i++) R[nrows, nd[i]] = trim($col[nd[i]])
}

END {
	if (bad) exit 2
	if (mode == "cat") do_cat()
	else if (mode == "rules") do_rules()
	else { print "reshape.awk: mode must be cat or rules" > "/dev/stderr"; exit 2 }
}

# tnote(R): the change (benchstat's delta) of metric ticnote in row R's
# workload, state and config, "" when there is none
function tnote(r,   k) {
	for (k = 1; k <= nrows; k++)
		if (R_m[k] == ticnote && R_w[k] == R_w[r] && R_s[k] == R_s[r] && R_c[k] == R_c[r] && isnum(R[k, "delta"]))
			return sprintf(R[k, "delta"] >= 100 || R[k, "delta"] <= -100 ? "%+.0f" : "%+.3g", R[k, "delta"])
	return ""
}

# value, lower and upper column names for val=median|rel
function vcols() {
	if (val == "rel") { VY = "rel_change_pct"; VL = "rel_ci_lo_pct"; VH = "rel_ci_hi_pct" }
	else { VY = "median"; VL = "ci_lo"; VH = "ci_hi" }
}

function do_cat(   r, k, w, si, ci, np, p, key, maxk, slot, cnt, x, y, lo, hi, f, g,
                   tics, sep, first, nsel, levels, ns, det, base, ymin, ymax, maxlen,
                   ncat, catof, pmin, pmax, keyc, keyi, keyset, lab, st, rot, nerr, vmn, vmx, fvmin, fvmax,
                   rnd, nrnd, nin, nout, pcut, ncut, note, pnote, nnote,
                   gsize, gtics, glines, gmaxc, grow, gcol, gprev, bn, nbars, nsingle, hwsum,
                   ngrp, gname, nword, word, kw) {
	vcols()
	info = prefix ".info"
	nsel = 0; maxk = 1; levels = ""; ns = ""; det = 0; base = ""; nrnd = 0; ncut = 0
	nbars = 0; nsingle = 0; hwsum = 0
	for (r = 1; r <= nrows; r++) {
		if (R_m[r] == metric && R[r, "verdict"] == "baseline") {
			base = R_c[r] "/" R_s[r]; baselabel = statelabel(R_s[r])
			bn[R_w[r]] = R[r, "n"]
		}
		if (R_m[r] != metric || !isnum(R[r, VY])) continue
		sel[r] = 1; nsel++
		w = widx[R_w[r]]; si = sidx[R_s[r]]; ci = cidx[R_c[r]]
		have[w] = 1; hs[w, si] = 1; hc[ci] = 1
		cnt[w, si]++
		if (cnt[w, si] > maxk) maxk = cnt[w, si]
		if (isnum(R[r, "ci_level"])) addset(L, "lv", R[r, "ci_level"] + 0)
		if (isnum(R[r, "n"])) addset(L, "n", R[r, "n"] + 0)
		if (R[r, "deterministic"] == "yes") det++
	}
	if (nsel == 0) { print "npanels=0" > info; close(info); return }

	slot = 0.8 / maxk
	# the workloads of each group, for the grid of two columns; panels in
	# the order of the groups' first appearance, then the workloads'
	ngrp = 0
	for (w = 1; w <= nwl; w++)
		if (have[w] && !(wgroup(wname[w]) in gsize)) {
			gsize[wgroup(wname[w])] = 0
			gname[++ngrp] = wgroup(wname[w])
		}
	nword = 0
	for (k = 1; k <= ngrp; k++)
		for (w = 1; w <= nwl; w++)
			if (have[w] && wgroup(wname[w]) == gname[k]) { gsize[gname[k]]++; word[++nword] = w }
	np = 0; grow = 0; gcol = 2; gprev = ""
	for (kw = 1; kw <= nword; kw++) {
		w = word[kw]
		p = ++np
		# its cell: the second of the row for the next workload of the
		# same group, or for a group of one after another group of one
		if (gcol == 1 && (wgroup(wname[w]) == gprev || (gsize[gprev] == 1 && gsize[wgroup(wname[w])] == 1)))
			gcol = 2
		else { grow++; gcol = 1 }
		gprev = wgroup(wname[w])
		f = prefix ".p" p ".dat"; g = prefix ".p" p ".gp"
		# categories: the states this panel has, in global order
		ncat = 0; tics = ""; sep = ""; maxlen = 0; pnote = 0
		for (si = 1; si <= nst; si++) if (hs[w, si]) ncat++
		# in a grid cell (~400 px of plot width) the state names are
		# wrapped to the width of their category (~8.5 px per character)
		gmaxc = int(390 / ncat / 8.5); gtics = ""; glines = 1
		ncat = 0
		for (si = 1; si <= nst; si++) {
			if (!hs[w, si]) continue
			catof[si] = ncat
			lab = statelabel(sname[si])
			if (length(lab) > maxlen) maxlen = length(lab)
			tics = tics (ncat ? ", " : "") q(lab) " " ncat
			gtics = gtics (ncat ? ", " : "") "\"" wrapped(dqsafe(lab), gmaxc) "\" " ncat
			if (WRAPN > glines) glines = WRAPN
			if (ncat) sep = sep sprintf("set arrow from %g, graph 0 to %g, graph 1 nohead lc rgb '#bbbbbb' dt 3 back\n", ncat - 0.5, ncat - 0.5)
			ncat++
		}
		# points: within a state, the configs present in global order
		pmin = ""; pmax = ""; nerr = 0; vmn = ""; vmx = ""; nin = 0; nout = 0
		for (si = 1; si <= nst; si++) {
			if (!hs[w, si]) continue
			k = 0
			for (ci = 1; ci <= ncfg; ci++) {
				for (r = 1; r <= nrows; r++)
					if (sel[r] && widx[R_w[r]] == w && sidx[R_s[r]] == si && cidx[R_c[r]] == ci) break
				if (r > nrows) continue
				x = catof[si] + (k - (cnt[w, si] - 1) / 2) * slot
				k++
				y = R[r, VY] + 0
				lo = isnum(R[r, VL]) ? R[r, VL] + 0 : "NaN"
				hi = isnum(R[r, VH]) ? R[r, VH] + 0 : "NaN"
				rnd = R[r, "class"] == "random" || (randomwl != "" && R_w[r] ~ randomwl && R_m[r] ~ /^(iops|insns_per_io|lat_ns)$/)
				# a random-class row has no interval to show (no verdict)
				if (rnd) { lo = "NaN"; hi = "NaN"; nrnd++ }
				if (lo != "NaN" && hi != "NaN" && lo == hi) { lo = "NaN"; hi = "NaN" }
				if (lo != "NaN" && hi != "NaN") {
					nerr++; nbars++
					# benchstat's interval for one run a side (guest time under icount)
					if (val == "rel" && R[r, "class"] == "deterministic" && (R[r, "n"] + 0 < 2 || (R_w[r] in bn && bn[R_w[r]] + 0 < 2))) {
						# its half width as a ratio (benchstat adds it in log space)
						nsingle++; hwsum += (exp((log(1 + hi / 100) - log(1 + lo / 100)) / 2) - 1) * 100
					}
				}
				if (clip > 0 && (y > clip || y < -clip)) nout++; else nin++
				note = ticnote != "" && rnd ? tnote(r) : ""
				if (note != "") { pnote = 1; nnote++ }
				printf "%.6f %.10g %s %s %d \"%s\" %d \"%s\"\n", x, y, (lo == "NaN" ? lo : sprintf("%.10g", lo)), (hi == "NaN" ? hi : sprintf("%.10g", hi)), ci, fmtval(y), rnd, note > f
				if (pmin == "" || y < pmin) pmin = y
				if (pmax == "" || y > pmax) pmax = y
				if (lo != "NaN" && lo < pmin) pmin = lo
				if (hi != "NaN" && hi > pmax) pmax = hi
				if (vmn == "" || y < vmn) vmn = y
				if (vmx == "" || y > vmx) vmx = y
			}
		}
		close(f)
		if (fvmin == "" || vmn < fvmin) fvmin = vmn
		if (fvmax == "" || vmx > fvmax) fvmax = vmx
		if (ymin == "" || pmin < ymin) ymin = pmin
		if (ymax == "" || pmax > ymax) ymax = pmax
		# rotate the state names when they would not fit side by side
		# (~8.5 px per character, ~880 px of plot width)
		rot = (maxlen * 8.5 > 880 / ncat * 0.9) ? "rotate by 30 right" : "norotate center"
		printf "ptitle = %s\n", q(wname[w]) > g
		printf "pymin = %.10g\npymax = %.10g\n", pmin, pmax > g
		printf "pvmin = %.10g\npvmax = %.10g\n", vmn, vmx > g
		printf "pncat = %d\npnerr = %d\nprot = %d\n", ncat, nerr, rot ~ /^rotate/ > g
		pcut = nin > 0 && nout > 0
		ncut += pcut
		printf "pcut = %d\npnote = %d\n", pcut, pnote > g
		printf "set xrange [-0.5:%g]\n", ncat - 0.5 > g
		printf "pgrow = %d\npgcol = %d\npglines = %d\n", grow, gcol, glines > g
		printf "if (grid) {\n\tset xtics nomirror scale 0 norotate center (%s)\n} else {\n", gtics > g
		printf "\tset xtics nomirror scale 0 %s (%s)\n}\n", rot, tics > g
		printf "unset arrow\n%s", sep > g
		printf "pbw = %.6f\nset boxwidth pbw absolute\n", slot * 0.85 > g
		close(g)
	}
	keyc = ""; keyi = ""
	for (ci = 1; ci <= ncfg; ci++)
		if (hc[ci]) { keyc = keyc (keyc == "" ? "" : " ") cname[ci]; keyi = keyi (keyi == "" ? "" : " ") ci }
	printf "npanels=%d\n", np > info
	printf "keyconf=%s\nkeycidx=%s\n", keyc, keyi > info
	printf "levels=%s\nnvals=%s\n", numsort(L["lv"]), numsort(L["n"]) > info
	printf "ndet=%d\nnsel=%d\nnrandom=%d\nncut=%d\nnnote=%d\n", det, nsel, nrnd, ncut, nnote > info
	printf "nbars=%d\nnsingle=%d\nsinglehw=%s\n", nbars, nsingle, nsingle ? sprintf("%.1f", hwsum / nsingle) : "" > info
	printf "ymin=%.10g\nymax=%.10g\n", ymin, ymax > info
	printf "vmin=%.10g\nvmax=%.10g\n", fvmin, fvmax > info
	printf "baseline=%s\nbaselabel=%s\n", base, baselabel > info
	close(info)
}

function do_rules(   nm, mets, mi, m, w, r, ci, si, N, hasany, rowhas, colhas, nr, nc, rowof, colof,
                     f, g, rf, n, Ns, i, j, t, pmin, pmax, y, lo, hi, tics, first, slope, sl, keyc, keyi,
                     ylist, nlist, mcols, wrows, ny, nNs, base, nref, nerr, np, k, panelhas, K, kk, dodge) {
	info = prefix ".info"
	nm = split(metrics, mets, " ")
	# which (metric, workload, config) have rules-N data
	for (r = 1; r <= nrows; r++) {
		if (R_s[r] !~ /^rules-[0-9]+$/ || !isnum(R[r, "median"])) continue
		for (mi = 1; mi <= nm; mi++) if (R_m[r] == mets[mi]) break
		if (mi > nm) continue
		w = widx[R_w[r]]; ci = cidx[R_c[r]]
		N = substr(R_s[r], 7) + 0
		hasany[mi] = 1; rowhas[w] = 1; hc[ci] = 1; panelhas[mi, w] = 1
		has[mi, w, ci] = 1
		val_[mi, w, ci, N] = R[r, "median"] + 0
		vlo[mi, w, ci, N] = R[r, "ci_lo"]; vhi[mi, w, ci, N] = R[r, "ci_hi"]
		addset(NL, mi SUBSEP w SUBSEP ci, N)
		addset(NA, "all", N)
	}
	nc = 0; mcols = ""
	for (mi = 1; mi <= nm; mi++) if (hasany[mi]) { colof[mi] = ++nc; mcols = mcols (mcols == "" ? "" : " ") mets[mi] }
	nr = 0; wrows = ""
	for (w = 1; w <= nwl; w++) if (rowhas[w]) { rowof[w] = ++nr; wrows = wrows (wrows == "" ? "" : " ") wname[w] }
	if (nc == 0) { print "npanels=0" > info; close(info); return }

	# key-off references
	for (r = 1; r <= nrows; r++)
		if (R_s[r] == "key-off" && isnum(R[r, "median"]))
			for (mi = 1; mi <= nm; mi++)
				if (R_m[r] == mets[mi]) { ref[mi, widx[R_w[r]], cidx[R_c[r]]] = R[r, "median"] + 0; hasref[mi, widx[R_w[r]], cidx[R_c[r]]] = 1 }

	nNs = split(numsort(NA["all"]), Ns, " ")
	tics = ""
	for (i = 1; i <= nNs; i++) tics = tics (i > 1 ? ", " : "") q(Ns[i]) " " Ns[i]

	# only panels with data, in reading order on a grid of up to 2 columns
	np = 0
	for (w = 1; w <= nwl; w++) for (mi = 1; mi <= nm; mi++) if (panelhas[mi, w]) np++
	nc = np > 1 ? 2 : 1
	nr = int((np + nc - 1) / nc)
	k = 0
	for (w = 1; w <= nwl; w++) {
		if (!rowhas[w]) continue
		for (mi = 1; mi <= nm; mi++) {
			if (!panelhas[mi, w]) continue
			k++
			base = prefix ".r" (int((k - 1) / nc) + 1) "c" ((k - 1) % nc + 1)
			f = base ".dat"; g = base ".gp"; rf = base ".ref"
			pmin = ""; pmax = ""; sl = ""; first = 1; ny = 0; nref = 0; nerr = 0
			printf "" > f
			printf "" > rf
			# K configs in this panel: the k-th is dodged by DODGE^(k - (K-1)/2)
			K = 0
			for (ci = 1; ci <= ncfg; ci++) if (has[mi, w, ci]) K++
			kk = 0
			for (ci = 1; ci <= ncfg; ci++) {
				if (!has[mi, w, ci]) continue
				dodge = DODGE ^ (kk++ - (K - 1) / 2)
				n = split(numsort(NL[mi SUBSEP w SUBSEP ci]), nlist, " ")
				if (!first) printf "\n" > f
				first = 0
				for (i = 1; i <= n; i++) {
					N = nlist[i]
					y = val_[mi, w, ci, N]
					lo = isnum(vlo[mi, w, ci, N]) ? vlo[mi, w, ci, N] + 0 : "NaN"
					hi = isnum(vhi[mi, w, ci, N]) ? vhi[mi, w, ci, N] + 0 : "NaN"
					if (lo != "NaN" && hi != "NaN" && lo == hi) { lo = "NaN"; hi = "NaN" }
					if (lo != "NaN" && hi != "NaN") nerr++
					printf "%s %.10g %s %s %d %.6g\n", N, y, (lo == "NaN" ? lo : sprintf("%.10g", lo)), (hi == "NaN" ? hi : sprintf("%.10g", hi)), ci, N * dodge > f
					ny++
					if (pmin == "" || y < pmin) pmin = y
					if (pmax == "" || y > pmax) pmax = y
					if (lo != "NaN" && lo < pmin) pmin = lo
					if (hi != "NaN" && hi > pmax) pmax = hi
				}
				if (n >= 2) {
					slope = (val_[mi, w, ci, nlist[n]] - val_[mi, w, ci, nlist[1]]) / (nlist[n] - nlist[1])
					sl = sl (sl == "" ? "" : ",  ") cname[ci] " " sprintf("%.3g", slope)
				}
				if (hasref[mi, w, ci]) {
					y = ref[mi, w, ci]
					printf "%d %.10g %.6g\n", ci, y, Ns[1] / ZERO_AT * dodge > rf
					nref++
					if (y < pmin) pmin = y
					if (y > pmax) pmax = y
				}
			}
			close(f); close(rf)
			printf "ptitle = %s\npmetric = %s\n", q(wname[w]), q(mets[mi]) > g
			printf "pempty = %d\npnref = %d\npnerr = %d\n", ny == 0, nref, nerr > g
			if (ny) printf "pymin = %.10g\npymax = %.10g\n", pmin, pmax > g
			else printf "pymin = 1\npymax = 10\n" > g
			printf "pslope = %s\n", q(sl) > g
			printf "pNmin = %s\npNmax = %s\n", Ns[1], Ns[nNs] > g
			printf "pzero = %.6g\n", Ns[1] / ZERO_AT > g
			printf "set xtics nomirror (%s)\n", tics (nref ? sprintf(", '0' %.6g", Ns[1] / ZERO_AT) : "") > g
			close(g)
		}
	}
	keyc = ""; keyi = ""
	for (ci = 1; ci <= ncfg; ci++)
		if (hc[ci]) { keyc = keyc (keyc == "" ? "" : " ") cname[ci]; keyi = keyi (keyi == "" ? "" : " ") ci }
	printf "npanels=%d\nnrows=%d\nncols=%d\n", np, nr, nc > info
	printf "metrics=%s\nworkloads=%s\n", mcols, wrows > info
	printf "keyconf=%s\nkeycidx=%s\n", keyc, keyi > info
	close(info)
}
