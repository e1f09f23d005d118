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
#   500ms) FIO_IOS=20000 HOT_FUNCS THRESHOLD=1 EXACT_TOLERANCE=0
#   ACCEL=tcg-icount|tcg|kvm|auto  REPEATS=auto  REPEATS_MAX=30
#   REPEATS_MINUTES=0 (no limit)  RESULTS_ROOT=results
#   RUN_ID=<date>-compare-series
# Output: RESULTS_ROOT/RUN_ID/{base,new}/, a run of bench.sh each (under
# kvm and tcg: runs.csv and meta.json joined from the pieces of
# "bench.sh --job", one a boot, kept in pieces/), and the table on
# stdout; under kvm and tcg also sequential.txt, each look's table; then
# the static answer of each config, BASE's objects against NEW's
# (perf-scripts/static.sh: static/CONFIG.txt, static.csv), beside the
# change per call counted in key-off.  Exit status, only ever 0, 1 or 2:
# 0 no regression, 1 a primary metric worse than THRESHOLD percent (an
# instruction count per call: more than EXACT_TOLERANCE instructions), an
# idle path that the static answer shows slower (more than EXACT_TOLERANCE
# instructions, or a jump-label site TAKEN while its key is off: the
# counts see a taken jump and a NOP alike), or a side that could not be
# measured or answered (the last line says which), 2 broken input or no
# verdict.  `make
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
	local base_series=${BASE_SERIES:-${SERIES:-}} new_series=${NEW_SERIES:-${SERIES:-}} status=0 static=0 s
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
	static_answers || static=$?
	# broken input first, then a regression of the counts or of the code
	((status == 2 || static == 0)) || status=1
	printf 'compare-series: %s (exit %d)\n' \
		"$(case $status in 0) echo no regression ;; 1) echo REGRESSION ;; *) echo no verdict or broken input ;; esac)" "$status"
	exit "$status"
}

# static_answers: the static answer of each config, BASE's objects against
# NEW's, a line per function beside the change per call counted in key-off
# (bench/lib/results.sh static_gate); status 1 when one is slower or could
# not be made.
static_answers() {
	local c f line rest counted rc=0
	printf '\nstatic answer, each config BASE -> NEW (perf-scripts/static.sh: static/CONFIG.txt)\n'
	mkdir -p "$OUT/static"
	for c in $CONFIGS; do
		if ! "$REPO_DIR/perf-scripts/static.sh" -o "$OUT/static/$c" "$c" "$c" >/dev/null 2>"$OUT/static/$c.log"; then
			printf '  %s: NOT ANSWERED: perf-scripts/static.sh failed (%s)\n' "$c" "$OUT/static/$c.log"
			rc=1
			continue
		fi
		mv "$OUT/static/$c/static.txt" "$OUT/static/$c.txt"
		static_gate "$OUT/static/$c/static.csv" "${EXACT_TOLERANCE:-0}" >"$OUT/static/$c.gate" || rc=1
		[[ -f $OUT/static.csv ]] || head -n 1 "$OUT/static/$c/static.csv" >"$OUT/static.csv"
		tail -n +2 "$OUT/static/$c/static.csv" >>"$OUT/static.csv"
		while IFS= read -r line; do
			f=${line%%: *} rest=${line#*: }
			counted=$(counted_change "$c" "$(plugin_metric "$f")")
			printf '  %s %s: %s; counted in key-off: %s\n' "$c" "$f" "$rest" "${counted:-not counted}"
		done <"$OUT/static/$c.gate"
		rm -rf "${OUT:?}/static/$c" "$OUT/static/$c.log"
	done
	return "$rc"
}

# counted_change CONFIG METRIC: NEW's median minus BASE's of CONFIG's
# METRIC in key-off ("+0 per call"), empty when a side lacks it.
counted_change() {
	local b n
	b=$(awk -F, -v c="$1" -v m="$2" '$1 == c && $2 == "key-off" && $4 == m { print $8; exit }' "$OUT/base/summary.csv")
	n=$(awk -F, -v c="$1" -v m="$2" '$1 == c && $2 == "key-off" && $4 == m { print $8; exit }' "$OUT/new/summary.csv")
	[[ -n $b && -n $n ]] || return 0
	awk -v b="$b" -v n="$n" 'BEGIN { printf "%+g per call\n", n - b }'
}

main "$@"
