#!/usr/bin/env bash
# The sequential gate's rule (bench/stats/sequential.c, bench/lib/sequential.sh):
# its decisions and stopping reasons on seeded fixture runs: slower, not
# slower, within threshold, continue (with the boots to add), budget spent
# (with the repeats needed and the threshold that would pass), the looks
# replayed from the first runs in repeat order whatever comes later or
# whatever the file's order, lower-is-better metrics, summary against the
# baseline, compare.sh choosing the rule from the runs' SEQUENTIAL and
# refusing a bad or mismatched one, its options' bad input, and the plan.
#
#   tests/host/sequential.sh
# shellcheck disable=SC2034 # read by the runner, as blktests reads it
DESCRIPTION="the sequential gate: decisions, stopping reasons, the looks replayed, the plan"
set -euo pipefail
shopt -s inherit_errexit

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"
export CACHE=$SCRATCH/cache BENCH_T0=''
make -s -C "$REPO_DIR/bench/stats" OUT="$SCRATCH" >/dev/null
BS=$SCRATCH/benchstat

# runs FILE SEED N CV 'SHIFT...' [METRIC [FIRST_REPEAT]]: a runs.csv of
# N repeats of one row per shift (state sI, config on, randread-qd1),
# METRIC (iops) lower by SHIFT percent (higher for a lower-is-better
# one), noise uniform with a coefficient of variation of CV percent, from
# a Lehmer generator (integers: the same on every awk)
runs() {
	awk -v seed="$2" -v n="$3" -v cv="$4" -v shifts="$5" -v metric="${6:-iops}" -v r0="${7:-1}" '
		function u() { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
		BEGIN {
			print "seq,config,state,workload,repeat,status,metric,value"
			k = split(shifts, sh, " ")
			for (r = r0; r < r0 + n; r++)
				for (i = 1; i <= k; i++) {
					f = metric == "iops" ? 1 - sh[i] / 100 : 1 + sh[i] / 100
					printf "%d,on,s%d,randread-qd1,%d,ok,%s,%.3f\n", ++seq, i - 1, r, metric,
						1e5 * f * exp(cv / 100 * 3.4641016 * (u() - 0.5))
				}
		}' >"$1"
}

# seqc OUT [SEQ OPTION...] -- BASE NEW: benchstat sequential compare under
# kvm; the table (its rows joined) in OUT, the status in RC
seqc() {
	local out=$1 opts=()
	shift
	while [[ $1 != -- ]]; do opts+=("$1"); shift; done
	shift
	RC=0
	"$BS" sequential ${opts[@]+"${opts[@]}"} compare --accel kvm "$1" "$2" 2>"$out.err" | unwrap >"$out" || RC=$?
}

# row OUT STATE: the table's iops line of state STATE
row() {
	grep "^on/$2/randread-qd1/iops " "$1"
}

has() {
	grep -qF -- "$2" <<<"$1" || { echo "      got: $1"; return 1; }
}

# --- one look decides: slower, not slower, within threshold --------------
runs "$SCRATCH/b10" 11 10 0.5 '0 0 0'
runs "$SCRATCH/n10" 12 10 0.5 '0 5 -4'
seqc "$SCRATCH/t" --next "$SCRATCH/next" -- "$SCRATCH/b10" "$SCRATCH/n10"
check "5% slower at 0.5% noise: exit 1" test "$RC" = 1
check "  ... the row is slower at look 1, n=10+10, and says why it stopped" \
	has "$(row "$SCRATCH/t" s1)" "REGRESSION slower: -5."
check "  ... 'look 1 of 5; n=10+10; stopped: decided slower: interval'" \
	has "$(row "$SCRATCH/t" s1)" "look 1 of 5; n=10+10; stopped: decided slower: interval"
check "  ... the unchanged row is decided not slower at look 1" \
	has "$(row "$SCRATCH/t" s0)" "look 1 of 5; n=10+10; stopped: decided"
check "  ... 4% faster: not slower (the gate passes it)" \
	grep -Eq '^on/s2/randread-qd1/iops .*: (faster|not-slower): \+[34]\.' "$SCRATCH/t"
check "  ... nothing to repeat: the --next file is empty" test -f "$SCRATCH/next" -a ! -s "$SCRATCH/next"
check "  ... the line under the table names the sequential looks, not Holm" \
	grep -q 'sequential looks over 3 sampled rows' "$SCRATCH/t"
check "  ... the plan is stated: noise estimated from the first round" \
	grep -q '^sequential: noise estimated from the first round (10 a side, 3 gating rows' "$SCRATCH/t"
RC=0
"$BS" sequential compare --accel kvm "$SCRATCH/b10" "$SCRATCH/n10" >"$SCRATCH/raw" 2>&1 || RC=$?
check "  ... every line of it fits 80 columns, as compare's table does" \
	test "$RC,$(awk 'length > 80' "$SCRATCH/raw" | wc -l)" = 1,0

runs "$SCRATCH/b10q" 21 10 0.2 '0'
runs "$SCRATCH/n10q" 22 10 0.2 '0'
seqc "$SCRATCH/t" -- "$SCRATCH/b10q" "$SCRATCH/n10q"
check "unchanged at 0.2% noise: exit 0, within threshold (the interval inside +-1%)" \
	has "$RC $(row "$SCRATCH/t" s0)" "stopped: decided within threshold: interval"
check "  ... exit 0" test "$RC" = 0

# --- undecided: continue, then budget spent ----------------------------
runs "$SCRATCH/b30" 31 30 3 '0'
runs "$SCRATCH/n30" 32 30 3 '0'
head -n 11 "$SCRATCH/b30" >"$SCRATCH/b10h"
head -n 11 "$SCRATCH/n30" >"$SCRATCH/n10h"
seqc "$SCRATCH/t" --next "$SCRATCH/next" -- "$SCRATCH/b10h" "$SCRATCH/n10h"
check "3% noise, 10 a side: exit 2 (no verdict yet)" test "$RC" = 2
check "  ... the row continues to n=15 and says which intervals straddle" \
	has "$(row "$SCRATCH/t" s0)" "look 1 of 5; n=10+10; continues to n=15: the intervals"
check "  ... --next lists its boot: on s0 15" test "$(cat "$SCRATCH/next")" = "on s0 15"
check "  ... the plan says the budget does not resolve 1%, which threshold would pass, and that 2% is not caught" \
	grep -Eq 'does not resolve THRESHOLD=1% at this noise: THRESHOLD >= [0-9.]+% would pass an unchanged series in 90%; a slowdown of twice it is caught in less than 99%' "$SCRATCH/t"
seqc "$SCRATCH/t" --final -- "$SCRATCH/b10h" "$SCRATCH/n10h"
check "--final at n=10: budget spent before the last look (time or failed runs)" \
	has "$(row "$SCRATCH/t" s0)" "stopped: budget spent (the time budget or failed runs); undecided: needs about"
seqc "$SCRATCH/t" --next "$SCRATCH/next" -- "$SCRATCH/b30" "$SCRATCH/n30"
r=$(row "$SCRATCH/t" s0)
check "3% noise, 30 a side: undecided at the last look, exit 2" test "$RC" = 2
check "  ... 'look 5 of 5; n=30+30; stopped: budget spent; undecided: needs about N repeats a side; or THRESHOLD >= X%'" \
	grep -Eq 'look 5 of 5; n=30\+30; stopped: budget spent; undecided: needs about [0-9]+ repeats a side; or THRESHOLD >= [0-9]+\.[0-9]{2}%' <<<"$r"
check "  ... never a bare 'unclear'" has "$r" "unclear: "
check "  ... nothing more to boot" test ! -s "$SCRATCH/next"
x=$(sed -n 's/.*THRESHOLD >= \([0-9.]*\)%.*/\1/p' <<<"$r")
RC=0
"$BS" sequential compare --threshold "$x" --accel kvm "$SCRATCH/b30" "$SCRATCH/n30" >/dev/null 2>&1 || RC=$?
check "  ... THRESHOLD=$x (the figure it names) passes it: exit 0" test "$RC" = 0

# --- the looks replay the first runs in repeat order --------------------
# Repeats 11-30 of NEW 20% lower: the row decided at look 1 stays decided.
runs "$SCRATCH/late" 12 20 0.5 '20 20 20' iops 11
{ cat "$SCRATCH/n10"; tail -n +2 "$SCRATCH/late"; } >"$SCRATCH/n10late"
runs "$SCRATCH/b30q" 11 30 0.5 '0 0 0'
seqc "$SCRATCH/t" -- "$SCRATCH/b30q" "$SCRATCH/n10late"
check "runs after the deciding look change nothing: s0 decided at n=10+10 still" \
	has "$(row "$SCRATCH/t" s0)" "look 1 of 5; n=10+10; stopped: decided"
{ head -n 1 "$SCRATCH/n10"; tail -n +2 "$SCRATCH/n10" | tac; } >"$SCRATCH/n10rev"
seqc "$SCRATCH/t" -- "$SCRATCH/b10" "$SCRATCH/n10"
a=$(grep -c stopped "$SCRATCH/t")
seqc "$SCRATCH/t2" -- "$SCRATCH/b10" "$SCRATCH/n10rev"
check "the file's line order changes nothing (the same verdicts)" \
	cmp -s <(grep -v '^sequential' "$SCRATCH/t" | sort) <(grep -v '^sequential' "$SCRATCH/t2" | sort)
check "  ... (3 rows stopped)" test "$a" = 3

# --- a lower-is-better metric: cycles per I/O 5% higher is slower -------
runs "$SCRATCH/bc" 41 10 0.5 '0' cycles_per_io
runs "$SCRATCH/nc" 42 10 0.5 '5' cycles_per_io
RC=0
"$BS" sequential compare --accel kvm "$SCRATCH/bc" "$SCRATCH/nc" 2>/dev/null | unwrap >"$SCRATCH/t" || RC=$?
check "cycles_per_io 5% higher: slower, exit 1" \
	grep -Eq '^on/s0/randread-qd1/cycles_per_io .*REGRESSION slower: \+[45]\.' "$SCRATCH/t"
runs "$SCRATCH/nc" 43 10 0.5 '-5' cycles_per_io
RC=0
"$BS" sequential compare --accel kvm "$SCRATCH/bc" "$SCRATCH/nc" >/dev/null 2>&1 || RC=$?
check "cycles_per_io 5% lower: exit 0" test "$RC" = 0

# --- summary: each row against the baseline row of the same run ---------
awk -F, -v OFS=, 'NR == 1 { print; next } $3 == "s0" { $2 = "off"; $3 = "off" } { print }' \
	"$SCRATCH/n10h" >"$SCRATCH/one"
runs "$SCRATCH/r10" 51 10 3 '0 0'
{ cat "$SCRATCH/one"; tail -n +2 "$SCRATCH/r10" | awk -F, -v OFS=, '$3 == "s1" { $1 += 100; print }'; } >"$SCRATCH/run"
RC=0
"$BS" sequential --next "$SCRATCH/next" summary --accel kvm "$SCRATCH/run" >"$SCRATCH/sum" 2>"$SCRATCH/sum.err" || RC=$?
check "summary: CSV on stdout, the sequential lines on stderr" \
	test "$RC,$(head -c 7 "$SCRATCH/sum")" = "0,config,"
check "  ... the row continues; its boot and the baseline's are listed" \
	test "$(sort "$SCRATCH/next" | tr '\n' ' ')" = "off off 15 on s1 15 "
check "  ... stderr has the plan" grep -q '^sequential plan: budget 30 repeats a side' "$SCRATCH/sum.err"

# --- compare.sh reads SEQUENTIAL; refuses a bad or mismatched one --------
# side DIR CSV SEQUENTIAL: a run directory for compare.sh
side() {
	mkdir -p "$1"
	cp "$2" "$1/runs.csv"
	jq -n --arg s "$3" '{ACCEL: "kvm", GIT_COMMIT: "test", SEQUENTIAL: $s}' >"$1/meta.json"
}
gate() {
	RC=0
	"$REPO_DIR/bench/stats/compare.sh" "$1" "$2" 2>&1 | unwrap >"$SCRATCH/g" || RC=$?
}
side "$SCRATCH/B" "$SCRATCH/b30" '10 30'
side "$SCRATCH/N" "$SCRATCH/n30" '10 30'
gate "$SCRATCH/B" "$SCRATCH/N"
check "compare.sh, both runs SEQUENTIAL='10 30': the sequential rule, --final (budget spent), exit 2" \
	grep -q 'stopped: budget spent; undecided' "$SCRATCH/g"
check "  ... exit 2" test "$RC" = 2
side "$SCRATCH/N" "$SCRATCH/n30" '10 20'
gate "$SCRATCH/B" "$SCRATCH/N"
check "compare.sh, SEQUENTIAL '10 30' against '10 20': exit 2, naming both" \
	test "$RC,$(grep -c "SEQUENTIAL is '10 30' in .* '10 20' in" "$SCRATCH/g")" = 2,1
side "$SCRATCH/N" "$SCRATCH/n30" ''
gate "$SCRATCH/B" "$SCRATCH/N"
check "compare.sh, one run sequential and one not: exit 2" test "$RC" = 2
side "$SCRATCH/B" "$SCRATCH/b30" "10 30\$(touch $SCRATCH/pwned)"
side "$SCRATCH/N" "$SCRATCH/n30" "10 30\$(touch $SCRATCH/pwned)"
gate "$SCRATCH/B" "$SCRATCH/N"
check "compare.sh, a SEQUENTIAL holding a command: exit 2, nothing run" \
	test "$RC,$([[ -e $SCRATCH/pwned ]] && echo ran || echo not-run)" = 2,not-run

# --- bad input ----------------------------------------------------------
bad() {
	RC=0
	"$BS" "$@" >/dev/null 2>"$SCRATCH/err" || RC=$?
	[[ $RC == 2 ]] || { echo "      exit $RC"; return 1; }
}
check "--first 20 --max 10: exit 2" bad sequential --first 20 --max 10 compare --accel kvm "$SCRATCH/b10" "$SCRATCH/n10"
check "--spending bogus: exit 2, naming the valid ones" \
	bad sequential --spending bogus compare --accel kvm "$SCRATCH/b10" "$SCRATCH/n10"
check "  ... (pocock obf power2 power3)" grep -q 'valid: pocock obf power2 power3' "$SCRATCH/err"
check "--alpha 1.5: exit 2" bad sequential --alpha 1.5 compare --accel kvm "$SCRATCH/b10" "$SCRATCH/n10"
check "--first 1: exit 2" bad sequential --first 1 compare --accel kvm "$SCRATCH/b10" "$SCRATCH/n10"
check "sequential without compare or summary: exit 2" bad sequential --first 5
check "seq-plan --noise abc: exit 2" bad seq-plan --rows 70 --noise abc

# --- the plan ------------------------------------------------------------
p=$("$BS" seq-plan --rows 70 --noise '0.5 3' --plan-reps 4000)
check "seq-plan at 0.5% noise, 70 rows: the budget resolves 1%, unchanged passes >= 90%" \
	grep -Eq '^looks=10,15,20,25,30 rows=70 threshold_pct=1 noise_pct=0.5 pass_0pct=(0\.9|1\.0).* resolves=yes' <<<"$p"
check "seq-plan at 3%: it does not; it names a threshold that would" \
	grep -Eq 'noise_pct=3 pass_0pct=0\.0.* threshold_90_pct=[2-4]\.[0-9]+ .*resolves=no' <<<"$p"
check "seq-plan is the same run again (seeded)" \
	test "$p" = "$("$BS" seq-plan --rows 70 --noise '0.5 3' --plan-reps 4000)"

finish
