#!/usr/bin/env bash
# The main job after the kernels are built: benchmark, perf counts into the
# same results directory, figures and report.  Settings pass through to
# bench.sh and perf.sh (REPEATS, ACCEL, FIO_RUNTIME, ...).
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local dir
	dir=$("$BENCH_DIR/bench.sh")
	log "main job: perf counts into $dir"
	RESULTS_DIR=$dir "$REPO_DIR/perf-scripts/perf.sh"
	"$REPO_DIR/plots/make-plots.sh" "$dir"
	"$BENCH_DIR/report.sh" "$dir"
	log "main job: done, see $dir/report.md"
}

main "$@"
