#!/usr/bin/env bash
# Tests of the regression gate bench/stats/compare.sh on results directories:
# exit 0 on a copy of a run, 1 on a planted regression (deterministic and
# sampled, every exact count of a HOT_FUNCS function), 2 where no verdict
# is possible (underpowered sizes, an interval across the threshold) and
# on each kind of broken input; never 0 or 1 for n=2 sampled data, never
# any status but 0, 1 and 2.  Uses a committed icount main run as the base.
#
#   bash bench/stats/gate-test.sh
set -euo pipefail
shopt -s inherit_errexit

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CACHE=${CACHE:-$tmp/cache}

# shellcheck source=tests/lib/assert.sh
. "$repo/tests/lib/assert.sh"
# shellcheck source=bench/lib/lib.sh
. "$repo/bench/lib/lib.sh"
tool_start test 'CACHE KSRC SERIES' -- "$0" "$@"

# A committed full main run under icount (two repeats of every row, the
# perf-qd1 counts): the cases below are written for its shape, so it is
# named, not the newest run (a make quick run has one repeat).
main_run=$repo/results/20261203-070343-tcg-icount
[[ -f $main_run/runs.csv ]] || { echo "$main_run/runs.csv missing: the gate tests need it" >&2; exit 1; }

# compare.sh's plan made once and handed on, as a driver hands its plan to
# the tools it runs: not a resolver run for each gate below.  A gate with
# EXACT_TOLERANCE or THRESHOLD in its environment goes through the
# resolver instead.
"$repo/bench/plan/resolve" -n 'CACHE THRESHOLD EXACT_TOLERANCE' -o "$tmp/compare.plan" compare

# gate BASE NEW WANT NAME: compare.sh exits WANT
gate() {
	local rc=0 plan=$tmp/compare.plan
	[[ -z ${EXACT_TOLERANCE+set}${THRESHOLD+set} ]] || plan=''
	BIB_PLAN=$plan "$repo/bench/stats/compare.sh" "$1" "$2" >"$tmp/raw" 2>"$tmp/err" || rc=$?
	unwrap <"$tmp/raw" >"$tmp/out"
	if [[ $rc -eq $3 ]]; then
		pass "$4 -> exit $3"
	else
		tail -n 3 "$tmp/out" "$tmp/err" | sed 's/^/# /'
		fail "$4 -> exit $3 (got $rc)"
	fi
}

# mkrun DIR ACCEL [SMP_WORKLOADS]: a results directory with meta.json
# (SMP_WORKLOADS only when given) and runs.csv from stdin
mkrun() {
	mkdir -p "$1"
	jq -n --arg a "$2" --args '{ACCEL: $a, GIT_COMMIT: "test"}
		+ if $ARGS.positional == [] then {} else {SMP_WORKLOADS: $ARGS.positional[0]} end' \
		"${@:3}" >"$1/meta.json"
	cat >"$1/runs.csv"
}

# scaled RUNS KEY FACTOR: RUNS with the values of config,state,workload,metric KEY times FACTOR
scaled() {
	awk -F, -v OFS=, -v key="$2" -v f="$3" \
		'NR > 1 && $6 == "ok" && ($2 "," $3 "," $4 "," $7) == key { $8 = $8 * f } { print }' "$1"
}

# gate_scaled NAME KEY FACTOR RC LABEL: the main run with KEY's values
# times FACTOR, as the tcg-icount run $tmp/NAME, gated against the main run
gate_scaled() {
	scaled "$main_run/runs.csv" "$2" "$3" | mkrun "$tmp/$1" tcg-icount
	gate "$main_run" "$tmp/$1" "$4" "$5"
}

gate "$main_run" "$main_run" 2 "the main run against itself (the same directory)"
check "  ... it says why" grep -q 'BASE and NEW are the same directory' "$tmp/err"
mkdir "$tmp/copy"
cp "$main_run/runs.csv" "$main_run/meta.json" "$tmp/copy/"
gate "$main_run" "$tmp/copy" 0 "a copy of the main run"

gate_scaled det on,key-off,randread-qd1,iops 0.97 1 "icount iops 3% lower (exact)"
check "the row is marked REGRESSION" grep -q '^on/key-off/randread-qd1/iops .*REGRESSION slower' "$tmp/out"

gate_scaled call on,key-off,perf-qd1,insns_per_call 1.05 1 "5% more instructions per call (exact)"

# issue 22: four instructions more per rule visited showed only in
# blk_error_inject_insns_per_call, which did not gate
awk -F, -v OFS=, 'NR > 1 && $2 == "on" && $3 == "rules-1" && $7 == "blk_error_inject_insns_per_call" { $8 = $8 + 4 } { print }' \
	"$main_run/runs.csv" | mkrun "$tmp/rule" tcg-icount
gate "$main_run" "$tmp/rule" 1 "blk_error_inject +4 instructions per call at rules-1 (exact)"
check "  ... that row is the REGRESSION" grep -q '^on/rules-1/perf-qd1/blk_error_inject_insns_per_call .*REGRESSION slower: +4 instructions per call' "$tmp/out"
gate_scaled calls on,key-off,perf-qd1,calls_per_io 2 1 "twice the calls per I/O (exact)"

# issue 35: an exact count is judged by the instruction: +1 on 2024
# (+0.05%) passed the relative 1% threshold
awk -F, -v OFS=, 'NR > 1 && $2 == "on" && $3 == "rules-100" && $7 == "blk_error_inject_insns_per_call" { $8 = $8 + 1 } { print }' \
	"$main_run/runs.csv" | mkrun "$tmp/plus1" tcg-icount
gate "$main_run" "$tmp/plus1" 1 "blk_error_inject +1 instruction per call at rules-100 (2024, +0.05%)"
check "  ... the change in instructions" grep -q '^on/rules-100/perf-qd1/blk_error_inject_insns_per_call .*REGRESSION slower: +1 instruction per call' "$tmp/out"
EXACT_TOLERANCE=1 gate "$main_run" "$tmp/plus1" 0 "the same with EXACT_TOLERANCE=1"
EXACT_TOLERANCE=one gate "$main_run" "$tmp/plus1" 2 "EXACT_TOLERANCE=one"
check "  ... naming the valid values" grep -q "EXACT_TOLERANCE='one'.*not a whole number.*from 0 to 1000000" "$tmp/err"

gate_scaled rand on,key-off,perf-qd1,perf_share_pct 3 0 "a random metric tripled"

gate_scaled small on,key-off,randread-qd1,iops 0.995 0 "icount iops 0.5% lower (within the 1% threshold)"
awk -F, -v OFS=, 'NR > 1 && $2 == "on" && $3 == "key-off" && $4 == "randread-qd1" && $7 == "iops" { $8 = $8 * ($5 == 1 ? 0.985 : 0.995) } { print }' \
	"$main_run/runs.csv" | mkrun "$tmp/near" tcg-icount
gate "$main_run" "$tmp/near" 2 "icount iops 1.5% and 0.5% lower in two repeats: unclear"
check "  ... the range straddles the threshold" grep -q '^on/key-off/randread-qd1/iops .* unclear: -1.00% but repeats differ: range -1.50..-0.50% straddles the 1% threshold' "$tmp/out"

# sampled (tcg): n=2 per side cannot reach 95%, whatever the shift
awk -F, -v OFS=, 'NR == 1 || $7 == "iops"' "$main_run/runs.csv" | mkrun "$tmp/tcg-base" tcg
scaled "$tmp/tcg-base/runs.csv" on,key-off,randread-qd1,iops 0.8 | mkrun "$tmp/tcg-new" tcg
gate "$tmp/tcg-base" "$tmp/tcg-new" 2 "n=2 sampled data 20% lower: underpowered"
check "it says no verdict and why" grep -q 'no-verdict: n=2+2: underpowered: Holm over 48 gating rows' "$tmp/out"
# the run's two repeats are equal, so its rows tie: the normal approximation, n >= 8
check "  ... and what n is needed" grep -q 'underpowered: 48 gating rows need n >= 8 per side' "$tmp/err"

# sampled: ROWS rows of N runs a side, row 1 of NEW at LEVEL, the rest at
# the base's level (100000) shifted by half a step, so no value ties
sampled() {
	local rows=$1 n=$2 level=$3 r i
	echo "seq,config,state,workload,repeat,status,metric,value"
	for ((r = 1; r <= rows; r++)); do
		for ((i = 1; i <= n; i++)); do
			echo "$((r * 100 + i)),on,s$r,w,$i,ok,iops,$(((r == 1 ? level : 100000 + ${4:-0}) + 100 * i))"
		done
	done
}
sampled 1 5 100000 | mkrun "$tmp/kvm-base" kvm
sampled 1 5 90000 | mkrun "$tmp/kvm-new" kvm
gate "$tmp/kvm-base" "$tmp/kvm-new" 1 "kvm n=5 iops 10% lower"
mkdir "$tmp/kvm-copy" && cp "$tmp/kvm-base"/* "$tmp/kvm-copy/"
gate "$tmp/kvm-base" "$tmp/kvm-copy" 0 "kvm n=5 against a copy"
# issue 22: 8 rows, every one 50% lower at n=5: Holm over 8 cannot reach 5%
sampled 8 5 100000 | mkrun "$tmp/kvm8-base" kvm
sampled 8 5 50000 -50000 | mkrun "$tmp/kvm8-new" kvm
gate "$tmp/kvm8-base" "$tmp/kvm8-new" 2 "kvm 8 rows 50% lower at n=5: underpowered"
check "  ... underpowered: 8 gating rows need n >= 6 per side" grep -q 'underpowered: 8 gating rows need n >= 6 per side' "$tmp/err"
sampled 8 6 100000 | mkrun "$tmp/kvm8-base" kvm
sampled 8 6 50000 -50000 | mkrun "$tmp/kvm8-new" kvm
gate "$tmp/kvm8-base" "$tmp/kvm8-new" 1 "the same at n=6"
# the default matrix's 48 rows, one 30% lower
sampled 48 5 100000 | mkrun "$tmp/kvm48-base" kvm
sampled 48 5 70000 50 | mkrun "$tmp/kvm48-new" kvm
gate "$tmp/kvm48-base" "$tmp/kvm48-new" 2 "kvm 48 rows, one 30% lower, n=5: underpowered"
sampled 48 7 100000 | mkrun "$tmp/kvm48-base" kvm
sampled 48 7 70000 50 | mkrun "$tmp/kvm48-new" kvm
gate "$tmp/kvm48-base" "$tmp/kvm48-new" 1 "the same at n=7"

# the interval decides: about -0.9% with its CI reaching below -1%
interval() {
	local i
	echo "seq,config,state,workload,repeat,status,metric,value"
	for ((i = 1; i <= 10; i++)); do echo "$i,on,s1,w,$i,ok,iops,$(($1 + $2 * i))"; done
}
interval 100000 120 | mkrun "$tmp/iv-base" kvm
interval 99000 130 | mkrun "$tmp/iv-new" kvm
gate "$tmp/iv-base" "$tmp/iv-new" 2 "kvm -0.9% with its CI across -1%: unclear"
check "  ... it says so" grep -q 'unclear: 1 gating rows: the interval reaches beyond the 1% threshold' "$tmp/err"

# one rule at the boundary: exactly -1% is within 1% in every class
interval 100000 0 | mkrun "$tmp/b-base" kvm
interval 99000 0 | mkrun "$tmp/b-new" kvm
gate "$tmp/b-base" "$tmp/b-new" 0 "kvm: ten runs of 100000 against ten of 99000"
interval 100000 0 | mkrun "$tmp/b-base" tcg-icount
interval 99000 0 | mkrun "$tmp/b-new" tcg-icount
gate "$tmp/b-base" "$tmp/b-new" 0 "tcg-icount: the same"

# the layout noise floor: a run with off and off-layout (5% apart) prints
# it after the table under kvm/tcg, never under tcg-icount
layout() {
	local i
	echo "seq,config,state,workload,repeat,status,metric,value"
	for i in 1 2 3 4 5; do
		echo "$i,off,off,w,$i,ok,iops,$((100000 + 100 * i))"
		echo "$((i + 5)),off-layout,off,w,$i,ok,iops,$((105000 + 100 * i))"
	done
}
for accel in tcg tcg-icount; do
	layout | mkrun "$tmp/layout-$accel" "$accel"
	"$(benchstat_bin)" summary --accel "$accel" --baseline-config off --baseline-state off \
		"$tmp/layout-$accel/runs.csv" >"$tmp/layout-$accel/summary.csv"
	mkdir "$tmp/layout-$accel-copy" && cp "$tmp/layout-$accel"/* "$tmp/layout-$accel-copy/"
	gate "$tmp/layout-$accel" "$tmp/layout-$accel-copy" 0 "a $accel run with off and off-layout against a copy"
done
gate "$tmp/layout-tcg" "$tmp/layout-tcg-copy" 0 "tcg layout run again"
check "tcg: the floor is printed" grep -Eq '^  w iops \+(4\.9|5\.0)[0-9]*%$' "$tmp/raw"
gate "$tmp/layout-tcg-icount" "$tmp/layout-tcg-icount-copy" 0 "icount layout run again"
if grep -q 'layout noise floor' "$tmp/out"; then fail "icount: no floor printed"; else pass "icount: no floor printed"; fi

# REPEATS=auto under kvm/tcg: the sequential gate's first round of 10,
# the log stating its plan for REPEATS_MAX=30 at PLAN_NOISE; without room
# for more rounds (REPEATS_MAX <= REPEATS), n so that the default matrix
# is powered, the log saying n and the power at 2% and 5% (bench.sh
# --list boots nothing)
list_rc=0
# a QEMU under which the KVM probe passes: this machine need not have KVM
QEMU=$repo/tests/fixtures/kvm/qemu-kvm-runs ACCEL=kvm "$repo/bench/run/bench.sh" --list >"$tmp/list" 2>"$tmp/list.err" || list_rc=$?
check "REPEATS=auto under kvm: 22 rows x 10 boots, the sequential gate's first round" \
	test "$list_rc,$(wc -l <"$tmp/list")" = 0,220
check "  ... the log states the plan: 70 gating rows, the slowdown caught in 99%, how often unchanged passes" \
	grep -Eq 'REPEATS=10 \(auto\) under kvm, then up to REPEATS_MAX=30 .*70 gating rows, threshold 1%, noise CV 1.00%: catches a slowdown of 1\.[0-9]+% or more in 99% of runs; an unchanged series passes in (9[0-9]|100)%' "$tmp/list.err"
QEMU=$repo/tests/fixtures/kvm/qemu-kvm-runs ACCEL=kvm REPEATS_MAX=7 "$repo/bench/run/bench.sh" --list >"$tmp/list" 2>"$tmp/list.err" || list_rc=$?
check "REPEATS=auto, REPEATS_MAX=7 under kvm: 22 rows x 7 boots" test "$list_rc,$(wc -l <"$tmp/list")" = 0,154
check "  ... the log says n=7 for the 70 gating rows and the power at 2% and 5%" \
	grep -Eq 'REPEATS=7 \(auto\) under kvm: 70 gating rows .* 2% slower is found with probability 0\.[0-9]+, 5% slower (0\.9[0-9]|1\.00)' "$tmp/list.err"
ACCEL=tcg REPEATS=5 REPEATS_MAX=5 "$repo/bench/run/bench.sh" --list >"$tmp/list" 2>"$tmp/list.err" || list_rc=$?
check "REPEATS=5 under tcg: 48 gating rows, the log says UNDERPOWERED and n >= 7" \
	grep -q 'REPEATS=5 under tcg: 48 gating rows .*UNDERPOWERED: no row can be shown slower at n=5 (n >= 7 needed)' "$tmp/list.err"

# SMP_WORKLOADS (views.sh records the workloads booted on more than one
# vCPU): under tcg-icount their guest time is random, so compare.sh passes
# them to benchstat.  mq [IOPS [INSNS]]: one run of mq-randread-qd1 with
# IOPS (100000) and INSNS per call (43), beside randread-qd1's 100000 and 43
mq() {
	echo "seq,config,state,workload,repeat,status,metric,value"
	echo "1,on,key-off,mq-randread-qd1,1,ok,iops,${1:-100000}"
	echo "1,on,key-off,mq-randread-qd1,1,ok,insns_per_call,${2:-43}"
	echo "2,on,key-off,randread-qd1,1,ok,iops,100000"
	echo "2,on,key-off,randread-qd1,1,ok,insns_per_call,43"
}
mq | mkrun "$tmp/mq-base" tcg-icount
mq 95000 | mkrun "$tmp/mq-new" tcg-icount
gate "$tmp/mq-base" "$tmp/mq-new" 1 "icount mq iops 5% lower, no SMP_WORKLOADS (as single-vCPU)"
mq | mkrun "$tmp/mq-base-smp" tcg-icount "mq-randread-qd1"
mq 95000 | mkrun "$tmp/mq-new-smp" tcg-icount "mq-randread-qd1"
# issue 35: NEW's meta.json alone decided which rows gate
gate "$tmp/mq-base" "$tmp/mq-new-smp" 2 "the same, only NEW's meta.json lists mq-randread-qd1 in SMP_WORKLOADS"
check "  ... BASE and NEW disagree, named" \
	grep -q 'BASE and NEW disagree on which workloads ran on more than one vCPU (SMP_WORKLOADS in meta.json): mq-randread-qd1 (NEW only)' "$tmp/err"
gate "$tmp/mq-base-smp" "$tmp/mq-new" 2 "the same, only BASE lists it"
gate "$tmp/mq-base-smp" "$tmp/mq-new-smp" 0 "the same, both list it"
check "  ... the row is random, no verdict" \
	grep -q '^on/key-off/mq-randread-qd1/iops .*: random: random by nature: no verdict' "$tmp/out"
mq 95000 | mkrun "$tmp/mq-new-rq" tcg-icount "randread-qd1"
gate "$tmp/mq-base-smp" "$tmp/mq-new-rq" 2 "BASE lists mq-randread-qd1, NEW randread-qd1: they disagree"
mq 50000 | awk -F, -v OFS=, 'NR > 1 && $4 == "randread-qd1" && $7 == "iops" { $8 = 50000 } { print }' |
	mkrun "$tmp/mq-new-all" tcg-icount "mq-randread-qd1 randread-qd1"
gate "$tmp/mq-base" "$tmp/mq-new-all" 2 "NEW lists every workload, IOPS halved: no timing gate switched off by NEW"
mq 100000 44 | mkrun "$tmp/mq-new-call" tcg-icount "mq-randread-qd1"
gate "$tmp/mq-base-smp" "$tmp/mq-new-call" 1 "listed, +1 instruction per call: exact counts still gate"
mq 95000 | mkrun "$tmp/mq-new-typo" tcg-icount "mq-randread-qd64"
gate "$tmp/mq-base" "$tmp/mq-new-typo" 2 "SMP_WORKLOADS naming a workload in neither run"
check "  ... it names it" grep -q 'workload "mq-randread-qd64" is not in' "$tmp/err"

# broken input
awk -F, -v OFS=, 'NR > 1 { $6 = "failed"; $8 = "" } { print }' "$main_run/runs.csv" | mkrun "$tmp/allfailed" tcg-icount
gate "$main_run" "$tmp/allfailed" 2 "every NEW run failed"
awk -F, -v OFS=, 'NR > 1 && $2 == "on" && $3 == "rules-1" { $6 = "failed"; $8 = "" } { print }' \
	"$main_run/runs.csv" | mkrun "$tmp/onefailed" tcg-icount
gate "$main_run" "$tmp/onefailed" 2 "a group failed in NEW that was ok in BASE"
sed 's/^\([0-9]*\),on,/\1,other,/; s/^\([0-9]*\),off,/\1,other2,/; s/^\([0-9]*\),on-nojl,/\1,x,/; s/^\([0-9]*\),nokey,/\1,y,/' \
	"$main_run/runs.csv" | mkrun "$tmp/nomatch" tcg-icount
gate "$main_run" "$tmp/nomatch" 2 "nothing matched"
gate_scaled zero on,key-off,randread-qd1,iops 0 2 "a gating value of 0"
awk -F, 'NR == 1 || !($2 == "on" && $3 == "rules-10" && $7 == "insns_per_call")' "$main_run/runs.csv" |
	mkrun "$tmp/lacks" tcg-icount
gate "$main_run" "$tmp/lacks" 2 "a gating group of BASE missing in NEW"
{ cat "$tmp/small/runs.csv"; tail -n +2 "$tmp/small/runs.csv"; } | mkrun "$tmp/twice" tcg-icount
gate "$main_run" "$tmp/twice" 2 "NEW's rows appended twice (duplicate rows)"
mkrun "$tmp/garbage" tcg-icount <<<"not a runs.csv"
gate "$main_run" "$tmp/garbage" 2 "an unreadable runs.csv"
gate "$main_run" "$tmp/does-not-exist" 2 "a missing directory"
jq -n '{ACCEL: "xen"}' >"$tmp/garbage/meta.json"
cp "$main_run/runs.csv" "$tmp/garbage/runs.csv"
gate "$main_run" "$tmp/garbage" 2 "an unknown accelerator in meta.json"
printf '{"ACCEL": "tcg-icount",\n' >"$tmp/garbage/meta.json"
gate "$main_run" "$tmp/garbage" 2 "a malformed meta.json"
echo '[1, 2]' >"$tmp/garbage/meta.json"
gate "$main_run" "$tmp/garbage" 2 "a meta.json that is not an object"
echo '{"GIT_COMMIT": "x"}' >"$tmp/garbage/meta.json"
gate "$main_run" "$tmp/garbage" 2 "a meta.json without ACCEL"
# issue 35: runs of different accelerators got a verdict, with a warning
awk -F, 'NR == 1 || $7 ~ /insns_per_call$/' "$main_run/runs.csv" | mkrun "$tmp/counts-icount" tcg-icount
awk -F, 'NR == 1 || $7 ~ /insns_per_call$/' "$main_run/runs.csv" | mkrun "$tmp/counts-kvm" kvm
gate "$tmp/counts-icount" "$tmp/counts-kvm" 2 "tcg-icount against kvm (the same exact counts: it was exit 0)"
check "  ... it names both accelerators" grep -q 'ran under tcg-icount, .* ran under kvm: runs of different accelerators get no verdict' "$tmp/err"
# issue 35: an old run's meta.env was sourced, so a command in it ran
mkdir "$tmp/env-run"
cp "$main_run/runs.csv" "$tmp/env-run/"
printf 'ACCEL=tcg-icount\nGIT_COMMIT=%s(touch %q)\n' '$' "$tmp/pwned" >"$tmp/env-run/meta.env"
gate "$main_run" "$tmp/env-run" 2 "a meta.env with a command substitution in it"
check "  ... the command did not run" test ! -e "$tmp/pwned"
check "  ... the line is named" grep -q 'env-run/meta.env:2: "\$" outside quotes: not read' "$tmp/err"
cat >"$tmp/env-run/meta.env" <<'END'
ACCEL=tcg-icount
GIT_COMMIT=abc\ 123
COMMAND=REPEATS=2\ BASELINE=\'off\ off\'\ make
END
gate "$main_run" "$tmp/env-run" 0 "a meta.env as printf %q wrote it: parsed"
check "  ... its values read" grep -q "^new:  .*env-run (tcg-icount, abc 123)" "$tmp/out"
# about 515 runs a side overflowed GSL's C(m+n, m): SIGABRT, exit 134
big() {
	echo "seq,config,state,workload,repeat,status,metric,value"
	for ((i = 1; i <= 600; i++)); do echo "$i,on,s1,w,$i,ok,iops,$((100000 + i))"; done
}
big | mkrun "$tmp/big-base" kvm
big | mkrun "$tmp/big-new" kvm
gate "$tmp/big-base" "$tmp/big-new" 0 "600 runs a side, no change"
THRESHOLD=abc gate "$tmp/big-base" "$tmp/big-new" 2 "a THRESHOLD that is not a number"

finish
