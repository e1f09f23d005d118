#!/usr/bin/env bash
# bench/report/coverage-table.sh on a fixture: two small lcov tracefiles of a
# 32-line source and their lcov sum.  The counts in expected.txt were
# checked by hand: a branch taken "-" (its line never ran) or 0 counts as
# not taken, a function scope ends at its first "}" in column 0, a file
# missing from one tracefile (fuzz.info has no main()) counts only what it
# has, lines of other files and outside the scope are left out, and each
# unreached line gets the reason whose file, function and code match.
#
#   bash tests/coverage-table-test.sh    "coverage table: as expected"; exit 1 on a difference
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="coverage table of a fixture tracefile"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"

FIXTURE=$REPO_DIR/tests/coverage-fixture
TABLE=$REPO_DIR/bench/report/coverage-table.sh

run_table() {
	COVERAGE_SCOPES=$1 "$TABLE" -r "$FIXTURE/reasons.txt" "$FIXTURE/src" \
		"guest tests=$FIXTURE/tests.info" "fuzz=$FIXTURE/fuzz.info" "both=$FIXTURE/both.info"
}

main() {
	local out status=0
	out=$(run_table $'block/demo.c\nblock/demo.c:parse,unused')
	diff -u "$FIXTURE/expected.txt" - <<<"$out"
	# A function the source does not define is an error, not an empty row.
	run_table 'block/demo.c:nosuch' >/dev/null 2>&1 || status=$?
	[[ $status == 2 ]] || { echo "unknown function: exit $status, want 2"; exit 1; }
	echo "coverage table: as expected"
}

main "$@"
