#!/usr/bin/env bash
# Series against series (or tree against tree): build CONFIGS from each
# side, measure the same reduced matrix on each, and gate on
# bench/stats/compare.sh's regression table.  Under tcg-icount (the
# default) one boot a side decides; under kvm or tcg (ACCEL=kvm|tcg) each
# row gets REPEATS boots a side (auto: 10), BASE and NEW interleaved, and
# the rows the sequential gate leaves undecided get more, round by round,
# until each is decided or REPEATS_MAX or REPEATS_MINUTES is spent
# (bench/stats/README.md, "The sequential gate").
#
#   compare-series.sh [-h]
# Settings (environment):
#   BASE_SERIES NEW_SERIES   a directory with a series file, or none
#                            (default: SERIES, else patches/)
#   BASE_KSRC NEW_KSRC       the source of each side (default: KSRC, else
#                            Debian's linux-source-6.12)
#   CONFIGS=on  STATES="key-off key-on-other rules-1 rules-1000"
#                            (the paths of the design: key off, key on with
#                            no rule on the target disk, one rule and many
#                            on it, each visited by every I/O)
#   WORKLOADS=randread-qd1
#   FIO_RUNTIME FIO_RAMP (auto: 1 and 200ms under tcg-icount, else 2 and
#   500ms) FIO_IOS=20000 HOT_FUNCS THRESHOLD=1
#   ACCEL=tcg-icount|tcg|kvm|auto  REPEATS=auto  REPEATS_MAX=30
#   REPEATS_MINUTES=0 (no limit)  RESULTS_ROOT=results
#   RUN_ID=<date>-compare-series
# Output: RESULTS_ROOT/RUN_ID/{base,new}/, a run of bench.sh each (under
# kvm and tcg: runs.csv and meta.json joined from the pieces of
# "bench.sh --job", one a boot, kept in pieces/), and the table on
# stdout; under kvm and tcg also sequential.txt, each look's table.  Exit status, only ever 0, 1 or 2: 0 no regression, 1 a
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
if plan_for compare-series || [[ $# != 0 ]]; then
	lib_start "$0" "$@"
else
	driver_start compare-series -- "$0"
fi
no_arguments "$0" "$@"

export CONFIGS=${CONFIGS:-on} STATES=${STATES:-key-off key-on-other rules-1 rules-1000}
export WORKLOADS=${WORKLOADS:-randread-qd1} FIO_IOS=${FIO_IOS:-20000} SOFTIRQ_WORKLOADS=''
export ACCEL=${ACCEL:-tcg-icount} PERF_RECORD=0 PLUGIN=1
# shellcheck disable=SC2086 # a list of words
BASELINE=${BASELINE:-${CONFIGS%% *} ${STATES%% *}}
export BASELINE

# side NAME KSRC SERIES: build and measure one side into $OUT/NAME.  An
# empty KSRC or SERIES is the default, i.e. unset (bench.sh's resolver
# refuses an empty value).
side() {
	local name=$1
	local -a src=()
	[[ -z $2 ]] || src+=("KSRC=$2")
	[[ -z $3 ]] || src+=("SERIES=$3")
	# shellcheck disable=SC2086 # a list of words
	env -u KSRC -u SERIES "${src[@]}" "$BENCH_DIR/kernel/build.sh" build $CONFIGS >&2
	env -u KSRC -u SERIES "${src[@]}" RESULTS_ROOT="$OUT" RUN_ID="$name" "$BENCH_DIR/run/bench.sh" >/dev/null
}

# build NAME KSRC SERIES: CONFIGS of one side (an empty KSRC or SERIES is
# the default, as in side)
build() {
	local -a src=()
	[[ -z $2 ]] || src+=("KSRC=$2")
	[[ -z $3 ]] || src+=("SERIES=$3")
	# shellcheck disable=SC2086 # a list of words
	env -u KSRC -u SERIES "${src[@]}" "$BENCH_DIR/kernel/build.sh" build $CONFIGS >&2
}

main() {
	local base_ksrc=${BASE_KSRC:-${KSRC:-}} new_ksrc=${NEW_KSRC:-${KSRC:-}}
	local base_series=${BASE_SERIES:-${SERIES:-}} new_series=${NEW_SERIES:-${SERIES:-}} status=0 s
	# Both sides' names first: a typo on NEW must not cost BASE's boots.
	for s in "$base_ksrc|$base_series" "$new_ksrc|$new_series"; do
		(KSRC=${s%%|*} SERIES=${s#*|} DIE_STATUS=$STATUS_BAD_INPUT resolve_variant) || exit "$STATUS_BAD_INPUT"
	done
	RUN_ID=${RUN_ID:-$(date -u +%Y%m%d-%H%M%S)-compare-series}
	OUT=$(results_root)/$RUN_ID
	[[ ! -e $OUT ]] || die_bad_input "$OUT exists already"
	mkdir -p "$OUT"
	if [[ $ACCEL == auto ]]; then
		build base "$base_ksrc" "$base_series"
		ACCEL=$(env -u KSRC -u SERIES ${base_ksrc:+KSRC=$base_ksrc} ${base_series:+SERIES=$base_series} \
			"$BENCH_DIR/vm/run-guest" -A -c "${CONFIGS%% *}" -a auto)
		log "compare-series: ACCEL=auto: $ACCEL"
	fi
	if [[ $ACCEL == tcg-icount ]]; then
		export REPEATS=${REPEATS:-1} BOOTS=${BOOTS:-per-config}
		export FIO_RUNTIME=${FIO_RUNTIME:-1} FIO_RAMP=${FIO_RAMP:-200ms}
		log "compare-series: base KSRC=${base_ksrc:-default} SERIES=${base_series:-patches}"
		side base "$base_ksrc" "$base_series" || die "measuring the base failed: not measured (see $OUT/base)"
		log "compare-series: new KSRC=${new_ksrc:-default} SERIES=${new_series:-patches}"
		side new "$new_ksrc" "$new_series" || die "measuring the new side failed: not measured (see $OUT/new)"
	else
		log "compare-series: base KSRC=${base_ksrc:-default} SERIES=${base_series:-patches}"
		build base "$base_ksrc" "$base_series"
		log "compare-series: new KSRC=${new_ksrc:-default} SERIES=${new_series:-patches}"
		build new "$new_ksrc" "$new_series"
		# shellcheck source=bench/lib/sequential.sh
		. "$BENCH_DIR/lib/sequential.sh"
		declare -gA SIDE_SRC=([base]="$base_ksrc|$base_series" [new]="$new_ksrc|$new_series")
		series_rounds "$OUT"
	fi
	"$BENCH_DIR/stats/compare.sh" "$OUT/base" "$OUT/new" || status=$?
	printf 'compare-series: %s (exit %d)\n' \
		"$(case $status in 0) echo no regression ;; 1) echo REGRESSION ;; *) echo no verdict or broken input ;; esac)" "$status"
	exit "$status"
}

main "$@"
