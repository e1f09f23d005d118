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
# shellcheck disable=SC2016  # awk programs in single quotes
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/help.sh
. "$HERE/../lib/help.sh"
help_answer "$0" "$@"

here=$(cd "$HERE" && pwd)
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
# $tmp/raw, $tmp/err and $rc (never trips set -e); $tmp/out is stdout with
# the compare table's rows one a line again (unwrap).
rc=0
run() {
	rc=0
	"$@" >"$tmp/raw" 2>"$tmp/err" || rc=$?
	unwrap <"$tmp/raw" >"$tmp/out"
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
same_file_quiet() { cmp -s "$1" "$2"; }
# num_in X LO HI: LO <= X <= HI (floating point, via awk)
num_in() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x != "" && x + 0 >= lo && x + 0 <= hi) }'; }

# ------------------------------------------------------------- summary
cd "$data"
S=$tmp/summary.csv
run "$bs" summary --accel kvm basic.csv
cp "$tmp/out" "$S"
check "summary exits 0" eq "$rc" 0
same_file "summary matches golden basic.summary.expected" basic.summary.expected "$S"
run "$bs" summary --threshold 1.0 --baseline-config off --baseline-state off --accel kvm basic.csv
same_file "explicit default options give the same output" "$S" "$tmp/out"

# order-statistic CI of a median, n = 5: [min, max], coverage 1 - 2/32;
# n = 10: [x_(2), x_(9)], coverage 1 - 22/1024 (binomial, from GSL).
K=off,off,randread-4k,iops
check "n=5: median CI is [99800,100500] at 0.9375" \
	eq "$(col "$S" $K ci_lo),$(col "$S" $K ci_hi),$(col "$S" $K ci_level)" 99800,100500,0.9375
K=on,rules-1000,randread-4k,lat_ns       # values 1101..1110
check "n=10: median CI is [1102,1109]" eq "$(col "$S" $K ci_lo),$(col "$S" $K ci_hi)" 1102,1109
check "n=10: ci_level within 1e-6 of 0.978515625" num_in "$(col "$S" $K ci_level)" 0.978515 0.978517

# the binomial rule for n = 1..40, re-derived in awk: values 1..n, so x_(k) = k
gen=$tmp/ranks.csv
awk 'BEGIN {
	print "seq,config,state,workload,repeat,status,metric,value"
	s = 0
	for (n = 1; n <= 40; n++) for (i = n; i >= 1; i--)
		printf "%d,c%d,s,w,%d,ok,iops,%d\n", ++s, n, i, i
}' >"$gen"
ranks_awk='
	function cdf(n, j,   i, p, c) {     # P(Binom(n, 1/2) <= j)
		p = 0.5 ^ n; c = 0
		for (i = 0; i <= j; i++) { c += p; p = p * (n - i) / (i + 1) }
		return c
	}
	NR == 1 { next }
	{
		n = $6; bad = 0
		if (n < 2) { if ($11 != "" || $12 != "" || $13 != "") bad = 1 }
		else {
			k = 0
			for (j = 1; j <= n / 2; j++) if (cdf(n, j - 1) <= 0.025) k = j
			if (k == 0) k = 1
			lvl = 1 - 2 * cdf(n, k - 1)
			if ($11 != k || $12 != n - k + 1) bad = 1
			if ($13 - lvl > 1e-6 || lvl - $13 > 1e-6) bad = 1
		}
		if (bad) { print "# n=" n ": got " $11 ".." $12 " level " $13; errs++ }
		rows++
	}
	END { exit !(rows == 40 && errs == 0) }'
run "$bs" summary --accel kvm --baseline-config c1 --baseline-state s "$gen"
check "median CI ranks and levels match the binomial rule for n=1..40" awk -F, "$ranks_awk" "$tmp/out"

# sampled (kvm): exact Wilcoxon rank-sum test, Hodges-Lehmann shift
K=on,rules-1000,randread-4k,iops   # n=5 baseline vs n=10, all below
check "10% drop: slower" eq "$(col "$S" $K verdict)" slower
check "10% drop: p = 2/C(15,5) = 0.000666" num_in "$(col "$S" $K p_value)" 0.000666 0.000667
check "10% drop: HL shift -9.97%, CI inside [-10.65, -9.42]" \
	awk -v r="$(col "$S" $K rel_change_pct)" -v lo="$(col "$S" $K rel_ci_lo_pct)" -v hi="$(col "$S" $K rel_ci_hi_pct)" \
	'BEGIN { exit !(r > -10.0 && r < -9.9 && lo >= -10.65 && hi <= -9.42 && lo < r && r < hi) }'
check "noise only, its 95% CI inside +-1%: within-threshold" eq "$(col "$S" on,key-off,randread-4k,iops verdict)" within-threshold
check "+0.5% real shift: within-threshold" eq "$(col "$S" on,key-off,randread-4k,lat_ns verdict)" within-threshold
check "lower lat_ns is faster" eq "$(col "$S" on,key-on-other,randread-4k,lat_ns verdict)" faster
K=nokey,off,randread-4k,iops
check "n=1 sampled gating row: underpowered, says what n its family needs" \
	eq "$(col "$S" $K verdict)|$(col "$S" $K verdict_text)" \
	"no-verdict|n=5+1: underpowered: Holm over 3 gating rows cannot reach 95% (smallest p 0.333 x 3 = 1); need n>=5 per side"
run "$bs" summary --threshold 0.1 --accel kvm basic.csv
check "+0.5% with --threshold 0.1: slower" eq "$(col "$tmp/out" on,key-off,randread-4k,lat_ns verdict)" slower

# p-values against full enumeration of the permutations (python, offline)
# and the textbook 1:5 vs 6:10 (p = 2/252, coverage 1 - 8/252, shift 5)
run "$bs" summary --accel kvm wilcoxon.csv
cp "$tmp/out" "$tmp/w.csv"
for e in w1:0.476190 w2:0.015873 w3:0.047619 w4:0.001166 w5:0.007937; do
	check "p-value of ${e%%:*} is ${e#*:}" \
		awk -v p="$(col "$tmp/w.csv" "on,key-off,${e%%:*},cycles_per_io" p_value)" -v e="${e#*:}" \
		'BEGIN { exit !(p != "" && (p - e) ^ 2 < 1e-12) }'
done
K=on,key-off,w5,cycles_per_io
check "1:5 vs 6:10: HL delta 5, coverage 1-8/252" \
	eq "$(col "$tmp/w.csv" $K delta),$(col "$tmp/w.csv" $K rel_ci_level)" 5,0.968254
check "Holm over 5 gating rows: w5 (p=0.0079, Holm 0.032) slower, w3 (6+3) underpowered" \
	eq "$(col "$tmp/w.csv" $K verdict),$(col "$tmp/w.csv" on,key-off,w3,cycles_per_io verdict)" slower,no-verdict
check "w2: significant (Holm 0.048) but its CI +0.30..+3.00% straddles 1%: unclear" \
	eq "$(col "$tmp/w.csv" on,key-off,w2,cycles_per_io verdict)" unclear
check "a non-gating metric is judged on its own p and interval (w3 unclear)" \
	eq "$(col "$tmp/w.csv" on,key-off,w3,instructions_per_io verdict)" unclear

# deterministic: judged against the threshold like everything else
run "$bs" summary --accel tcg-icount determ.csv
cp "$tmp/out" "$tmp/d.csv"
check "exact -0.5% ({100000,100000} base): within-threshold" \
	eq "$(col "$tmp/d.csv" on,key-off,a,iops verdict)" within-threshold
check "exact -0.5% ({100000,100001} base): within-threshold too" \
	eq "$(col "$tmp/d.csv" on,key-off,b,iops verdict)" within-threshold
check "exact -2%: slower, text says exact" \
	eq "$(col "$tmp/d.csv" on,rules-1,a,iops verdict)|$(col "$tmp/d.csv" on,rules-1,a,iops verdict_text)" \
	"slower|-2000 IOPS (-2.00%); exact"
check "insns_per_call at n=1: slower by +1 instruction per call, exact" \
	eq "$(col "$tmp/d.csv" on,key-off,p,insns_per_call verdict_text)" "+1 instruction per call (+2.38%); exact"
check "insns_per_call at n=1: class deterministic" eq "$(col "$tmp/d.csv" on,key-off,p,insns_per_call class)" deterministic
check "unequal repeats straddling the threshold: unclear" \
	eq "$(col "$tmp/d.csv" on,rules-1,b,iops verdict)" unclear
check "icount iops once a side, -0.9%: unclear (0.5% repeatability reaches 1%)" \
	eq "$(col "$tmp/d.csv" on,key-off,c,iops verdict)" unclear
check "icount iops once a side, -3%: slower, text says one run" \
	eq "$(col "$tmp/d.csv" on,rules-1,c,iops verdict)|$(col "$tmp/d.csv" on,rules-1,c,iops verdict_text)" \
	"slower|-3000 IOPS (-3.00%); one run a side: +-0.5% icount repeatability"
check "latency percentile under tcg-icount: random, no verdict, never gates" \
	eq "$(col "$tmp/d.csv" on,key-off,c,lat_p50_ns class),$(col "$tmp/d.csv" on,key-off,c,lat_p50_ns verdict)" random,random
check "random metric: reported, no verdict, never gates" \
	eq "$(col "$tmp/d.csv" on,key-off,p,perf_share_pct verdict),$(col "$tmp/d.csv" on,key-off,p,perf_share_pct gates)" random,no
# --smp-workloads: workloads on more than one vCPU (the mq view).  Under
# tcg-icount their guest time depends on how QEMU interleaves the vCPUs
# (results/20261203-173800-tcg-icount-views: +5.17% IOPS at qd1 for +1
# instruction per call): random, no verdict; exact counts stay exact.
{
	echo 'seq,config,state,workload,repeat,status,metric,value'
	for w in mq-randread-qd1 mq-randread-qd32 randread-qd1; do
		echo "1,off,off,$w,1,ok,iops,100000"
		echo "1,off,off,$w,1,ok,insns_per_io,10000"
		echo "1,off,off,$w,1,ok,lat_ns,10000"
		echo "1,off,off,$w,1,ok,insns_per_call,42"
		echo "2,on,key-off,$w,1,ok,iops,95000"
		echo "2,on,key-off,$w,1,ok,insns_per_io,10526.3"
		echo "2,on,key-off,$w,1,ok,lat_ns,10500"
		echo "2,on,key-off,$w,1,ok,insns_per_call,43"
	done
} >"$tmp/mq.csv"
run "$bs" summary --accel tcg-icount "$tmp/mq.csv"
cp "$tmp/out" "$tmp/mq0.csv"
check "mq -5% IOPS under tcg-icount, not listed: deterministic, slower" \
	eq "$(col "$tmp/mq0.csv" on,key-off,mq-randread-qd1,iops class),$(col "$tmp/mq0.csv" on,key-off,mq-randread-qd1,iops verdict)" \
	deterministic,slower
run "$bs" summary --accel tcg-icount --smp-workloads 'mq-randread-qd1 mq-randread-qd32' "$tmp/mq.csv"
cp "$tmp/out" "$tmp/mq1.csv"
check "--smp-workloads: exit 0" eq "$rc" 0
for w in mq-randread-qd1 mq-randread-qd32; do
	for m in iops insns_per_io lat_ns; do
		check "--smp-workloads under tcg-icount: $w $m random, no verdict, never gates" \
			eq "$(col "$tmp/mq1.csv" on,key-off,$w,$m class),$(col "$tmp/mq1.csv" on,key-off,$w,$m verdict),$(col "$tmp/mq1.csv" on,key-off,$w,$m gates)" \
			random,random,no
	done
	check "--smp-workloads under tcg-icount: $w insns_per_call stays exact: +1, slower" \
		eq "$(col "$tmp/mq1.csv" on,key-off,$w,insns_per_call class),$(col "$tmp/mq1.csv" on,key-off,$w,insns_per_call verdict_text)" \
		"deterministic,+1 instruction per call (+2.38%); exact"
done
check "--smp-workloads: the verdict text says random by nature" \
	starts "$(col "$tmp/mq1.csv" on,key-off,mq-randread-qd1,iops verdict_text)" "random by nature: no verdict"
check "--smp-workloads: a workload not listed keeps its deterministic verdict" \
	eq "$(col "$tmp/mq1.csv" on,key-off,randread-qd1,iops class),$(col "$tmp/mq1.csv" on,key-off,randread-qd1,iops verdict)" \
	deterministic,slower
check "--smp-workloads: only the listed workloads' guest-time rows change" \
	eq "$(diff "$tmp/mq0.csv" "$tmp/mq1.csv" | grep -c '^>')" 12
run "$bs" summary --accel tcg-icount --smp-workloads '' "$tmp/mq.csv"
check "--smp-workloads '': none listed, the same summary" same_file_quiet "$tmp/mq0.csv" "$tmp/out"
run "$bs" summary --accel tcg-icount --smp-workloads '  mq-randread-qd1	 mq-randread-qd32 ' "$tmp/mq.csv"
check "--smp-workloads: spaces and tabs separate names" same_file_quiet "$tmp/mq1.csv" "$tmp/out"
run "$bs" summary --accel tcg-icount --smp-workloads 'mq-randread-qd1 mq-randread-qd64' "$tmp/mq.csv"
check "--smp-workloads: a workload not in RUNS.CSV -> exit 2 naming it" \
	rc_and_stderr 2 'workload "mq-randread-qd64" is not in'
run "$bs" summary --accel tcg-icount --smp-workloads 'mq-randread' "$tmp/mq.csv"
check "--smp-workloads: names are exact, not prefixes" rc_and_stderr 2 'workload "mq-randread" is not in'
run "$bs" summary --accel tcg-icount --smp-workloads
check "--smp-workloads without a value -> exit 2" eq "$rc" 2
# compare --smp-workloads: the mq run's key-off rows as BASE, NEW with
# mq-randread-qd1 5% fewer IOPS and 5% more time per I/O (interleaving,
# not code): without the option a regression, with it no verdict there
awk -F, -v OFS=, 'NR == 1 || $3 == "key-off"' "$tmp/mq.csv" >"$tmp/mqb.csv"
awk -F, -v OFS=, 'NR > 1 && $4 == "mq-randread-qd1" {
		if ($7 == "iops") $8 = $8 * 0.95; else if ($7 != "insns_per_call") $8 = $8 * 1.05 }
	{ print }' "$tmp/mqb.csv" >"$tmp/mqn.csv"
run "$bs" compare --accel tcg-icount "$tmp/mqb.csv" "$tmp/mqn.csv"
check "compare: mq 5% fewer IOPS under tcg-icount, not listed: exit 1" eq "$rc" 1
check "  ... mq-randread-qd1 iops is the REGRESSION" \
	grep -q '^on/key-off/mq-randread-qd1/iops .*REGRESSION slower' "$tmp/out"
run "$bs" compare --smp-workloads 'mq-randread-qd1 mq-randread-qd32' --accel tcg-icount "$tmp/mqb.csv" "$tmp/mqn.csv"
check "compare --smp-workloads: the same rows listed -> exit 0" eq "$rc" 0
for m in iops insns_per_io lat_ns; do
	check "compare --smp-workloads: mq-randread-qd1 $m random, no verdict" \
		grep -q "^on/key-off/mq-randread-qd1/$m .*: random: random by nature: no verdict" "$tmp/out"
done
check "compare --smp-workloads: randread-qd1 (not listed) is still judged exact" \
	grep -q '^on/key-off/randread-qd1/iops .*: within-threshold: ' "$tmp/out"
awk -F, -v OFS=, 'NR > 1 && $4 == "mq-randread-qd1" && $7 == "insns_per_call" { $8 = 44 } { print }' \
	"$tmp/mqb.csv" >"$tmp/mqc.csv"
run "$bs" compare --smp-workloads 'mq-randread-qd1' --accel tcg-icount "$tmp/mqb.csv" "$tmp/mqc.csv"
check "compare --smp-workloads: exact counts still gate: +1 instruction per call -> exit 1" \
	eq "$rc" 1
run "$bs" compare --smp-workloads 'mq-randread-qd1' --accel kvm "$tmp/mqb.csv" "$tmp/mqn.csv"
check "compare --smp-workloads under kvm: sampled anyway, n=1 no verdict -> exit 2" \
	rc_and_stderr 2 "underpowered"
awk -F, 'NR == 1 || $4 != "mq-randread-qd32"' "$tmp/mqn.csv" >"$tmp/mqd.csv"
run "$bs" compare --smp-workloads 'mq-randread-qd1 mq-randread-qd32' --accel tcg-icount "$tmp/mqd.csv" "$tmp/mqn.csv"
check "compare --smp-workloads: a name in only one file is fine -> exit 0" eq "$rc" 0
awk -F, 'NR == 1 || !($4 == "mq-randread-qd32" && $7 != "insns_per_call")' "$tmp/mqn.csv" >"$tmp/mqe.csv"
run "$bs" compare --accel tcg-icount "$tmp/mqb.csv" "$tmp/mqe.csv"
check "compare: mq-randread-qd32's guest-time rows missing in NEW, not listed: gating -> exit 2" \
	rc_and_stderr 2 "2 gating groups of BASE are missing in NEW"
run "$bs" compare --smp-workloads 'mq-randread-qd1 mq-randread-qd32' --accel tcg-icount "$tmp/mqb.csv" "$tmp/mqe.csv"
check "compare --smp-workloads: the same missing, listed: random, not gating -> exit 0" eq "$rc" 0
run "$bs" compare --smp-workloads 'mq-randread-qd1 mq-randread-qd64' --accel tcg-icount "$tmp/mqb.csv" "$tmp/mqn.csv"
check "compare --smp-workloads: a workload in neither file -> exit 2 naming it" \
	rc_and_stderr 2 'workload "mq-randread-qd64" is not in'
check "  ... and both files" grep -q "is not in $tmp/mqb.csv or $tmp/mqn.csv" "$tmp/err"
run "$bs" compare --accel tcg-icount --smp-workloads
check "compare --smp-workloads without a value -> exit 2" rc_and_stderr 2 "missing value"
for accel in kvm tcg; do
	run "$bs" summary --accel $accel "$tmp/mq.csv"
	cp "$tmp/out" "$tmp/mqs.csv"
	run "$bs" summary --accel $accel --smp-workloads 'mq-randread-qd1 mq-randread-qd32' "$tmp/mq.csv"
	check "--smp-workloads under $accel: nothing changes (sampled anyway)" same_file_quiet "$tmp/mqs.csv" "$tmp/out"
done

run "$bs" summary --accel tcg determ.csv
check "iops under tcg is sampled: n=2 gives no verdict" \
	eq "$(col "$tmp/out" on,rules-1,a,iops class),$(col "$tmp/out" on,rules-1,a,iops verdict)" sampled,no-verdict
check "latency percentile under tcg: sampled" \
	eq "$(col "$tmp/out" on,key-off,c,lat_p50_ns class)" sampled
check "insns_per_call under tcg stays deterministic" \
	eq "$(col "$tmp/out" on,key-off,p,insns_per_call class)" deterministic

# robustness of the output to incidental input changes
{ head -n 1 basic.csv; tail -n +2 basic.csv | tac; } >"$tmp/reversed.csv"
"$bs" summary --accel kvm "$tmp/reversed.csv" | sort >"$tmp/rev.sorted"
sort "$S" >"$tmp/orig.sorted"
same_file "row order does not change any statistic" "$tmp/orig.sorted" "$tmp/rev.sorted"
sed 's/$/\r/' basic.csv >"$tmp/crlf.csv"
run "$bs" summary --accel kvm "$tmp/crlf.csv"
same_file "CRLF line endings accepted" "$S" "$tmp/out"
K=on,rules-1000,randread-4k,iops   # 2 failed rows carrying the bogus value 1
check "failed rows counted, not used" \
	eq "$(col "$S" $K n_failed),$(col "$S" $K n),$(col "$S" $K min)" 2,10,89800
check "all-failed group: no-data" eq "$(col "$S" on,rules-10,randread-4k,iops verdict)" no-data
check "workload without baseline: no-baseline" eq "$(col "$S" on,off,seqwrite-1m,iops verdict)" no-baseline
# issue 37: a baseline not in the run gave exit 0 and every row "no-baseline"
run "$bs" summary --baseline-config nosuch --accel kvm basic.csv
check "a baseline not in the run: exit 2 naming it and the run's configs, no summary" \
	eq "$rc,$(grep -c 'the baseline nosuch/off is not a row of basic.csv (its configs: off on nokey)' "$tmp/err"),$(wc -c <"$tmp/raw")" 2,1,0

# ------------------------------------------------------------- compare
run "$bs" compare --accel kvm base.csv new_regress.csv
check "compare: regression fixture exits 1" eq "$rc" 1
same_file "compare: regression report matches golden" compare_regress.expected "$tmp/raw"
run "$bs" compare --threshold 15 --accel kvm base.csv new_regress.csv
check "compare: --threshold 15: +10 instructions per call still a regression (exit 1)" \
	eq "$rc,$(grep -c 'REGRESSION slower: +10 instructions per call' "$tmp/out")" 1,1
run "$bs" compare --threshold 15 --exact-tolerance 10 --accel kvm base.csv new_regress.csv
check "compare: --threshold 15 --exact-tolerance 10: no regression, but nokey n=1+1 is underpowered (exit 2)" \
	rc_and_stderr 2 "underpowered: 1 gating rows need n >= 5 per side"
run "$bs" compare --accel kvm base.csv new_same.csv
check "compare: no change, but nokey has 1+2 runs: exit 2" eq "$rc" 2
same_file "compare: no-change report matches golden" compare_same.expected "$tmp/raw"
check "compare: it says which n the row needs" grep -q "underpowered: 1 gating rows need n >= 5 per side" "$tmp/err"

# gen FILE SPEC...: a runs.csv; each SPEC "ROWS:N:LEVEL:STEP[:METRIC]" adds
# ROWS groups on/sK/w/METRIC (K counting on across SPECs, METRIC default
# iops) of N runs with the values LEVEL + STEP * i, i = 1..N.
gen() {
	local file=$1
	shift
	awk -v specs="$*" 'BEGIN {
		print "seq,config,state,workload,repeat,status,metric,value"
		ns = split(specs, sp, " "); seq = 0; row = 0
		for (k = 1; k <= ns; k++) {
			split(sp[k], f, ":"); metric = f[5] == "" ? "iops" : f[5]
			for (r = 1; r <= f[1]; r++) {
				row++
				for (i = 1; i <= f[2]; i++)
					printf "%d,on,s%d,w,%d,ok,%s,%.6f\n", ++seq, row, i, metric, f[3] + f[4] * i
			}
		}
	}' >"$file"
}

# compare_new BASE NEW SPEC...: NEW made by gen from SPEC..., then run
# "benchstat compare --accel kvm BASE NEW"
compare_new() {
	gen "$2" "${@:3}"
	run "$bs" compare --accel kvm "$1" "$2"
}

# ------------------------------------------------ 1. power: underpowered
# Issue 22: 8 gating IOPS rows, every one 50% lower, n=5 under kvm: the
# smallest p is 2/252 and Holm over 8 makes it 0.063.  No regression can
# be shown, so no "no regression" either: exit 2, saying what n is needed.
gen "$tmp/b8.csv" 8:5:100000:100
compare_new "$tmp/b8.csv" "$tmp/n8.csv" 8:5:50000:100
check "8 rows 50% lower at n=5: underpowered, exit 2" \
	rc_and_stderr 2 "underpowered: 8 gating rows need n >= 6 per side"
check "8 rows 50% lower at n=5: every row no-verdict, none REGRESSION" \
	test "$(grep -c 'no-verdict: n=5+5: underpowered: Holm over 8 gating rows' "$tmp/out")" = 8
gen "$tmp/b8.csv" 8:6:100000:100
compare_new "$tmp/b8.csv" "$tmp/n8.csv" 8:6:50000:100
check "the same at n=6: 8 regressions, exit 1" eq "$rc,$(grep -c REGRESSION "$tmp/out")" 1,8
# the default matrix: 48 gating rows, one 30% lower, n=5 -> 2; n=7 -> 1
gen "$tmp/b48.csv" 48:5:100000:100
compare_new "$tmp/b48.csv" "$tmp/n48.csv" 1:5:70000:100 47:5:100050:100
check "48 rows, one 30% lower, n=5: exit 2, need n >= 7" \
	rc_and_stderr 2 "underpowered: 48 gating rows need n >= 7 per side"
gen "$tmp/b48.csv" 48:7:100000:100
compare_new "$tmp/b48.csv" "$tmp/n48.csv" 1:7:70000:100 47:7:100050:100
check "48 rows, one 30% lower, n=7: exit 1" eq "$rc" 1
gen "$tmp/n48.csv" 1:5:70000:100 47:5:100050:100
run "$bs" summary --accel kvm --baseline-config on --baseline-state s1 "$tmp/n48.csv"
check "summary: the same rule (47 rows 43% apart at n=5 against s1: underpowered)" \
	eq "$(col "$tmp/out" on,s2,w,iops verdict)" no-verdict

# ---------------------------------------------- 2. decide on the interval
# Estimate about -0.95%, its CI reaching below -1% and the change
# significant: the data allow a regression beyond the threshold, so no
# verdict either way ("unclear", exit 2), where the point estimate said
# within-threshold and exit 0.
gen "$tmp/bi.csv" 1:10:100000:120
compare_new "$tmp/bi.csv" "$tmp/ni.csv" 1:10:99000:130
check "estimate -0.9%, CI straddling -1%: unclear, exit 2" \
	rc_and_stderr 2 "unclear: 1 gating rows: the interval reaches beyond the 1% threshold"
check "  ... and the text gives the interval" grep -Eq 'unclear: -0\.[0-9]+% but p=[0-9.e-]+; 95\.[0-9]% CI -1\.[0-9]+\.\.-0\.[0-9]+% straddles the 1% threshold' "$tmp/out"
compare_new "$tmp/bi.csv" "$tmp/ni.csv" 1:10:99600:100
check "a -0.4% shift with the whole CI inside +-1%: within-threshold, exit 0" \
	eq "$rc,$(grep -c 'within-threshold' "$tmp/out")" 0,1
compare_new "$tmp/bi.csv" "$tmp/ni.csv" 1:10:97000:130
check "a -3% shift with the whole CI beyond -1%: slower, exit 1" eq "$rc" 1
# faster stays out of the exit status, an interval straddling +1% as well
compare_new "$tmp/bi.csv" "$tmp/ni.csv" 1:10:100900:130
check "+0.9% with the CI straddling +1%: unclear but not a possible regression, exit 0" \
	eq "$rc,$(grep -c ' unclear: ' "$tmp/out")" 0,1

# ------------------------------------------------ 3. one rule at the boundary
# Five runs of 100000 against five of 99000: exactly -1%, within the 1%
# threshold whatever the class (log ratios against log1p(-0.01)).
gen "$tmp/b1.csv" 1:5:100000:0
gen "$tmp/n1.csv" 1:5:99000:0
for accel in kvm tcg tcg-icount; do
	run "$bs" compare --accel "$accel" "$tmp/b1.csv" "$tmp/n1.csv"
	check "100000 vs 99000 under $accel: within-threshold (-1.00%), exit 0" \
		eq "$rc,$(grep -c 'within-threshold: -1000 IOPS (-1.00%) within 1%' "$tmp/out")" 0,1
done
gen "$tmp/n1.csv" 1:5:98999:0
for accel in kvm tcg-icount; do
	run "$bs" compare --accel "$accel" "$tmp/b1.csv" "$tmp/n1.csv"
	check "100000 vs 98999 under $accel: slower, exit 1" eq "$rc" 1
done
gen "$tmp/b1.csv" 1:1:100000:0 1:1:42:0:insns_per_call
gen "$tmp/n1.csv" 1:1:101010:0 1:1:42.42:0:insns_per_call
run "$bs" compare --threshold 1 --accel tcg-icount "$tmp/b1.csv" "$tmp/n1.csv"
check "exact 42 -> 42.42 per call: less than half an instruction, within EXACT_TOLERANCE=0" \
	grep -q 'within-threshold: +0.4 instructions per call (+1.00%) within EXACT_TOLERANCE=0 instructions; exact' "$tmp/out"

# ------------------------------- 3b. instruction counts by the instruction
# Issue 35: an exact count judged against the relative threshold let +1
# pass wherever the count was 100 or more.  COUNT BASE NEW [OPTION...]:
# one row of METRIC from BASE to NEW instructions per call, compared.
count() {
	gen "$tmp/bc.csv" "1:1:$2:0:$1"
	gen "$tmp/nc.csv" "1:1:$3:0:$1"
	run "$bs" compare "${@:4}" --accel tcg-icount "$tmp/bc.csv" "$tmp/nc.csv"
}
count insns_per_call 120 121
check "insns_per_call 120 -> 121 (+0.83%): +1 instruction, exit 1" \
	eq "$rc,$(grep -c 'REGRESSION slower: +1 instruction per call (+0.83%); exact' "$tmp/out")" 1,1
count blk_mq_submit_bio_insns_per_call 195 196
check "blk_mq_submit_bio 195 -> 196: exit 1" eq "$rc" 1
for c in 224 2024 20024; do
	count blk_error_inject_insns_per_call $c $((c + 1))
	check "blk_error_inject $c -> $((c + 1)): exit 1" eq "$rc" 1
done
count blk_error_inject_insns_per_call 20024 20028
check "blk_error_inject +4 at 20024 (rules-1000): exit 1, the change in instructions" \
	eq "$rc,$(grep -c 'REGRESSION slower: +4 instructions per call' "$tmp/out")" 1,1
count blk_frob_insns_per_call 5000 5001
check "any HOT_FUNCS function's count, +1 at 5000: exit 1" eq "$rc" 1
count insns_per_call 120 121 --exact-tolerance 1
check "EXACT_TOLERANCE=1: +1 is within, exit 0" \
	eq "$rc,$(grep -c 'within-threshold: +1 instruction per call (+0.83%) within EXACT_TOLERANCE=1 instructions' "$tmp/out")" 0,1
count insns_per_call 120 122 --exact-tolerance 1
check "EXACT_TOLERANCE=1: +2 is slower, exit 1" eq "$rc" 1
count insns_per_call 120 119
check "one instruction fewer: faster, exit 0" eq "$rc,$(grep -c ' faster: -1 instruction per call' "$tmp/out")" 0,1
count insns_per_call 51.9717 51.9733
check "a chance rule's mix of paths, +0.0016 per call: within (less than half an instruction), exit 0" eq "$rc" 0
gen "$tmp/bc.csv" 1:2:52:0:insns_per_call
awk -F, -v OFS=, 'NR == 3 { $8 = 53 } { print }' "$tmp/bc.csv" >"$tmp/nc.csv"
run "$bs" compare --accel tcg-icount "$tmp/bc.csv" "$tmp/nc.csv"
check "repeats 52, 52 against 52, 53: the range 0..+1 straddles the tolerance: unclear, exit 2" \
	eq "$rc,$(grep -c 'unclear: +0.5 instructions per call but repeats differ: range +0..+1 instructions straddles EXACT_TOLERANCE=0' "$tmp/out")" 2,1
for bad in -1 1.5 x 1000001 ''; do
	count insns_per_call 120 121 --exact-tolerance "$bad"
	check "--exact-tolerance '$bad': exit 2 naming the valid values" \
		rc_and_stderr 2 "not a whole number of instructions from 0 to 1000000"
done
gen "$tmp/bc.csv" 1:1:43:0:insns_per_call 1:1:4:0:hot_lines
gen "$tmp/nc.csv" 1:1:43:0:insns_per_call 1:1:6:0:hot_lines
run "$bs" compare --accel tcg-icount "$tmp/bc.csv" "$tmp/nc.csv"
check "hot_lines 4 -> 6: slower, marked reported only (not gating), exit 0" \
	eq "$rc,$(grep -c 'slower (reported, not gating): +2 cache lines' "$tmp/out")" 0,1

# ---------------------------------------------------- 4. broken input: 2
gen "$tmp/b4.csv" 2:6:100000:100
sed '3s/,[0-9.]*$/,0/' "$tmp/b4.csv" >"$tmp/zero.csv"
run "$bs" compare --accel kvm "$tmp/b4.csv" "$tmp/zero.csv"
check "a gating value of 0: exit 2 naming the line" rc_and_stderr 2 "zero.csv:3: iops is a gating metric and must be positive"
sed '3s/,\([0-9.]*\)$/,-\1/' "$tmp/b4.csv" >"$tmp/neg.csv"
run "$bs" summary --accel kvm "$tmp/neg.csv"
check "a negative gating value, in summary too: exit 2" rc_and_stderr 2 "neg.csv:3: iops is a gating metric"
grep -v ',on,s2,' "$tmp/b4.csv" >"$tmp/missing.csv"
run "$bs" compare --accel kvm "$tmp/b4.csv" "$tmp/missing.csv"
check "a gating group of BASE missing in NEW: exit 2" \
	rc_and_stderr 2 "BROKEN: 1 gating groups of BASE are missing in NEW"
check "  ... and its line says so" grep -q 'on/s2/w/iops .*only in BASE: BROKEN' "$tmp/out"
# issue 22: NEW's rows appended twice turned a 1% slowdown from exit 0 to 1
gen "$tmp/bd.csv" 1:8:100000:150
gen "$tmp/nd.csv" 1:8:99000:150
{ cat "$tmp/nd.csv"; tail -n +2 "$tmp/nd.csv"; } >"$tmp/dup.csv"
run "$bs" compare --accel kvm "$tmp/bd.csv" "$tmp/dup.csv"
check "duplicate (config, state, workload, repeat, metric) rows: exit 2 naming both lines" \
	rc_and_stderr 2 "dup.csv:10: duplicate row: on/s1/w repeat 1 metric iops is also on line 2"
run "$bs" compare --accel kvm "$tmp/bd.csv" "$tmp/bd.csv"
check "BASE and NEW the same file: exit 2" rc_and_stderr 2 "BASE and NEW are the same file"
cp "$tmp/bd.csv" "$tmp/bd-copy.csv"
run "$bs" compare --accel kvm "$tmp/bd.csv" "$tmp/bd-copy.csv"
check "a copy of BASE as NEW: compared (no change, exit 0)" eq "$rc" 0
# 600 runs a side: past where C(m+n, m) overflows a double (GSL aborted)
gen "$tmp/b600.csv" 1:600:100000:1
compare_new "$tmp/b600.csv" "$tmp/n600.csv" 1:600:100000:1
check "600 runs a side, no change: exit 0 (no overflow, no abort)" eq "$rc" 0
compare_new "$tmp/b600.csv" "$tmp/n600.csv" 1:600:97000:1
check "600 runs a side, 3% lower: exit 1, the normal approximation" \
	eq "$rc,$(grep -c 'normal approx' "$tmp/out")" 1,1

# ------------------------------------------------ 7. every exact count gates
"$bs" metrics >"$tmp/metrics.tsv"
check "every *_insns_per_call and calls_per_io gates" \
	awk -F'\t' '($1 ~ /insns_per_call$/ || $1 == "calls_per_io") { n++; if ($4 != "yes") bad = 1 } END { exit bad || n < 7 }' "$tmp/metrics.tsv"
gen "$tmp/b7.csv" 1:1:44:0:blk_error_inject_insns_per_call 1:1:1.0001:0:calls_per_io 1:1:58:0:blk_frob_insns_per_call
gen "$tmp/n7.csv" 1:1:48:0:blk_error_inject_insns_per_call 1:1:1.0001:0:calls_per_io 1:1:58:0:blk_frob_insns_per_call
run "$bs" compare --accel tcg-icount "$tmp/b7.csv" "$tmp/n7.csv"
check "blk_error_inject +4 instructions per call (+9.09%): REGRESSION, exit 1" \
	eq "$rc,$(grep -c 'REGRESSION slower: +4 instructions per call (+9.09%); exact' "$tmp/out")" 1,1
gen "$tmp/n7.csv" 1:1:44:0:blk_error_inject_insns_per_call 1:1:2.0002:0:calls_per_io 1:1:58:0:blk_frob_insns_per_call
run "$bs" compare --accel tcg-icount "$tmp/b7.csv" "$tmp/n7.csv"
check "twice the calls per I/O: REGRESSION, exit 1" eq "$rc" 1
gen "$tmp/n7.csv" 1:1:44:0:blk_error_inject_insns_per_call 1:1:1.0001:0:calls_per_io 1:1:60:0:blk_frob_insns_per_call
run "$bs" compare --accel tcg-icount "$tmp/b7.csv" "$tmp/n7.csv"
check "any HOT_FUNCS function's count (blk_frob +2): REGRESSION, exit 1" eq "$rc" 1

# ------------------------------------------------------------- simulation
# Known truths through the same judge (seeded GSL RNG), one gating row:
# the rates of each verdict by size and true shift.
run "$bs" simulate --seed 1 --reps 4000 --noise 1
sed 's/^/# /' "$tmp/out"
cp "$tmp/out" "$tmp/sim.tsv"
sim_check() { awk -F'\t' "$1" "$tmp/sim.tsv"; }
check "simulation: at no change, slower or faster in at most 5% of runs" \
	sim_check 'NR > 1 && $2 == 0 { if ($4 + $6 > 0.05) bad++; rows++ } END { exit !(rows == 4 && !bad) }'
check "simulation: a true change of at most the threshold (0.5, 0.9, 1%) is slower in at most 5%" \
	sim_check 'NR > 1 && $2 > 0 && $2 <= 1 { if ($4 > 0.05) bad++; rows++ } END { exit !(rows == 12 && !bad) }'
check "simulation: n=3 never gets a verdict at 95%" \
	sim_check 'NR > 1 && $1 == 3 { if ($8 != 1) bad++; rows++ } END { exit !(rows == 6 && !bad) }'
check "simulation: 5% slower is found in >= 95% of runs at n >= 5" \
	sim_check 'NR > 1 && $1 >= 5 && $2 == 5 { if ($4 < 0.95) bad++; rows++ } END { exit !(rows == 3 && !bad) }'
run "$bs" simulate --seed 1 --reps 4000 --noise 1
same_file "simulation is reproducible with its seed" "$tmp/sim.tsv" "$tmp/out"
# The whole default matrix (48 gating rows, Holm), row 0 shifted: a few
# hundred repetitions (README.md's table has 2000).
run "$bs" simulate --seed 1 --reps 100 --noise 1 --rows 48
sed 's/^/# /' "$tmp/out"
cp "$tmp/out" "$tmp/simk.tsv"
simk_check() { awk -F'\t' "$1" "$tmp/simk.tsv"; }
check "matrix: at n=5 and 6 every run is exit 2 (underpowered), never a regression" \
	simk_check 'NR > 1 && $1 <= 6 { if ($7 != 1 || $6 != 0) bad++; rows++ } END { exit !(rows == 6 && !bad) }'
check "matrix: at n >= 7 one row 5% slower is found in >= 90% of runs" \
	simk_check 'NR > 1 && $1 >= 7 && $2 == 5 { if ($8 < 0.9) bad++; rows++ } END { exit !(rows == 6 && !bad) }'
check "matrix: at no change, exit 1 in at most 5% of runs (family-wise)" \
	simk_check 'NR > 1 && $2 == 0 { if ($6 > 0.05) bad++; rows++ } END { exit !(rows == 8 && !bad) }'
# REPEATS=auto's plan: the default matrix under kvm is 48 rows (70 with
# perf's cycles); at 1% noise n=7 reaches Holm and finds 5% in >= 90%.
run "$bs" plan --rows 48 --noise 1 --reps 300
check "plan: 48 rows at 1% noise: n=7, power at 5% >= 0.9 ($(cat "$tmp/out"))" \
	awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		END { exit !(v["n"] == 7 && v["power_5pct"] >= 0.9 && v["power_2pct"] != "") }' "$tmp/out"
run "$bs" plan --rows 1 --noise 1 --reps 300
check "plan: one row: n >= 4 (the smallest the rank-sum test can use)" \
	awk '{ split($1, kv, "="); exit !(kv[2] >= 4) }' "$tmp/out"

# ------------------------------------------------------------- errors
# expect_error NAME FILE LINE: both subcommands exit 2 naming FILE:LINE
expect_error() {
	local name=$1 file=$2 lineno=$3
	run "$bs" compare --accel kvm base.csv "$file"
	if [[ $rc -eq 2 ]] && grep -q "$file:$lineno:" "$tmp/err" && [[ ! -s "$tmp/out" ]]; then
		pass "compare: $name -> exit 2, message names $file:$lineno"
	else
		sed 's/^/# /' "$tmp/err"
		fail "compare: $name -> exit 2, message names $file:$lineno (rc=$rc)"
	fi
	run "$bs" summary --accel kvm "$file"
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
expect_error "unknown metric" bad_metric.csv 3
check "unknown metric: message names it" grep -q 'unknown metric "iopz"' "$tmp/err"
: >"$tmp/empty.csv"
run "$bs" summary --accel kvm "$tmp/empty.csv"
check "empty file -> exit 2" rc_and_stderr 2 "empty.csv:1:"
run "$bs" summary --accel xen basic.csv
check "unknown accelerator -> exit 2 naming the valid ones" rc_and_stderr 2 "valid: kvm tcg tcg-icount"
run "$bs" summary basic.csv
check "no accelerator -> exit 2" rc_and_stderr 2 "accelerator is needed"
run "$bs" compare --accel kvm base.csv
check "usage: compare with one file -> exit 2" eq "$rc" 2
run "$bs" summary --no-such-option --accel kvm basic.csv
check "usage: unknown option -> exit 2" eq "$rc" 2
run "$bs" summary --threshold -1 --accel kvm basic.csv
check "usage: negative threshold -> exit 2" eq "$rc" 2

# ---------------------------------------------- issue 35: inputs that steer
# THRESHOLD: at 100% or more nothing higher-is-better can be slower (a 60%
# drop passed); at 50% a halved IOPS passes; 0 is no threshold
gen "$tmp/bt.csv" 1:5:100000:0
gen "$tmp/nt.csv" 1:5:40000:0
for t in 100 150 50 0 1e9; do
	run "$bs" compare --threshold "$t" --accel tcg-icount "$tmp/bt.csv" "$tmp/nt.csv"
	check "--threshold $t: exit 2, out of range" \
		rc_and_stderr 2 "out of range: want a percentage above 0 and below 50"
done
run "$bs" compare --threshold 49.9 --accel tcg-icount "$tmp/bt.csv" "$tmp/nt.csv"
check "--threshold 49.9: a 60% drop is slower, exit 1" eq "$rc" 1
run "$bs" simulate --threshold 60 --reps 1
check "simulate --threshold 60: exit 2 as well" rc_and_stderr 2 "out of range"
# runs from different accelerators: no verdict of either kind
gen "$tmp/na.csv" 1:5:97000:0
run "$bs" compare --base-accel tcg --new-accel kvm "$tmp/bt.csv" "$tmp/na.csv"
check "BASE under tcg, NEW under kvm: exit 2, no table" \
	eq "$rc,$(grep -c 'BASE ran under tcg, NEW under kvm' "$tmp/err"),$(wc -c <"$tmp/raw")" 2,1,0
# values beyond what a metric can be: refused, not judged
for spec in iops:1e308 iops:1e10 insns_per_call:1e13 lat_ns:-5 perf_share_pct:101; do
	m=${spec%%:*} v=${spec#*:}
	{ echo "seq,config,state,workload,repeat,status,metric,value"; echo "1,on,s1,w,1,ok,$m,$v"; } >"$tmp/absurd.csv"
	run "$bs" compare --accel tcg-icount "$tmp/bt.csv" "$tmp/absurd.csv"
	check "$m $v: exit 2, beyond what it can be" rc_and_stderr 2 "absurd.csv:2: $m $v is beyond what it can be"
done
gen "$tmp/bbig.csv" 1:1:999999999:0
gen "$tmp/nbig.csv" 1:1:1:0
run "$bs" compare --accel tcg-icount "$tmp/bbig.csv" "$tmp/nbig.csv"
check "the largest IOPS there can be against 1: printed whole, not cut off" \
	grep -q '^on/s1/w/iops n 1+1: 999999999 -> 1: REGRESSION slower: -999999998 IOPS (-100.00%)' "$tmp/out"
# quoted fields: a group of their own, BASE's rows silently uncompared
gen "$tmp/bq.csv" 1:1:100000:0 1:1:5000:0:lat_ns
sed '3s/,w,/,"w",/' "$tmp/bq.csv" >"$tmp/nq.csv"
run "$bs" compare --accel tcg-icount "$tmp/bq.csv" "$tmp/nq.csv"
check "a quoted workload on a non-gating row: exit 2 naming the line" \
	rc_and_stderr 2 'nq.csv:3: workload ""w"": a name is letters, digits and _ . + - only'
sed '3s/,w,/, w,/' "$tmp/bq.csv" >"$tmp/nq.csv"
run "$bs" compare --accel tcg-icount "$tmp/bq.csv" "$tmp/nq.csv"
check "a blank before a name: exit 2" rc_and_stderr 2 'nq.csv:3: workload " w"'
# more than 64 counted functions: each its own metric, none "unknown"
awk 'BEGIN { print "seq,config,state,workload,repeat,status,metric,value"
	for (i = 1; i <= 100; i++) printf "%d,on,s1,w,1,ok,f%d_insns_per_call,%d\n", i, i, 40 + i }' >"$tmp/b100.csv"
awk -F, -v OFS=, 'NR > 1 && $7 == "f100_insns_per_call" { $8 = $8 + 1 } { print }' "$tmp/b100.csv" >"$tmp/n100.csv"
run "$bs" compare --accel tcg-icount "$tmp/b100.csv" "$tmp/n100.csv"
check "100 counted functions: all judged, the 100th +1 is the regression, exit 1" \
	eq "$rc,$(grep -c 'same (exact)' "$tmp/out"),$(grep -c '^on/s1/w/f100_insns_per_call .*REGRESSION' "$tmp/out")" 1,99,1
# nothing gates: a comparison that cannot fail is no pass
gen "$tmp/bn.csv" 1:1:5000:0:lat_ns 1:1:3:0:perf_share_pct
gen "$tmp/nn.csv" 1:1:5000:0:lat_ns 1:1:3:0:perf_share_pct
run "$bs" compare --accel tcg-icount "$tmp/bn.csv" "$tmp/nn.csv"
check "no gating row in both files: exit 2, nothing gates" \
	rc_and_stderr 2 "no verdict: nothing gates: none of the 2 rows in both files"
# runs of different kinds: refused at once, not 1,150 lines and "0 compared"
sed 's/,on,/,peers,/' "$tmp/bt.csv" >"$tmp/peers.csv"
run "$bs" compare --accel tcg-icount "$tmp/bt.csv" "$tmp/peers.csv"
check "no row in both files (peers against on): exit 2 at once, naming both runs' configs" \
	eq "$rc,$(grep -c 'no (config, state, workload, metric) is in both .*bt.csv (configs: on) and .*peers.csv (configs: peers)' "$tmp/err"),$(wc -c <"$tmp/raw")" 2,1,0
run "$bs" summary --accel kvm "$tmp/does-not-exist.csv"
check "missing file -> exit 2" eq "$rc" 2
run "$bs"
check "usage: no subcommand -> exit 2" eq "$rc" 2

finish
