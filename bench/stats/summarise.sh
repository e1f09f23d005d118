#!/usr/bin/env bash
# Recompute RESULTS_DIR/summary.csv and summary.json from its runs.csv, with
# the run's own settings (meta.json: ACCEL, CONFIGS, STATES, BASELINE,
# SMP_WORKLOADS): a pure function of the raw rows.  Exit 2 for a run
# without meta.json or one of those keys (SMP_WORKLOADS may be absent).
#
#   summarise.sh RESULTS_DIR
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
tool_start summarise CACHE -- "$0" "$@"

dir=${1:?usage: summarise.sh RESULTS_DIR}
[[ -f $dir/runs.csv ]] || die_bad_input "$dir has no runs.csv"
summarise "$dir"
log "summarise: $dir/summary.csv"
