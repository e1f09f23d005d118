#!/usr/bin/env bash
# The hot path's other views (issue 15), each over configs x states with the
# project's statistics, into one results directory:
#
#   bench/run/views.sh VIEW...      (VIEW: mq polled latency switch errcost footprint
#                                layout, or all)
#
#   mq         2 vCPUs, null_blk submit_queues=2, one fio job per CPU (qd1
#              pvsync2, qd32 io_uring); states key-off, key-on-other, rules-1,
#              rule-churn (a loop adding and removing a rule on nullb1 while
#              fio runs on nullb0)
#   polled     1 vCPU, null_blk poll_queues=1: pvsync2 hipri qd1 and io_uring
#              hipri + fixed buffers + registered files qd128 (t/io_uring's way),
#              POLL_TAGS tags per queue (default 128, the deepest workload's
#              depth: with fewer, io_uring's non-blocking issue finds no free
#              tag and retries from io-wq, iowq_punts_per_io > 0)
#   latency    the main benchmark's randread-qd1/qd32 with clat percentiles
#   switch     guest time of the writes that enable and disable the static
#              key (clockio around write(2)), on 1 and 2 vCPUs
#   errcost    guest time per 4 KiB read with no rule and with a rule that
#              fails every read (bio_endio from the submit path)
#   footprint  per config: size of submit_bio_noacct_nocheck and of the
#              kernel text, jump-label sites of the key, and which 64-byte
#              lines of submit_bio_noacct_nocheck the idle path executes
#   layout     the layout noise floor: off and off-layout (off with every
#              function 64-byte aligned: the same code laid out differently)
#              on the latency view's workloads, whatever CONFIGS is; rows
#              named layout-WORKLOAD.  Their difference is the floor under
#              which a hardware-time change between two builds means nothing
#              (the report prints it beside every guest-time verdict)
#
# Every fio run records iops, lat_ns and the clat percentiles lat_p50_ns,
# lat_p99_ns, lat_p999_ns; under tcg-icount also insns_per_io (1e9 / IOPS,
# guest instructions of all CPUs per I/O) and, from the insncount plugin
# between marks around each fio run, insns_per_call and calls_per_io of
# submit_bio_noacct_nocheck and iowq_punts_per_io (io_uring requests retried
# from an io-wq worker, each one more submit_bio), per read nullb0 completed
# in that run (ramp_time included, as in the plugin's counts), from which the
# report computes the gate's share of each workload's instructions.
#
# Settings (environment):
#   CONFIGS="off on"         any built configs (the first is the baseline,
#                            run in state "off"; use its name as in build/)
#   REPEATS                  boots per row; default 1 under tcg-icount
#                            (deterministic), else 5
#   VIEW_STATES    only these of each view's states (default: all of them)
#   FIO_RUNTIME=1 FIO_RAMP=200ms   per workload, in fio's time units (200ms;
#                  a bare number is whole seconds: 0.2 is refused)
#   SWITCH_CYCLES=5  ERRCOST_IOS=20000  FIO_IOS=20000 (footprint)  POLL_TAGS=128
#   ACCEL=auto|kvm|tcg|tcg-icount  SEED=1  RUN_TIMEOUT=900
#   GUEST_JOBS     boots at once, as for bench.sh: the host's cores under
#                  tcg-icount (its results do not depend on it), else 1
#   RESULTS_DIR    add to this directory (runs.csv appended, summary redone;
#                  a view run again replaces its earlier rows)
#   RUN_ID         else results/RUN_ID (default <date>-<accel>-views: not
#                  *-tcg-icount, which names the main runs)
# Output: runs.csv, summary.csv/json, meta.json, footprint/ (objdump by
# cache line, sizes), raw/ (fio JSON, plugin counts, guest output per boot).
# The results directory is printed on stdout at the end.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/lib/lib.sh
. "$(dirname "$0")/../lib/lib.sh"
# On its own it resolves its settings first, as make views does (the
# same configs either way; exit 2 on bad input, before any boot).
help_answer "$0" "$@"
[[ $# -gt 0 ]] || die_bad_input "usage: bench/run/views.sh VIEW... (views: $(catalog_views | one_line), or all)"
if plan_for views; then
	driver_start views -- "$0" "$@"
else
	driver_start views VIEWS="$*" -- "$0" "$@"
fi
plan_read CONFIGS BASELINE VIEWS VIEW_STATES REPEATS FIO_RUNTIME FIO_RAMP SWITCH_CYCLES ERRCOST_IOS \
	FIO_IOS POLL_TAGS RUN_TIMEOUT GUEST_JOBS RESULTS_DIR RUN_ID RESULTS_ROOT ACCEL_USED
VIEWS_ALL="mq polled latency switch errcost footprint layout"
LAYOUT_CONFIGS="off off-layout"
STATES="key-off key-on-other rules-1 rule-churn fail-all"
# shellcheck source=bench/collect/fio.sh
. "$BENCH_DIR/collect/fio.sh"
# shellcheck source=bench/collect/plugin.sh
. "$BENCH_DIR/collect/plugin.sh"
# shellcheck source=bench/collect/churn.sh
. "$BENCH_DIR/collect/churn.sh"
# shellcheck source=bench/collect/switch.sh
. "$BENCH_DIR/collect/switch.sh"
# shellcheck source=bench/collect/clockio.sh
. "$BENCH_DIR/collect/clockio.sh"
# shellcheck source=bench/collect/footprint.sh
. "$BENCH_DIR/collect/footprint.sh"

GATE_FUNC=submit_bio_noacct_nocheck
# io_uring's worker entry: a request whose non-blocking issue failed (e.g.
# no free tag) is issued again from an io-wq worker
IOWQ_FUNC=io_wq_submit_work

usage() {
	die_bad_input "usage: bench/run/views.sh VIEW... (views: $VIEWS_ALL, or all)"
}

view_states() {
	local s
	for s in $(view_states_all "$1"); do
		[[ -z $VIEW_STATES || " $VIEW_STATES " == *" $s "* ]] && printf '%s ' "$s"
	done
	echo
}

view_states_all() {
	case $1 in
	mq) echo "key-off key-on-other rules-1 rule-churn" ;;
	polled | latency) echo "key-off key-on-other rules-1" ;;
	layout) echo "off" ;;
	switch) echo "key-off" ;;
	errcost) echo "key-off fail-all" ;;
	footprint) echo "key-off" ;;
	esac
}

view_workloads() {
	case $1 in
	mq) echo "mq-randread-qd1 mq-randread-qd32" ;;
	polled) echo "poll-randread-qd1 poll-randread-qd128" ;;
	latency | layout) echo "randread-qd1 randread-qd32" ;;
	switch) echo "switch-1cpu switch-2cpu" ;;
	errcost) echo "pread-qd1" ;;
	footprint) echo "count-randread-qd1" ;;
	esac
}

# row_workload VIEW WORKLOAD: the workload's name in runs.csv (the layout
# view's off rows must not pool with the latency view's)
row_workload() {
	case $1 in layout) echo "layout-$2" ;; *) echo "$2" ;; esac
}

# guest_script VIEW: the layout view runs the latency view's guest script
guest_script() {
	case $1 in layout) echo "$BENCH_DIR/guest/view-latency.sh" ;; *) echo "$BENCH_DIR/guest/view-$1.sh" ;; esac
}

view_cpus() {
	case $1 in mq) echo 2 ;; *) echo 1 ;; esac
}

# boot_workloads VIEW CPUS: the runs.csv workloads of one boot of VIEW on
# CPUS vCPUs (the switch view names its workload by the vCPUs)
boot_workloads() {
	local w
	if [[ $1 == switch ]]; then
		echo "switch-${2}cpu"
		return
	fi
	for w in $(view_workloads "$1"); do row_workload "$1" "$w"; done
}

# smp_workloads VIEW: the workloads of VIEW's boots on more than one vCPU,
# one a line.  Recorded as SMP_WORKLOADS in meta.json: under tcg-icount
# their guest time depends on how QEMU interleaves the vCPUs, so benchstat
# (summarise) and the figures take it as random.
smp_workloads() {
	local cfg state cpus
	while read -r cfg state cpus; do
		((cpus <= 1)) || boot_workloads "$1" "$cpus"
	done < <(view_boots "$1") | awk '!s[$0]++'
}

# Boots of one view: "config state cpus" lines.  A config without the
# feature runs once, in state "off" (the baseline state); the switch view
# has nothing to measure there.
view_boots() {
	local view=$1 cfg state
	if [[ $view == layout ]]; then
		for cfg in $LAYOUT_CONFIGS; do printf '%s off 1\n' "$cfg"; done
		return
	fi
	for cfg in $CONFIGS; do
		if ! has_feature "$cfg"; then
			[[ $view == switch ]] || printf '%s off %s\n' "$cfg" "$(view_cpus "$view")"
			continue
		fi
		if [[ $view == switch ]]; then
			printf '%s key-off 1\n%s key-off 2\n' "$cfg" "$cfg"
			continue
		fi
		for state in $(view_states "$view"); do
			printf '%s %s %s\n' "$cfg" "$state" "$(view_cpus "$view")"
		done
	done
}

# write_line_ranges CONFIG FILE: one insncount range per 64-byte line of
# the gate's function (clipped to the function), named line-0xADDR.
write_line_ranges() {
	local start end
	read -r _ start end < <("$REPO_DIR/perf-scripts/plugin/ranges-from-systemmap.sh" \
		"$(kernel_build_dir "$1")/System.map" "$GATE_FUNC" | grep -v '^#')
	local l s=$((start)) e=$((end))
	# bash arithmetic: kernel addresses do not fit awk's doubles
	for ((l = s & ~63; l < e; l += 64)); do
		printf 'line-0x%x 0x%x 0x%x\n' "$l" "$((l < s ? s : l))" "$((l + 64 < e ? l + 64 : e))"
	done >"$2"
	"$REPO_DIR/perf-scripts/plugin/ranges-from-systemmap.sh" \
		"$(kernel_build_dir "$1")/System.map" "$GATE_FUNC" >>"$2"
}

# collect VIEW SEQ CONFIG STATE REPEAT RAW: runs.csv rows of one boot (the
# parsers of bench/collect)
collect() {
	local view=$1 seq=$2 cfg=$3 state=$4 rep=$5 raw=$6 w p reads first last jump_sites
	case $view in
	mq | polled | latency | layout)
		for w in $(view_workloads "$view"); do
			p="$seq,$cfg,$state,$(row_workload "$view" "$w"),$rep,ok"
			if fio_ok "$raw/fio-$w"; then
				collect_fio "$p" "$raw/fio-$w" "$ACCEL_USED"
				[[ ! -f $raw/churn-$w ]] || collect_churn "$p" "$raw/churn-$w"
				# the plugin's counts between the marks around this fio
				# run, per read nullb0 completed in it
				[[ -f $raw/plugin.txt && -s $raw/count-$w ]] || continue
				read -r reads first last <"$raw/count-$w"
				collect_plugin "$p" "$raw/plugin.txt" "$reads" 1 "$first" "$last" "$GATE_FUNC"
				collect_punts "$p" "$raw/plugin.txt" "$reads" "$first" "$last"
			else
				collect_failed "$p" iops lat_ns lat_p50_ns lat_p99_ns lat_p999_ns
			fi
		done
		;;
	switch)
		p="$seq,$cfg,$state,$(boot_workloads switch "$CPUS"),$rep,ok"
		if [[ -s $raw/switch ]]; then
			collect_switch "$p" "$raw/switch"
		else
			collect_failed "$p" switch_enable_ns switch_disable_ns
		fi
		;;
	errcost)
		p="$seq,$cfg,$state,pread-qd1,$rep,ok"
		if [[ -s $raw/clockio ]]; then
			collect_clockio "$p" "$raw/clockio"
		else
			collect_failed "$p" pread_ns_per_io
		fi
		;;
	footprint)
		p="$seq,$cfg,$state,count-randread-qd1,$rep,ok"
		if [[ -f $raw/plugin.txt ]]; then
			# the whole boot: its one counted fio run
			collect_plugin "$p" "$raw/plugin.txt" "$(fio_ios "$raw/fio-count-randread-qd1")" 1 '' '' "$GATE_FUNC"
			collect_hot_lines "$p" "$raw/plugin.txt"
			jump_sites=$(host_tool jump-sites)
			mkdir -p "$DIR/footprint"
			collect_footprint "$p" "$cfg" "$(kernel_build_dir "$cfg")/vmlinux" "$jump_sites" \
				"$raw/plugin.txt" "$DIR/footprint/$cfg.txt"
		else
			collect_failed "$p" insns_per_call hot_lines
		fi
		;;
	esac
}

# one_boot VIEW SEQ CONFIG STATE CPUS REPEAT
one_boot() {
	local view=$1 seq=$2 cfg=$3 state=$4 rep=$6 raw plugin_args=() env_args=()
	CPUS=$5
	raw=$DIR/raw/$(printf '%03d' "$seq")-$view-$cfg-$state-${CPUS}cpu-r$rep
	mkdir -p "$raw"
	if accel_counts "$ACCEL_USED"; then
		case $view in
		mq | polled | latency | layout)
			"$REPO_DIR/perf-scripts/plugin/ranges-from-systemmap.sh" \
				"$(kernel_build_dir "$cfg")/System.map" "$GATE_FUNC" "$IOWQ_FUNC" >"$raw/ranges.txt"
			plugin_args=(-p "$PLUGIN,ranges=$raw/ranges.txt,out=$raw/plugin.txt,mark=$(plugin_mark "$cfg")")
			;;
		footprint)
			write_line_ranges "$cfg" "$raw/ranges.txt"
			plugin_args=(-p "$PLUGIN,ranges=$raw/ranges.txt,out=$raw/plugin.txt")
			;;
		esac
	fi
	env_args=(-e "STATE=$state" -e "WORKLOADS=$(view_workloads "$view")" -e "FIO_RUNTIME=$FIO_RUNTIME"
		-e "FIO_RAMP=$FIO_RAMP" -e "SWITCH_CYCLES=$SWITCH_CYCLES" -e "ERRCOST_IOS=$ERRCOST_IOS"
		-e "FIO_IOS=$FIO_IOS" -e "POLL_TAGS=$POLL_TAGS")
	# run-guest gives each vCPU its own socket and tsc=reliable
	boot_collect "$raw" "$seq $view $cfg $state ${CPUS}cpu r$rep" "$DIR" -c "$cfg" -a "$ACCEL_USED" \
		-t "$RUN_TIMEOUT" -s "$CPUS" "${plugin_args[@]}" -f "$BENCH_DIR/guest/fio" \
		-f "$BENCH_DIR/guest/state.sh" -f "$BENCH_DIR/guest/views-fio.sh" "${env_args[@]}" \
		"$(guest_script "$view")" || :
	collect "$view" "$seq" "$cfg" "$state" "$rep" "$raw" >"$raw.rows"
}

main() {
	local views=() v cfg seq=0 k=0 n t0 tv line state cpus rep i
	local -a boots
	[[ $# -gt 0 ]] || usage
	for v in "$@"; do
		if [[ $v == all ]]; then
			# shellcheck disable=SC2206 # a list of words
			views+=($VIEWS_ALL)
		elif [[ " $VIEWS_ALL " == *" $v "* ]]; then
			views+=("$v")
		else
			die_bad_input "unknown view '$v' (views: $VIEWS_ALL, or all)"
		fi
	done
	# shellcheck disable=SC2086 # a list of words
	check_built $CONFIGS
	# shellcheck disable=SC2086 # a list of words
	[[ " ${views[*]} " != *" layout "* ]] || check_built $LAYOUT_CONFIGS
	# the accelerator the plan chose (bench/plan/resolve probed it)
	! accel_counts "$ACCEL_USED" || PLUGIN=$(plugin_so)
	if [[ -n $RESULTS_DIR ]]; then
		DIR=$RESULTS_DIR
		[[ -f $DIR/runs.csv ]] || die_bad_input "$DIR/runs.csv missing"
		[[ $(meta_get "$DIR" ACCEL) == "$ACCEL_USED" ]] || die_bad_input "$DIR was run under $(meta_get "$DIR" ACCEL), not $ACCEL_USED"
		seq=$(tail -n +2 "$DIR/runs.csv" | cut -d, -f1 | sort -n | tail -1)
		meta_set "$DIR" COMMAND "$(meta_get "$DIR" COMMAND); $(view_command "${views[@]}")"
		for v in "${views[@]}"; do drop_view "$v"; done
	else
		[[ $RUN_ID != auto ]] || RUN_ID=$(date -u +%Y%m%d-%H%M%S)-$ACCEL_USED-views
		DIR=$(results_root)/$RUN_ID
		[[ ! -e $DIR ]] || die_bad_input "$DIR exists already"
		mkdir -p "$DIR/raw"
		cp "$BIB_PLAN" "$DIR/plan.env"
		# what its plugin counts: the gate (and io-wq's entry, for the punts)
		HOT_FUNCS=$GATE_FUNC write_meta "$DIR" "$ACCEL_USED" "$(view_command "${views[@]}")"
		printf 'seq,config,state,workload,repeat,status,metric,value\n' >"$DIR/runs.csv"
	fi
	meta_set "$DIR" VIEWS "$(tr ' ' '\n' <<<"$(meta_get "$DIR" VIEWS) ${views[*]}" | awk 'NF && !s[$0]++' | tr '\n' ' ' | sed 's/ $//')"
	meta_set "$DIR" SMP_WORKLOADS "$({
		tr ' ' '\n' <<<"$(meta_get "$DIR" SMP_WORKLOADS)"
		for v in "${views[@]}"; do smp_workloads "$v"; done
	} | awk 'NF && !s[$0]++' | tr '\n' ' ' | sed 's/ $//')"
	metrics_load "$(benchstat_bin)"
	t0=$(date +%s)
	for v in "${views[@]}"; do
		tv=$(date +%s)
		mapfile -t boots < <(view_boots "$v")
		n=$((${#boots[@]} * REPEATS))
		k=0
		log "views: $v: $n boots under $ACCEL_USED"
		for ((rep = 1; rep <= REPEATS; rep++)); do
			for line in "${boots[@]}"; do
				read -r cfg state cpus <<<"$line"
				k=$((k + 1)) seq=$((seq + 1))
				while (($(jobs -rp | wc -l) >= GUEST_JOBS)); do
					wait -n || true
				done
				log "[$v $k/$n] config=$cfg state=$state vCPUs=$cpus repeat $rep/$REPEATS"
				one_boot "$v" "$seq" "$cfg" "$state" "$cpus" "$rep" &
			done
		done
		wait
		# rows in run order, whichever boot finished first
		for ((i = seq - n + 1; i <= seq; i++)); do
			cat "$DIR"/raw/"$(printf '%03d' "$i")"-*.rows
			rm -f "$DIR"/raw/"$(printf '%03d' "$i")"-*.rows
		done >>"$DIR/runs.csv"
		meta_set "$DIR" "VIEW_SECONDS_$v" "$(($(date +%s) - tv))"
		log "views: $v done in $(fmt_duration $(($(date +%s) - tv)))"
	done
	summarise "$DIR"
	log "views: done in $(fmt_duration $(($(date +%s) - t0))): $DIR"
	printf '%s\n' "$DIR"
}

# drop_view VIEW: a view run again into RESULTS_DIR replaces its rows, raw
# output and footprint files there
drop_view() {
	local w pat="$1-all"
	for w in $(view_workloads "$1"); do pat+="|$(row_workload "$1" "$w")"; done
	awk -F, -v pat="^($pat)\$" 'NR == 1 || $4 !~ pat' "$DIR/runs.csv" >"$DIR/runs.csv.tmp"
	mv "$DIR/runs.csv.tmp" "$DIR/runs.csv"
	rm -rf "$DIR"/raw/[0-9][0-9][0-9]-"$1"-*
	[[ $1 != footprint ]] || rm -rf "$DIR/footprint"
}

# view_command VIEW...: the command line that reproduces this part of the run
view_command() {
	printf "GUEST_JOBS=%s CONFIGS='%s' VIEW_STATES='%s' REPEATS=%s FIO_RUNTIME=%s FIO_RAMP=%s SWITCH_CYCLES=%s ERRCOST_IOS=%s FIO_IOS=%s POLL_TAGS=%s ACCEL=%s bench/run/views.sh %s" \
		"$GUEST_JOBS" "$CONFIGS" "$VIEW_STATES" "$REPEATS" "$FIO_RUNTIME" "$FIO_RAMP" "$SWITCH_CYCLES" "$ERRCOST_IOS" \
		"$FIO_IOS" "$POLL_TAGS" "$ACCEL_USED" "$*"
}

main "$@"
