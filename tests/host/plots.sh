#!/usr/bin/env bash
# plots/test.sh, which lives beside what it tests, as a host check.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="plots unit tests"

exec bash "$(dirname "$0")/../../plots/test.sh"
