#!/usr/bin/env bash
# Error injection next to its peers on the same null_blk disk, in the peers
# config: overhead (bench.sh and perf.sh with the peer states, compared with
# error injection idle) and a capability table made of guest test results.
#
# Settings: REPEATS (default 3), ACCEL, FIO_RUNTIME, FIO_RAMP as for bench.sh;
# RESULTS_DIR to only add the capability table, plots and report to an
# earlier peers run.
set -euo pipefail
shopt -s inherit_errexit

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

case ${1:-} in
-h | --help) sed -n '2,8s/^# \{0,1\}//p' "$0"; exit 0 ;;
'') ;;
*) die "unknown argument '$1' (peers.sh takes settings from the environment; see peers.sh -h)" ;;
esac
export CONFIGS=peers
export STATES="ei-idle ei-rule fmr-p0 dm-linear dm-error-unused dm-flakey-up dm-dust"
export BASELINE="peers ei-idle"
export SOFTIRQ_WORKLOADS=""
export REPEATS=${REPEATS:-3}
export RUN_ID=${RUN_ID:-$(date -u +%Y%m%d-%H%M%S)-peers}
CAPABILITIES=("select op" "select discard" "select zone op" "choose status"
	"unaligned range on a zoned disk" "probability" "act on the disk itself")
MECHANISMS=(error_injection fail_make_request dm-error dm-flakey dm-dust)

# capability_table CELLS: a Markdown table, a row per mechanism.
capability_table() {
	local cells=$1 m c v line
	line="| mechanism |"
	for c in "${CAPABILITIES[@]}"; do line+=" $c |"; done
	printf '%s\n' "$line" "$(printf '%s' "$line" | sed 's/[^|]/-/g')"
	for m in "${MECHANISMS[@]}"; do
		line="| $m |"
		for c in "${CAPABILITIES[@]}"; do
			v=$(awk -F'|' -v m="$m" -v c="$c" '$1 == m && $2 == c { print $3 }' "$cells")
			line+=" ${v:-untested} |"
		done
		printf '%s\n' "$line"
	done
}

# overhead_table DIR: guest instructions per 4 KiB read inside fio's job
# (insns_per_io, tcg-icount only: fio's start-up and exit left out) per
# mechanism, against error injection idle.
overhead_table() {
	printf '# Instructions per I/O, randread-qd1 (%s)\n\n' "$(basename "$1")"
	printf '| mechanism, idle | instructions per I/O | vs ei-idle |\n|---|---|---|\n'
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$3 == "randread-qd1" && $4 == "insns_per_io" {
			printf "| %s | %.0f | %s |\n", $2, $c["median"], ($2 == "ei-idle" ? "" : sprintf("%+.2f%%", $c["rel_change_pct"]))
		}' "$1/summary.csv"
}

run_capabilities() {
	local dir=$1
	log "peers: capability tests in one peers boot"
	"$BENCH_DIR/run-guest" -c peers -a "$(sed -n 's/^ACCEL=//p' "$dir/meta.env")" \
		-o "$CACHE/runs/peers-capability" "$BENCH_DIR/guest/peers-capability.sh" ||
		die "capability tests failed (see $CACHE/runs/peers-capability/console.log)"
	grep '|' "$CACHE/runs/peers-capability/result.log" >"$dir/capability.txt"
	{
		printf '# What each mechanism can do, as tried in the guest (%s)\n\n' "$(basename "$dir")"
		capability_table "$dir/capability.txt"
		printf '\nEvidence, per cell (what user space saw):\n\n'
		sed 's/^\([^|]*\)|\([^|]*\)|\([^|]*\)|\(.*\)$/- \1, \2: **\3**: \4/' "$dir/capability.txt"
	} >"$dir/capability.md"
	log "peers: $dir/capability.md"
}

main() {
	local dir=${RESULTS_DIR:-}
	# RESULTS_DIR: finish an earlier peers run (capabilities, plots, report).
	if [[ -z $dir ]]; then
		dir=$("$BENCH_DIR/bench.sh")
		# Under tcg-icount bench.sh counted in its own boots.
		[[ $(sed -n 's/^ACCEL=//p' "$dir/meta.env") == tcg-icount ]] ||
			RESULTS_DIR=$dir "$REPO_DIR/perf-scripts/perf.sh"
	fi
	[[ -f $dir/summary.csv ]] || die "$dir has no summary.csv"
	overhead_table "$dir" >"$dir/overhead.md"
	run_capabilities "$dir"
	"$REPO_DIR/plots/make-plots.sh" "$dir"
	"$BENCH_DIR/report.sh" "$dir"
	cat "$dir/overhead.md" "$dir/capability.md" >>"$dir/report.md"
	log "peers: done, see $dir/report.md"
}

main "$@"
