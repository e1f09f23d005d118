#!/usr/bin/env bash
# Committed runs are read-only to make: make plots, report and disasm
# default to the newest run made on this machine (CACHE/runs-made), not the
# newest committed one, and given a committed run they refuse it before any
# work (bench/lib/settings.sh).  Checked with a scratch CACHE; the repository's results/
# must be unchanged at the end.
#
#   tests/host/committed-runs.sh     "ok"/"not ok" a line; exit 1 on a failure
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="committed runs are read-only to make plots, report, disasm"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"
export CACHE=$SCRATCH/cache

# rc WANT COMMAND...: COMMAND (in the repository) exits WANT; output in
# out, whose first lines a failing rc or says shows
rc() {
	local want=$1 got=0
	shift
	(cd "$REPO_DIR" && "$@") >"$SCRATCH/out" 2>&1 </dev/null || got=$?
	[[ $got == "$want" ]] || { show_out; return 1; }
}

show_out() {
	sed -n 1,5p "$SCRATCH/out" | sed 's/^/      /'
}

says() {
	grep -qF -- "$1" "$SCRATCH/out" || { show_out; return 1; }
}

# results_state: the tracked and untracked files under results/, with
# hashes, without other tests' resolver probes (repo_status)
results_state() {
	repo_status "$REPO_DIR" --untracked-files=all --ignored -- results
}

# copy_run RUN DIR: a run "made here": RUN's tracked files at DIR
copy_run() {
	mkdir -p "$2"
	git -C "$REPO_DIR" ls-files -z "$1" | tar -C "$REPO_DIR" --null -T - -cf - | tar -C "$2" --strip-components=2 -xf -
}

# record DIR...: bench/lib/results.sh's record_run of each DIR, in order
record() {
	# shellcheck source=bench/lib/lib.sh
	. bench/lib/lib.sh
	test_plan
	lib_init
	local d
	for d in "$@"; do record_run "$d"; done
}

main() {
	local committed made older before
	committed=$(git -C "$REPO_DIR" ls-files 'results/*/report.md' | sed -n '$s,/report\.md$,,p')
	[[ -n $committed ]] || { echo "no committed run with a report" >&2; exit 2; }
	before=$(results_state)

	check "no run made here: make plots exits 2" rc 2 make -s plots
	check "  ... and says RESULTS is needed" says 'RESULTS is not set and no run was made on this machine yet'
	check "  ... make disasm too" rc 2 make -s disasm
	check "a bad RESULTS: exit 2" rc 2 make -s report RESULTS=results/no-such-run
	check "  ... it names it" says "RESULTS='results/no-such-run' (make's command line): no such directory"

	# runs made here are recorded by bench/lib/results.sh (write_meta and the
	# drivers call record_run); the newest one that still exists is used
	made=$SCRATCH/made/new-run
	older=$SCRATCH/made/older-run
	copy_run "$committed" "$older"
	copy_run "$committed" "$made"
	copy_run "$committed" "$SCRATCH/made/gone"
	check "record_run lists a run in CACHE/runs-made" \
		rc 0 record "$older" "$made" "$SCRATCH/made/gone"
	rm -rf "$SCRATCH/made/gone"
	check "make report with no RESULTS writes into the run made here" rc 0 make -s report
	check "  ... its report.md is new" test "$made/report.md" -nt "$older/report.md"

	check "make report RESULTS=<committed run>/ exits 2" rc 2 make -s report RESULTS="$committed/"
	check "  ... it says why" says "a committed run, which make never writes into"
	check "  ... and results/ is unchanged" test "$(results_state)" == "$before"
	finish
}

main "$@"
