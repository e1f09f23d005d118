#!/usr/bin/env bash
# Recompute RESULTS_DIR/summary.csv and summary.json from its runs.csv, with
# the run's own settings (meta.json): a pure function of the raw rows.
#
#   summarise.sh RESULTS_DIR
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/lib/help.sh
. "$(dirname "$0")/../lib/help.sh"

case ${1:-} in -h | --help) help_header "$0"; exit 0 ;; esac

# shellcheck source=bench/lib/lib.sh
. "$(dirname "$0")/../lib/lib.sh"
lib_init "$@"

dir=${1:?usage: summarise.sh RESULTS_DIR}
[[ -f $dir/runs.csv ]] || die "$dir has no runs.csv"
# shellcheck source=bench/lib/results.sh
. "$BENCH_DIR/lib/results.sh"
results_init
[[ -f $dir/meta.json || -f $dir/meta.env ]] || die "$dir has no meta.json (or meta.env)"
# the run's own matrix, so the rows come out in its order
# (older runs called the configs BENCH_CONFIGS)
CONFIGS=$(meta_get "$dir" CONFIGS)
[[ -n $CONFIGS ]] || CONFIGS=$(meta_get "$dir" BENCH_CONFIGS)
STATES=$(meta_get "$dir" STATES)
BASELINE=$(meta_get "$dir" BASELINE)
BASELINE=${BASELINE:-off off}
summarise "$dir"
log "summarise: $dir/summary.csv"
