#!/usr/bin/env bash
# Bad input is a clear error, never a silent success: each row runs a
# command that a user could type by mistake and expects its exit status and
# a piece of its error text (the names it must list).  Rows run with an
# empty scratch CACHE, so a command that went on to real work (extracting a
# tree, booting) would fail or leave traces; the last row boots `on` and
# is skipped when that config is not built in the real cache.
#
#   tests/bad-input.sh        prints a line per row; exit 1 if any failed
set -euo pipefail
shopt -s inherit_errexit

REPO_DIR=$(cd "$(dirname "$0")/.." && pwd)
REAL_CACHE=${CACHE:-$REPO_DIR/.cache}
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
# A committed results directory, named with a trailing slash as a user might.
NEWEST=''
for d in "$REPO_DIR"/results/*/summary.csv; do
	[[ -f $d ]] && NEWEST=results/$(basename "$(dirname "$d")")/
done

# STATUS | TEXT | COMMAND (run by bash in the repository)
ROWS=$(
	cat <<ROWS_END
4|unknown accelerator 'bogus' (valid: auto kvm tcg tcg-icount)|bench/run-guest -A -a bogus
4|unknown accelerator 'bogus' (valid: auto kvm tcg tcg-icount)|bench/run-guest -a bogus /dev/null
4|unknown config 'bogus' (valid: |bench/run-guest -c bogus /dev/null
4|unknown config 'bogus' (valid: |bench/run-guest -A -c bogus
0|run-guest [options] SCRIPT|bench/run-guest -h
4|illegal option -- x|bench/run-guest -x /dev/null
4|run-guest [options] SCRIPT|bench/run-guest
4|-t soon: expected a number of seconds|bench/run-guest -t soon /dev/null
1|unknown config 'bogus' (valid: |bench/kernel.sh build bogus
1|unknown config 'bogus' (valid: |bench/kernel.sh build on bogus
1|usage: kernel.sh tree NAME|bench/kernel.sh bogus
0|kernel.sh build CONFIG|bench/kernel.sh -h
1|usage: image.sh base|bench/image.sh bogus
0|perf.sh [-h]|perf-scripts/perf.sh --help
1|unknown argument 'bogus'|perf-scripts/perf.sh bogus
1|unknown state 'bogus' (valid: |STATES=bogus perf-scripts/perf.sh
0|bench.sh [-h]|bench/bench.sh -h
1|unknown argument '--repeats=2'|bench/bench.sh --repeats=2
1|unknown state 'bogus' (valid: off key-off key-on-other rules-N|STATES=bogus bench/bench.sh
1|unknown state 'rules-0' (valid: |STATES=rules-0 bench/bench.sh
1|unknown config 'bogus' (valid: |CONFIGS='on bogus' bench/bench.sh
1|unknown workload 'bogus' (valid: count-randread-qd1 |WORKLOADS=bogus bench/bench.sh
1|unknown accelerator 'bogus' (valid: auto kvm tcg tcg-icount)|ACCEL=bogus bench/bench.sh
1|REPEATS=two: expected a number|REPEATS=two bench/bench.sh
1|PLUGIN and PERF_RECORD are 0 or 1|PLUGIN=yes bench/bench.sh
1|BENCH_CONFIGS is now CONFIGS|BENCH_CONFIGS=on bench/bench.sh
0|run-all.sh [-h]|bench/run-all.sh -h
1|unknown argument 'quick'|bench/run-all.sh quick
1|unknown config 'bogus' (valid: |CONFIGS=bogus bench/run-all.sh
1|unknown argument 'bogus'|bench/peers.sh bogus
2|is not a results directory|make -s plots RESULTS=results/no-such-run
2|is not a results directory|make -s disasm RESULTS=results/no-such-run
0|plots/make-plots.sh ${NEWEST%/}|make -n plots RESULTS=$NEWEST
2|usage: make compare BASE=results/A NEW=results/B|make -s compare
1|KSRC=/no/such/linux: no such file or directory (give a git checkout, an extracted tree or a tarball|KSRC=/no/such/linux bench/kernel.sh build on
1|KSRC=/etc is not a kernel source: give a git checkout (its top directory), an extracted tree|KSRC=/etc bench/kernel.sh build on
1|KSRC=/etc/hostname is not a kernel source: a file must be a tarball|KSRC=/etc/hostname bench/bench.sh
1|SERIES=/etc has no series file: give a directory with a 'series' file|SERIES=/etc bench/kernel.sh build on
1|usage: kernel.sh defines TREE CONFIG_SYMBOL|bench/kernel.sh defines main
0|per-patch.sh [-h]|bench/per-patch.sh -h
1|unknown argument 'bogus'|bench/per-patch.sh bogus
1|per-patch needs a series: SERIES=none has no patches|SERIES=none bench/per-patch.sh
0|compare-series.sh [-h]|bench/compare-series.sh -h
2|unknown argument 'bogus'|bench/compare-series.sh bogus
2|SERIES=/etc has no series file|NEW_SERIES=/etc bench/compare-series.sh
2|KSRC=/no/such/linux: no such file|BASE_KSRC=/no/such/linux bench/compare-series.sh
2|unknown config 'bogus' (valid: |CONFIGS=bogus bench/compare-series.sh
2|unknown state 'bogus' (valid: |STATES=bogus bench/compare-series.sh
2|SERIES=/etc has no series file|make -s compare-series NEW_SERIES=/etc
ROWS_END
)

PASSED=0
FAILED=0

# check STATUS TEXT COMMAND: run COMMAND, compare its status and output.
check() {
	local want=$1 text=$2 cmd=$3 got=0 out
	out=$(cd "$REPO_DIR" && CACHE=$SCRATCH/cache BENCH_T0='' timeout 60 bash -c "$cmd" 2>&1 </dev/null) || got=$?
	if [[ $got == "$want" && $out == *"$text"* ]]; then
		printf 'ok    exit %s  %s\n' "$got" "$cmd"
		PASSED=$((PASSED + 1))
	else
		printf 'FAIL  exit %s (want %s and "%s")  %s\n' "$got" "$want" "$text" "$cmd"
		printf '%s\n' "$out" | tail -n 5 | sed 's/^/      /'
		FAILED=$((FAILED + 1))
	fi
}

# A benchmark whose every boot fails (a 2 s limit) writes its results and
# exits non-zero.
check_failing_bench() {
	local cmd
	if [[ ! -f $REAL_CACHE/build/on/.blkinject-stamp ]]; then
		printf 'skip  (config on not built) a bench run whose boots all fail\n'
		return
	fi
	cmd="CACHE=$REAL_CACHE RESULTS_ROOT=$SCRATCH/results RUN_ID=fail ACCEL=tcg CONFIGS=on STATES=key-off BASELINE='on key-off' REPEATS=1 RUN_TIMEOUT=2 bench/bench.sh"
	check 1 "1 of 1 boots failed" "$cmd"
	if [[ -f $SCRATCH/results/fail/runs.csv ]] && grep -q ',failed,iops,' "$SCRATCH/results/fail/runs.csv"; then
		printf 'ok    its runs.csv marks the run failed\n'
		PASSED=$((PASSED + 1))
	else
		printf 'FAIL  no runs.csv with the failed run in %s\n' "$SCRATCH/results/fail"
		FAILED=$((FAILED + 1))
	fi
}

# HOT_FUNCS names are checked against the built kernels' System.map (a
# kernel must have one of them; the others are then only absent), and
# a tree without the feature's Kconfig symbol is named as such: both need
# the real cache (a built on; the pristine source for the second).
check_needs_cache() {
	if [[ ! -f $REAL_CACHE/build/on/.blkinject-stamp ]]; then
		printf 'skip  (config on not built) HOT_FUNCS and tree-without-the-change rows\n'
		return
	fi
	check 1 "HOT_FUNCS: none of no_such_function other_missing is in the kernel of config on" \
		"CACHE=$REAL_CACHE HOT_FUNCS='no_such_function other_missing' CONFIGS=on STATES=key-off BASELINE='on key-off' bench/bench.sh"
	check 1 "HOT_FUNCS: 'a-b' is not a function name" \
		"CACHE=$REAL_CACHE HOT_FUNCS=a-b CONFIGS=on STATES=key-off BASELINE='on key-off' bench/bench.sh"
	[[ -f $REAL_CACHE/src/pristine/.blkinject-version ]] || return 0
	check 1 "this tree has no BLK_ERROR_INJECTION (no Kconfig entry defines it): give SERIES=" \
		"CACHE=$REAL_CACHE SERIES=none bench/kernel.sh build on"
}

main() {
	local want text cmd
	while IFS='|' read -r want text cmd; do
		check "$want" "$text" "$cmd"
	done <<<"$ROWS"
	# kernel.sh build bogus must stop before extracting or patching a tree.
	if [[ -e $SCRATCH/cache/src ]]; then
		printf 'FAIL  a bad config name still made %s\n' "$SCRATCH/cache/src"
		FAILED=$((FAILED + 1))
	fi
	check_failing_bench
	check_needs_cache
	printf '%d passed, %d failed\n' "$PASSED" "$FAILED"
	[[ $FAILED == 0 ]]
}

main "$@"
