#!/usr/bin/env bash
# Tests for plots/make-plots.sh.
#
#   bash plots/test.sh
#
# Runs the driver on the synthetic fixture in testdata/ (and on variants of
# it made here: a metric missing, a KVM run with cycles_per_io, CRLF, no
# baseline, bad input, ...) into temporary directories and checks which
# figures are written or skipped, that every PNG/SVG is a non-empty valid
# file naming its run id, accelerator and date, and the exit statuses.
# Prints one "ok - NAME" / "not ok - NAME" line per assertion and a final
# "N passed, N failed" line; exits non-zero if anything failed.
# Looking at the figures is still up to you: the driver run on testdata/
# is also what plots/README.md shows.
set -euo pipefail
shopt -s inherit_errexit

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
data=$here/testdata
mp=$here/make-plots.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/assert.sh
. "$here/../tests/lib/assert.sh"
help_answer "$0" "$@"

# The driver's plan made once and handed on, as a driver hands its plan to
# the tools it runs: not a resolver run for each of the driver's runs
# below.  Those that set THRESHOLD, the one setting it reads, go without
# it (env -u BIB_PLAN) and through the resolver.
"$here/../bench/plan/resolve" -n THRESHOLD -o "$tmp/plots.plan" plots
export BIB_PLAN=$tmp/plots.plan

eq() { [[ $1 == "$2" ]]; }
not_exists() { [[ ! -e $1 ]]; }
has_line() { grep -qxF -- "$2" "$1"; }
has() { grep -qF -- "$2" "$1"; }
not_has() { ! grep -qF -- "$2" "$1"; }
empty() { [[ ! -s $1 ]]; }

# run ARGS...: the driver with stdout, stderr and exit status captured in
# $tmp/out, $tmp/err and $rc (never trips set -e).
rc=0
run() {
	rc=0
	"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
}

# is_png FILE / is_svg FILE: non-empty and of the right format; an SVG is
# also rendered with rsvg-convert when that is installed (catches SVGs that
# browsers show but strict renderers reject).
is_png() {
	[[ -s $1 ]] && [[ $(head -c 8 "$1" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]]
}
have_rsvg=0
command -v rsvg-convert >/dev/null && have_rsvg=1
is_svg() {
	[[ -s $1 ]] && grep -q '<svg' "$1" && grep -q '</svg>' "$1" || return 1
	if ((have_rsvg)); then rsvg-convert "$1" -o "$tmp/render.png" 2>/dev/null; fi
}
# png_width FILE: the width from the IHDR chunk
png_width() {
	od -An -tu1 -j16 -N4 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }'
}

# figure_ok DIR NAME RUNID ACCEL DATE: both files valid, the SVG names the
# run (the PNG's text is not greppable; both come from the same script)
figure_ok() {
	local d=$1 n=$2
	is_png "$d/$n.png" && is_svg "$d/$n.svg" &&
		grep -qF -- "$3" "$d/$n.svg" && grep -qF -- "$4" "$d/$n.svg" && grep -qF -- "$5" "$d/$n.svg"
}

# skipped WHAT FIGURE MESSAGE: the plotting of $r said MESSAGE and made no
# FIGURE.png; made WHAT FIGURE...: it made each FIGURE
skipped() {
	check "$1: $2 skipped with a message" has_line "$tmp/out" "$3"
	check "$1: no $2.png" not_exists "$r/out/$2.png"
}
made() {
	local what=$1 f
	shift
	for f; do
		check "$what: $f made" figure_ok "$r/out" "$f" "$run_id" "$accel" "$date"
	done
}

# mkres DIR: a results directory with the fixture's meta.env and the
# summary.csv read from stdin
mkres() {
	mkdir -p "$1"
	cp "$data/meta.env" "$1/meta.env"
	cat >"$1/summary.csv"
}

# Awk prelude: c[NAME] is the column of NAME in summary.csv's header, so
# that the fixtures below follow the file's layout, not column numbers.
# shellcheck disable=SC2016 # awk fields, not shell expansions
COLUMNS_AWK='NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }'

# drop_metric METRIC: the fixture without that metric's rows
drop_metric() { awk -F, -v m="$1" '$4 != m' "$data/summary.csv"; }

run_id=fixture-20250101-120000
accel=tcg-icount
date=2025-01-01T12:00:00Z
skip_cycles='plots: no cycles_per_io in this run (no PMU: not KVM with vPMU), skipping cycles.png'
all4=(iops relative insns-per-call rules-scaling)

# ---------------------------------------------------------------- lint
if command -v shellcheck >/dev/null; then
	check "shellcheck make-plots.sh test.sh gen-fixture.sh" \
		shellcheck -x "$mp" "$here/test.sh" "$data/gen-fixture.sh"
else
	pass "shellcheck # SKIP not installed (apt-get install -y shellcheck)"
fi

# ---------------------------------------------------------------- fixture
o=$tmp/fx
run "$mp" "$data" "$o"
check "fixture: exit 0" eq "$rc" 0
check "fixture: nothing on stderr (no gnuplot warnings)" empty "$tmp/err"
[[ -s $tmp/err ]] && sed 's/^/# /' "$tmp/err"
for n in "${all4[@]}"; do
	check "fixture: $n.png and $n.svg valid, naming run id, accel and date" \
		figure_ok "$o" "$n" "$run_id" "$accel" "$date"
	check "fixture: one 'wrote' line for $n" has_line "$tmp/out" "plots: wrote $o/$n.png and $o/$n.svg"
done
check "fixture: iops.png is 1000 px wide" eq "$(png_width "$o/iops.png")" 1000
check "fixture: cycles skipped with the message" has_line "$tmp/out" "$skip_cycles"
check "fixture: no cycles.png" not_exists "$o/cycles.png"
check "fixture: no cycles.svg" not_exists "$o/cycles.svg"
check "fixture: exactly 5 output lines" eq "$(wc -l <"$tmp/out")" 5
check "fixture: nothing but the 8 figure files" eq "$(find "$o" -type f | wc -l)" 8
check "icount: IOPS axis says guest time = instruction count" \
	has "$o/iops.svg" 'IOPS (guest time = instruction count)'
check "iops: subtitle says CI of median with the levels of the data (0.875-0.9375)" \
	has "$o/iops.svg" 'CI of median (order statistics), coverage 0.875–0.9375'
check "relative: shaded ±1% threshold in the key" has "$o/relative.svg" '±1% threshold'
check "relative: baseline named from the data" has "$o/relative.svg" 'IOPS change vs off/off'
check "relative: off-scale rules-1000 value printed" has "$o/relative.svg" '-33.6%'
check "insns-per-call: deterministic values labelled" has "$o/insns-per-call.svg" '>8078<'
check "insns-per-call: says no error bars (deterministic)" has "$o/insns-per-call.svg" 'no error bars'
check "rules-scaling: key-off (N=0) named on the x axis" has "$o/rules-scaling.svg" '0: key-off'
check "rules-scaling: per-rule slope annotated" has "$o/rules-scaling.svg" 'on 8,  on-nojl 8,  nokey 8'

# ---------------------------------------------------------------- ranges and data (issue 26, section 5)
# PLOTS_RANGES: the y range gnuplot drew per panel ("figure|panel|metric|
# ymin|ymax"); PLOTS_KEEP_TMP: the data files reshape.awk wrote.
# yrange FIGURE PANEL [METRIC]: "ymin ymax" of that panel in $tmp/ranges
yrange() {
	awk -F'|' -v f="$1" -v p="$2" -v m="${3:-}" '$1 == f && $2 == p && (m == "" || $3 == m) { print $4, $5; exit }' "$tmp/ranges" 2>/dev/null || :
}
# plot_kept RESULTS OUT FIGURE PANEL: RESULTS plotted into OUT, the data
# files kept (kept_dir), and the y range drawn in FIGURE's PANEL in lo, hi
plot_kept() {
	rm -f "$tmp/ranges"
	run env PLOTS_RANGES="$tmp/ranges" PLOTS_KEEP_TMP=1 "$mp" "$1" "$2"
	read -r lo hi <<<"$(yrange "$3" "$4")"
}
# kept_dir: the data directory make-plots.sh kept (first one named in $tmp/err)
kept_dir() { sed -n 's/^make-plots.sh: keeping the data files in //p' "$tmp/err" | head -1; }
# awk_true EXPR: awk says EXPR holds (numbers compared as numbers)
awk_true() { awk "BEGIN { exit !($1) }"; }

# IOPS from 0: a 0.3% spread between configs (the softirq panel) is not
# magnified to fill the panel
r=$tmp/softirq
{
	cat "$data/summary.csv"
	awk -F, -v OFS=, "$COLUMNS_AWK"'
		NR > 1 && $4 == "iops" && $3 == "randread-qd1" && ($2 == "off" || $2 == "key-off") {
			$3 = "randread-qd1-softirq"
			$c["median"] = $1 == "off" ? 172049 : $1 == "on" ? 172025 : $1 == "on-nojl" ? 171482 : 171759
			$c["ci_lo"] = ""; $c["ci_hi"] = ""; print
		}' "$data/summary.csv"
} | mkres "$r"
rm -f "$tmp/ranges"
run env PLOTS_RANGES="$tmp/ranges" "$mp" "$r" "$r/out"
check "softirq: exit 0, nothing on stderr" eq "$rc:$(wc -c <"$tmp/err")" 0:0
read -r lo hi <<<"$(yrange iops randread-qd1-softirq)"
check "iops: a 0.3% spread is drawn on an axis from 0 (y range ${lo:-?}..${hi:-?})" \
	awk_true "${lo:-1} == 0 && ${hi:-0} >= 172049"
read -r lo hi <<<"$(yrange iops randread-qd1)"
check "iops: every panel from 0 (randread-qd1: ${lo:-?}..${hi:-?})" awk_true "${lo:-1} == 0"

read -r lo hi <<<"$(yrange rules-scaling randread-qd1 iops)"
check "rules-scaling: the IOPS panel from 0 (${lo:-?}..${hi:-?})" awk_true "${lo:-1} == 0"

# a panel whose only value lies beyond the cut (plain TCG's layout floor,
# -11% with a CI of -37.7..+66.5%) is drawn whole, with its interval
r=$tmp/tcglayout
awk -F, -v OFS=, "$COLUMNS_AWK"'
	NR == 1 { print; next }
	$4 == "iops" && $1 == "off" && $2 == "off" && $3 == "randread-qd1" { $3 = "layout-randread-qd1"; print }
	$4 == "iops" && $1 == "on" && $2 == "key-off" && $3 == "randread-qd1" {
		$1 = "off-layout"; $2 = "off"; $3 = "layout-randread-qd1"; $c["class"] = "sampled"
		$c["rel_change_pct"] = -10.9977; $c["rel_ci_lo_pct"] = -37.692; $c["rel_ci_hi_pct"] = 66.5258; print
	}' "$data/summary.csv" | mkres "$r"
sed -i 's/^ACCEL=.*/ACCEL=tcg/' "$r/meta.env"
plot_kept "$r" "$r/out" relative layout-randread-qd1
check "relative: a lone value beyond the cut shows its CI -37.7..+66.5 (y range ${lo:-?}..${hi:-?})" \
	awk_true "${lo:-0} <= -37.692 && ${hi:-0} >= 66.5258"
d=$(kept_dir)
check "relative: that panel is not cut (pcut = 0)" has_line "$d/relative.p1.gp" "pcut = 0"
check "relative: its error bar is drawn" eq "$(awk '{ print $3, $4 }' "$d/relative.p1.dat")" "-37.692 66.5258"
check "relative: no cut named in the subtitle" not_has "$r/out/relative.svg" 'y axis cut'
[[ -n $d ]] && rm -rf "$d"
# the fixture's relative figure keeps its cut (in-range values beside rules-1000)
plot_kept "$data" "$tmp/fx2" relative randread-qd1
check "relative: a panel with values on both sides is still cut at ±5% (${lo:-?}..${hi:-?})" \
	awk_true "${lo:--99} >= -6 && ${hi:-99} <= 6"

# rules-scaling: configs with equal values side by side, each at its own x
d=$(kept_dir)
check "rules-scaling: every (config, N) point has its own x (dodged)" \
	eq "$(awk 'NF { n++; x[$6] = 1 } END { print n, length(x) }' "$d/rules-scaling.r1c1.dat" | awk '{ print ($1 == $2 && $1 > 0) }')" 1
check "rules-scaling: the configs of one N sit within a factor 2 of N" \
	eq "$(awk 'NF && ($6 / $1 > 1.5 || $1 / $6 > 1.5) { bad++ } END { print bad + 0 }' "$d/rules-scaling.r1c1.dat")" 0
check "rules-scaling: key-off (N=0) points dodged too, left of the smallest N" \
	eq "$(awk '{ x[$3] = 1; if ($3 >= 1) bad++ } END { print length(x) == NR && !bad }' "$d/rules-scaling.r1c1.ref")" 1
[[ -n $d ]] && rm -rf "$d"

# ---------------------------------------------------------------- missing metrics
r=$tmp/noinsns
drop_metric insns_per_call | mkres "$r"
run "$mp" "$r" "$r/out"
check "no insns_per_call: exit 0" eq "$rc" 0
skipped "no insns_per_call" insns-per-call 'plots: no insns_per_call in this run (needs the TCG instruction-count plugin), skipping insns-per-call.png'
check "no insns_per_call: no insns-per-call.svg" not_exists "$r/out/insns-per-call.svg"
made "no insns_per_call" iops relative rules-scaling
check "no insns_per_call: nothing on stderr" empty "$tmp/err"

r=$tmp/noiops
drop_metric iops | mkres "$r"
run "$mp" "$r" "$r/out"
check "no iops: exit 0" eq "$rc" 0
skipped "no iops" iops 'plots: no iops in this run, skipping iops.png'
skipped "no iops" relative 'plots: no iops in this run, skipping relative.png'
made "no iops" insns-per-call rules-scaling

r=$tmp/norules
awk -F, '$2 !~ /^rules-/' "$data/summary.csv" | mkres "$r"
run "$mp" "$r" "$r/out"
skipped "no rules-N states" rules-scaling 'plots: no rules-N states with insns_per_call or iops in this run, skipping rules-scaling.png'
made "no rules-N states" iops

r=$tmp/nobase
# no off/off group: benchstat leaves the rel_* columns empty (no-baseline)
awk -F, -v OFS=, "$COLUMNS_AWK"'
	NR > 1 && $1 == "off" && $2 == "off" { next }
	NR > 1 {
		$c["rel_change_pct"] = ""; $c["rel_ci_lo_pct"] = ""; $c["rel_ci_hi_pct"] = ""
		$c["verdict"] = "no-baseline"
	} { print }' "$data/summary.csv" | mkres "$r"
run "$mp" "$r" "$r/out"
check "no baseline: exit 0" eq "$rc" 0
skipped "no baseline" relative 'plots: no rel_change_pct for iops in this run (no baseline group?), skipping relative.png'
made "no baseline" iops

# ---------------------------------------------------------------- KVM run with cycles
r=$tmp/kvm
# no instruction plugin under KVM; cycles_per_io made up from iops (inverse:
# CI ends and the relative change swap and flip)
awk -F, -v OFS=, "$COLUMNS_AWK"'
	NR == 1 { print; next } $4 == "insns_per_call" { next } { print }
	function swap(a, b, t) { t = $c[a]; $c[a] = $c[b]; $c[b] = t }
	$4 == "iops" {
		$4 = "cycles_per_io"
		split("median min max ci_lo ci_hi", v, " ")
		for (i in v) if ($c[v[i]] != "") $c[v[i]] = sprintf("%.6g", 2.4e9 / $c[v[i]])
		swap("min", "max"); swap("ci_lo", "ci_hi")
		split("rel_change_pct rel_ci_lo_pct rel_ci_hi_pct", v, " ")
		for (i in v) if ($c[v[i]] != "") $c[v[i]] = sprintf("%.6g", -$c[v[i]])
		swap("rel_ci_lo_pct", "rel_ci_hi_pct")
		print
	}' "$data/summary.csv" | mkres "$r"
sed -i 's/^ACCEL=.*/ACCEL=kvm/' "$r/meta.env"
run "$mp" "$r" "$r/out"
check "kvm: exit 0" eq "$rc" 0
check "kvm: cycles.png and cycles.svg made" figure_ok "$r/out" cycles "$run_id" kvm "$date"
check "kvm: one 'wrote' line for cycles" has_line "$tmp/out" "plots: wrote $r/out/cycles.png and $r/out/cycles.svg"
check "kvm: no cycles skip message" not_has "$tmp/out" 'skipping cycles.png'
check "kvm: IOPS axis says I/O per second" has "$r/out/iops.svg" 'IOPS (I/O per second)'
check "kvm: rules-scaling made from iops alone" figure_ok "$r/out" rules-scaling "$run_id" kvm "$date"
check "kvm: nothing on stderr" empty "$tmp/err"

# ---------------------------------------------------------------- input variants
r=$tmp/crlf
{ printf '\357\273\277'; sed 's/$/\r/' "$data/summary.csv"; } | mkres "$r"
sed -i 's/$/\r/' "$r/meta.env"
run "$mp" "$r" "$r/out"
check "CRLF + BOM: exit 0" eq "$rc" 0
for n in "${all4[@]}"; do
	check "CRLF + BOM: $n made" figure_ok "$r/out" "$n" "$run_id" "$accel" "$date"
done
check "CRLF + BOM: same data files as LF (iops.svg identical)" cmp -s "$r/out/iops.svg" "$o/iops.svg"

r=$tmp/edge
# n=1 (no CI), n=0 (no median), an unknown config and state, a third
# workload with only two states
{
	cat "$data/summary.csv"
	cat <<'EOF'
dbg,key-off,randread-qd1,iops,deterministic,1,0,33000,33000,33000,,,,,-3.03415,,,,,yes,no-verdict,n=1: no verdict,no
dbg,key-off,randread-qd1,insns_per_call,deterministic,1,0,70,70,70,,,,,16.6667,,,,,yes,no-verdict,n=1: no verdict,no
dbg,rules-5,randread-qd1,iops,deterministic,0,1,,,,,,,,,,,,,yes,no-data,no-data,no
dbg,rules-5,randread-qd1,insns_per_call,deterministic,0,1,,,,,,,,,,,,,yes,no-data,no-data,no
off,off,seqread-1m,iops,deterministic,2,0,2005,2000,2010,2000,2010,0.5,,,,,,,yes,baseline,baseline,no
on,rules-5,seqread-1m,iops,deterministic,2,0,1992.5,1990,1995,1990,1995,0.5,,-0.623441,-0.995025,-0.25,,,yes,within-threshold,within-threshold: -0.62% (CI -1.00..-0.25),no
on,rules-5,seqread-1m,insns_per_call,deterministic,2,0,102,102,102,102,102,0.5,,,,,,,yes,no-baseline,no-baseline,yes
EOF
} | mkres "$r"
run "$mp" "$r" "$r/out"
check "edge cases: exit 0" eq "$rc" 0
check "edge cases: nothing on stderr" empty "$tmp/err"
for n in "${all4[@]}"; do
	check "edge cases: $n made" figure_ok "$r/out" "$n" "$run_id" "$accel" "$date"
done
check "edge cases: unknown config in the key" has "$r/out/iops.svg" '>dbg<'
check "edge cases: third workload panel" has "$r/out/iops.svg" 'seqread-1m'
check "edge cases: CI levels range over the data (0.5-0.9375)" has "$r/out/iops.svg" 'coverage 0.5–0.9375'

r=$tmp/meta
drop_metric insns_per_call | mkres "$r"
cat >"$r/meta.env" <<'EOF'
# comment line
export RUN_ID='run-with-quote'
DATE="2025-02-03 04:05:06"
ACCEL=tcg
HOST_CPU="O'Brien CPU @ 3GHz"
KERNEL_RELEASE=6.12.0
EOF
run "$mp" "$r" "$r/out"
check "meta.env quoting: exit 0" eq "$rc" 0
check "meta.env quoting: iops made" figure_ok "$r/out" iops run-with-quote tcg "2025-02-03 04:05:06"
check "meta.env quoting: apostrophe survives" grep -qE "O('|&apos;|&#39;)Brien CPU" "$r/out/iops.svg"

# as bench/lib/results.sh writes it: printf %q; nothing in it is executed
r=$tmp/metaq
drop_metric insns_per_call | mkres "$r"
{
	printf 'RUN_ID=%s\nDATE=%s\nACCEL=%s\n' 20250203-040506-kvm 2025-02-03T04:05:06Z kvm
	printf 'HOST_CPU=%q\n' 'Intel(R) Xeon(R) CPU @ 2.20GHz'
	printf 'KERNEL_RELEASE=%s\n' 6.12.0-blkinject
	printf 'COMMAND=%q\n' "touch $r/pwned; \$(touch $r/pwned2)"
	printf 'BENCH_CONFIGS=%q\n' $'off on\ttab'
} >"$r/meta.env"
run "$mp" "$r" "$r/out"
check "meta.env printf %q: exit 0" eq "$rc" 0
check "meta.env printf %q: HOST_CPU unquoted in the subtitle" \
	has "$r/out/iops.svg" 'host: Intel(R) Xeon(R) CPU @ 2.20GHz; kernel: 6.12.0-blkinject'
check "meta.env printf %q: nothing executed" not_exists "$r/pwned"
check "meta.env printf %q: no command substitution" not_exists "$r/pwned2"

r=$tmp/nometa
mkdir -p "$r/my-run-42"
cp "$data/summary.csv" "$r/my-run-42/"
run "$mp" "$r/my-run-42"
check "no meta.env: exit 0 with a warning" eq "$rc:$(grep -c 'meta.env not found' "$tmp/err")" 0:1
check "no meta.env: run id from the directory name; default OUT_DIR = RESULTS_DIR/plots" \
	figure_ok "$r/my-run-42/plots" iops my-run-42 unknown "unknown date"

run env -u BIB_PLAN THRESHOLD=2 "$mp" "$data" "$tmp/thr"
check "THRESHOLD=2: band in the key" has "$tmp/thr/relative.svg" '±2% threshold'
run env -u BIB_PLAN THRESHOLD=abc "$mp" "$data" "$tmp/thr2"
check "THRESHOLD=abc: exit 2" eq "$rc" 2
run env -u BIB_PLAN PLOT_THRESHOLD=2 "$mp" "$data" "$tmp/thr3"
check "PLOT_THRESHOLD, THRESHOLD's old name: exit 2 naming THRESHOLD" eq "$rc:$(grep -c 'PLOT_THRESHOLD (the environment) is now THRESHOLD' "$tmp/err")" 2:1

# ---------------------------------------------------------------- errors
r=$tmp/hdronly
head -1 "$data/summary.csv" | mkres "$r"
run "$mp" "$r" "$r/out"
check "header only: exit 1, 'no figures produced'" eq "$rc:$(grep -c 'no figures produced' "$tmp/err")" 1:1
check "header only: all five skipped" eq "$(grep -c ', skipping ' "$tmp/out")" 5

r=$tmp/badhdr
sed '1s/,median,/,med,/' "$data/summary.csv" | mkres "$r"
run "$mp" "$r" "$r/out"
check "header without 'median': exit 2 with the column named" eq "$rc:$(grep -c "no column 'median'" "$tmp/err")" 2:1

run "$mp" "$tmp/does-not-exist"
check "missing results dir: exit 2" eq "$rc" 2
mkdir -p "$tmp/empty-dir"
run "$mp" "$tmp/empty-dir"
check "missing summary.csv: exit 2" eq "$rc:$(grep -c 'summary.csv: not found' "$tmp/err")" 2:1
run "$mp"
check "no arguments: usage, exit 2" eq "$rc:$(grep -c '^usage:' "$tmp/err")" 2:1
run "$mp" a b c
check "three arguments: usage, exit 2" eq "$rc" 2

# ---------------------------------------------------------------- fixture provenance
if command -v make >/dev/null && command -v cc >/dev/null; then
	mkdir -p "$tmp/gen"
	if bash "$data/gen-fixture.sh" "$tmp/gen" >/dev/null 2>&1; then
		check "testdata/summary.csv is what gen-fixture.sh produces" cmp -s "$tmp/gen/summary.csv" "$data/summary.csv"
		check "testdata/runs.csv is what gen-fixture.sh produces" cmp -s "$tmp/gen/runs.csv" "$data/runs.csv"
	else
		fail "gen-fixture.sh runs"
	fi
else
	pass "fixture provenance # SKIP no make/cc"
fi

# ---- make-view-plots.sh: the views' figures (bench/run/views.sh)
mvp=$here/make-view-plots.sh
v=$tmp/views
mkdir -p "$v/plain" "$v/mq"
cp "$data/summary.csv" "$data/meta.env" "$v/plain/"
run "$mvp" "$v/plain" "$v/plain/out"
check "views: plain run exits 0" eq "$rc" 0
check "views: no mq rows, mq.png skipped" has "$tmp/out" "skipping mq.png"
check "views: no percentiles, latency-percentiles.png skipped" has "$tmp/out" "skipping latency-percentiles.png"
# the fixture as a multi-queue run with percentiles: workloads renamed, the
# IOPS medians standing in for each percentile
cp "$data/meta.env" "$v/mq/"
awk -F, -v OFS=, 'NR == 1 { print; next } { $3 = "mq-" $3; print }
	NR > 1 && $4 == "iops" { for (p = 1; p <= 3; p++) { $4 = p == 1 ? "lat_p50_ns" : p == 2 ? "lat_p99_ns" : "lat_p999_ns"; print } }' \
	"$data/summary.csv" >"$v/mq/summary.csv"
run "$mvp" "$v/mq" "$v/mq/out"
check "views: mq run exits 0" eq "$rc" 0
check "views: mq.png written" is_png "$v/mq/out/mq.png"
check "views: mq.svg titled as the multi-queue view" has "$v/mq/out/mq.svg" "Multi-queue"
check "views: latency-percentiles.png written" is_png "$v/mq/out/latency-percentiles.png"
check "views: no poll rows, polled.png skipped" has "$tmp/out" "skipping polled.png"
check "views: nothing on stderr (no gnuplot warnings)" empty "$tmp/err"
[[ -s $tmp/err ]] && sed 's/^/# /' "$tmp/err"

# mq under tcg-icount: 2 vCPUs make its IOPS random (issue 26: "no rules"
# drawn at +5.2%, an exact-looking point, where the gate adds 1 instruction
# per call): open symbols, no interval, the exact per-call change in the label
run env PLOTS_KEEP_TMP=1 "$mvp" "$v/mq" "$v/mq/out"
d=$(kept_dir)
check "views: mq under icount: every IOPS change marked random (column 7)" \
	eq "$(awk '$7 != 1 { bad++ } END { print (NR > 0 && !bad) }' "$d"/relative.p*.dat)" 1
check "views: mq under icount: no error bars (no interval)" \
	eq "$(awk '$3 != "NaN" || $4 != "NaN" { bad++ } END { print (NR > 0 && !bad) }' "$d"/relative.p*.dat)" 1
check "views: mq under icount: subtitle says why" has "$v/mq/out/mq.svg" '2 vCPUs under tcg-icount'
check "views: mq under icount: the exact per-call change under each point" \
	eq "$(awk '{ print $8 }' "$d/relative.p1.dat" | head -3 | tr '\n' ' ')" '"+1" "+3" "+4" '
check "views: mq under icount: the subtitle says what the numbers are" \
	has "$v/mq/out/mq.svg" 'change of instructions per call (exact)'
sed -n 's/^make-plots.sh: keeping the data files in //p' "$tmp/err" | while read -r d; do rm -rf "$d"; done
check "views: latency under icount: marked not comparable" has "$v/mq/out/latency-percentiles.svg" 'not comparable across rows'
# the run's SMP_WORKLOADS (bench/run/views.sh) names the random workloads
# in place of the mq-* fallback: only mq-randread-qd1 listed here
mkdir -p "$v/smp" "$v/smp0"
cp "$v/mq/summary.csv" "$v/smp/"
{ cat "$data/meta.env"; echo "SMP_WORKLOADS='mq-randread-qd1 switch-2cpu'"; } >"$v/smp/meta.env"
run env PLOTS_KEEP_TMP=1 "$mp" "$v/smp" "$v/smp/out"
d=$(kept_dir)
check "SMP_WORKLOADS: exits 0" eq "$rc" 0
check "SMP_WORKLOADS: the listed workload's IOPS changes random" \
	eq "$(awk '$7 != 1 { bad++ } END { print (NR > 0 && !bad) }' "$d"/relative.p1.dat)" 1
check "SMP_WORKLOADS: a workload not listed (mq-randread-qd32) is not random" \
	eq "$(awk '$7 != 0 { bad++ } END { print (NR > 0 && !bad) }' "$d"/relative.p2.dat)" 1
check "SMP_WORKLOADS: the subtitle names the listed workload with IOPS" \
	has "$v/smp/out/relative.svg" 'mq-randread-qd1: more than one vCPU under tcg-icount'
check "SMP_WORKLOADS: not the mq-* fallback's note" not_has "$v/smp/out/relative.svg" '2 vCPUs under tcg-icount'
sed -n 's/^make-plots.sh: keeping the data files in //p' "$tmp/err" | while read -r d; do rm -rf "$d"; done
# an empty SMP_WORKLOADS: the run says none, mq-* is not guessed
cp "$v/mq/summary.csv" "$v/smp0/"
{ cat "$data/meta.env"; echo "SMP_WORKLOADS=''"; } >"$v/smp0/meta.env"
run env PLOTS_KEEP_TMP=1 "$mp" "$v/smp0" "$v/smp0/out"
d=$(kept_dir)
check "SMP_WORKLOADS empty: nothing marked random" \
	eq "$(awk '$7 != 0 { bad++ } END { print (NR > 0 && !bad) }' "$d"/relative.p*.dat)" 1
check "SMP_WORKLOADS empty: no vCPU note" not_has "$v/smp0/out/relative.svg" 'under tcg-icount: IOPS depend'
sed -n 's/^make-plots.sh: keeping the data files in //p' "$tmp/err" | while read -r d; do rm -rf "$d"; done
# the same run under KVM: IOPS sampled, nothing marked
mkdir -p "$v/kvm"
cp "$v/mq/summary.csv" "$v/kvm/"
sed 's/^ACCEL=.*/ACCEL=kvm/' "$data/meta.env" >"$v/kvm/meta.env"
run env PLOTS_KEEP_TMP=1 "$mvp" "$v/kvm" "$v/kvm/out"
d=$(kept_dir)
check "views: mq under kvm: nothing marked random" \
	eq "$(awk '$7 != 0 { bad++ } END { print (NR > 0 && !bad) }' "$d"/relative.p*.dat)" 1
check "views: mq under kvm: no icount note" not_has "$v/kvm/out/mq.svg" '2 vCPUs under tcg-icount'
check "views: latency under kvm: not marked" not_has "$v/kvm/out/latency-percentiles.svg" 'not comparable across rows'
sed -n 's/^make-plots.sh: keeping the data files in //p' "$tmp/err" | while read -r d; do rm -rf "$d"; done

# latency-percentiles of eight workloads (the views run): two panels a row,
# a readable height (it was 2550 px, one panel a row), fonts of the others
mkdir -p "$v/lat8"
cp "$data/meta.env" "$v/lat8/"
awk -F, -v OFS=, 'NR == 1 { print; next } $4 == "iops" && $3 == "randread-qd1" {
	for (w = 1; w <= 8; w++) for (p = 1; p <= 3; p++) {
		$3 = "w" w; $4 = p == 1 ? "lat_p50_ns" : p == 2 ? "lat_p99_ns" : "lat_p999_ns"; print
	} }' "$data/summary.csv" >"$v/lat8/summary.csv"
rm -f "$tmp/ranges"
run env PLOTS_RANGES="$tmp/ranges" "$mvp" "$v/lat8" "$v/lat8/out"
check "views: latency of 8 workloads: exit 0, nothing on stderr" eq "$rc:$(wc -c <"$tmp/err")" 0:0
png_height() { od -An -tu1 -j20 -N4 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }'; }
h=$(png_height "$v/lat8/out/latency-percentiles.png")
check "views: latency of 8 workloads is at most 1600 px tall ($h)" awk_true "$h <= 1600"
check "views: latency is 1000 px wide" eq "$(png_width "$v/lat8/out/latency-percentiles.png")" 1000
minfont=$(grep -o 'font-size="[0-9.]*"' "$v/lat8/out/latency-percentiles.svg" | tr -dc '0-9.\n' | sort -n | head -1)
check "views: latency: no text smaller than the other figures' smallest (13.3 in the SVG; ${minfont:-none})" \
	awk_true "${minfont:-0} >= 13.3"
check "views: latency: 8 panels drawn" eq "$(grep -c '^latency-percentiles|' "$tmp/ranges")" 8

# a run of nine workloads in five groups (the views run: layout-, mq-,
# poll-, plain and count-randread-qd*): one column would be ~3000 px tall
# (issue 26), so the panels go two a row, a group a row, at most 1600 px
g9=$tmp/grid9
awk -F, -v OFS=, 'NR == 1 { print; next }
	($1 == "off" || $1 == "on") && ($2 == "off" || $2 == "key-off" || $2 == "key-on-other" || $2 == "rules-1") {
		w = $3
		n = split("layout- mq- poll- x count-", v, " ")
		for (i = 1; i <= n; i++) {
			if (v[i] == "count-" && w != "randread-qd1") continue
			$3 = (v[i] == "x" ? "" : v[i]) w; print
		}
	}' "$data/summary.csv" | mkres "$g9"
run env PLOTS_KEEP_TMP=1 "$mp" "$g9" "$g9/out"
d=$(kept_dir)
check "grid: exit 0, nothing on stderr but the kept directory" \
	eq "$rc:$(grep -vc '^make-plots.sh: keeping' "$tmp/err")" 0:0
for n in iops relative insns-per-call; do
	h=$(png_height "$g9/out/$n.png")
	check "grid: $n of 9 workloads is at most 1600 px tall ($h)" awk_true "${h:-9999} <= 1600"
	check "grid: $n is 1000 px wide" eq "$(png_width "$g9/out/$n.png")" 1000
done
check "grid: one y axis label for the figure (not one a panel)" \
	eq "$(grep -c '>IOPS (guest time = instruction count)<' "$g9/out/iops.svg")" 1
check "grid: a group's two workloads share a row (mq-randread-qd32: row 2, column 2)" \
	eq "$(grep -h '^pgrow\|^pgcol' "$d/iops.p4.gp" | tr '\n' ' ')" 'pgrow = 2 pgcol = 2 '
check "grid: a group starts a row (count-randread-qd1: row 5, column 1)" \
	eq "$(grep -h '^pgrow\|^pgcol' "$d/iops.p9.gp" | tr '\n' ' ')" 'pgrow = 5 pgcol = 1 '
check "grid: state names wrapped to the cell, not rotated" \
	has "$d/iops.p1.gp" '"rule on\nother disk"'
minfont=$(grep -ho 'font-size="[0-9.]*"' "$g9/out"/*.svg | tr -dc '0-9.\n' | sort -n | head -1)
check "grid: no text smaller than the one-column figures' smallest (13.3 in the SVG; ${minfont:-none})" \
	awk_true "${minfont:-0} >= 13.3"
# the fixture's two workloads stay one column: a y label a panel
check "one column below 1600 px: the fixture keeps a y label a panel" \
	eq "$(grep -c '>IOPS (guest time = instruction count)<' "$o/iops.svg")" 2
[[ -n $d ]] && rm -rf "$d"

# relative with one run a side (make quick under icount): the bars are
# benchstat's +-0.5% repeatability margin, not a CI or a repeats' range
r=$tmp/n1
awk -F, -v OFS=, "$COLUMNS_AWK"'
	NR == 1 { print; next }
	{ $c["n"] = 1; $c["ci_lo"] = ""; $c["ci_hi"] = ""; $c["ci_level"] = "" }
	$4 == "iops" && $c["rel_change_pct"] != "" {
		l = log(1 + $c["rel_change_pct"] / 100)
		$c["rel_ci_lo_pct"] = (exp(l - log(1.005)) - 1) * 100
		$c["rel_ci_hi_pct"] = (exp(l + log(1.005)) - 1) * 100
	}
	{ print }' "$data/summary.csv" | mkres "$r"
run "$mp" "$r" "$r/out"
check "n=1: exit 0" eq "$rc" 0
check "n=1: relative names its bars the ±0.5% icount repeatability" \
	has "$r/out/relative.svg" 'bars: ±0.5% icount repeatability (one run a side: no CI)'
check "n=1: relative promises no repeats' range or CI" not_has "$r/out/relative.svg" 'Hodges-Lehmann'
check "fixture (n=5): relative's bars are the change's interval" \
	has "$o/relative.svg" "bars: the change's interval (repeats' range or Hodges-Lehmann CI)"

# no subtitle line cut to the canvas ("…": fit() shortened it) in any
# figure made above, the views' included (issue 26: the cut fourth line)
check "no figure has a subtitle line cut short" \
	eq "$(find "$tmp" -name '*.svg' -exec grep -l '…' {} + | wc -l)" 0
run "$mvp"
check "views: no arguments: exit 2" eq "$rc" 2

finish
