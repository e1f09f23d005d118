#!/usr/bin/env bash
# The test command: host-side unit tests, then the functional tests in
# tests/block booted in QEMU on each of TEST_CONFIGS (default: debug on).
# One line per test; the last line is "N passed, N failed".
#
#   TEST_CONFIGS="on" TESTS="001-readback 007-invalid" tests/run.sh
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/lib/lib.sh
. "$(dirname "$0")/../bench/lib/lib.sh"
lib_start "$0" "$@"
# shellcheck source=bench/lib/guest-tests.sh
. "$BENCH_DIR/lib/guest-tests.sh"
guest_results_init

TESTS_DIR=$GUEST_TESTS_DIR
TEST_CONFIGS=${TEST_CONFIGS:-debug on}

# host_test NAME COMMAND...: a host-side test passes when COMMAND exits 0.
host_test() {
	command_test host "$@"
}

# command_test KIND NAME COMMAND...: KIND/NAME passes when COMMAND exits 0.
command_test() {
	local name=$1/$2 logfile
	shift 2
	logfile=$(mktemp)
	if "$@" >"$logfile" 2>&1; then
		result "$name" PASS
	else
		result "$name" FAIL "(last lines below)"
		tail -n 15 "$logfile" | sed 's/^/    /'
	fi
	rm -f "$logfile"
}

shell_scripts() {
	cd "$REPO_DIR" && git ls-files | while read -r f; do
		[[ -f $f ]] || continue
		case $f in
		*.sh | bench/vm/run-guest | bench/guest/init | bench/plan/resolve | bench/plan/run) printf '%s\n' "$f" ;;
		tests/block/[0-9]*[!t]) [[ $f == *.out ]] || printf '%s\n' "$f" ;;
		esac
	done
}

lint_shell() {
	local files
	mapfile -t files < <(shell_scripts)
	cd "$REPO_DIR" && shellcheck -x "${files[@]}"
}

build_c_tools() {
	local out f
	out=$(mktemp -d)
	for f in "$REPO_DIR"/bench/guest/tools/*.c "$REPO_DIR"/perf-scripts/*.c; do
		gcc -std=c11 -Wall -Wextra -Werror -O2 -o "$out/$(basename "$f" .c)" "$f" || return 1
	done
	rm -rf "$out"
}

checkpatch_series() {
	local p
	"$BENCH_DIR/kernel/build.sh" tree main >/dev/null
	for p in "$REPO_DIR"/patches/*.patch "$REPO_DIR"/patches/next/*.patch \
		"$REPO_DIR"/patches/ablation/*.patch "$REPO_DIR"/patches/instrument/*.patch; do
		"$CACHE/src/pristine/scripts/checkpatch.pl" --strict --no-tree \
			--ignore FILE_PATH_CHANGES -q "$p" || return 1
	done
	# the guest tests' own kernel module is kernel C too
	"$CACHE/src/pristine/scripts/checkpatch.pl" --strict --no-tree -q -f \
		"$REPO_DIR"/bench/guest/kmod/*.c
}

run_host_tests() {
	host_test "benchstat unit tests" bash "$REPO_DIR/bench/stats/test.sh"
	host_test "benchstat against R's wilcox.test table" bash "$REPO_DIR/bench/stats/r-check.sh"
	host_test "compare.sh exit status (only 0/1/2)" bash "$REPO_DIR/bench/stats/gate-test.sh"
	[[ ! -f $REPO_DIR/plots/test.sh ]] || host_test "plots unit tests" bash "$REPO_DIR/plots/test.sh"
	host_test "shellcheck" lint_shell
	host_test "C tools build with -Wall -Wextra -Werror" build_c_tools
	host_test "checkpatch --strict on every patch" checkpatch_series
	host_test "patches/next/series: patches/series first, then the follow-up" bash "$TESTS_DIR/host/next-series.sh"
	host_test "bad input: a clear error and a non-zero exit" bash "$REPO_DIR/tests/bad-input.sh"
	host_test "settings resolver: bad input exits 2 before any work" bash "$TESTS_DIR/host/settings.sh"
	host_test "every host script answers -h: usage, exit 0, nothing made" bash "$TESTS_DIR/host/help.sh"
	host_test "one parser per tool: committed raw output gives the committed rows; bad input exits 2" bash "$TESTS_DIR/host/parsers.sh"
	host_test "one exit-status table: each command's statuses, the docs carry it" bash "$TESTS_DIR/host/exit-status.sh"
	host_test "sourcing a bench/lib library does nothing: no file, no output" bash "$TESTS_DIR/host/sourcing.sh"
	host_test "one pipeline: every boot through boot_guest, every run under results_root" bash "$TESTS_DIR/host/pipeline.sh"
	host_test "KCIDB export of a committed run" bash "$TESTS_DIR/export-kcidb.sh"
	host_test "LAVA logs and results into rows; failed and malformed ones" bash "$TESTS_DIR/lava-results.sh"
	host_test "coverage table of a fixture tracefile" bash "$REPO_DIR/tests/coverage-table-test.sh"
	host_test "80 columns: committed results and generated reports; the headline" bash "$TESTS_DIR/width.sh"
	host_test "static answer: polarity, state check, objdump diff" bash "$TESTS_DIR/static-test.sh"
	host_test "eifuzz's model tables are the documentation's" bash "$TESTS_DIR/model-tables.sh"
	host_test "README at most 250 lines, its expected result first, doc links resolve" bash "$TESTS_DIR/doc-check.sh"
	host_test "guest tests declare themselves; tests/README.md's table is theirs" bash "$TESTS_DIR/host/tests-table.sh"
	host_test "make clean-cache removes what the suite made, only that" bash "$TESTS_DIR/host/clean-cache.sh"
	host_test "committed runs are read-only to make plots, report, disasm" bash "$TESTS_DIR/host/committed-runs.sh"
	host_test "every committed report and figure made again 3 times: same bytes" bash "$TESTS_DIR/host/report-determinism.sh"
	host_test "summarise reads meta.json: every committed summary made again, same bytes" bash "$TESTS_DIR/host/summaries.sh"
	seed_overlap_test
}

# Our prose shares no 12-word run with the specification's text.  The seeds
# sit next to the repository on the project's machines, not in a clone.
seed_overlap_test() {
	if [[ -d $REPO_DIR/../shared/seeds ]]; then
		host_test "no 12-word run shared with the seeds" "$TESTS_DIR/seed-overlap.sh"
	else
		result "host/no 12-word run shared with the seeds" SKIP "(no ../shared/seeds)"
	fi
}

# runner_output OUT ERRLOG: what a runner check's golden file holds: the
# verdict, the guest script's output and run-guest's own lines on stderr
# (not the console's tail, its progress lines or their times).
runner_output() {
	sed -n 's/^verdict=/verdict: /p' "$1/meta"
	sed 's/^/result: /' "$1/result.log"
	grep -E '^(run-guest: |--- )' "$2" | sed "s|$1/|OUT/|g"
}

# expect_runner NAME STATUS VERDICT_RE RUN-GUEST-ARGS...: the runner must
# exit with STATUS, say VERDICT_RE and show the console's tail, and what
# it says must be tests/runner/NAME.out (else TEST_RESULTS/runner/NAME.out.bad).
expect_runner() {
	local name=$1 want=$2 re=$3 out got=0 errlog bad diff=''
	shift 3
	out=$CACHE/test-runs/runner-$name
	bad=$(failed_files_dir runner)/$name.out.bad
	errlog=$(mktemp)
	rm -f "$bad"
	"$BENCH_DIR/vm/run-guest" -c on -o "$out" "$@" >/dev/null 2>"$errlog" || got=$?
	if ! runner_output "$out" "$errlog" | cmp -s - "$TESTS_DIR/runner/$name.out"; then
		mkdir -p "${bad%/*}"
		runner_output "$out" "$errlog" >"$bad"
		diff="; output differs from tests/runner/$name.out, see ${bad#"$REPO_DIR"/}"
	fi
	if [[ $got == "$want" && -z $diff ]] && grep -Eq "$re" "$out/meta" && grep -q -- '--- last 40 lines' "$errlog"; then
		result "runner/$name" PASS
	else
		result "runner/$name" FAIL "(exit $got, want $want; $(sed -n 's/^verdict=//p' "$out/meta")$diff)"
		tail -n 5 "$errlog" | sed 's/^/    /'
	fi
	rm -f "$errlog"
}

# The runner tells failures apart instead of returning numbers.  A guest
# whose CPUs never start (QEMU -S) stands in for a hung boot, like the KVM
# guests that stop right after "Booting from ROM" on some machines.
run_runner_tests() {
	local script
	script=$(mktemp)
	printf 'echo about to fail\nexit 3\n' >"$script"
	expect_runner "script-failure" "$STATUS_FAILED" 'verdict=guest script failed with rc=3' "$script"
	# A busy loop, not a sleep: under tcg-icount (sleep=off) an idle guest's
	# clock jumps to its next timer, so "sleep 600" ends at once.  The limit
	# leaves room for a boot on a loaded host.
	printf 'while :; do :; done\n' >"$script"
	expect_runner "hung-script" "$STATUS_TIMEOUT" 'verdict=timeout: guest script still running' -t 90 "$script"
	expect_runner "kernel-panic" "$STATUS_FAILED" 'verdict=kernel panic' -k rdinit=/bin/false "$script"
	QEMU_EXTRA_ARGS=-S expect_runner "hung-boot" "$STATUS_TIMEOUT" 'verdict=hung boot' -t 10 "$script"
	rm -f "$script"
}

# How a lab runs the matrix, with the build of on: a prebuilt kernel and
# a modules archive (one boot), the matrix in two shards merged against
# one run of it (4 boots under tcg-icount), and a shard as a LAVA job run
# by lava-run against the same shard run by bench.sh (3 boots).
run_lab_tests() {
	command_test lab "run-guest -K/-M boots a prebuilt kernel" bash "$TESTS_DIR/prebuilt-kernel.sh"
	command_test lab "two shards merged equal one run" bash "$TESTS_DIR/shard-merge.sh"
	if [[ $(id -u) != 0 ]]; then
		result "lab/a shard through lava-run equals bench.sh --job" SKIP "(lava-run runs as root only)"
	elif ! command -v lava-run >/dev/null; then
		result "lab/a shard through lava-run equals bench.sh --job" SKIP "(no lava-run: make deps installs lava-dispatcher)"
	else
		command_test lab "a shard through lava-run equals bench.sh --job" bash "$TESTS_DIR/lava-run.sh"
	fi
}

main() {
	local cfg
	log "tests: host-side checks"
	run_host_tests
	# shellcheck disable=SC2086
	"$BENCH_DIR/kernel/build.sh" build $TEST_CONFIGS
	[[ " $TEST_CONFIGS " != *" on "* ]] || run_runner_tests
	[[ " $TEST_CONFIGS " != *" on "* ]] || run_lab_tests
	[[ " $TEST_CONFIGS " != *" on "* ]] ||
		command_test runner "compare-series: a planted +2 instructions exits 1" bash "$TESTS_DIR/compare-series.sh"
	for cfg in $TEST_CONFIGS; do
		run_guest_tests "$cfg"
	done
	if [[ $FAILED -gt 0 ]]; then
		printf 'failed: %s\n' "${FAILURES[*]}"
	fi
	if [[ $SKIPPED -gt 0 ]]; then
		printf '%d passed, %d failed, %d skipped\n' "$PASSED" "$FAILED" "$SKIPPED"
	else
		printf '%d passed, %d failed\n' "$PASSED" "$FAILED"
	fi
	[[ $FAILED -eq 0 ]]
}

main "$@"
