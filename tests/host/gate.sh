#!/usr/bin/env bash
# bench/stats/gate-test.sh, which lives beside what it tests, as a host check.
#
#   tests/host/gate.sh     "ok"/"not ok" a line; exit 1 on a failure
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="compare.sh exit status (only 0/1/2)"
# shellcheck source=bench/lib/help.sh
. "$(dirname "$0")/../../bench/lib/help.sh"
help_answer "$0" "$@"

exec bash "$(dirname "$0")/../../bench/stats/gate-test.sh"
