# shellcheck shell=bash
# The rule-churn loop's count (bench/guest/views-fio.sh: the rules added and
# removed on another disk while fio ran, one number) -> a runs.csv row.
# Functions only: nothing happens on source.
#
#   collect_churn PREFIX FILE   rule_changes

# shellcheck source=bench/collect/rows.sh
. "${BASH_SOURCE[0]%/*}/rows.sh"

collect_churn() {
	local COLLECT_INPUT=$2 n
	n=$(cat "$2")
	[[ $n =~ ^[0-9]+$ ]] || collect_bad "$2" "not a count of rule changes: '$(head -c 60 "$2")'"
	collect_row "$1" rule_changes "$n"
}
