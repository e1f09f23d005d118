#!/usr/bin/env bash
# Every script a user calls on the host answers -h with its usage and exit
# 0, and does nothing else (issue 23): run with an empty HOME and a CACHE
# that does not exist, it prints "usage" or its own name, exits 0 within
# 20 s (no build, no boot), makes no CACHE and leaves the checkout as it was.
# What it prints on stdout is its whole leading comment block (the help
# bench/lib/help.sh reads), so a header that grows is never cut short.
#
# Not entry points, so not here: bench/lib/*.sh, bench/stats/round.sh,
# bench/lab/lava.sh, bench/report/headline.sh and bench/report/views.sh
# (libraries sourced by others), bench/guest/* and bench/lab/lava-guest.sh
# (run inside the guest), bench/stats/{test,gate-test,r-check,scale-bench}.sh
# and the tests under tests/ other than the three runners (tests, run by
# tests/check.sh and tests/run.sh), bench/plan/{drivers,jobs,views} (data, not scripts).
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="every host script answers -h: usage, exit 0, nothing made"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
scratch_init

scripts() {
	cd "$REPO_DIR" && printf '%s\n' bench/run/*.sh bench/stats/compare.sh \
		bench/stats/summarise.sh bench/setup/*.sh bench/kernel/build.sh \
		bench/vm/image.sh bench/vm/run-guest bench/report/report.sh \
		bench/report/coverage-table.sh \
		bench/plan/resolve bench/plan/run plots/*.sh perf-scripts/*.sh \
		tests/run.sh tests/check.sh tests/mutants/run.sh tests/mutants/score.sh tests/mutants/generate.sh
	cd "$REPO_DIR" && printf '%s\n' bench/lab/*.sh | grep -vxE 'bench/lab/lava(-guest)?\.sh'
}

# header FILE: the leading comment block: the comment lines after the
# shebang up to the first line that is not one, "#" and one space after it
# stripped.  Worked out here, not by bench/lib/help.sh, so that the check
# does not agree with the code by construction.
header() {
	awk 'NR == 1 && /^#!/ { next } !/^#/ { exit } { sub(/^#/, ""); sub(/^ /, ""); print }' "$1"
}

# status: the checkout's state, ignored files included
status() {
	git -C "$REPO_DIR" status --porcelain --ignored
}

mapfile -t SCRIPTS < <(scripts)
before=$(status)
for s in "${SCRIPTS[@]}"; do
	dir=$SCRATCH/${s//\//_}
	mkdir -p "$dir/home"
	rc=0
	(cd "$dir" && HOME=$dir/home CACHE=$dir/cache timeout 20 "$REPO_DIR/$s" -h \
		>"$dir/out" 2>"$dir/err" </dev/null) || rc=$?
	check "$s -h: exit 0 (got $rc)" test "$rc" = 0
	name=$(basename "$s")
	check "$s -h: prints its usage" grep -qiE -e usage -e "$name" "$dir/out" "$dir/err"
	header "$REPO_DIR/$s" >"$dir/header"
	check "$s -h: prints its whole leading comment block" cmp -s "$dir/header" "$dir/out"
	check "$s -h: makes no CACHE" test ! -e "$dir/cache"
	after=$(status)
	check "$s -h: leaves the checkout as it was" test "$before" = "$after"
	before=$after
	[[ $rc == 0 ]] || sed -n '1,3s/^/      /p' "$dir/err"
done
finish
