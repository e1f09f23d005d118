#!/usr/bin/env bash
# bench/stats/r-check.sh, which lives beside what it tests, as a host check.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="benchstat against R's wilcox.test table"

exec bash "$(dirname "$0")/../../bench/stats/r-check.sh"
