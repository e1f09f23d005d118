#!/usr/bin/env bash
# plots/make-view-plots.sh: the figures of bench/run/views.sh's views from one
# results directory (PNG + SVG):
#
#   plots/make-view-plots.sh RESULTS_DIR [OUT_DIR]
#
#   mq                    IOPS change vs the baseline, multi-queue workloads
#                         (mq-*), per state: make-plots.sh's relative figure
#                         of those rows.  Under tcg-icount make-plots.sh
#                         draws their IOPS as random (open symbols, no
#                         interval, the exact change of the instructions per
#                         call under each point): with
#                         2 vCPUs, guest time depends on how QEMU
#                         interleaves them, not only on the instructions of
#                         the I/O path (in the views run: no rules +5.2%
#                         IOPS at qd1, +0.02% at qd32, for the same +1
#                         instruction per call; fio's clat p99.99 8-10 ms)
#   polled                the same for the polled workloads (poll-*)
#   layout                the same for the layout view (layout-*): off-layout
#                         against off, the layout noise floor
#   latency-percentiles   p50, p99 and p99.9 of fio's completion latency per
#                         config and state, one panel per workload (log y),
#                         two panels a row; the CI of the median as error
#                         bars where the run has one.  Under tcg-icount they
#                         are random (benchstat's class: fio's histogram
#                         buckets, not repeatable at depth > 1): open
#                         symbols, and each panel says they are not
#                         comparable across rows
#
# A figure whose rows are not in the summary is skipped with a line saying
# so.  Exit status: 0 (also when nothing applied), 2 on usage errors.
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/help.sh
. "$HERE/../bench/lib/help.sh"
help_answer "$0" "$@"
# shellcheck source=bench/lib/accel.sh
. "$HERE/../bench/lib/accel.sh"

here=$(cd "$HERE" && pwd)
[[ $# -ge 1 && $# -le 2 && $1 != -* ]] || help_usage "$0"
results=$1
outdir=${2:-$results/plots}
summary=$results/summary.csv
if [[ ! -r $summary ]]; then
	echo "make-view-plots.sh: $summary: not found or not readable" >&2
	exit "$STATUS_BAD_INPUT"
fi
mkdir -p "$outdir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run_id='' accel=''
if [[ -r $results/meta.json ]]; then
	run_id=$(jq -r '.RUN_ID // empty' "$results/meta.json")
	accel=$(jq -r '.ACCEL // empty' "$results/meta.json")
elif [[ -r $results/meta.env ]]; then
	# unquoted values only (as the fixture and the oldest runs have them)
	run_id=$(sed -n 's/^RUN_ID=//p' "$results/meta.env" | tr -d "\"'")
	accel=$(sed -n 's/^ACCEL=//p' "$results/meta.env" | tr -d "\"'")
fi

# relative_of NAME REGEX TITLE: make-plots.sh's relative figure of the rows
# whose workload matches REGEX, as OUT_DIR/NAME.{png,svg}
relative_of() {
	local name=$1 pat=$2 d=$tmp/$1
	mkdir -p "$d"
	awk -F, -v pat="$pat" 'NR == 1 || $3 ~ pat' "$summary" >"$d/summary.csv"
	if ! awk -F, 'NR > 1 && $4 == "iops" && $15 != "" { f = 1 } END { exit !f }' "$d/summary.csv"; then
		echo "plots: no IOPS change for $pat workloads, skipping $name.png"
		return 0
	fi
	cp "$results"/meta.* "$d/" 2>/dev/null || true
	PLOT_TITLE_PREFIX="$3: " "$here/make-plots.sh" "$d" "$d/plots" >/dev/null
	mv "$d/plots/relative.png" "$outdir/$name.png"
	mv "$d/plots/relative.svg" "$outdir/$name.svg"
	echo "plots: wrote $outdir/$name.png and $outdir/$name.svg ($3)"
}

relative_of mq '^mq-' "Multi-queue (2 vCPUs, a job per CPU)"
relative_of polled '^poll-' "Polled (hipri, null_blk poll queue)"
relative_of layout '^layout-' "Layout noise floor (off-layout vs off)"

# latency-percentiles: per workload panel K, PREFIX.K.dat (see
# latency-percentiles.gp) and PREFIX.K.gp (title, y range of the positive
# values and CIs, counts, x tics "config\nstate" with the state in words,
# on two lines where it is long: two panels a row leave ~100 px a category)
awk -F, -v prefix="$tmp/lat" '
	function statelabel(s) {
		if (s == "off") return "compiled out"
		if (s == "key-off") return "no rules"
		if (s == "key-on-other") return "rule on\\nother disk"
		if (s == "rule-churn") return "rule add/\\nremove loop"
		if (s ~ /^rules-[0-9]+$/) return substr(s, 7) " rules"
		return s
	}
	function num(x) { return x ~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/ }
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$4 ~ /^lat_p(50|99|999)_ns$/ && num($c["median"]) {
		if (!($3 in wi)) { wi[$3] = ++nw; wn[nw] = $3 }
		w = wi[$3]
		k = $1 "\\n" statelabel($2)
		if (!((w, k) in ci)) { ci[w, k] = ++nc[w]; cn[w, nc[w]] = k }
		j = ci[w, k]
		v[w, j, $4] = $c["median"] + 0
		if (num($c["ci_lo"]) && num($c["ci_hi"]) && $c["ci_lo"] + 0 < $c["ci_hi"] + 0) {
			lo[w, j, $4] = $c["ci_lo"] + 0; hi[w, j, $4] = $c["ci_hi"] + 0
		}
	}
	END {
		split("lat_p50_ns lat_p99_ns lat_p999_ns", m, " ")
		for (w = 1; w <= nw; w++) {
			f = prefix "." w ".dat"; g = prefix "." w ".gp"
			ymin = ""; ymax = ""; tics = ""
			for (p = 1; p <= 3; p++) { nv[p] = 0; ne[p] = 0; nz[p] = 0 }
			for (j = 1; j <= nc[w]; j++) {
				line = j - 1; bars = ""; zs = ""
				for (p = 1; p <= 3; p++) {
					y = ((w, j, m[p]) in v) ? v[w, j, m[p]] : ""
					line = line " " (y != "" && y > 0 ? y : "NaN")
					zs = zs " " (y != "" && y <= 0)
					if (y != "" && y <= 0) nz[p]++
					if (y != "" && y > 0) {
						nv[p]++
						if (ymin == "" || y < ymin) ymin = y
						if (ymax == "" || y > ymax) ymax = y
					}
					if ((w, j, m[p]) in lo) {
						if (y > 0) ne[p]++
						bars = bars " " lo[w, j, m[p]] " " hi[w, j, m[p]]
						if (lo[w, j, m[p]] > 0 && lo[w, j, m[p]] < ymin) ymin = lo[w, j, m[p]]
						if (hi[w, j, m[p]] > ymax) ymax = hi[w, j, m[p]]
					} else
						bars = bars " NaN NaN"
				}
				print line bars zs > f
				tics = tics (j > 1 ? ", " : "") "\"" cn[w, j] "\" " (j - 1)
			}
			close(f)
			if (ymin == "") { ymin = 1000; ymax = 10000 }
			printf "ptitle = \"%s\"\npymin = %.10g\npymax = %.10g\n", wn[w], ymin, ymax > g
			# per percentile p: values, CIs and zeros drawn (a plot of
			# nothing would make gnuplot warn)
			for (p = 1; p <= 3; p++) printf "pnv%d = %d\npne%d = %d\npnz%d = %d\n", p, nv[p], p, ne[p], p, nz[p] > g
			printf "set xrange [-0.5:%g]\nset xtics (%s)\n", nc[w] - 0.5, tics > g
			close(g)
		}
		print nw > (prefix ".n")
	}' "$summary"
npanels=$(cat "$tmp/lat.n" 2>/dev/null || echo 0)
if ((npanels > 0)); then
	random=0 sub4=''
	sub3="median of the runs; error bars: CI of the median where a row has one; 0: fio reported 0 ns"
	if [[ $(accel_class "$accel" percentile) == random ]]; then
		random=1
		sub3="$accel: guest ns = guest instructions; percentiles are random (fio histogram buckets)"
		sub4="open symbols: not comparable across rows, no verdict"
	fi
	# both terminals in one gnuplot, the second from a clean state
	args=()
	for t in pngcairo svg; do
		ext=${t/pngcairo/png}
		log=''
		[[ $t == svg ]] || log=${PLOTS_RANGES:-}
		args+=(-e "reset session"
			-e "plotdir='$here'; prefix='$tmp/lat'; n=$npanels; term='$t'; out='$outdir/latency-percentiles.$ext'; random=$random; figname='latency-percentiles'; rangelog='$log'"
			-e "title='${PLOT_TITLE_PREFIX:-}fio completion latency percentiles per config and state (log y)'"
			-e "sub1='run ${run_id:-?}, accel ${accel:-?}'; sub2='$sub3'; sub3='${sub4:-}'"
			"$here/latency-percentiles.gp")
	done
	gnuplot "${args[@]}"
	echo "plots: wrote $outdir/latency-percentiles.png and $outdir/latency-percentiles.svg"
else
	echo "plots: no latency percentiles in this run, skipping latency-percentiles.png"
fi
