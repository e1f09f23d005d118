# shellcheck shell=bash
# perf's output in the guest (bench/guest/perf.sh: "perf stat -x," and
# "perf report --stdio" of the counted fio job) -> runs.csv rows.
# Functions only: nothing happens on source.
#
#   collect_perf PREFIX STAT REPORT IOS
#       task_clock_ns_per_io, cycles_per_io and instructions_per_io (where
#       the PMU counted them) from STAT, and perf_share_pct, the share of
#       submit_bio_noacct_nocheck's samples, from REPORT; IOS: the reads

# shellcheck source=bench/collect/rows.sh
. "${BASH_SOURCE[0]%/*}/rows.sh"

# perf_stat_value FILE EVENT: the count of an event in perf stat -x, output.
perf_stat_value() {
	awk -F, -v e="$2" '$3 == e || $3 ~ "^" e ":" { print $1; exit }' "$1"
}

collect_perf() {
	local prefix=$1 COLLECT_INPUT=$2 ios=$4 tc m v
	[[ -f $2 ]] || collect_bad "$2" "no perf stat output"
	v=$(awk -F, 'NF && $0 !~ /^#/ && NF < 3 { printf "line %d: %s", NR, $0; exit }' "$2")
	[[ -z $v ]] || collect_bad "$2" "not perf stat -x, output ($v)"
	[[ $ios =~ ^[1-9][0-9]*$ ]] || collect_bad "$2" "reads '$ios' of its fio job: expected a number above 0"
	tc=$(perf_stat_value "$2" task-clock)
	# perf stat -x, gives task-clock in msec
	[[ -z $tc ]] || collect_row "$prefix" task_clock_ns_per_io "$(awk -v a="$tc" -v b="$ios" 'BEGIN { printf "%.2f\n", a * 1e6 / b }')"
	for m in cycles instructions; do
		v=$(perf_stat_value "$2" "$m")
		[[ $v =~ ^[0-9]+$ ]] || continue
		collect_row "$prefix" "${m}_per_io" "$(collect_ratio "$v" "$ios" %.2f)"
	done
	COLLECT_INPUT=$3
	[[ -f $3 ]] || collect_bad "$3" "no perf report output"
	v=$(awk '$NF == "submit_bio_noacct_nocheck" { sub("%", "", $1); print $1; exit }' "$3")
	[[ -z $v ]] || collect_row "$prefix" perf_share_pct "$v"
}
