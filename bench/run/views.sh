#!/usr/bin/env bash
# The hot path's other views (issue 15), each over configs x states with the
# project's statistics, into one results directory:
#
#   bench/run/views.sh VIEW...          (VIEW: a recipe of bench/plan/views, or all)
#   bench/run/views.sh --list VIEW...   the boots, "VIEW CONFIG STATE CPUS" a
#                                       line, and nothing else
#
# Each view runs from its recipe, bench/plan/views/VIEW.job, which the plan
# holds (VIEW_<NAME>_<KEY>): its guest script (GUEST, bench/guest/NAME.sh),
# its vCPUs (CPUS; a list: a boot each, and its rows' workloads named
# WORKLOAD-Ncpu), its own CONFIGS (else CONFIGS), STATES, WORKLOADS,
# ROW_PREFIX, how the plugin counts (COUNT: none, marks around each fio
# run, lines of the gate's function, the whole boot), its parsers by name
# (PARSERS: bench/collect's fio, churn, plugin, footprint, switch,
# clockio) and NEEDS=feature (configs without error injection left out).
# Adding a view is one recipe and, where needed, one guest script.  Today's:
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
# Settings (environment; their defaults: bench/plan/drivers/views.job and
# bench/plan/settings.table, resolved and checked before any boot):
#   CONFIGS        any built configs (the first is the baseline, run in
#                  state "off"; use its name as in build/)
#   REPEATS        boots per row; auto: 1 under tcg-icount
#                  (deterministic), else 5
#   VIEW_STATES    only these of each view's states (default: all of them)
#   FIO_RUNTIME FIO_RAMP   per workload, in fio's time units (200ms; a
#                  bare number is whole seconds: 0.2 is refused)
#   SWITCH_CYCLES  ERRCOST_IOS  FIO_IOS (footprint)  POLL_TAGS
#   ACCEL  SEED  RUN_TIMEOUT
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
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
# On its own it resolves its settings first, as make views does (the
# same configs either way; exit 2 on bad input, before any boot).
help_answer "$0" "$@"
MODE=run ARGS=("$@")
if [[ ${1:-} == --list ]]; then
	MODE=list
	shift
fi
[[ $# -gt 0 && $1 != -* ]] || die_bad_input "usage: bench/run/views.sh [--list] VIEW... (views: $(catalog_views | one_line), or all)"
if plan_for views; then
	driver_start views -- "$0" "${ARGS[@]}"
else
	driver_start views VIEWS="$*" -- "$0" "${ARGS[@]}"
fi
plan_read CONFIGS BASELINE VIEWS VIEW_STATES REPEATS FIO_RUNTIME FIO_RAMP SWITCH_CYCLES ERRCOST_IOS \
	FIO_IOS POLL_TAGS RUN_TIMEOUT GUEST_JOBS RESULTS_DIR RUN_ID ACCEL_USED
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

# recipe VIEW KEY: KEY of VIEW's recipe, as the plan holds it.
recipe() {
	local name="VIEW_${1^^}_$2"
	name=${name//-/_}
	plan_read "$name"
	printf '%s\n' "${!name}"
}

# view_configs VIEW: its own configs (the layout view's), else CONFIGS.
view_configs() {
	local own
	own=$(recipe "$1" CONFIGS)
	printf '%s\n' "${own:-$CONFIGS}"
}

# view_states VIEW: its states that VIEW_STATES keeps (all when empty).
view_states() {
	local s
	for s in $(recipe "$1" STATES); do
		[[ -z $VIEW_STATES || " $VIEW_STATES " == *" $s "* ]] && printf '%s ' "$s"
	done
	echo
}

# row_workload VIEW WORKLOAD CPUS: the workload's name in runs.csv: with
# the view's ROW_PREFIX (the layout view's off rows must not pool with the
# latency view's), and the vCPUs where its boots have more than one count.
row_workload() {
	local cpus
	cpus=$(recipe "$1" CPUS)
	printf '%s%s%s\n' "$(recipe "$1" ROW_PREFIX)" "$2" "$([[ $cpus != *' '* ]] || echo "-${3}cpu")"
}

# boot_workloads VIEW CPUS: the runs.csv workloads of one boot of VIEW on
# CPUS vCPUs
boot_workloads() {
	local w
	for w in $(recipe "$1" WORKLOADS); do row_workload "$1" "$w" "$2"; done
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

# view_boots VIEW: its boots, "CONFIG STATE CPUS" a line: each config in
# each of its states on each vCPU count.  A config without the feature
# runs once per vCPU count, in state "off" (the baseline state), unless the
# view NEEDS it (nothing to measure there).
view_boots() {
	local view=$1 cfg state cpus
	for cfg in $(view_configs "$view"); do
		if ! has_feature "$cfg"; then
			[[ $(recipe "$view" NEEDS) != feature ]] || continue
			for cpus in $(recipe "$view" CPUS); do printf '%s off %s\n' "$cfg" "$cpus"; done
			continue
		fi
		for state in $(view_states "$view"); do
			for cpus in $(recipe "$view" CPUS); do printf '%s %s %s\n' "$cfg" "$state" "$cpus"; done
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

# The parsers a recipe names (PARSERS), in its order, for each workload of
# a boot: parse_NAME VIEW PREFIX RAW WORKLOAD CONFIG, PREFIX the row's
# "seq,config,state,workload,repeat,ok".  A parser whose input says the run
# failed writes its rows failed and returns 1: the parsers after it have
# nothing to read.

# parse_fio: fio's rows of the workload's run (bench/collect/fio.sh).
parse_fio() {
	if fio_ok "$3/fio-$4"; then
		collect_fio "$2" "$3/fio-$4" "$ACCEL_USED"
	else
		collect_failed "$2" iops lat_ns lat_p50_ns lat_p99_ns lat_p999_ns
		return 1
	fi
}

# parse_churn: the rule changes of the churn loop beside the run, if any.
parse_churn() {
	[[ ! -f $3/churn-$4 ]] || collect_churn "$2" "$3/churn-$4"
}

# parse_plugin: the plugin's counts as the recipe's COUNT took them:
# between the marks around this fio run, per read nullb0 completed in it
# (marks; with io-wq's punts); or over the whole boot, per read of its one
# counted run (whole; lines: and the gate's 64-byte lines it ran).
parse_plugin() {
	local count reads first last
	count=$(recipe "$1" COUNT)
	case $count in
	marks)
		[[ -f $3/plugin.txt && -s $3/count-$4 ]] || return 0
		read -r reads first last <"$3/count-$4"
		collect_plugin "$2" "$3/plugin.txt" "$reads" 1 "$first" "$last" "$GATE_FUNC"
		collect_punts "$2" "$3/plugin.txt" "$reads" "$first" "$last"
		;;
	lines | whole)
		if [[ ! -f $3/plugin.txt ]]; then
			if [[ $count == lines ]]; then collect_failed "$2" insns_per_call hot_lines; else collect_failed "$2" insns_per_call; fi
			return 1
		fi
		collect_plugin "$2" "$3/plugin.txt" "$(fio_ios "$3/fio-$4")" 1 '' '' "$GATE_FUNC"
		[[ $count != lines ]] || collect_hot_lines "$2" "$3/plugin.txt"
		;;
	esac
}

# parse_footprint: sizes, jump-label sites and the executed lines of the
# gate's function in the config's vmlinux (footprint/CONFIG.txt).
parse_footprint() {
	local jump_sites
	jump_sites=$(host_tool jump-sites)
	mkdir -p "$DIR/footprint"
	collect_footprint "$2" "$5" "$(kernel_build_dir "$5")/vmlinux" "$jump_sites" \
		"$3/plugin.txt" "$DIR/footprint/$5.txt"
}

# parse_switch: clockio's times of the writes that switch the key.
parse_switch() {
	if [[ -s $3/switch ]]; then
		collect_switch "$2" "$3/switch"
	else
		collect_failed "$2" switch_enable_ns switch_disable_ns
		return 1
	fi
}

# parse_clockio: clockio's guest time per read.
parse_clockio() {
	if [[ -s $3/clockio ]]; then
		collect_clockio "$2" "$3/clockio"
	else
		collect_failed "$2" pread_ns_per_io
		return 1
	fi
}

# collect VIEW SEQ CONFIG STATE REPEAT RAW: runs.csv rows of one boot: the
# recipe's parsers, in its order, on each of its workloads
collect() {
	local view=$1 seq=$2 cfg=$3 state=$4 rep=$5 raw=$6 w p parser
	for w in $(recipe "$view" WORKLOADS); do
		p="$seq,$cfg,$state,$(row_workload "$view" "$w" "$CPUS"),$rep,ok"
		for parser in $(recipe "$view" PARSERS); do
			"parse_$parser" "$view" "$p" "$raw" "$w" "$cfg" || break
		done
	done
}

# plugin_args VIEW CONFIG RAW: run-guest's -p for the recipe's COUNT,
# where counts are exact (none elsewhere).
plugin_args() {
	local view=$1 cfg=$2 raw=$3
	accel_counts "$ACCEL_USED" || return 0
	case $(recipe "$view" COUNT) in
	marks)
		"$REPO_DIR/perf-scripts/plugin/ranges-from-systemmap.sh" \
			"$(kernel_build_dir "$cfg")/System.map" "$GATE_FUNC" "$IOWQ_FUNC" >"$raw/ranges.txt"
		printf '%s\n' -p "$PLUGIN,ranges=$raw/ranges.txt,out=$raw/plugin.txt,mark=$(plugin_mark "$cfg")"
		;;
	lines)
		write_line_ranges "$cfg" "$raw/ranges.txt"
		printf '%s\n' -p "$PLUGIN,ranges=$raw/ranges.txt,out=$raw/plugin.txt"
		;;
	whole)
		"$REPO_DIR/perf-scripts/plugin/ranges-from-systemmap.sh" \
			"$(kernel_build_dir "$cfg")/System.map" "$GATE_FUNC" >"$raw/ranges.txt"
		printf '%s\n' -p "$PLUGIN,ranges=$raw/ranges.txt,out=$raw/plugin.txt"
		;;
	esac
}

# one_boot VIEW SEQ CONFIG STATE CPUS REPEAT
one_boot() {
	local view=$1 seq=$2 cfg=$3 state=$4 rep=$6 raw env_args=()
	local -a plugin=()
	CPUS=$5
	raw=$DIR/raw/$(printf '%03d' "$seq")-$view-$cfg-$state-${CPUS}cpu-r$rep
	mkdir -p "$raw"
	mapfile -t plugin < <(plugin_args "$view" "$cfg" "$raw")
	env_args=(-e "STATE=$state" -e "WORKLOADS=$(recipe "$view" WORKLOADS)" -e "FIO_RUNTIME=$FIO_RUNTIME"
		-e "FIO_RAMP=$FIO_RAMP" -e "SWITCH_CYCLES=$SWITCH_CYCLES" -e "ERRCOST_IOS=$ERRCOST_IOS"
		-e "FIO_IOS=$FIO_IOS" -e "POLL_TAGS=$POLL_TAGS")
	# run-guest gives each vCPU its own socket and tsc=reliable
	boot_collect "$raw" "$seq $view $cfg $state ${CPUS}cpu r$rep" "$DIR" -c "$cfg" -a "$ACCEL_USED" \
		-t "$RUN_TIMEOUT" -s "$CPUS" ${plugin[@]+"${plugin[@]}"} -f "$BENCH_DIR/guest/fio" \
		-f "$BENCH_DIR/guest/state.sh" -f "$BENCH_DIR/guest/views-fio.sh" "${env_args[@]}" \
		"$BENCH_DIR/guest/$(recipe "$view" GUEST).sh" || :
	collect "$view" "$seq" "$cfg" "$state" "$rep" "$raw" >"$raw.rows"
}

# list VIEW...: each view's boots, "VIEW CONFIG STATE CPUS" a line.
list() {
	local v line
	for v in "$@"; do
		while read -r line; do printf '%s %s\n' "$v" "$line"; done < <(view_boots "$v")
	done
}

# record_views DIR VIEW...: what the report needs of each view's recipe,
# in meta.json: its DESCRIPTION (the section's title) and its rows'
# workloads.
record_views() {
	local dir=$1 v up cpus rows
	shift
	for v in "$@"; do
		up=${v^^}
		up=${up//-/_}
		meta_set "$dir" "VIEW_${up}_DESCRIPTION" "$(recipe "$v" DESCRIPTION)"
		rows=$(for cpus in $(recipe "$v" CPUS); do boot_workloads "$v" "$cpus"; done | awk '!s[$0]++' | one_line)
		meta_set "$dir" "VIEW_${up}_ROWS" "$rows"
	done
}

main() {
	local v cfg seq=0 k=0 n t0 tv line state cpus rep i
	local -a views boots
	# shellcheck disable=SC2153 # VIEWS, read from the plan
	read -r -a views <<<"$VIEWS"
	# the states of the views, in their order: meta.json's STATES, the
	# order of summary.csv's rows
	STATES=$(for v in "${views[@]}"; do recipe "$v" STATES; done)
	words_once STATES "$STATES"
	if [[ $MODE == list ]]; then
		list "${views[@]}"
		return
	fi
	for v in "${views[@]}"; do
		# shellcheck disable=SC2046 # a list of words
		check_built $(view_configs "$v")
	done
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
	words_once line "$(meta_get "$DIR" VIEWS)" "${views[*]}"
	meta_set "$DIR" VIEWS "$line"
	words_once line "$(meta_get "$DIR" SMP_WORKLOADS)" "$(for v in "${views[@]}"; do smp_workloads "$v"; done)"
	meta_set "$DIR" SMP_WORKLOADS "$line"
	record_views "$DIR" "${views[@]}"
	metrics_load "$(benchstat_bin)"
	t0=$EPOCHSECONDS
	for v in "${views[@]}"; do
		tv=$EPOCHSECONDS
		mapfile -t boots < <(view_boots "$v")
		n=$((${#boots[@]} * REPEATS))
		k=0
		log "views: $v ($(recipe "$v" DESCRIPTION)): $n boots under $ACCEL_USED"
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
		meta_set "$DIR" "VIEW_SECONDS_$v" "$((EPOCHSECONDS - tv))"
		log "views: $v done in $(fmt_duration $((EPOCHSECONDS - tv)))"
	done
	summarise "$DIR"
	log "views: done in $(fmt_duration $((EPOCHSECONDS - t0))): $DIR"
	printf '%s\n' "$DIR"
}

# drop_view VIEW: a view run again into RESULTS_DIR replaces its rows, raw
# output and footprint files there
drop_view() {
	local cpus pat="$1-all"
	for cpus in $(recipe "$1" CPUS); do
		pat+="|$(boot_workloads "$1" "$cpus" | sed 's/[.+]/[&]/g' | paste -sd'|' -)"
	done
	awk -F, -v pat="^($pat)\$" 'NR == 1 || $4 !~ pat' "$DIR/runs.csv" >"$DIR/runs.csv.tmp"
	mv "$DIR/runs.csv.tmp" "$DIR/runs.csv"
	rm -rf "$DIR"/raw/[0-9][0-9][0-9]-"$1"-*
	[[ " $(recipe "$1" PARSERS) " != *" footprint "* ]] || rm -rf "$DIR/footprint"
}

# view_command VIEW...: the command line that reproduces this part of the run
view_command() {
	printf "GUEST_JOBS=%s CONFIGS='%s' VIEW_STATES='%s' REPEATS=%s FIO_RUNTIME=%s FIO_RAMP=%s SWITCH_CYCLES=%s ERRCOST_IOS=%s FIO_IOS=%s POLL_TAGS=%s ACCEL=%s bench/run/views.sh %s" \
		"$GUEST_JOBS" "$CONFIGS" "$VIEW_STATES" "$REPEATS" "$FIO_RUNTIME" "$FIO_RAMP" "$SWITCH_CYCLES" "$ERRCOST_IOS" \
		"$FIO_IOS" "$POLL_TAGS" "$ACCEL_USED" "$*"
}

main
