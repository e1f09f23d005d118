#!/usr/bin/env bash
# Tests of the regression gate bench/compare.sh on results directories:
# exit 0 on a run against itself, 1 on a planted regression (deterministic
# and sampled), never 1 for n=2 sampled data or a random metric, 2 on each
# kind of broken input.  Uses a committed icount main run as the base.
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
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
# shellcheck source=bench/results.sh
. "$repo/bench/results.sh"

# A committed full main run under icount (two repeats of every row, the
# perf-qd1 counts): the cases below are written for its shape, so it is
# named, not the newest run (a make quick run has one repeat).
main_run=$repo/results/20261203-070343-tcg-icount
[[ -f $main_run/runs.csv ]] || { echo "$main_run/runs.csv missing: the gate tests need it" >&2; exit 1; }

# gate BASE NEW WANT NAME: compare.sh exits WANT
gate() {
	local rc=0
	"$repo/bench/compare.sh" "$1" "$2" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [[ $rc -eq $3 ]]; then
		pass "$4 -> exit $3"
	else
		tail -n 3 "$tmp/out" "$tmp/err" | sed 's/^/# /'
		fail "$4 -> exit $3 (got $rc)"
	fi
}

# mkrun DIR ACCEL: a results directory with meta.json and runs.csv from stdin
mkrun() {
	mkdir -p "$1"
	jq -n --arg a "$2" '{ACCEL: $a, GIT_COMMIT: "test"}' >"$1/meta.json"
	cat >"$1/runs.csv"
}

# scaled RUNS KEY FACTOR: RUNS with the values of config,state,workload,metric KEY times FACTOR
scaled() {
	awk -F, -v OFS=, -v key="$2" -v f="$3" \
		'NR > 1 && $6 == "ok" && ($2 "," $3 "," $4 "," $7) == key { $8 = $8 * f } { print }' "$1"
}

gate "$main_run" "$main_run" 0 "the main run against itself"

scaled "$main_run/runs.csv" on,key-off,randread-qd1,iops 0.97 | mkrun "$tmp/det" tcg-icount
gate "$main_run" "$tmp/det" 1 "icount iops 3% lower (exact)"
check "the row is marked REGRESSION" grep -q '^on/key-off/randread-qd1/iops .*REGRESSION slower' "$tmp/out"

scaled "$main_run/runs.csv" on,key-off,perf-qd1,insns_per_call 1.05 | mkrun "$tmp/call" tcg-icount
gate "$main_run" "$tmp/call" 1 "5% more instructions per call (exact)"

scaled "$main_run/runs.csv" on,key-off,perf-qd1,perf_share_pct 3 | mkrun "$tmp/rand" tcg-icount
gate "$main_run" "$tmp/rand" 0 "a random metric tripled"

scaled "$main_run/runs.csv" on,key-off,randread-qd1,iops 0.995 | mkrun "$tmp/small" tcg-icount
gate "$main_run" "$tmp/small" 0 "icount iops 0.5% lower (within the 1% threshold)"

# sampled (tcg): n=2 per side cannot reach 95%, whatever the shift
awk -F, -v OFS=, 'NR == 1 || $7 == "iops"' "$main_run/runs.csv" | mkrun "$tmp/tcg-base" tcg
scaled "$tmp/tcg-base/runs.csv" on,key-off,randread-qd1,iops 0.8 | mkrun "$tmp/tcg-new" tcg
gate "$tmp/tcg-base" "$tmp/tcg-new" 0 "n=2 sampled data 20% lower"
check "it says no verdict and why" grep -q 'no-verdict: n=2+2: no verdict at 95%; need n>=4 per side' "$tmp/out"

# sampled, n=5 per side, 10% lower: one gating row, p = 2/252
sampled() {
	local i
	echo "seq,config,state,workload,repeat,status,metric,value"
	for i in 1 2 3 4 5; do
		echo "$i,off,off,w,$i,ok,iops,$((100000 + 100 * i))"
		echo "$((i + 5)),on,key-off,w,$i,ok,iops,$(($1 + 100 * i))"
	done
}
sampled 100000 | mkrun "$tmp/kvm-base" kvm
sampled 90000 | mkrun "$tmp/kvm-new" kvm
gate "$tmp/kvm-base" "$tmp/kvm-new" 1 "kvm n=5 iops 10% lower"
gate "$tmp/kvm-base" "$tmp/kvm-base" 0 "kvm n=5 against itself"

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
	gate "$tmp/layout-$accel" "$tmp/layout-$accel" 0 "a $accel run with off and off-layout against itself"
done
gate "$tmp/layout-tcg" "$tmp/layout-tcg" 0 "tcg layout run again"
check "tcg: the floor is printed" grep -Eq '^  w iops \+(4\.9|5\.0)[0-9]*%$' "$tmp/out"
gate "$tmp/layout-tcg-icount" "$tmp/layout-tcg-icount" 0 "icount layout run again"
if grep -q 'layout noise floor' "$tmp/out"; then fail "icount: no floor printed"; else pass "icount: no floor printed"; fi

# broken input
awk -F, -v OFS=, 'NR > 1 { $6 = "failed"; $8 = "" } { print }' "$main_run/runs.csv" | mkrun "$tmp/allfailed" tcg-icount
gate "$main_run" "$tmp/allfailed" 2 "every NEW run failed"
awk -F, -v OFS=, 'NR > 1 && $2 == "on" && $3 == "rules-1" { $6 = "failed"; $8 = "" } { print }' \
	"$main_run/runs.csv" | mkrun "$tmp/onefailed" tcg-icount
gate "$main_run" "$tmp/onefailed" 2 "a group failed in NEW that was ok in BASE"
sed 's/^\([0-9]*\),on,/\1,other,/; s/^\([0-9]*\),off,/\1,other2,/; s/^\([0-9]*\),on-nojl,/\1,x,/; s/^\([0-9]*\),nokey,/\1,y,/' \
	"$main_run/runs.csv" | mkrun "$tmp/nomatch" tcg-icount
gate "$main_run" "$tmp/nomatch" 2 "nothing matched"
mkrun "$tmp/garbage" tcg-icount <<<"not a runs.csv"
gate "$main_run" "$tmp/garbage" 2 "an unreadable runs.csv"
gate "$main_run" "$tmp/does-not-exist" 2 "a missing directory"
jq -n '{ACCEL: "xen"}' >"$tmp/garbage/meta.json"
cp "$main_run/runs.csv" "$tmp/garbage/runs.csv"
gate "$main_run" "$tmp/garbage" 2 "an unknown accelerator in meta.json"

finish
