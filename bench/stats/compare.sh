#!/usr/bin/env bash
# The regression gate between two result directories:
#
#   bench/stats/compare.sh BASE_DIR NEW_DIR
#   THRESHOLD=1 (percent), EXACT_TOLERANCE=0 (instructions per call)
#
# Prints, per config/state/workload/metric found in both, the change and
# its verdict (bench/stats/README.md), and exits with 0, 1 or 2, never
# anything else:
#   0  no regression: every gating row within THRESHOLD (its whole
#      interval; an instruction count within EXACT_TOLERANCE instructions),
#      the same, or faster;
#   1  a primary metric got slower than THRESHOLD: its whole interval
#      beyond it (significantly so, after Holm's correction, where it is
#      sampled); an instruction count per call up by more than
#      EXACT_TOLERANCE instructions;
#   2  broken input: a directory, runs.csv or meta.json missing, unreadable
#      or malformed, BASE and NEW the same directory, a side with no ok
#      runs, a group that failed in NEW but was ok in BASE, a gating group
#      of BASE missing in NEW, a gating value of zero or less, a duplicate
#      row, no group in both (runs of different kinds), runs of different
#      accelerators, BASE and NEW disagreeing on SMP_WORKLOADS; or no
#      verdict: nothing gates; gating rows too few to reach
#      significance after Holm's correction ("underpowered: K gating rows
#      need n >= N per side"), or whose interval reaches beyond THRESHOLD
#      ("unclear").
# Two runs made by the sequential gate (meta.json SEQUENTIAL, "FIRST MAX":
# compare-series under kvm or tcg) are judged by its rule, look by look
# (benchstat sequential); runs of different designs, or one sequential and
# one not, are exit 2.
# Under kvm/tcg, a side whose run has both off and off-layout prints after
# the table the layout noise floor it measured (bench/lib/results.sh
# layout_floors): a change smaller than it may be a layout accident.
# The workloads both runs booted on more than one vCPU (SMP_WORKLOADS in
# meta.json; the runs must agree) go to benchstat --smp-workloads: under
# tcg-icount their guest time is random, so those rows get no verdict.
# `make compare` calls this; gate on this script, since make turns every
# failing recipe into its own exit status 2.
set -eEuo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
# Whatever fails unforeseen (a tool's own status, a signal) is exit 2.
trap 'exit "$STATUS_BAD_INPUT"' ERR
tool_start compare 'CACHE THRESHOLD EXACT_TOLERANCE' -- "$0" "$@"

broken() {
	echo "compare: $*" >&2
	exit "$STATUS_BAD_INPUT"
}

# check_meta DIR: its meta.json (or an old run's meta.env, parsed, never
# sourced) says which accelerator measured it.
check_meta() {
	local d=$1
	if [[ -f $d/meta.json ]]; then
		jq -e 'type == "object"' "$d/meta.json" >/dev/null 2>&1 ||
			broken "$d/meta.json is malformed (not a JSON object)"
	else
		[[ -r $d/meta.env ]] || broken "$d has no meta.json: its accelerator is unknown"
	fi
	local accel
	meta_var accel "$d" ACCEL
	[[ -n $accel ]] || broken "$d/meta.json has no ACCEL: its accelerator is unknown"
}

# side_line LABEL DIR ACCEL COMMIT: "LABEL DIR (ACCEL, COMMIT)", DIR
# relative to the current directory when it is below it, and on a line of
# its own, indented, where the line would pass 80 columns (the table is
# pasted into reviews).
side_line() {
	local dir=${2#"$PWD"/} line
	line="$1 $dir ($3, $4)"
	if ((${#line} <= 80)); then
		printf '%s\n' "$line"
	else
		printf '%s (%s, %s)\n    %s\n' "$1" "$3" "$4" "$dir"
	fi
}

main() {
	[[ $# -eq 2 ]] || broken "usage: compare.sh BASE_DIR NEW_DIR"
	local base=$1 new=$2 d bin base_accel new_accel base_commit new_commit smp words status
	local -a seq=()
	meta_load "$base" "$new"
	for d in "$base" "$new"; do
		[[ -r $d/runs.csv ]] || broken "$d/runs.csv missing or unreadable"
		check_meta "$d"
	done
	[[ ! $base -ef $new ]] || broken "BASE and NEW are the same directory ($new): nothing is compared"
	meta_var base_accel "$base" ACCEL
	meta_var new_accel "$new" ACCEL
	# tcg against kvm got a verdict, with a warning: it compares machines
	[[ $base_accel == "$new_accel" ]] ||
		broken "$base ran under $base_accel, $new ran under $new_accel: runs of different accelerators get no verdict (compare runs of one accelerator)"
	smp=$(smp_agreed "$base" "$new")
	meta_var base_commit "$base" GIT_COMMIT
	meta_var new_commit "$new" GIT_COMMIT
	side_line base: "$base" "$base_accel" "$base_commit"
	side_line 'new: ' "$new" "$new_accel" "$new_commit"
	bin=$(benchstat_bin) || broken "cannot build benchstat"
	# a command substitution, not <(...): a refusal there must stop the script
	words=$(sequential_words "$base" "$new")
	[[ -z $words ]] || mapfile -t seq <<<"$words"
	"$bin" ${seq[@]+"${seq[@]}"} compare --threshold "$THRESHOLD" \
		--exact-tolerance "$EXACT_TOLERANCE" --base-accel "$base_accel" \
		--new-accel "$new_accel" --smp-workloads "$smp" \
		"$base/runs.csv" "$new/runs.csv" || status=$?
	print_floors "$base" "$base_accel"
	print_floors "$new" "$new_accel"
	case ${status:-0} in
	0 | 1 | 2) exit "${status:-0}" ;;
	*) broken "benchstat failed with status $status" ;;
	esac
}

# smp_agreed BASE NEW: the workloads that ran on more than one vCPU
# (SMP_WORKLOADS, whose guest time benchstat then takes as random under
# tcg-icount), one line; broken input unless BASE and NEW agree on every
# workload both measured.  NEW's meta.json alone decided once: listing
# every workload there turned off every timing gate, and halved IOPS
# passed.  What gates comes from BASE and NEW agreeing: a workload only
# one run measured is judged nowhere (BASE's word decides whether its rows
# missing in NEW gate); a run without the key (every run before views.sh
# recorded it; bench and perf boot one vCPU) lists none.
smp_agreed() {
	local w in_base in_new both=() bad=()
	local base_smp new_smp agreed
	meta_var base_smp "$1" SMP_WORKLOADS
	meta_var new_smp "$2" SMP_WORKLOADS
	base_smp=" ${base_smp//[[:blank:]]/ } "
	new_smp=" ${new_smp//[[:blank:]]/ } "
	mapfile -t both < <(workloads_of_both "$1" "$2")
	for w in ${both[@]+"${both[@]}"}; do
		in_base=0 in_new=0
		[[ $base_smp != *" $w "* ]] || in_base=1
		[[ $new_smp != *" $w "* ]] || in_new=1
		[[ $in_base == "$in_new" ]] || bad+=("$w ($([[ $in_base == 1 ]] && echo BASE || echo NEW) only)")
	done
	[[ ${#bad[@]} == 0 ]] ||
		broken "BASE and NEW disagree on which workloads ran on more than one vCPU (SMP_WORKLOADS in meta.json): ${bad[*]}; a run's own word cannot turn off the other's gates"
	words_once agreed "$base_smp" "$new_smp"
	printf '%s' "$agreed"
}

# workloads_of_both BASE NEW: the workloads both runs.csv have rows of,
# sorted, one a line (one awk over both files: comm of two sorted lists
# was seven processes)
workloads_of_both() {
	awk -F, 'FNR == 1 { file++; next }
		NF >= 4 { if (file == 1) base[$4] = 1; else if ($4 in base) both[$4] = 1 }
		END { for (w in both) print w }' "$1/runs.csv" "$2/runs.csv" | LC_ALL=C sort
}

# sequential_words BASE NEW: benchstat's words for the sequential rule,
# one a line, when both runs were made by the same design; nothing when
# neither was.  The values are checked, never run.
sequential_words() {
	local seq_base seq_new
	meta_var seq_base "$1" SEQUENTIAL
	meta_var seq_new "$2" SEQUENTIAL
	[[ -n $seq_base || -n $seq_new ]] || return 0
	[[ $seq_base == "$seq_new" ]] ||
		broken "the runs were not made by one sequential design (SEQUENTIAL is '$seq_base' in $1, '$seq_new' in $2)"
	[[ $seq_base =~ ^[1-9][0-9]*\ [1-9][0-9]*$ ]] || broken "$1/meta.json: SEQUENTIAL='$seq_base' is not \"FIRST MAX\""
	printf '%s\n' sequential --first "${seq_base% *}" --max "${seq_base#* }" --final
}

# print_floors DIR ACCEL: the layout noise floor DIR measured, under kvm/tcg
print_floors() {
	local floors
	accel_host_time "$2" && [[ -r $1/summary.csv ]] || return 0
	floors=$(layout_floors "$1/summary.csv" "$(guest_time_metrics)")
	[[ -n $floors ]] || return 0
	printf '\nlayout noise floor in %s (off-layout vs off, same code laid out differently):\n' "$1"
	awk '{ printf "  %s %s %+.2f%%\n", $1, $2, $3 }' <<<"$floors"
}

main "$@"
