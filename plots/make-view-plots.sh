#!/usr/bin/env bash
# plots/make-view-plots.sh: the figures of bench/views.sh's views from one
# results directory (PNG + SVG):
#
#   plots/make-view-plots.sh RESULTS_DIR [OUT_DIR]
#
#   mq                    IOPS change vs the baseline, multi-queue workloads
#                         (mq-*), per state: make-plots.sh's relative figure
#                         of those rows
#   polled                the same for the polled workloads (poll-*)
#   layout                the same for the layout view (layout-*): off-layout
#                         against off, the layout noise floor
#   latency-percentiles   p50, p99 and p99.9 of fio's completion latency per
#                         config and state, one panel per workload (log y)
#
# A figure whose rows are not in the summary is skipped with a line saying
# so.  Exit status: 0 (also when nothing applied), 2 on usage errors.
set -euo pipefail
shopt -s inherit_errexit

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() {
	echo "make-view-plots.sh: $*" >&2
	exit 2
}

[[ $# -ge 1 && $# -le 2 && $1 != -* ]] || die "usage: $0 RESULTS_DIR [OUT_DIR]"
results=$1
outdir=${2:-$results/plots}
summary=$results/summary.csv
[[ -r $summary ]] || die "$summary: not found or not readable"
mkdir -p "$outdir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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

# latency-percentiles: data "x p50 p99 p999" per workload panel, x the
# config/state category
awk -F, -v prefix="$tmp/lat" '
	function statelabel(s) {
		if (s == "off") return "compiled out"
		if (s == "key-off") return "no rules"
		if (s == "key-on-other") return "rule on other disk"
		if (s == "rule-churn") return "rule add/remove loop"
		if (s ~ /^rules-[0-9]+$/) return substr(s, 7) " rules, no match"
		return s
	}
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$4 ~ /^lat_p(50|99|999)_ns$/ && $c["median"] != "" {
		if (!($3 in wi)) { wi[$3] = ++nw; wn[nw] = $3 }
		k = $1 ": " statelabel($2)
		if (!((wi[$3], k) in ci)) { ci[wi[$3], k] = ++nc[wi[$3]]; cn[wi[$3], nc[wi[$3]]] = k }
		v[wi[$3], ci[wi[$3], k], $4] = $c["median"]
	}
	END {
		for (w = 1; w <= nw; w++) {
			f = prefix "." w ".dat"
			for (j = 1; j <= nc[w]; j++)
				printf "%d \"%s\" %s %s %s\n", j - 1, cn[w, j], v[w, j, "lat_p50_ns"], v[w, j, "lat_p99_ns"], v[w, j, "lat_p999_ns"] > f
			close(f)
			printf "%s\n", wn[w] > (prefix ".names")
		}
	}' "$summary"
if [[ -s $tmp/lat.names ]]; then
	mapfile -t names <"$tmp/lat.names"
	run_id=$(jq -r '.RUN_ID // empty' "$results/meta.json" 2>/dev/null || true)
	accel=$(jq -r '.ACCEL // empty' "$results/meta.json" 2>/dev/null || true)
	for t in pngcairo svg; do
		ext=${t/pngcairo/png}
		gnuplot -e "prefix='$tmp/lat'; n=${#names[@]}; names='${names[*]}'; term='$t'; out='$outdir/latency-percentiles.$ext'; sub='run ${run_id:-?}, accel ${accel:-?}$([[ $accel == tcg-icount ]] && echo ': guest ns = guest instructions')'" \
			"$here/latency-percentiles.gp"
	done
	echo "plots: wrote $outdir/latency-percentiles.png and $outdir/latency-percentiles.svg"
else
	echo "plots: no latency percentiles in this run, skipping latency-percentiles.png"
fi
