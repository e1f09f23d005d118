#!/usr/bin/env bash
# LKP-style regression check between two result directories:
#
#   compare.sh BASE_DIR NEW_DIR       (THRESHOLD=1 percent by default)
#
# Prints per config/state/workload/metric the change of the median with its
# bootstrap CI, and exits 1 when any got significantly worse than the
# threshold, 0 otherwise, 2 on bad input.
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=bench/results.sh
. "$BENCH_DIR/results.sh"

meta_value() {
	sed -n "s/^$2=//p" "$1/meta.env" 2>/dev/null | head -1
}

main() {
	[[ $# -eq 2 ]] || { echo "usage: compare.sh BASE_DIR NEW_DIR" >&2; exit 2; }
	local base=$1 new=$2 d
	for d in "$base" "$new"; do
		[[ -f $d/runs.csv ]] || { echo "compare: $d/runs.csv missing" >&2; exit 2; }
	done
	if [[ $(meta_value "$base" ACCEL) != "$(meta_value "$new" ACCEL)" ]]; then
		echo "compare: warning: accelerators differ ($(meta_value "$base" ACCEL) vs $(meta_value "$new" ACCEL)); numbers are not comparable" >&2
	fi
	printf 'base: %s (%s, %s)\nnew:  %s (%s, %s)\n' \
		"$base" "$(meta_value "$base" ACCEL)" "$(meta_value "$base" GIT_COMMIT)" \
		"$new" "$(meta_value "$new" ACCEL)" "$(meta_value "$new" GIT_COMMIT)"
	"$(benchstat_bin)" compare --threshold "${THRESHOLD:-1}" "$base/runs.csv" "$new/runs.csv"
}

main "$@"
