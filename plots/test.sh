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
check "rules-scaling: key-off reference in the key" has "$o/rules-scaling.svg" 'key-off (N=0), per config'
check "rules-scaling: per-rule slope annotated" has "$o/rules-scaling.svg" 'on 8,  on-nojl 8,  nokey 8'

# ---------------------------------------------------------------- missing metrics
r=$tmp/noinsns
drop_metric insns_per_call | mkres "$r"
run "$mp" "$r" "$r/out"
check "no insns_per_call: exit 0" eq "$rc" 0
check "no insns_per_call: insns-per-call skipped with a message" \
	has_line "$tmp/out" 'plots: no insns_per_call in this run (needs the TCG instruction-count plugin), skipping insns-per-call.png'
check "no insns_per_call: no insns-per-call.png" not_exists "$r/out/insns-per-call.png"
check "no insns_per_call: no insns-per-call.svg" not_exists "$r/out/insns-per-call.svg"
for n in iops relative rules-scaling; do
	check "no insns_per_call: $n still made" figure_ok "$r/out" "$n" "$run_id" "$accel" "$date"
done
check "no insns_per_call: nothing on stderr" empty "$tmp/err"

r=$tmp/noiops
drop_metric iops | mkres "$r"
run "$mp" "$r" "$r/out"
check "no iops: exit 0" eq "$rc" 0
check "no iops: iops skipped with a message" has_line "$tmp/out" 'plots: no iops in this run, skipping iops.png'
check "no iops: relative skipped with a message" has_line "$tmp/out" 'plots: no iops in this run, skipping relative.png'
check "no iops: no iops.png" not_exists "$r/out/iops.png"
check "no iops: no relative.png" not_exists "$r/out/relative.png"
check "no iops: insns-per-call made" figure_ok "$r/out" insns-per-call "$run_id" "$accel" "$date"
check "no iops: rules-scaling made (insns panels only)" figure_ok "$r/out" rules-scaling "$run_id" "$accel" "$date"

r=$tmp/norules
awk -F, '$2 !~ /^rules-/' "$data/summary.csv" | mkres "$r"
run "$mp" "$r" "$r/out"
check "no rules-N states: rules-scaling skipped with a message" \
	has_line "$tmp/out" 'plots: no rules-N states with insns_per_call or iops in this run, skipping rules-scaling.png'
check "no rules-N states: no rules-scaling.png" not_exists "$r/out/rules-scaling.png"
check "no rules-N states: iops made" figure_ok "$r/out" iops "$run_id" "$accel" "$date"

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
check "no baseline: relative skipped with a message" \
	has_line "$tmp/out" 'plots: no rel_change_pct for iops in this run (no baseline group?), skipping relative.png'
check "no baseline: no relative.png" not_exists "$r/out/relative.png"
check "no baseline: iops made" figure_ok "$r/out" iops "$run_id" "$accel" "$date"

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

# as bench/results.sh writes it: printf %q; nothing in it is executed
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

run env PLOT_THRESHOLD=2 "$mp" "$data" "$tmp/thr"
check "PLOT_THRESHOLD=2: band in the key" has "$tmp/thr/relative.svg" '±2% threshold'
run env PLOT_THRESHOLD=abc "$mp" "$data" "$tmp/thr2"
check "PLOT_THRESHOLD=abc: exit 2" eq "$rc" 2

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

# ---- make-view-plots.sh: the views' figures (bench/views.sh)
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
run "$mvp"
check "views: no arguments: exit 2" eq "$rc" 2

finish
