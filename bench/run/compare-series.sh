#!/usr/bin/env bash
# Series against series (or tree against tree): build CONFIGS from each
# side, measure the same reduced matrix on each under tcg-icount, and gate
# on bench/stats/compare.sh's regression table.
#
#   compare-series.sh [-h]
# Settings (environment; bench/plan/drivers/compare-series.job and the
# table hold their defaults):
#   BASE_SERIES NEW_SERIES   a directory with a series file, or none
#                            (default: SERIES, else patches/)
#   BASE_KSRC NEW_KSRC       the source of each side (default: KSRC, else
#                            Debian's linux-source-6.12)
#   CONFIGS=on  STATES="key-off key-on-other rules-1 rules-1000"
#                            (the paths of the design: key off, key on with
#                            no rule on the target disk, one rule and many
#                            on it, each visited by every I/O)
#   WORKLOADS  FIO_RUNTIME  FIO_RAMP  FIO_IOS  HOT_FUNCS  THRESHOLD
#   RESULTS_ROOT  RUN_ID (default <date>-compare-series)
# Each side's build and run get a plan made from this one's (plan_call).
# Output: RESULTS_ROOT/RUN_ID/{base,new}/, a run of bench.sh each, and the
# table on stdout.  Exit status, only ever 0, 1 or 2: 0 no regression, 1 a
# primary metric worse than THRESHOLD percent (any exact count of a
# HOT_FUNCS function included) or a side that could not be measured (the
# last line says which), 2 broken input or no verdict.  `make
# compare-series` runs this, but make reports any failure as 2: gate on
# this script.
set -eEuo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/lib/lib.sh
. "$(dirname "$0")/../lib/lib.sh"
# Whatever fails unforeseen is exit 2, never a status of its own.
trap 'exit "$STATUS_BAD_INPUT"' ERR
# On its own it resolves its settings first (bench/plan/run: exit 2 on bad
# input, before a results directory is made or a tree extracted).
driver_start compare-series -- "$0" "$@"
no_arguments "$0" "$@"
plan_read CONFIGS BASE_KSRC NEW_KSRC BASE_SERIES NEW_SERIES RUN_ID RESULTS_ROOT HOT_FUNCS

# side NAME KSRC SERIES: build and measure one side into $OUT/NAME, each
# on a plan made from this one's with the side's source (an empty KSRC is
# Debian's, the default) and series.
side() {
	local name=$1
	local -a src
	mapfile -t src < <(side_sources "$2" "$3")
	# shellcheck disable=SC2086 # a list of words
	plan_call kernels "${src[@]}" CONFIGS="$CONFIGS" -- "$BENCH_DIR/kernel/build.sh" build $CONFIGS >&2
	plan_call bench "${src[@]}" RESULTS_ROOT="$OUT" RUN_ID="$name" -- "$BENCH_DIR/run/bench.sh" >/dev/null
}

# side_sources KSRC SERIES: side's plan args, "SERIES=... [KSRC=...]".
side_sources() {
	printf '%s\n' "SERIES=$2"
	[[ -z $1 ]] || printf '%s\n' "KSRC=$1"
}

# undefined KSRC SERIES: the HOT_FUNCS no C file of that side's source
# defines, one a line, sorted (its tree synced, nothing built).
undefined() {
	local -a src
	mapfile -t src < <(side_sources "$1" "$2")
	# shellcheck disable=SC2086 # a list of words
	{ plan_call kernels "${src[@]}" -- "$BENCH_DIR/kernel/build.sh" functions main $HOT_FUNCS 2>/dev/null || :; } |
		awk '$2 == "-" { print $1 }' | sort
}

main() {
	local status=0 base missing
	[[ $RUN_ID != auto ]] || RUN_ID=$(date -u +%Y%m%d-%H%M%S)-compare-series
	# every function to count is one of a side's source (a function the
	# new series adds is counted where it is), before a build; one side
	# after the other (two syncs of one tree at once would clobber it)
	base=$(undefined "$BASE_KSRC" "$BASE_SERIES")
	missing=$(comm -12 <(printf '%s\n' "$base") <(undefined "$NEW_KSRC" "$NEW_SERIES") | one_line)
	[[ -z $missing ]] || die_bad_input "HOT_FUNCS: $missing: defined in no C file of either side's source: name functions of them"
	OUT=$(results_root)/$RUN_ID
	[[ ! -e $OUT ]] || die_bad_input "$OUT exists already"
	mkdir -p "$OUT"
	log "compare-series: base KSRC=$BASE_KSRC SERIES=$BASE_SERIES (an empty KSRC: Debian's)"
	side base "$BASE_KSRC" "$BASE_SERIES" || die "measuring the base failed: not measured (see $OUT/base)"
	log "compare-series: new KSRC=$NEW_KSRC SERIES=$NEW_SERIES"
	side new "$NEW_KSRC" "$NEW_SERIES" || die "measuring the new side failed: not measured (see $OUT/new)"
	"$BENCH_DIR/stats/compare.sh" "$OUT/base" "$OUT/new" || status=$?
	printf 'compare-series: %s (exit %d)\n' \
		"$(case $status in 0) echo no regression ;; 1) echo REGRESSION ;; *) echo broken input ;; esac)" "$status"
	exit "$status"
}

main "$@"
