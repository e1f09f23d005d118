#!/usr/bin/env bash
# The regression gate between two result directories:
#
#   bench/stats/compare.sh BASE_DIR NEW_DIR       (THRESHOLD=1 percent by default)
#
# Prints, per config/state/workload/metric found in both, the change and
# its verdict (bench/stats/README.md), and exits with 0, 1 or 2, never
# anything else:
#   0  no regression: every gating row within THRESHOLD (its whole
#      interval), the same, or faster;
#   1  a primary metric got slower than THRESHOLD: its whole interval
#      beyond it (significantly so, after Holm's correction, where it is
#      sampled);
#   2  broken input: a directory, runs.csv or meta.json missing, unreadable
#      or malformed, BASE and NEW the same directory, a side with no ok
#      runs, a group that failed in NEW but was ok in BASE, a gating group
#      of BASE missing in NEW, a gating value of zero or less, a duplicate
#      row, no group in both, an SMP_WORKLOADS name that is a workload of
#      neither run; or no verdict: gating rows too few to reach
#      significance after Holm's correction ("underpowered: K gating rows
#      need n >= N per side"), or whose interval reaches beyond THRESHOLD
#      ("unclear").
# Under kvm/tcg, a side whose run has both off and off-layout prints after
# the table the layout noise floor it measured (bench/lib/results.sh
# layout_floors): a change smaller than it may be a layout accident.
# The workloads either run booted on more than one vCPU (SMP_WORKLOADS in
# meta.json) go to benchstat --smp-workloads: under tcg-icount their guest
# time is random, so those rows get no verdict.
# `make compare` calls this; gate on this script, since make turns every
# failing recipe into its own exit status 2.
set -eEuo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/lib/lib.sh
. "$(dirname "$0")/../lib/lib.sh"
# Whatever fails unforeseen (a tool's own status, a signal) is exit 2.
trap 'exit "$STATUS_BAD_INPUT"' ERR
tool_start compare 'CACHE THRESHOLD' -- "$0" "$@"

broken() {
	echo "compare: $*" >&2
	exit "$STATUS_BAD_INPUT"
}

# check_meta DIR: its meta.json (or an old run's meta.env) says which
# accelerator measured it.
check_meta() {
	local d=$1
	if [[ -f $d/meta.json ]]; then
		jq -e 'type == "object"' "$d/meta.json" >/dev/null 2>&1 ||
			broken "$d/meta.json is malformed (not a JSON object)"
	else
		[[ -r $d/meta.env ]] || broken "$d has no meta.json: its accelerator is unknown"
	fi
	[[ -n $(meta_get "$d" ACCEL) ]] || broken "$d/meta.json has no ACCEL: its accelerator is unknown"
}

main() {
	[[ $# -eq 2 ]] || broken "usage: compare.sh BASE_DIR NEW_DIR"
	local base=$1 new=$2 d bin base_accel new_accel status
	for d in "$base" "$new"; do
		[[ -r $d/runs.csv ]] || broken "$d/runs.csv missing or unreadable"
		check_meta "$d"
	done
	[[ ! $base -ef $new ]] || broken "BASE and NEW are the same directory ($new): nothing is compared"
	base_accel=$(meta_get "$base" ACCEL)
	new_accel=$(meta_get "$new" ACCEL)
	[[ $base_accel == "$new_accel" ]] ||
		echo "compare: warning: accelerators differ ($base_accel vs $new_accel): a metric is deterministic only if it is on both sides" >&2
	printf 'base: %s (%s, %s)\nnew:  %s (%s, %s)\n' \
		"$base" "$base_accel" "$(meta_get "$base" GIT_COMMIT)" \
		"$new" "$new_accel" "$(meta_get "$new" GIT_COMMIT)"
	bin=$(benchstat_bin) || broken "cannot build benchstat"
	"$bin" compare --threshold "$THRESHOLD" --base-accel "$base_accel" \
		--new-accel "$new_accel" --smp-workloads "$(smp_union "$base" "$new")" \
		"$base/runs.csv" "$new/runs.csv" || status=$?
	print_floors "$base" "$base_accel"
	print_floors "$new" "$new_accel"
	case ${status:-0} in
	0 | 1 | 2) exit "${status:-0}" ;;
	*) broken "benchstat failed with status $status" ;;
	esac
}

# smp_union BASE NEW: the workloads that ran on more than one vCPU in
# either run, one line.  The union, not a demand that the runs agree: a
# run without the mq view is still compared with one that has it, and a
# row with one random side has a random difference (as benchstat takes the
# less deterministic class of two accelerators).  A run without the key
# (every run before views.sh recorded it; bench and perf boot one vCPU)
# lists none.
smp_union() {
	{
		meta_get "$1" SMP_WORKLOADS
		meta_get "$2" SMP_WORKLOADS
	} | tr '[:blank:]' '\n' | awk 'NF && !s[$0]++' | one_line
}

# print_floors DIR ACCEL: the layout noise floor DIR measured, under kvm/tcg
print_floors() {
	local floors
	accel_host_time "$2" && [[ -r $1/summary.csv ]] || return 0
	floors=$(layout_floors "$1/summary.csv")
	[[ -n $floors ]] || return 0
	printf '\nlayout noise floor in %s (off-layout vs off, same code laid out differently):\n' "$1"
	awk '{ printf "  %s %s %+.2f%%\n", $1, $2, $3 }' <<<"$floors"
}

main "$@"
