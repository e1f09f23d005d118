#!/usr/bin/env bash
# make coverage: line, branch and function coverage of the series' kernel
# code (block/error-injection.c, the gate in error-injection.h and the hook
# and helpers in block/blk-core.c) reached by the guest tests and by a
# fuzz campaign, measured with the kernel's gcov on the gcov config.
#
#   FUZZ_SECONDS=120 FUZZ_SEED=1 bench/run/coverage.sh [RESULTS_DIR | -h]
#
# Builds the gcov config, boots it once for every test in tests/block (as
# make test boots on; 011-kmemleak skips) and once for bench/run/fuzz.sh, takes
# the counts out of each guest (gcov-counts in the image, a block of the
# result log) and writes RESULTS_DIR (default RESULTS_ROOT/RUN_ID, RUN_ID
# <date>-coverage):
# tests.info, fuzz.info and both.info (lcov tracefiles, paths relative to
# the tree), coverage.txt (the table and the lines never reached, with
# their reasons from bench/report/coverage-reasons.txt), tests.txt (each test's
# verdict), fuzz.log (the campaign's runs and summary) and meta.json.  Exits non-zero
# when a test or the campaign failed, after writing everything.  Pages to
# browse (not kept in git): cd $CACHE/trees/gcov/src/tree-main && genhtml
# --branch-coverage -o /tmp/coverage-html RESULTS_DIR/both.info
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
driver_start coverage -- "$0" "$@"
plan_read FUZZ_SECONDS FUZZ_SEED TESTS TEST_TIMEOUT RUN_ID RESULTS_ROOT
# run_guest_tests and its result lines, as make test prints them.
# shellcheck source=bench/lib/guest-tests.sh
. "$BENCH_DIR/lib/guest-tests.sh"
guest_results_init

COVERAGE_CONFIG=gcov
# The tracefiles keep only these sources (the rest of the counts are the
# inline helpers of headers that the two objects use).
SOURCES=(block/error-injection.c block/error-injection.h block/blk-core.c)

check_args() {
	[[ $# -le 1 && ${1:-} != -* ]] || help_usage "$0"
	[[ -z ${1:-} || ! -e $1 ]] || die_bad_input "results directory '$1' exists already"
}

# The gcov of the compiler that built the kernel (its .gcno format).
gcov_tool() {
	local v
	v=$(gcc -dumpversion | cut -d. -f1)
	if command -v "gcov-$v" >/dev/null; then
		printf 'gcov-%s\n' "$v"
	else
		printf 'gcov\n'
	fi
}

LCOV_RC=(--rc lcov_branch_coverage=1)

# capture RESULT_LOG OUT_INFO: the counts block of a boot's result log into
# an lcov tracefile of SOURCES, paths relative to the tree.
capture() {
	local log=$1 info=$2 build src work gcda rel patterns=() s
	build=$(cd "$(kernel_build_dir "$COVERAGE_CONFIG")" && pwd -P)
	src=$(cd "$(tree_dir_of "$COVERAGE_CONFIG")" && pwd -P)
	work=$(mktemp -d)
	split_blocks "$log" "$work"
	[[ -s $work/gcov-counts ]] || die "no gcov counts in $log (is $COVERAGE_CONFIG a gcov kernel?)"
	mkdir "$work/tar"
	base64 -d "$work/gcov-counts" | tar -C "$work/tar" -xf -
	# The kernel names each .gcda by the object's path in the build
	# directory; lcov wants the .gcno beside it.
	mkdir "$work/obj"
	while IFS= read -r gcda; do
		rel=${gcda#"$work/tar"}
		rel=${rel#"$build/"}
		rel=${rel#"$(kernel_build_dir "$COVERAGE_CONFIG")/"}
		[[ $rel != /* ]] || die "${gcda#"$work/tar"} is not under the build directory $build"
		mkdir -p "$work/obj/$(dirname "$rel")"
		cp "$gcda" "$work/obj/$rel"
		cp "$build/${rel%.gcda}.gcno" "$work/obj/${rel%.gcda}.gcno"
	done < <(find "$work/tar" -name '*.gcda')
	lcov --quiet "${LCOV_RC[@]}" --gcov-tool "$(gcov_tool)" --capture \
		--directory "$work/obj" --base-directory "$build" --output-file "$work/all.info"
	for s in "${SOURCES[@]}"; do patterns+=("$src/$s"); done
	lcov --quiet "${LCOV_RC[@]}" --extract "$work/all.info" "${patterns[@]}" --output-file "$work/some.info"
	sed "s|^SF:$src/|SF:|" "$work/some.info" >"$info"
	rm -rf "$work"
}

# tree_dir_of CONFIG: the source tree CONFIG is built from.
tree_dir_of() {
	tree_dir "$(config_tree "$1")"
}

# without_counts LOG: LOG without its counts block.
without_counts() {
	awk '/^=== gcov-counts ===$/ { skip = 1 } !skip; /^=== end ===$/ { skip = 0 }' "$1"
}

# capture_test_boots INFO: the counts of every boot run_guest_tests made
# (the shared one, and one per FRESH_BOOT=1 test after the first), summed.
capture_test_boots() {
	local info=$1 log n=0 adds=()
	for log in "$CACHE/test-runs/$COVERAGE_CONFIG/result.log" \
		"$(own_boot_dir "$COVERAGE_CONFIG")"/*/result.log; do
		[[ -f $log ]] || continue
		n=$((n + 1))
		capture "$log" "$info.$n"
		adds+=(--add-tracefile "$info.$n")
	done
	lcov --quiet "${LCOV_RC[@]}" "${adds[@]}" --output-file "$info"
	rm -f "$info".[0-9]*
}

main() {
	local dir status=0 fuzz_out accel tests_pass
	check_args "$@"
	[[ $RUN_ID != auto ]] || RUN_ID=$(date -u +%Y%m%d-%H%M%S)-coverage
	dir=${1:-$(results_root)/$RUN_ID}
	log "coverage: $COVERAGE_CONFIG, guest tests then ${FUZZ_SECONDS}s of fuzzing, into $dir"
	"$BENCH_DIR/kernel/build.sh" build "$COVERAGE_CONFIG"
	mkdir -p "$dir"

	run_guest_tests "$COVERAGE_CONFIG" | tee "$dir/tests.txt"
	tests_pass=$(grep -c ' PASS' "$dir/tests.txt" || true)
	if grep -q ' FAIL' "$dir/tests.txt"; then
		log "coverage: a guest test failed (see $dir/tests.txt)"
		status=1
	fi
	capture_test_boots "$dir/tests.info"

	fuzz_out=$CACHE/coverage-runs/fuzz-$(date +%Y%m%d-%H%M%S)
	plan_call fuzz CONFIG="$COVERAGE_CONFIG" FUZZ_OUT="$fuzz_out" -- "$BENCH_DIR/run/fuzz.sh" || status=1
	without_counts "$fuzz_out/result.log" >"$dir/fuzz.log"
	capture "$fuzz_out/result.log" "$dir/fuzz.info"

	lcov --quiet "${LCOV_RC[@]}" --add-tracefile "$dir/tests.info" \
		--add-tracefile "$dir/fuzz.info" --output-file "$dir/both.info"
	"$BENCH_DIR/report/coverage-table.sh" "$(tree_dir_of "$COVERAGE_CONFIG")" \
		"make test's guest tests=$dir/tests.info" "fuzz campaign=$dir/fuzz.info" \
		"both=$dir/both.info" >"$dir/coverage.txt"
	accel=$(sed -n 's/^accel=//p' "$fuzz_out/meta")
	CONFIGS=$COVERAGE_CONFIG STATES='' BASELINE='' HOT_FUNCS='' RUN_ID=$(basename "$dir") \
		write_meta "$dir" "$accel" "$BENCH_COMMAND" FUZZ_SECONDS="$FUZZ_SECONDS" \
		FUZZ_SEED="$FUZZ_SEED" GUEST_TESTS_PASSED="$tests_pass" GCOV="$("$(gcov_tool)" --version | sed -n 1p)" \
		LCOV="$(lcov --version | sed -n 1p)"
	cat "$dir/coverage.txt"
	log "coverage: $dir"
	return "$status"
}

main "$@"
