# shellcheck shell=bash
# What every parser in bench/collect shares: a runs.csv row
# ("seq,config,state,workload,repeat,status,metric,value") is printed only
# for a metric benchstat knows and, when ok, a value that is a number.  A
# parser given input it cannot read stops with exit 2 and says which file
# and why.  Functions only: nothing happens on source.

# shellcheck source=bench/lib/metrics.sh
. "${BASH_SOURCE[0]%/*}/../lib/metrics.sh"

# collect_row PREFIX METRIC VALUE: PREFIX is "seq,config,state,workload,repeat,ok".
collect_row() {
	metric_check "$2"
	[[ $3 =~ ^-?[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?$ ]] ||
		{ printf "%s: metric %s: '%s' is not a number\n" "${COLLECT_INPUT:-collect}" "$2" "$3" >&2; exit 2; }
	printf '%s,%s,%s\n' "$1" "$2" "$3"
}

# collect_failed PREFIX METRIC...: the rows of a measurement that did not
# happen (PREFIX without a status, or with ",ok", which is dropped).
collect_failed() {
	local m
	metric_check "${@:2}"
	for m in "${@:2}"; do printf '%s,failed,%s,\n' "${1%,ok}" "$m"; done
}

# collect_bad FILE WHAT: a parser's input is malformed: exit 2.
collect_bad() {
	printf '%s: %s\n' "$1" "$2" >&2
	exit 2
}

# collect_ratio A B [FORMAT]: A / B printed with FORMAT (default %.4f).
collect_ratio() {
	awk -v a="$1" -v b="$2" -v f="${3:-%.4f}" 'BEGIN { printf f "\n", a / b }'
}
