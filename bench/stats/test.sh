#!/usr/bin/env bash
# Tests for bench/stats/benchstat.
#
#   bash bench/stats/test.sh
#
# Builds benchstat into a temporary directory (via the Makefile, so with
# -std=c11 -Wall -Wextra -Werror), runs it against the fixtures in
# testdata/ and compares with the golden *.expected files where the output
# is exact, otherwise asserts on individual fields.  Prints one
# "ok - NAME" / "not ok - NAME" line per assertion and a final
# "N passed, N failed" line; exits non-zero if anything failed.
#
# To regenerate a golden file after an intended output change, see the
# end of README.md, and review the diff.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
data=$here/testdata
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/assert.sh
. "$here/../../tests/lib/assert.sh"

not_grep() { ! grep -q "$@"; }


# ---------------------------------------------------------------- build
# insulated from a parent make (make test): no inherited flags or -w output
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	make -s --no-print-directory -C "$here" OUT="$tmp" >"$tmp/build.log" 2>&1; then
	pass "build with -std=c11 -Wall -Wextra -Werror"
else
	sed 's/^/# /' "$tmp/build.log"
	fail "build with -std=c11 -Wall -Wextra -Werror"
	finish
	exit 1
fi
check "build is warning-free" not_grep -i warning "$tmp/build.log"

bs=$tmp/benchstat

# run CMD... with stdout, stderr and exit status captured in
# $tmp/out, $tmp/err and $rc (never trips set -e).
rc=0
run() {
	rc=0
	"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
}

# same_file NAME EXPECTED ACTUAL: byte comparison, diff shown on failure
same_file() {
	if cmp -s "$2" "$3"; then
		pass "$1"
	else
		diff -u "$2" "$3" | sed 's/^/# /' || true
		fail "$1"
	fi
}

# rc_and_stderr RC REGEX: last run exited RC and its stderr matches REGEX
rc_and_stderr() { [[ $rc -eq $1 ]] && grep -q -- "$2" "$tmp/err"; }

# col CSV KEY COLUMN: print COLUMN of the summary row whose first four
# fields are KEY ("config,state,workload,metric"); fails if not found.
col() {
	awk -F, -v key="$2" -v name="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
		($1 "," $2 "," $3 "," $4) == key { print $c; found = 1 }
		END { exit !(found && c) }' "$1"
}

# eq A B / starts A PREFIX: string tests
eq() { [[ "$1" == "$2" ]]; }
starts() { [[ "$1" == "$2"* ]]; }
differ() { ! cmp -s "$1" "$2"; }
# num_in X LO HI: LO <= X <= HI (floating point, via awk)
num_in() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x != "" && x + 0 >= lo && x + 0 <= hi) }'; }

# ------------------------------------------------------------- summary
cd "$data"
S=$tmp/summary.csv
run "$bs" summary basic.csv
cp "$tmp/out" "$S"
check "summary exits 0" eq "$rc" 0
same_file "summary matches golden basic.summary.expected" basic.summary.expected "$S"

run "$bs" summary basic.csv
same_file "summary is reproducible (byte-identical on rerun)" "$S" "$tmp/out"

run "$bs" summary --seed 1 --threshold 1.0 --baseline-config off --baseline-state off basic.csv
same_file "explicit default options give the same output" "$S" "$tmp/out"

# order-statistic CI, n = 5: no k satisfies P(B<k) <= 0.025 (P(B<1) = 1/32),
# so the interval is [min, max] with coverage 1 - 2/32 = 0.9375.
K=off,off,randread-4k,iops
check "n=5: n column is 5" eq "$(col "$S" $K n)" 5
check "n=5: CI is [min,max]" eq "$(col "$S" $K ci_lo),$(col "$S" $K ci_hi)" \
	"$(col "$S" $K min),$(col "$S" $K max)"
check "n=5: CI is [99800,100500]" eq "$(col "$S" $K ci_lo),$(col "$S" $K ci_hi)" 99800,100500
check "n=5: ci_level is 0.9375" eq "$(col "$S" $K ci_level)" 0.9375

# n = 10: P(B<2) = 11/1024 <= 0.025 < P(B<3) = 56/1024, so k = 2:
# [x_(2), x_(9)] with coverage 1 - 22/1024 = 0.978515625.
K=on,rules-1000,randread-4k,lat_ns       # values 1101..1110
check "n=10: n column is 10" eq "$(col "$S" $K n)" 10
check "n=10: CI is [x_(2), x_(9)] = [1102,1109]" \
	eq "$(col "$S" $K ci_lo),$(col "$S" $K ci_hi)" 1102,1109
check "n=10: ci_level is 0.9785 (1-22/1024)" \
	eq "$(awk -v x="$(col "$S" $K ci_level)" 'BEGIN { printf "%.4f", x }')" 0.9785
check "n=10: ci_level within 1e-6 of 0.978515625" \
	num_in "$(col "$S" $K ci_level)" 0.978515 0.978517

# independent check of the binomial rule for n = 1..40: values 1..n, so
# x_(k) = k; expected k and coverage computed here in awk.
gen=$tmp/ranks.csv
awk 'BEGIN {
	print "seq,config,state,workload,repeat,status,metric,value"
	s = 0
	for (n = 1; n <= 40; n++) for (i = n; i >= 1; i--)
		printf "%d,c%d,s,w,%d,ok,m,%d\n", ++s, n, i, i
}' >"$gen"
# shellcheck disable=SC2016  # $N below are awk fields
ranks_awk='
	function cdf(n, j,   i, p, c) {     # P(Binom(n, 1/2) <= j)
		p = 0.5 ^ n; c = 0
		for (i = 0; i <= j; i++) { c += p; p = p * (n - i) / (i + 1) }
		return c
	}
	NR == 1 { next }
	{
		n = $5; bad = 0
		if (n < 2) { if ($10 != "" || $11 != "" || $12 != "") bad = 1 }
		else {
			k = 0
			for (j = 1; j <= n / 2; j++) if (cdf(n, j - 1) <= 0.025) k = j
			if (k == 0) k = 1
			lvl = 1 - 2 * cdf(n, k - 1)
			if ($10 != k || $11 != n - k + 1) bad = 1
			if ($12 - lvl > 1e-6 || lvl - $12 > 1e-6) bad = 1
		}
		if (bad) { print "# n=" n ": got " $10 ".." $11 " level " $12; errs++ }
		rows++
	}
	END { exit !(rows == 40 && errs == 0) }'
run "$bs" summary "$gen"
check "median CI ranks and levels match the binomial rule for n=1..40" \
	awk -F, "$ranks_awk" "$tmp/out"

# n < 2: no interval
K=nokey,off,randread-4k,iops
check "n=1: CI columns empty" eq "$(col "$S" $K ci_lo)|$(col "$S" $K ci_hi)|$(col "$S" $K ci_level)" "||"
check "n=1: verdict insufficient-data, no rel CI" \
	eq "$(col "$S" $K verdict)|$(col "$S" $K rel_ci_lo_pct)" "insufficient-data: -0.05%|"
check "n=1: deterministic is no" eq "$(col "$S" $K deterministic)" no

# deterministic detection
check "deterministic: identical values -> yes" \
	eq "$(col "$S" off,off,randread-4k,insns_per_call deterministic)" yes
check "deterministic: varying values -> no" \
	eq "$(col "$S" off,off,randread-4k,iops deterministic)" no
check "deterministic: CI collapses to the value" \
	eq "$(col "$S" off,off,randread-4k,insns_per_call ci_lo),$(col "$S" off,off,randread-4k,insns_per_call ci_hi)" 412,412
check "deterministic: equal to baseline -> identical" \
	eq "$(col "$S" on,key-off,randread-4k,insns_per_call verdict)" identical
K=on,rules-1000,randread-4k,insns_per_call
check "deterministic: 412 -> 498 is 'slower by 20.87% (exact)'" \
	eq "$(col "$S" $K verdict)" "slower by 20.87% (exact)"
check "deterministic: rel CI equals the point value" \
	eq "$(col "$S" $K rel_ci_lo_pct),$(col "$S" $K rel_ci_hi_pct)" \
	"$(col "$S" $K rel_change_pct),$(col "$S" $K rel_change_pct)"

# baseline
for m in iops lat_ns insns_per_call; do
	K=off,off,randread-4k,$m
	check "baseline verdict for $m" \
		eq "$(col "$S" $K verdict)|$(col "$S" $K rel_change_pct)|$(col "$S" $K rel_ci_lo_pct)|$(col "$S" $K rel_ci_hi_pct)" \
		"baseline|||"
done

# a clear ~10% iops drop (medians 90075 vs 100000). Every resampled ratio
# lies in [89800/100500, 90400/99800], i.e. [-10.647%, -9.419%].
K=on,rules-1000,randread-4k,iops
check "10% iops drop: verdict 'slower by 9.92% ...'" \
	starts "$(col "$S" $K verdict)" "slower by 9.92% (CI "
check "10% iops drop: rel_change_pct = -9.925" eq "$(col "$S" $K rel_change_pct)" -9.925
check "10% iops drop: rel CI inside the analytic bounds" \
	num_in "$(col "$S" $K rel_ci_lo_pct)" -10.647 -9.419
check "10% iops drop: rel CI hi inside the analytic bounds" \
	num_in "$(col "$S" $K rel_ci_hi_pct)" -10.647 -9.419
check "higher lat_ns is 'slower'" \
	starts "$(col "$S" on,rules-1000,randread-4k,lat_ns verdict)" "slower by 10.33%"
check "lower lat_ns is 'faster'" \
	starts "$(col "$S" on,key-on-other,randread-4k,lat_ns verdict)" "faster by 4.99% (CI "

# noise only, overlapping values
check "noise only: indistinguishable" \
	eq "$(col "$S" on,key-off,randread-4k,iops verdict)" indistinguishable
check "noise only: rel CI contains 0" \
	awk -v lo="$(col "$S" on,key-off,randread-4k,iops rel_ci_lo_pct)" \
	-v hi="$(col "$S" on,key-off,randread-4k,iops rel_ci_hi_pct)" \
	'BEGIN { exit !(lo <= 0 && hi >= 0) }'

# +0.5% shift with every value above the baseline max: CI excludes 0 but
# lies inside [0.0996%, 0.9%] -- within the default 1% threshold.
K=on,key-off,randread-4k,lat_ns
check "small real shift: within-threshold" \
	starts "$(col "$S" $K verdict)" "within-threshold: 0.50% (CI "
run "$bs" summary --threshold 0.1 basic.csv
cp "$tmp/out" "$tmp/thr.csv"
check "small real shift with --threshold 0.1: slower" \
	starts "$(col "$tmp/thr.csv" $K verdict)" "slower by 0.50% (CI "

# failed rows: never used, but counted
K=on,rules-1000,randread-4k,iops   # 2 failed rows carrying the bogus value 1
check "failed rows counted in n_failed" eq "$(col "$S" $K n_failed)" 2
check "failed rows excluded from n" eq "$(col "$S" $K n)" 10
check "failed rows' values not used (min unaffected)" eq "$(col "$S" $K min)" 89800
K=on,rules-10,randread-4k,iops
check "all-failed group: n=0 n_failed=2 no-data, empty stats" \
	eq "$(col "$S" $K n)|$(col "$S" $K n_failed)|$(col "$S" $K median)|$(col "$S" $K verdict)" \
	"0|2||no-data"

check "workload without baseline: no-baseline" \
	eq "$(col "$S" on,off,seqwrite-1m,iops verdict)" no-baseline

# another baseline
run "$bs" summary --baseline-config on --baseline-state key-off basic.csv
cp "$tmp/out" "$tmp/alt.csv"
check "--baseline-config/--baseline-state select the baseline" \
	eq "$(col "$tmp/alt.csv" on,key-off,randread-4k,iops verdict)|$(col "$tmp/alt.csv" off,off,randread-4k,iops verdict)" \
	"baseline|indistinguishable"
run "$bs" summary --baseline-config nosuch basic.csv
check "unknown baseline: warning on stderr, exit 0" \
	rc_and_stderr 0 "warning: .*config=nosuch state=off"

# robustness of the output to incidental input changes
{ head -n 1 basic.csv; tail -n +2 basic.csv | tac; } >"$tmp/reversed.csv"
"$bs" summary "$tmp/reversed.csv" | sort >"$tmp/rev.sorted"
sort "$S" >"$tmp/orig.sorted"
same_file "row order does not change any statistic (bootstrap included)" \
	"$tmp/orig.sorted" "$tmp/rev.sorted"
sed 's/$/\r/' basic.csv >"$tmp/crlf.csv"
run "$bs" summary "$tmp/crlf.csv"
same_file "CRLF line endings accepted" "$S" "$tmp/out"
# a different seed may move the bootstrap CIs, nothing else
no_boot() { awk -F, -v OFS=, '{ sub(/ \(CI .*\)$/, "", $16); $13 = $14 = $15 = ""; print }' "$1"; }
run "$bs" summary --seed 2 basic.csv
check "--seed 2 leaves every non-bootstrap field unchanged" \
	eq "$(no_boot "$tmp/out")" "$(no_boot "$S")"
check "--seed 2 does move some bootstrap CI (the seed is used)" \
	differ "$tmp/out" "$S"

# ------------------------------------------------------------- compare
run "$bs" compare base.csv new_regress.csv
check "compare: regression fixture exits 1" eq "$rc" 1
same_file "compare: regression report matches golden" compare_regress.expected "$tmp/out"
cp "$tmp/out" "$tmp/regress.txt"
# row_ends KEY SUFFIX: the report line for KEY ends with SUFFIX
row_ends() {
	local l
	l=$(grep -E "^$1 " "$tmp/regress.txt") && [[ $l == *"$2" ]]
}
# row_has KEY TEXT: the report line for KEY contains TEXT
row_has() {
	local l
	l=$(grep -E "^$1 " "$tmp/regress.txt") && [[ $l == *"$2"* ]]
}
check "compare: 10% iops drop marked REGRESSION" \
	row_ends on/rules-1/randread-4k/iops "]  REGRESSION"
check "compare: 10% lat_ns drop marked improvement" \
	row_ends on/rules-1/randread-4k/lat_ns "]  improvement"
check "compare: +0.5% with CI inside threshold not marked" \
	row_ends on/rules-1/randread-4k/task_clock_ns_per_io "[0.35, 0.65]"
check "compare: exact +2.5% (deterministic) marked REGRESSION" \
	row_ends on/rules-1/randread-4k/insns_per_call "exact  REGRESSION"
check "compare: exact 0% (deterministic) not marked" \
	row_ends on/rules-1/randread-4k/insns_per_io "0.00            exact"
check "compare: noise not marked" \
	row_ends off/off/randread-4k/iops "[-0.50, 0.50]"
check "compare: only in base listed" \
	row_ends on/key-off/seqwrite-1m/iops "only in base"
check "compare: only in new listed" \
	row_ends on/rules-1/randread-4k-qd32/iops "only in new"
check "compare: failed runs shown in n" \
	row_has on/rules-1/randread-4k/iops " 5+1f "
check "compare: summary line counts" \
	eq "$(tail -n 1 "$tmp/regress.txt")" \
	"7 compared, 2 regressions, 1 improvement, 2 only in one file"

run "$bs" compare base.csv new_same.csv
check "compare: no-change fixture exits 0" eq "$rc" 0
same_file "compare: no-change report matches golden" compare_same.expected "$tmp/out"
run "$bs" compare --threshold 15 base.csv new_regress.csv
check "compare: --threshold 15 turns the regressions off (exit 0)" eq "$rc" 0
run "$bs" compare base.csv base.csv
check "compare: a file against itself exits 0" eq "$rc" 0

# ------------------------------------------------------------- errors
# expect_error NAME FILE LINE: both subcommands exit 2 naming FILE:LINE
expect_error() {
	local name=$1 file=$2 lineno=$3
	run "$bs" compare base.csv "$file"
	if [[ $rc -eq 2 ]] && grep -q "$file:$lineno:" "$tmp/err" && [[ ! -s "$tmp/out" ]]; then
		pass "compare: $name -> exit 2, message names $file:$lineno"
	else
		sed 's/^/# /' "$tmp/err"
		fail "compare: $name -> exit 2, message names $file:$lineno (rc=$rc)"
	fi
	run "$bs" summary "$file"
	if [[ $rc -eq 2 ]] && grep -q "$file:$lineno:" "$tmp/err"; then
		pass "summary: $name -> exit 2"
	else
		fail "summary: $name -> exit 2 (rc=$rc)"
	fi
}
expect_error "wrong column count" bad_columns.csv 4
expect_error "non-numeric value in ok row" bad_value.csv 3
expect_error "unknown status" bad_status.csv 5
expect_error "wrong header" bad_header.csv 1
expect_error "header only" header_only.csv 1
: >"$tmp/empty.csv"
run "$bs" summary "$tmp/empty.csv"
check "empty file -> exit 2" rc_and_stderr 2 "empty.csv:1:"

run "$bs" compare base.csv
check "usage: compare with one file -> exit 2" eq "$rc" 2
run "$bs" summary --no-such-option basic.csv
check "usage: unknown option -> exit 2" eq "$rc" 2
run "$bs" summary --threshold -1 basic.csv
check "usage: negative threshold -> exit 2" eq "$rc" 2
run "$bs" summary "$tmp/does-not-exist.csv"
check "missing file -> exit 2" eq "$rc" 2
run "$bs"
check "usage: no subcommand -> exit 2" eq "$rc" 2

finish
