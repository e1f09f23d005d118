#!/usr/bin/env bash
# The cost of submit_bio_noacct_nocheck per config and state.
#
#   perf.sh [-h]
#
# Where the accelerator is tcg-icount (ACCEL=tcg-icount, or auto without
# KVM), this is bench/run/bench.sh without timed workloads: one boot per
# config counts every state with the insncount plugin and records perf
# for "perf annotate" (bench.sh -h).  With ACCEL=kvm or tcg:
# every config x state of the matrix boots under tcg-icount with the insncount
# plugin counting the instructions executed inside submit_bio_noacct_nocheck
# (and __blk_error_inject, blk_mq_submit_bio) and their calls, while the guest
# runs a fixed-count fio job under "perf stat" and then "perf record".  The
# perf.data comes back to the host for "perf annotate" of the gate.  Under
# icount guest time counts instructions, so a rerun must give identical
# numbers: PERF_REPEATS (default 2) runs each row that many times.
# With KVM available (ACCEL=kvm or auto), runs under KVM add cycles_per_io
# and instructions_per_io from the vPMU, as workload count-randread-qd1-kvm
# (its time is not icount's): REPEATS runs per row, the results
# directory's own (bench.sh's n, so the gating cycles rows are as powered
# as its IOPS rows), else REPEATS (auto: 5).
#
# Settings: CONFIGS, STATES (as for bench.sh), PERF_REPEATS, FIO_IOS,
# RUN_TIMEOUT, RESULTS_DIR (add to an existing results directory instead
# of making results/<date>-perf); bench/plan/settings.table has their
# defaults.  Exit status 1 when any run failed, after writing everything.
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
driver_start perf -- "$0" "$@"

no_arguments "$0" "$@"
plan_read CONFIGS STATES PERF_REPEATS FIO_IOS RUN_TIMEOUT REPEATS RESULTS_DIR RUN_ID RESULTS_ROOT ACCEL_USED
hot_funcs_read
# shellcheck source=bench/collect/fio.sh
. "$BENCH_DIR/collect/fio.sh"
# shellcheck source=bench/collect/plugin.sh
. "$BENCH_DIR/collect/plugin.sh"
# shellcheck source=bench/collect/perf.sh
. "$BENCH_DIR/collect/perf.sh"

WORKLOAD=count-randread-qd1

# csv_rows SEQ CONFIG STATE REPEAT DIR ACCEL: runs.csv rows of one run
# (the parsers of bench/collect).
csv_rows() {
	local seq=$1 cfg=$2 state=$3 rep=$4 dir=$5 accel=$6 p ios
	p="$seq,$cfg,$state,$WORKLOAD$(! accel_pmu "$accel" || echo "-$accel"),$rep"
	ios=$(fio_ios "$dir/fio-$WORKLOAD")
	if [[ ! $ios =~ ^[1-9][0-9]*$ ]]; then
		collect_failed "$p" insns_per_call calls_per_io task_clock_ns_per_io
		return
	fi
	# The guest runs the fio job twice: under perf stat and perf record.
	! accel_counts "$accel" || [[ ! -f $dir/plugin.txt ]] ||
		collect_plugin "$p,ok" "$dir/plugin.txt" "$ios" 2 '' '' "${HOT_FUNC_LIST[@]}"
	collect_perf "$p,ok" "$dir/perf-stat" "$dir/perf-report" "$ios"
}

# one_run SEQ CONFIG STATE REPEAT ACCEL DIR: boot, collect, append rows;
# 1 if the boot failed.
one_run() {
	local seq=$1 cfg=$2 state=$3 rep=$4 accel=$5 dir=$6 raw status=0 plugin_args=()
	raw=$dir/raw/perf-$(printf '%03d' "$seq")-$cfg-$state-$accel-r$rep
	mkdir -p "$raw"
	if accel_counts "$accel"; then
		write_plugin_ranges "$cfg" "$raw/ranges.txt"
		plugin_args=(-p "$(plugin_so),ranges=$raw/ranges.txt,out=$raw/plugin.txt")
	fi
	boot_collect "$raw" "$seq $cfg $state $accel r$rep" "$dir" -c "$cfg" -a "$accel" \
		-t "$RUN_TIMEOUT" "${plugin_args[@]}" -f "$BENCH_DIR/guest/fio" -f "$BENCH_DIR/guest/state.sh" \
		-e "STATE=$state" -e "FIO_IOS=$FIO_IOS" "$REPO_DIR/bench/guest/perf.sh" || status=$?
	if [[ $status == 0 && $rep == 1 ]] && accel_counts "$accel"; then
		mkdir -p "$dir/annotate"
		annotate_gate "$raw/perf-data" "$cfg" "$dir/annotate/$cfg-$state.txt"
	fi
	rm -f "$raw/perf-data"
	csv_rows "$seq" "$cfg" "$state" "$rep" "$raw" "$accel" >>"$dir/runs.csv"
	[[ $status == 0 ]]
}

# perf_runs ACCEL PMU_REPEATS: perf's runs in order, one a line: the step's
# ID, its weight in the job plan, its accelerator, repeat and repeats,
# config and state.  Every row of the matrix (rows) PERF_REPEATS times
# where counts are exact (the counts), then, when ACCEL has a vPMU,
# PMU_REPEATS times under ACCEL (cycles).
perf_runs() {
	local pass run_accel reps weight rep row k=0
	local -a passes=("$(accel_counter) $PERF_REPEATS 40")
	! accel_pmu "$1" || passes+=("$1 $2 20")
	for pass in "${passes[@]}"; do
		read -r run_accel reps weight <<<"$pass"
		for ((rep = 1; rep <= reps; rep++)); do
			for row in "${rows[@]}"; do
				printf 'perf:%s:%s#%d-%d %d %s %d %d %s\n' "${row// /:}" "$run_accel" "$rep" "$k" \
					"$weight" "$run_accel" "$rep" "$reps" "$row"
				k=$((k + 1))
			done
		done
	done
}

main() {
	local accel=$ACCEL_USED dir rows=() runs=() cfg state rep reps id run_accel k seq failed=0 pmu_repeats
	[[ $RUN_ID != auto ]] || RUN_ID=$(date -u +%Y%m%d-%H%M%S)-perf
	if accel_counts "$accel"; then
		[[ -z $RESULTS_DIR ]] || die_bad_input "under $accel bench.sh already counted in its own boots; RESULTS_DIR is for accelerators whose counts are not exact"
		log "perf: $accel: counts and perf record in one boot per config (bench.sh without timed workloads)"
		plan_call bench WORKLOADS= SOFTIRQ_WORKLOADS= REPEATS="$PERF_REPEATS" RUN_ID="$RUN_ID" -- "$BENCH_DIR/run/bench.sh"
		return
	fi
	if [[ -n $RESULTS_DIR ]]; then
		dir=$RESULTS_DIR
		[[ -f $dir/runs.csv ]] || die_bad_input "$dir/runs.csv missing"
		seq=$(tail -n +2 "$dir/runs.csv" | cut -d, -f1 | sort -n | tail -1)
	else
		dir=$(results_root)/$RUN_ID
		[[ ! -e $dir ]] || die_bad_input "$dir exists already"
		mkdir -p "$dir/raw"
		write_meta "$dir" "$(accel_counter)" "$BENCH_COMMAND"
		printf 'seq,config,state,workload,repeat,status,metric,value\n' >"$dir/runs.csv"
		seq=0
	fi
	# the results directory's n, else the plan's
	pmu_repeats=$(meta_get "$dir" REPEATS)
	[[ $pmu_repeats =~ ^[1-9][0-9]*$ ]] || pmu_repeats=$REPEATS
	meta_set "$dir" PERF_REPEATS "$PERF_REPEATS"
	meta_set "$dir" FIO_IOS "$FIO_IOS"
	meta_set "$dir" PERF_ACCELS "$(accel_counter)$(! accel_pmu "$accel" || echo " $accel")"
	metrics_load "$(benchstat_bin)"
	mapfile -t rows < <(matrix_rows)
	mapfile -t runs < <(perf_runs "$accel" "$pmu_repeats")
	accel_pmu "$accel" || log "perf: no vPMU under $accel: cycles are not measured (instruction counts come from the TCG plugin)"
	job_plan_start "$dir/job-plan"
	printf '%s\n' "${runs[@]}" | awk '{ print $1, $2 }' | job_plan_replace perf
	for k in "${!runs[@]}"; do
		read -r id _ run_accel rep reps cfg state <<<"${runs[k]}"
		seq=$((seq + 1))
		job_step "$id" "perf $cfg/$state $run_accel$(! accel_pmu "$run_accel" || echo ', cycles from the vPMU') (run $((k + 1))/${#runs[@]}, repeat $rep/$reps)"
		one_run "$seq" "$cfg" "$state" "$rep" "$run_accel" "$dir" || failed=$((failed + 1))
	done
	job_step_end
	[[ $JOB_PLAN != "$dir/job-plan" ]] || rm -f "$JOB_PLAN"*
	# The raw outputs, archived by the tool (bench.sh's own are raw.tar.xz).
	tar -C "$dir" -cJf "$dir/$([[ -e $dir/raw.tar.xz ]] && echo raw-perf || echo raw).tar.xz" raw
	rm -rf "$dir/raw"
	summarise "$dir"
	log "perf: $dir"
	grep -E "^[^,]+,[^,]+,$WORKLOAD,(insns_per_call|blk_error_inject_insns_per_call)," "$dir/summary.csv" |
		cut -d, -f1,2,4,8,21,22 | column -s, -t >&2 || true
	((failed == 0)) || die "$failed of ${#runs[@]} perf runs failed (see $dir/failures.txt); their rows are marked failed"
}

main "$@"
