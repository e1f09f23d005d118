#!/usr/bin/env bash
# make compare-series end to end, with its default states (key-off,
# key-on-other, rules-1, rules-1000), on planted regressions: the fixture
# series tests/fixtures/series-slow (patches/ plus two NOPs in the gate and
# four per rule visited) against patches/ must exit 1, report exactly "+2
# instructions per call" in key-off and __blk_error_inject's +4 per call
# with one rule and +4000 with 1000 as REGRESSION rows (they gate on their
# own); patches/ against itself, measured twice, must exit 0 with every
# exact count the same.  Otherwise reduced to keep it cheap: on, one
# workload, tcg-icount.  tests/fixtures/series-likely-gate (a gate whose
# site jumps while the key is off) must be measured, exit 0 with the same
# count per call, not stopped by the state check (key-off alone).  The
# fixtures build in variant roots of their own: the shared on build's
# stamp must not change.
#
#   CACHE=... bash tests/compare-series.sh    (needs on built, or builds it)
set -euo pipefail
shopt -s inherit_errexit

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/lib/assert.sh"
test_init "$0" "$@"

export CONFIGS=on WORKLOADS=randread-qd1 FIO_RUNTIME=1 FIO_RAMP=200ms
export FIO_IOS=5000 RESULTS_ROOT=$SCRATCH
unset STATES      # compare-series's default states are under test
CACHE=${CACHE:-$REPO_DIR/.cache}
stamp=$CACHE/build/on/.blkinject-stamp
"$REPO_DIR/bench/kernel/build.sh" build on >/dev/null 2>&1 || { echo "building on failed" >&2; exit 1; }
before=$(cat "$stamp")

# series NAME BASE NEW: run compare-series, its output in $SCRATCH/NAME.raw and,
# a row of the table a line (unwrap), in $SCRATCH/NAME.out.
series() {
	local rc=0
	BASE_SERIES=$2 NEW_SERIES=$3 RUN_ID=$1 "$REPO_DIR/bench/run/compare-series.sh" \
		>"$SCRATCH/$1.raw" 2>"$SCRATCH/$1.err" || rc=$?
	unwrap <"$SCRATCH/$1.raw" >"$SCRATCH/$1.out"
	echo "$rc"
}

# line NAME STATE METRIC: that row of NAME's table
line() { grep -E "^on/$2/count-randread-qd1/$3 " "$SCRATCH/$1.out" || true; }

# all_exact_same FILE: every exact row of a compare.sh table says "same".
all_exact_same() {
	awk '/\(exact\)$/ { n++; if ($0 !~ / same: same \(exact\)$/) bad = 1 }
		END { exit bad || !n }' "$1"
}

none_changed() { ! grep -Eq ' (slower|faster):' "$1"; }

rc=$(series slow "$REPO_DIR/patches" "$REPO_DIR/tests/fixtures/series-slow")
check "fixture against patches/ exits 1 (got $rc)" test "$rc" = 1
check "the default states were measured: key-off key-on-other rules-1 rules-1000" \
	test "$(grep -oE '^on/[a-z0-9-]+/count-randread-qd1/insns_per_call ' "$SCRATCH/slow.out" | cut -d/ -f2 | tr '\n' ' ')" = \
	"key-off key-on-other rules-1 rules-1000 "
l=$(line slow key-off insns_per_call)
check "the gate's instructions per call: +2 exactly ($l)" grep -Eq ' slower: \+2 instructions per call ' <<<"$l"
l=$(line slow rules-1 blk_error_inject_insns_per_call)
check "one rule on the target: __blk_error_inject +4 per call, a REGRESSION ($l)" \
	grep -Eq ' REGRESSION slower: \+4 instructions per call .*; exact$' <<<"$l"
l=$(line slow rules-1000 blk_error_inject_insns_per_call)
check "1000 rules on the target: +4000 per call, a REGRESSION ($l)" \
	grep -Eq ' REGRESSION slower: \+4000 instructions per call .*; exact$' <<<"$l"
rc=$(series same "$REPO_DIR/patches" "$REPO_DIR/patches")
check "patches/ against itself exits 0 (got $rc)" test "$rc" = 0
check "patches/ against itself: every exact count the same" \
	all_exact_same "$SCRATCH/same.out"
check "patches/ against itself: no row slower or faster" \
	none_changed "$SCRATCH/same.out"
# A gate of the other polarity (static_branch_likely(): its site jumps while
# the key is off) is measured, not refused by the state check as a key
# left on: one instruction at the site either way.
rc=$(STATES=key-off series likely "$REPO_DIR/patches" "$REPO_DIR/tests/fixtures/series-likely-gate")
check "likely-gate fixture against patches/ is measured, exit 0 (got $rc)" test "$rc" = 0
l=$(line likely key-off insns_per_call)
check "the likely gate's instructions per call: the same ($l)" grep -Eq ' same: same \(exact\)$' <<<"$l"
check "the shared on build was not rebuilt" test "$(cat "$stamp")" = "$before"
for f in "$SCRATCH"/*.out "$SCRATCH"/*.err; do
	[[ $failed == 0 ]] || { echo "--- $f"; tail -n 20 "$f"; }
done
finish
