#!/usr/bin/env bash
# The C tools outside the kernel (the guest's tools, perf-scripts'
# jump-sites and static-diff) build as C11 with -Wall -Wextra -Werror:
# a line a tool.
#
#   tests/host/c-tools.sh     "ok"/"not ok" a line; exit 1 on a failure
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="C tools build with -Wall -Wextra -Werror"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"

for f in "$REPO_DIR"/bench/guest/tools/*.c "$REPO_DIR"/perf-scripts/*.c; do
	check "${f#"$REPO_DIR"/} builds with -std=c11 -Wall -Wextra -Werror" \
		gcc -std=c11 -Wall -Wextra -Werror -O2 -o "$SCRATCH/$(basename "$f" .c)" "$f"
done
finish
