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
plan_read CONFIGS BASE_KSRC NEW_KSRC BASE_SERIES NEW_SERIES RUN_ID RESULTS_ROOT

# side NAME KSRC SERIES: build and measure one side into $OUT/NAME, each
# on a plan made from this one's with the side's source (an empty KSRC is
# Debian's, the default) and series.
side() {
	local name=$1
	local -a src=("SERIES=$3")
	[[ -z $2 ]] || src+=("KSRC=$2")
	# shellcheck disable=SC2086 # a list of words
	plan_call kernels "${src[@]}" CONFIGS="$CONFIGS" -- "$BENCH_DIR/kernel/build.sh" build $CONFIGS >&2
	plan_call bench "${src[@]}" RESULTS_ROOT="$OUT" RUN_ID="$name" -- "$BENCH_DIR/run/bench.sh" >/dev/null
}

main() {
	local status=0
	[[ $RUN_ID != auto ]] || RUN_ID=$(date -u +%Y%m%d-%H%M%S)-compare-series
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
