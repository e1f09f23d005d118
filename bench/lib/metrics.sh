# shellcheck shell=bash
# The metric names of runs.csv: benchstat's list (`benchstat metrics`), the
# name of a counted function's metric, and the check every parser in
# bench/collect makes before it prints a row.  Functions only: nothing
# happens on source.

# plugin_metric FUNC [VAR]: the runs.csv metric of FUNC's instructions per
# call, printed, or into VAR (no subshell: parsers ask once a row).
plugin_metric() {
	local name
	if [[ $1 == submit_bio_noacct_nocheck ]]; then
		name=insns_per_call
	else
		name=${1#__}_insns_per_call
	fi
	if [[ -n ${2:-} ]]; then
		printf -v "$2" '%s' "$name"
	else
		printf '%s\n' "$name"
	fi
}

# metrics_load BENCHSTAT: the names BENCHSTAT knows, into METRICS_KNOWN
# (" name name ... "), once per process; a driver calls it before its boots
# so that every boot's collect step shares the list.
metrics_load() {
	local names
	names=$("$1" metrics | awk -F'\t' 'NR > 1 && $1 !~ /^\*/ { printf " %s", $1 } END { print " " }') ||
		{ printf '%s metrics failed: no list of metric names to check rows against\n' "$1" >&2; exit 2; }
	[[ $names == *" iops "* ]] ||
		{ printf '%s metrics listed no metric: not a benchstat\n' "$1" >&2; exit 2; }
	METRICS_KNOWN=$names
}

# metric_known NAME: NAME is one of benchstat's metrics, or a counted
# function's FUNC_insns_per_call, which benchstat takes for any FUNC.
metric_known() {
	[[ " $METRICS_KNOWN " == *" $1 "* || ($1 =~ ^.+_insns_per_call$ && $1 != *[,\ ]*) ]]
}

# metric_check NAME...: exit 2 naming the first NAME benchstat does not
# know (a parser that would write a row benchstat rejects later).
metric_check() {
	local m
	[[ -n ${METRICS_KNOWN:-} ]] ||
		{ printf 'metric_check: metrics_load was not called (no list of metric names)\n' >&2; exit 2; }
	for m in "$@"; do
		metric_known "$m" ||
			{ printf "unknown metric '%s': benchstat metrics does not list it (add it to METRICS in bench/stats/benchstat.c first)\n" "$m" >&2; exit 2; }
	done
}
