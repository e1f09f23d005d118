#!/usr/bin/env bash
# Error injection next to its peers on the same null_blk disk, in the peers
# config: overhead (bench.sh and perf.sh with the peer states, compared with
# error injection idle) and a capability table made of guest test results.
# The peers: fail_make_request, dm targets, and a BPF program overriding
# should_fail_bio() (bench/guest/bpf), which the plugin counts too.
#
# Settings: REPEATS, ACCEL, FIO_RUNTIME, FIO_RAMP as for bench.sh; its
# configs, states, baseline, REPEATS (3) and HOT_FUNCS (should_fail_bio
# too) are bench/plan/drivers/peers.job's; RESULTS_DIR to only add the
# capability table, plots and report to an earlier peers run.
#
#   bench/run/peers.sh [-h]
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
driver_start peers -- "$0" "$@"
no_arguments "$0" "$@"
plan_read RESULTS_DIR RUN_ID

run_capabilities() {
	local dir=$1
	log "peers: capability tests in one peers boot"
	boot_guest "$CACHE/runs/peers-capability" -c peers -a "$(meta_get "$dir" ACCEL)" \
		"$BENCH_DIR/guest/peers-capability.sh" ||
		die "capability tests failed (see $CACHE/runs/peers-capability/console.log)"
	# report.sh turns this into the capability table.
	grep '|' "$CACHE/runs/peers-capability/result.log" >"$dir/capability.txt"
	log "peers: $dir/capability.txt"
}

main() {
	local dir=$RESULTS_DIR
	# RESULTS_DIR: finish an earlier peers run (capabilities, plots, report).
	if [[ -z $dir ]]; then
		[[ $RUN_ID != auto ]] || RUN_ID=$(date -u +%Y%m%d-%H%M%S)-peers
		dir=$(plan_call bench RUN_ID="$RUN_ID" -- "$BENCH_DIR/run/bench.sh")
		# Where counts are exact bench.sh counted in its own boots.
		accel_counts "$(meta_get "$dir" ACCEL)" ||
			plan_call perf RESULTS_DIR="$dir" -- "$REPO_DIR/bench/run/perf.sh"
	fi
	[[ -f $dir/summary.csv ]] || die "$dir has no summary.csv"
	run_capabilities "$dir"
	"$REPO_DIR/plots/make-plots.sh" "$dir"
	"$BENCH_DIR/report/report.sh" "$dir"
	log "peers: done, see $dir/report.md"
}

main "$@"
