#!/usr/bin/env bash
# tests/check.sh, the runner of these tests (make check), on a copy with
# host tests of its own: it finds every tests/host/*.sh that declares a
# DESCRIPTION (a file added is run, with no list to edit), fails one that
# declares none, reports a test whose requires() finds something missing
# as skipped without running it, prints TAP in the files' order (a failed
# test's "not ok" lines under it) and ends with "N passed, N failed, N
# skipped"; exit 1 on a failure, 0 without, 2 for an unknown test name.
#
#   tests/host/check-runner.sh     "ok"/"not ok" a line; exit 1 on a failure
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="make check's runner: finds, skips, runs and reports host tests (TAP)"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"

# copy: what check.sh needs, in SCRATCH/repo; benchstat in SCRATCH/cache
# as made (newer than its source: check.sh's make finds it up to date).
copy() {
	local f
	for f in tests/check.sh tests/lib/host.sh bench/lib/help.sh bench/lib/status.sh \
		bench/lib/path.sh bench/stats/Makefile bench/stats/benchstat.c bench/stats/sequential.c; do
		mkdir -p "$SCRATCH/repo/${f%/*}"
		cp -p "$REPO_DIR/$f" "$SCRATCH/repo/$f"
	done
	mkdir -p "$SCRATCH/repo/tests/host" "$SCRATCH/cache/tools"
	make -s -C "$REPO_DIR/bench/stats" OUT="$SCRATCH/cache/tools" "$SCRATCH/cache/tools/benchstat"
}

# host_test NAME DECLARATIONS BODY: SCRATCH/repo/tests/host/NAME.sh.
host_test() {
	printf '#!/usr/bin/env bash\nset -euo pipefail\n%s\n%s\n' "$2" "$3" >"$SCRATCH/repo/tests/host/$1.sh"
}

# runner [ARG...]: check.sh on the copy; its output in SCRATCH/out, its
# exit status in RC.
runner() {
	RC=0
	CACHE=$SCRATCH/cache CHECK_JOBS=2 "$SCRATCH/repo/tests/check.sh" "$@" >"$SCRATCH/out" 2>&1 || RC=$?
}

line() { sed -n "$1p" "$SCRATCH/out"; }
has() { grep -qxE -- "$1" "$SCRATCH/out"; }

main() {
	copy
	host_test a-pass 'DESCRIPTION="a test that passes"' 'echo "ok - one"'
	host_test b-fail 'DESCRIPTION="a test that fails"' 'echo "ok - two"; echo "not ok - three"; exit 1'
	host_test c-skip "$(printf 'DESCRIPTION="a test that needs what is missing"\n%s() {\n\t%s\n}' \
		requires '_have_program no-such-program-bib')" "touch '$SCRATCH/c-ran'"
	host_test d-nodesc '' 'echo "ok - four"'
	runner
	check "exit 1 with a failed test (got $RC)" test "$RC" = 1
	check "the TAP plan first: 1..4" test "$(line 1)" = 1..4
	check "ok 1 - its DESCRIPTION (its time)" has 'ok 1 - a test that passes \([0-9]+ s, [0-9]+ s CPU\)'
	check "not ok 2 - its DESCRIPTION, exit and log" \
		has 'not ok 2 - a test that fails \([0-9]+ s, [0-9]+ s CPU, exit 1; log: .*/check/logs/b-fail\.log\)'
	check "  ... its failed line below it" has '# not ok - three'
	check "  ... its whole output kept" grep -qx 'ok - two' "$SCRATCH/cache/check/logs/b-fail.log"
	check "a test whose requires() fails: ok # SKIP, with why" \
		has 'ok 3 - a test that needs what is missing # SKIP no no-such-program-bib'
	check "  ... and it did not run" test ! -e "$SCRATCH/c-ran"
	check "a file without DESCRIPTION: not ok, named" \
		has 'not ok 4 - tests/host/d-nodesc\.sh declares no DESCRIPTION="one line" \(so it would never run\)'
	check "the last line: 1 passed, 2 failed, 1 skipped" test "$(tail -n 1 "$SCRATCH/out")" = "1 passed, 2 failed, 1 skipped"
	check "each test's time kept for the next run's order" grep -qE '^a-pass [0-9]+$' "$SCRATCH/cache/check/times"

	host_test e-new 'DESCRIPTION="a test added later"' 'echo "ok - five"'
	runner -l
	check "a test added is found (check.sh -l)" has 'e-new	a test added later'
	runner a-pass e-new
	check "tests named: only those, exit 0 (got $RC)" test "$RC" = 0
	check "  ... numbered in that order" has 'ok 2 - a test added later \([0-9]+ s, [0-9]+ s CPU\)'
	check "  ... the last line: 2 passed, 0 failed" test "$(tail -n 1 "$SCRATCH/out")" = "2 passed, 0 failed"
	runner no-such-test
	check "an unknown test: exit 2 (got $RC)" test "$RC" = 2
	check "  ... naming the valid ones" grep -q 'no host test no-such-test (valid: a-pass b-fail' "$SCRATCH/out"
	finish
}

main "$@"
