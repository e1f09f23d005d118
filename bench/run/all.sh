#!/usr/bin/env bash
# The main job: build the configs, benchmark (with the instruction counts
# in the same boots under tcg-icount; a perf pass of its own under kvm or
# tcg), figures, report; the verdict table (report.txt) at the end.
#
#   all.sh [-h]
#
# The matrix is the job file JOB_FILE (default bench/plan/jobs/default.job);
# settings in the environment override it (CONFIGS, STATES, REPEATS,
# ACCEL, ...; bench.sh -h), resolved once: bench.sh and perf.sh run on
# this driver's plan.  One
# progress line per step, builds and boots alike, with the whole job's
# elapsed time and ETA.  Exit status 1 when a build or any boot failed
# (after writing everything), 2 on bad input (bench/lib/status.sh).
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
driver_start all,quick -- "$0" "$@"

no_arguments "$0" "$@"
# The settings are the resolved plan's (bench.sh keeps it in the run as
# plan.env); bench.sh and perf.sh take the same plan.
plan_read CONFIGS ACCEL_USED HOT_FUNCS

# build_estimate CONFIG: a stamped build only checks; else a cold build.
build_key() {
	if [[ -f $(kernel_build_dir "$1")/.blkinject-stamp ]]; then
		printf 'build-warm:%s\n' "$1"
	else
		printf 'build-cold:%s\n' "$1"
	fi
}

# write_plan FILE: builds, a placeholder for bench.sh's boots (it lists
# them), perf where it is a pass of its own (counts not exact under the
# accelerator the plan chose).
write_plan() {
	local cfg key n
	n=$(wc -w <<<"$CONFIGS")
	{
		for cfg in $CONFIGS; do
			key=$(build_key "$cfg")
			printf '%s %s\n' "$key" "$(step_estimate "$key" "$([[ $key == build-warm:* ]] && echo 3 || echo 450)")"
		done
		printf 'bench %s\n' $((n * 150))
		if ! accel_counts "$ACCEL_USED"; then
			printf 'perf %s\n' $((n * 200))
		fi
		printf 'plots 5\nreport 2\n'
	} >"$1"
}

main() {
	local dir cfg accel status=0 plan_dir
	# the job's plan and the files log.sh keeps beside it, in a directory
	# of their own removed however the job ends
	plan_dir=$(mktemp -d)
	# shellcheck disable=SC2064 # the path now: plan_dir is local to main
	trap "rm -rf '$plan_dir'" EXIT
	job_plan_start "$plan_dir/plan"
	write_plan "$JOB_PLAN"
	# shellcheck disable=SC2086 # a list of words
	"$BENCH_DIR/kernel/build.sh" functions main $HOT_FUNCS >/dev/null
	for cfg in $CONFIGS; do
		job_step "$(build_key "$cfg")" "build $cfg"
		"$BENCH_DIR/kernel/build.sh" build "$cfg"
	done
	dir=$("$BENCH_DIR/run/bench.sh") || status=$?
	# bench.sh's own status when it stopped before making one (bad input: 2)
	[[ -n $dir && -d $dir ]] || DIE_STATUS=$((status ? status : STATUS_FAILED)) die "bench.sh made no results directory"
	accel=$(meta_get "$dir" ACCEL)
	if accel_counts "$accel"; then
		job_plan_replace perf </dev/null
	else
		plan_call perf RESULTS_DIR="$dir" -- "$REPO_DIR/bench/run/perf.sh" || status=$?
	fi
	job_step plots "plots"
	"$REPO_DIR/plots/make-plots.sh" "$dir"
	job_step report "report"
	"$BENCH_DIR/report/report.sh" "$dir"
	job_step_end
	log "main job: done in $(fmt_eta $((EPOCHSECONDS - BENCH_T0))), see $dir/report.md"
	print_verdict "$dir"
	return "$status"
}

# print_verdict DIR: the verdict a reviewer quotes (report.sh wrote it).
print_verdict() {
	cat "$1/report.txt"
}

main "$@"
