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
# site jumps while the key is off) must be measured, not stopped by the
# state check (key-off alone), count the same per call, and exit 1 all the
# same: the static answer, run for each config and printed beside the
# counts, sees a jump-label site of the other polarity (issue 35: it
# ended "no regression", exit 0).  patches/ against itself: the static
# answer finds no cost while idle; series-slow: its idle path +2.  The
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
# a row of the table a line (unwrap), in $SCRATCH/NAME.out; its exit
# status in $SCRATCH/NAME.rc.
series() {
	local rc=0
	BASE_SERIES=$2 NEW_SERIES=$3 RUN_ID=$1 "$REPO_DIR/bench/run/compare-series.sh" \
		>"$SCRATCH/$1.raw" 2>"$SCRATCH/$1.err" || rc=$?
	unwrap <"$SCRATCH/$1.raw" >"$SCRATCH/$1.out"
	echo "$rc" >"$SCRATCH/$1.rc"
}

# status NAME: the exit status series NAME recorded ("none": it recorded none)
status() { cat "$SCRATCH/$1.rc" 2>/dev/null || echo none; }

# line NAME STATE METRIC: that row of NAME's table
line() { grep -E "^on/$2/count-randread-qd1/$3 " "$SCRATCH/$1.out" || true; }

# all_exact_same FILE: every exact row of a compare.sh table says "same".
all_exact_same() {
	awk '/\(exact\)$/ { n++; if ($0 !~ / same: same \(exact\)$/) bad = 1 }
		END { exit bad || !n }' "$1"
}

# ends_with FILE TAIL: FILE's last lines are TAIL's, and TAIL is not empty.
ends_with() { [[ -s $2 ]] && tail -n "$(wc -l <"$2")" "$1" | cmp -s - "$2"; }

none_changed() { ! grep -Eq ' (slower|faster):' "$1"; }

# static NAME FUNC: the static answer's line of FUNC in NAME's output, its
# wrapped lines joined
static() { grep -E "^on $2: " "$SCRATCH/$1.out" || true; }

# patches/ against itself first and alone: it makes what every run reads
# (benchstat, the plugin, the static answer's tool).  Then the two fixtures
# at once: each builds in a variant root of its own and boots on its own
# core, where one after the other they left a core idle at the end of
# make test.
series same "$REPO_DIR/patches" "$REPO_DIR/patches"
series slow "$REPO_DIR/patches" "$REPO_DIR/tests/fixtures/series-slow" &
STATES=key-off series likely "$REPO_DIR/patches" "$REPO_DIR/tests/fixtures/series-likely-gate" &
wait
rc=$(status slow)
check "fixture against patches/ exits 1 (got $rc)" test "$rc" = 1
l=$(static slow submit_bio_noacct_nocheck)
check "  ... the static answer beside the counts: the idle path +2, slower ($l)" \
	grep -Eq 'idle path \+2, .*SLOWER: its idle path gains 2 instructions; counted in key-off: \+2 per call$' <<<"$l"
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
rc=$(status same)
check "patches/ against itself exits 0 (got $rc)" test "$rc" = 0
check "patches/ against itself: every exact count the same" \
	all_exact_same "$SCRATCH/same.out"
check "patches/ against itself: no row slower or faster" \
	none_changed "$SCRATCH/same.out"
l=$(static same submit_bio_noacct_nocheck)
check "patches/ against itself: the static answer, no cost while idle ($l)" \
	grep -Eq 'idle path \+0, 0 renamed, 0 moved, 0 copied: no cost while idle; counted in key-off: \+0 per call$' <<<"$l"
# A gate of the other polarity (static_branch_likely(): its site jumps while
# the key is off) is measured, not refused by the state check as a key
# left on: one instruction at the site either way.
rc=$(status likely)
check "likely-gate fixture against patches/ is measured, and exits 1 on the static answer (got $rc)" test "$rc" = 1
l=$(line likely key-off insns_per_call)
check "the likely gate's instructions per call: the same ($l)" grep -Eq ' same: same \(exact\)$' <<<"$l"
l=$(static likely submit_bio_noacct_nocheck)
check "  ... the static answer beside it: a site of the other polarity, slower ($l)" \
	grep -Eq 'SLOWER: 1 site of the other polarity \(a TAKEN jump while the key is off, not a NOP\); counted in key-off: \+0 per call$' <<<"$l"
check "  ... the last line: REGRESSION (exit 1)" grep -qx 'compare-series: REGRESSION (exit 1)' "$SCRATCH/likely.out"
check "  ... its table, static answer and verdict kept in the run: compare.txt is what it printed" \
	ends_with "$SCRATCH/likely.raw" "$SCRATCH/likely/compare.txt"
check "  ... and it fits 80 columns, as text pasted into a review" \
	awk 'length > 80 { exit 1 }' "$SCRATCH/likely/compare.txt"
check "the shared on build was not rebuilt" test "$(cat "$stamp")" = "$before"
for f in "$SCRATCH"/*.out "$SCRATCH"/*.err; do
	[[ $failed == 0 ]] || { echo "--- $f"; tail -n 20 "$f"; }
done
finish
