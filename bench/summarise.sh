#!/usr/bin/env bash
# Recompute RESULTS_DIR/summary.csv and summary.json from its runs.csv, with
# the run's own settings (meta.env): a pure function of the raw rows.
#
#   summarise.sh RESULTS_DIR
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

dir=${1:?usage: summarise.sh RESULTS_DIR}
[[ -f $dir/runs.csv && -f $dir/meta.env ]] || die "$dir has no runs.csv/meta.env"
# meta.env is written with printf %q, so it reads back as shell words.
BENCH_CONFIGS=$(bash -c '. "$1" && printf %s "$BENCH_CONFIGS"' _ "$dir/meta.env")
STATES=$(bash -c '. "$1" && printf %s "$STATES"' _ "$dir/meta.env")
BASELINE=$(bash -c '. "$1" && printf %s "${BASELINE:-off off}"' _ "$dir/meta.env")
export BENCH_CONFIGS STATES BASELINE
# shellcheck source=bench/results.sh
. "$BENCH_DIR/results.sh"
summarise "$dir"
log "summarise: $dir/summary.csv"
