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
#   EXACT_TOLERANCE  ACCEL=tcg-icount|tcg|kvm|auto  REPEATS  REPEATS_MAX
#   REPEATS_MINUTES  RESULTS_ROOT  RUN_ID (default <date>-compare-series)
# Each side's build and run get a plan made from this one's (plan_call).
# Output: RESULTS_ROOT/RUN_ID/{base,new}/, a run of bench.sh each (under
# kvm and tcg: runs.csv and meta.json joined from the pieces of
# "bench.sh --job", one a boot, kept in pieces/), and the table on
# stdout; under kvm and tcg also sequential.txt, each look's table; then
# the static answer of each config, BASE's objects against NEW's
# (perf-scripts/static.sh: static/CONFIG.txt, static.csv), beside the
# change per call counted in key-off.  The table, the static answers and
# the verdict are also kept in RUN_ID/compare.txt.  Exit status, only ever 0, 1 or 2:
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
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
# Whatever fails unforeseen is exit 2, never a status of its own.
trap 'exit "$STATUS_BAD_INPUT"' ERR
# On its own it resolves its settings first (bench/plan/run: exit 2 on bad
# input, before a results directory is made or a tree extracted).
driver_start compare-series -- "$0" "$@"
no_arguments "$0" "$@"
plan_read CONFIGS STATES BASELINE BASE_KSRC NEW_KSRC BASE_SERIES NEW_SERIES RUN_ID RESULTS_ROOT \
	HOT_FUNCS ACCEL_USED REPEATS REPEATS_MAX REPEATS_MINUTES THRESHOLD EXACT_TOLERANCE
# shellcheck source=bench/lib/sequential.sh
. "$BENCH_DIR/lib/sequential.sh"

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

# build NAME KSRC SERIES: CONFIGS of one side, on a plan made as side's
build() {
	local -a src
	mapfile -t src < <(side_sources "$2" "$3")
	# shellcheck disable=SC2086 # a list of words
	plan_call kernels "${src[@]}" CONFIGS="$CONFIGS" -- "$BENCH_DIR/kernel/build.sh" build $CONFIGS >&2
}

main() {
	local status=0 static=0 base missing
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
	if accel_exact "$ACCEL_USED"; then
		log "compare-series: base KSRC=$BASE_KSRC SERIES=$BASE_SERIES (an empty KSRC: Debian's)"
		side base "$BASE_KSRC" "$BASE_SERIES" || die "measuring the base failed: not measured (see $OUT/base)"
		log "compare-series: new KSRC=$NEW_KSRC SERIES=$NEW_SERIES"
		side new "$NEW_KSRC" "$NEW_SERIES" || die "measuring the new side failed: not measured (see $OUT/new)"
	else
		log "compare-series: base KSRC=$BASE_KSRC SERIES=$BASE_SERIES (an empty KSRC: Debian's)"
		build base "$BASE_KSRC" "$BASE_SERIES"
		log "compare-series: new KSRC=$NEW_KSRC SERIES=$NEW_SERIES"
		build new "$NEW_KSRC" "$NEW_SERIES"
		declare -gA SIDE_SRC=([base]="$BASE_KSRC|$BASE_SERIES" [new]="$NEW_KSRC|$NEW_SERIES")
		series_rounds "$OUT"
	fi
	# the verdict is kept beside the runs (compare.txt), as printed
	"$BENCH_DIR/stats/compare.sh" "$OUT/base" "$OUT/new" >"$OUT/compare.txt" || status=$?
	static_answers | wrap_at 80 "    " >>"$OUT/compare.txt" || static=$?
	# broken input first, then a regression of the counts or of the code
	((status == 2 || static == 0)) || status=1
	printf 'compare-series: %s (exit %d)\n' \
		"$(case $status in 0) echo no regression ;; 1) echo REGRESSION ;; *) echo no verdict or broken input ;; esac)" "$status" \
		>>"$OUT/compare.txt"
	cat "$OUT/compare.txt"
	exit "$status"
}

# static_answers: the static answer of each config, BASE's objects against
# NEW's, a line per function ("CONFIG FUNCTION: ...", wrapped by the
# caller) beside the change per call counted in key-off
# (bench/lib/results.sh static_gate); status 1 when one is slower or could
# not be made.
static_answers() {
	local c f line rest counted rc=0
	printf '\nstatic answer, BASE -> NEW (perf-scripts/static.sh: static/CONFIG.txt)\n'
	mkdir -p "$OUT/static"
	for c in $CONFIGS; do
		if ! plan_call static BASE_CONFIG="$c" NEW_CONFIG="$c" -- \
			"$REPO_DIR/perf-scripts/static.sh" -o "$OUT/static/$c" "$c" "$c" >/dev/null 2>"$OUT/static/$c.log"; then
			printf '%s: NOT ANSWERED: perf-scripts/static.sh failed (%s)\n' "$c" "$OUT/static/$c.log"
			rc=1
			continue
		fi
		mv "$OUT/static/$c/static.txt" "$OUT/static/$c.txt"
		static_gate "$OUT/static/$c/static.csv" "$EXACT_TOLERANCE" >"$OUT/static/$c.gate" || rc=1
		[[ -f $OUT/static.csv ]] || head -n 1 "$OUT/static/$c/static.csv" >"$OUT/static.csv"
		tail -n +2 "$OUT/static/$c/static.csv" >>"$OUT/static.csv"
		while IFS= read -r line; do
			f=${line%%: *} rest=${line#*: }
			counted=$(counted_change "$c" "$(plugin_metric "$f")")
			printf '%s %s: %s; counted in key-off: %s\n' "$c" "$f" "$rest" "${counted:-not counted}"
		done <"$OUT/static/$c.gate"
		rm -rf "${OUT:?}/static/$c" "$OUT/static/$c.log"
	done
	return "$rc"
}

# counted_change CONFIG METRIC: NEW's median minus BASE's of CONFIG's
# METRIC in key-off ("+0 per call"), empty when a side lacks it (under
# kvm and tcg the sides have no summary.csv: nothing is counted).
counted_change() {
	local b n
	[[ -f $OUT/base/summary.csv && -f $OUT/new/summary.csv ]] || return 0
	b=$(awk -F, -v c="$1" -v m="$2" '$1 == c && $2 == "key-off" && $4 == m { print $8; exit }' "$OUT/base/summary.csv")
	n=$(awk -F, -v c="$1" -v m="$2" '$1 == c && $2 == "key-off" && $4 == m { print $8; exit }' "$OUT/new/summary.csv")
	[[ -n $b && -n $n ]] || return 0
	awk -v b="$b" -v n="$n" 'BEGIN { printf "%+g per call\n", n - b }'
}

main "$@"
