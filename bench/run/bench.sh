#!/usr/bin/env bash
# The benchmark driver: fio on null_blk per config and injection state,
# summarised with medians, CIs and verdicts against "off".
#
# How boots are spent depends on the accelerator:
#   tcg-icount  guest time counts instructions, so a boot's history does
#               not move fio's numbers by more than boots differ anyway
#               (0.1% here, measured), and one boot per config measures
#               every state in turn (BOOTS=per-config); the insncount
#               plugin counts the instructions of submit_bio_noacct_nocheck
#               in the same boot (a counted fio job of FIO_IOS reads per
#               state; its counts are exact) and perf record of that job
#               for "perf annotate" runs after every measurement.
#   kvm, tcg    the host's time and state leak into every number, so each
#               config and state gets its own fresh boot (BOOTS=per-state),
#               REPEATS times, in a seeded random order.  With REPEATS_MAX
#               above REPEATS (the default: REPEATS=auto is 10, REPEATS_MAX
#               30) that is the sequential gate's first round: the rows
#               still undecided against BASELINE then get more boots, each
#               with one of the baseline's, round by round, until decided or
#               REPEATS_MAX or REPEATS_MINUTES is spent (bench/stats
#               README.md); the log states the plan at PLAN_NOISE before
#               the boots and at the noise measured after the first round.
#               Otherwise REPEATS=auto takes the n at which the matrix's
#               gating rows, judged together (Holm), can show one row 5%
#               slower in 90% of comparisons at PLAN_NOISE percent noise;
#               the log says n and the power at 2% and 5%.
#
#   bench.sh [-h | --settings | --list | --job ID | --plan-job ID DIR]
#     --settings  the settings in effect and where each came from
#                 (bench/plan/resolve --settings bench answers)
#     --list      the boots of the matrix, one job a line: "ID SEQ CONFIG
#                 REPEAT STATES" (SEQ: its place in the plan)
#     --job ID    run one job; its piece of results (no summary) goes to
#                 RESULTS_ROOT/RUN_ID; bench/lab/merge.sh joins the pieces
#     --plan-job ID DIR   start the piece of --job ID in DIR (plan.txt,
#                 meta.json) and describe its boot instead of booting:
#                 DIR/boot.env (SEQ CONFIG REPEAT STATES ACCEL TIMEOUT
#                 PLUGIN) and DIR/guest.env (the guest's environment),
#                 KEY=VALUE a line; for a lab that boots the job itself
#                 (bench/lab/lava-jobs.sh)
# Settings: the job file JOB_FILE (bench/plan/jobs/NAME.job or a path; default
# default), each overridden by the environment variable of the same name,
# resolved and checked before any work (bench/plan/settings.table has each
# one's default; the values below are those of default.job and the table):
#   CONFIGS="off on on-nojl nokey"   configs of the matrix
#   STATES="key-off key-on-other rules-1 rules-10 rules-100 rules-1000 match-chance"
#   BASELINE="off off"                the row every other is compared with
#   WORKLOADS="randread-qd1 randread-qd32"     fio jobs in bench/guest/fio
#   SOFTIRQ_WORKLOADS="randread-qd1"   also run with irqmode=1 in off and key-off
#   FIO_RUNTIME=1 FIO_RAMP=200ms (tcg-icount) or 2 and 500ms
#                                      per workload, in guest seconds
#   ACCEL=auto|kvm|tcg|tcg-icount      SEED=1  RUN_ID=<date>-<accel>
#   REPEATS=1 (tcg-icount) or auto     boots per config (per-config) or per row
#   REPEATS_MAX=30 REPEATS_MINUTES=0   kvm/tcg: the sequential gate's budget
#   PLAN_NOISE=1 THRESHOLD=1           kvm/tcg: the noise (sd, percent) REPEATS
#                                      plans for, the threshold compare uses
#   GUEST_JOBS=nproc (tcg-icount) or 1 boots at once (icount numbers do not
#                                      depend on it; kvm and tcg ones would)
#   BOOTS=per-config|per-state         default: per-config under tcg-icount
#   PLUGIN=1 FIO_IOS=20000 PERF_RECORD=1   tcg-icount only: counts, annotate
#   RUN_TIMEOUT=600                    seconds per state and boot
#   HOT_FUNCS="submit_bio_noacct_nocheck __blk_error_inject"   what the plugin counts
#   KSRC= SERIES=                      the kernels' source and series (bench/kernel/build.sh -h)
# Output: results/RUN_ID/ with runs.csv, summary.csv, summary.json, meta.json,
# plan.txt (the boots in order), raw.tar.xz (fio JSON and plugin counts of
# every boot) and annotate/.  The results directory is printed on stdout at
# the end.  Exit status: 1 a boot failed (all is written), 2 bad input,
# 3 when every boot that failed timed out (hung, or past RUN_TIMEOUT).
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
# what is in effect and where each came from: the resolver's answer
if [[ ${1:-} == --settings && $# == 1 ]]; then
	exec "$BENCH_DIR/plan/resolve" --settings bench
fi
driver_start bench,all,quick,job -- "$0" "$@"

MODE=all JOB_ID='' PLAN_DIR=''
case ${1:-} in
--list) MODE=list ;;
--job) MODE=job JOB_ID=${2:-} ;;
--plan-job) MODE=job JOB_ID=${2:-} PLAN_DIR=${3:-} ;;
'') ;;
*) die_bad_input "unknown argument '$1' (valid: -h, --settings, --list, --job ID, --plan-job ID DIR; settings come from the job file and the environment, see bench.sh -h)" ;;
esac
[[ -z $PLAN_DIR || $# == 3 ]] || die_bad_input "unexpected argument '$4' after --plan-job ID DIR"
[[ ${1:-} != --plan-job || -n $PLAN_DIR ]] || die_bad_input "usage: bench.sh --plan-job ID DIR (bench.sh --list prints the IDs)"
[[ $MODE != job || -n $PLAN_DIR || ($# == 2 && -n $JOB_ID) ]] || die_bad_input "usage: bench.sh --job ID (bench.sh --list prints the IDs)"
[[ $MODE == job || $# -le 1 ]] || die_bad_input "unexpected argument '$2' after $1"
# shellcheck source=bench/collect/fio.sh
. "$BENCH_DIR/collect/fio.sh"
# shellcheck source=bench/collect/plugin.sh
. "$BENCH_DIR/collect/plugin.sh"
# shellcheck source=bench/lib/sequential.sh
. "$BENCH_DIR/lib/sequential.sh"
# The settings are the resolved plan's, which the run keeps as plan.env;
# what auto stood for under the accelerator it chose is in it.
MY_PLAN=$BIB_PLAN
plan_read JOB_FILE CONFIGS STATES BASELINE WORKLOADS SOFTIRQ_WORKLOADS REPEATS BOOTS \
	FIO_RUNTIME FIO_RAMP FIO_IOS PLUGIN PERF_RECORD SEED RUN_TIMEOUT GUEST_JOBS THRESHOLD \
	PLAN_NOISE RUN_ID RESULTS_ROOT ACCEL_USED REPEATS_MAX REPEATS_MINUTES
hot_funcs_read

# states_of CONFIG: the states a config is measured in (a config without
# the feature, such as off and off-layout, has one: off).
states_of() {
	if has_feature "$1"; then echo "$STATES"; else echo off; fi
}

# make_plan: the boots, "SEQ CONFIG REPEAT STATE[,STATE...]" a line.
# per-config: repeat by repeat, configs in order; per-state: every row
# REPEATS times, shuffled with SEED.
make_plan() {
	local cfg state r
	# shellcheck disable=SC2153 # BOOTS, read from the plan
	if [[ $BOOTS == per-config ]]; then
		for ((r = 1; r <= REPEATS; r++)); do
			for cfg in $CONFIGS; do
				printf '%s %d %s\n' "$cfg" "$r" "$(states_of "$cfg" | tr ' ' ,)"
			done
		done | awk '{ print NR, $0 }'
		return
	fi
	while read -r cfg state; do
		for ((r = 1; r <= REPEATS; r++)); do
			printf '%s %d %s\n' "$cfg" "$r" "$state"
		done
	done < <(matrix_rows) |
		awk -v seed="$SEED" 'BEGIN { srand(seed) } { printf "%.12f %s\n", rand(), $0 }' |
		sort -k1,1 | cut -d' ' -f2- | awk '{ print NR, $0 }'
}

# csv_rows SEQ CONFIG REPEAT STATES RAW STATUS: runs.csv rows of one boot
# (the parsers of bench/collect).
csv_rows() {
	local seq=$1 cfg=$2 rep=$3 states=$4 raw=$5 status=$6 state w f ios
	local -a metrics
	mapfile -t metrics < <(fio_metrics)
	for state in ${states//,/ }; do
		while read -r w; do
			f=$raw/fio-$state-$w
			if [[ $status == 0 ]] && fio_ok "$f"; then
				collect_fio "$seq,$cfg,$state,$w,$rep,ok" "$f" "$ACCEL_USED"
			else
				collect_failed "$seq,$cfg,$state,$w,$rep" "${metrics[@]}"
			fi
		done < <(run_workloads "$state")
		[[ $COUNT_IOS != 0 && $PLUGIN == 1 ]] || continue
		f=$raw/fio-$state-$COUNTED
		ios=$(fio_ios "$f")
		if [[ $status == 0 && $ios =~ ^[1-9][0-9]*$ && -f $raw/plugin.txt ]]; then
			collect_plugin_marks "$seq,$cfg,$state,$COUNTED,$rep,ok" "$raw" "$state" "$ios" "${HOT_FUNC_LIST[@]}"
		else
			collect_failed "$seq,$cfg,$state,$COUNTED,$rep" insns_per_call
		fi
	done
}

# plugin_args CONFIG RAW: run-guest's -p for the counted functions, with a
# snapshot whenever the guest enters ksys_sync (bench/guest/bench.sh's marks).
plugin_args() {
	local cfg=$1 raw=$2 mark
	write_plugin_ranges "$cfg" "$raw/ranges.txt"
	mark=$(plugin_mark "$cfg")
	printf '%s\n' -p "$PLUGIN_SO,ranges=$raw/ranges.txt,out=$raw/plugin.txt,mark=$mark"
}

# boot_env STATES REPEAT CONFIG: the guest's environment of one boot,
# KEY=VALUE a line (run-guest -e; a lab's job carries the same).
boot_env() {
	printf '%s\n' "STATES=${1//,/ }" "WORKLOADS=$WORKLOADS" "SOFTIRQ_WORKLOADS=$SOFTIRQ_WORKLOADS" \
		"FIO_RUNTIME=$FIO_RUNTIME" "FIO_RAMP=$FIO_RAMP" "COUNT_IOS=$COUNT_IOS" \
		"PERF_RECORD=$([[ $2 == 1 ]] && echo "$PERF_RECORD" || echo 0)" \
		"BENCH_GATE_ADDR=$(gate_site "$(kernel_build_dir "$3")" || true)" \
		"BENCH_GATE_BRANCH=$(gate_branch "$(kernel_build_dir "$3")")"
}

# boot_timeout STATES: seconds a boot of STATES may take.
boot_timeout() {
	echo $((RUN_TIMEOUT * $(tr , '\n' <<<"$1" | wc -l)))
}

# one_boot SEQ CONFIG REPEAT STATES DIR: boot, collect, append rows; the
# status of run-guest (0, 1 failed, 3 timeout).
one_boot() {
	local seq=$1 cfg=$2 rep=$3 states=$4 dir=$5 raw status=0 s kv
	local -a extra=() envs=()
	raw=$dir/raw/$(printf '%03d' "$seq")-$cfg-r$rep
	[[ $BOOTS == per-config ]] || raw+=-$states
	mkdir -p "$raw"
	[[ $COUNT_IOS == 0 || $PLUGIN == 0 ]] || mapfile -t extra < <(plugin_args "$cfg" "$raw")
	while IFS= read -r kv; do envs+=(-e "$kv"); done < <(boot_env "$states" "$rep" "$cfg")
	boot_collect "$raw" "$seq $cfg r$rep $states" "$dir" -c "$cfg" -a "$ACCEL_USED" \
		-t "$(boot_timeout "$states")" "${extra[@]}" -f "$BENCH_DIR/guest/fio" \
		-f "$BENCH_DIR/guest/state.sh" "${envs[@]}" "$BENCH_DIR/guest/bench.sh" || status=$?
	for s in ${states//,/ }; do
		[[ -s $raw/perf-data-$s ]] || continue
		mkdir -p "$dir/annotate"
		annotate_gate "$raw/perf-data-$s" "$cfg" "$dir/annotate/$cfg-$s.txt"
	done
	rm -f "$raw"/perf-data-*
	csv_rows "$seq" "$cfg" "$rep" "$states" "$raw" "$status" >"$raw.rows"
	return "$status"
}

# reap: wait for the next boot to end; count it in failed, and in
# timed_out when it was a hung boot or a guest past its limit (run_boots's).
reap() {
	local status=0
	wait -n || status=$?
	((status == 0)) || failed=$((failed + 1))
	((status != STATUS_TIMEOUT)) || timed_out=$((timed_out + 1))
}

# choose_boots: what follows from the accelerator the plan chose
# (bench/plan/resolve probed it, and put what "auto" stands for under it
# into the plan: bench/lib/accel.sh accel_defaults).  Where counts are
# exact (a second of guest time is ~170000 reads, repeats agree within
# 0.1%, boots at once do not disturb each other) the counted job runs in
# every state; elsewhere REPEATS=auto is the n that powers the matrix.
choose_boots() {
	if accel_counts "$ACCEL_USED"; then
		COUNT_IOS=$FIO_IOS
	else
		COUNT_IOS=0 PERF_RECORD=0
		plan_repeats
	fi
}

# gating_rows: how many gating sampled rows a comparison of two runs of
# this matrix judges together under kvm/tcg: IOPS per workload of every
# row, and with a vPMU (kvm) the cycles per I/O perf.sh adds per row in
# make's main job.
gating_rows() {
	local cfg state rows=0
	local -a ws
	while read -r cfg state; do
		run_workloads_into ws "$state"
		rows=$((rows + ${#ws[@]}))
		! accel_pmu "$ACCEL_USED" || rows=$((rows + 1))
	done < <(matrix_rows)
	echo "$rows"
}

# plan_repeats: REPEATS where counts are not exact.  auto takes benchstat
# plan's n; either way the log says what the matrix can show at that n.
plan_repeats() {
	local rows plan auto='' given=()
	if [[ $REPEATS == auto ]]; then auto=' (auto)'; else given=(--repeats "$REPEATS"); fi
	rows=$(gating_rows)
	# the sequential gate's first round (bench/lib/sequential.sh), when
	# REPEATS_MAX leaves room for more
	((REPEATS_MAX <= 10)) || [[ -z $auto ]] || REPEATS=10
	[[ $REPEATS == auto ]] || SEQ_DESIGN=$(seq_design)
	if [[ -n ${SEQ_DESIGN:-} ]]; then
		plan=$("$(benchstat_bin)" seq-plan --rows "$rows" --noise "$PLAN_NOISE" --threshold "$THRESHOLD" \
			--first "$REPEATS" --max "$REPEATS_MAX" | sed -n 2p) || die "benchstat seq-plan failed"
		REPEATS_PLAN=$plan
		log "bench: REPEATS=$REPEATS$auto under $ACCEL_USED, then up to REPEATS_MAX=$REPEATS_MAX for the rows still undecided (the sequential gate); $PLAN_NOISE% noise assumed (PLAN_NOISE): $plan"
		return
	fi
	plan=$("$(benchstat_bin)" plan --rows "$rows" --noise "$PLAN_NOISE" --threshold "$THRESHOLD" \
		${given[@]+"${given[@]}"}) || die "benchstat plan failed"
	REPEATS_PLAN=$plan
	[[ -z $auto ]] || REPEATS=$(sed -n 's/^n=\([0-9]*\) .*/\1/p' <<<"$plan")
	[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || die "benchstat plan said '$plan'"
	log "bench: REPEATS=$REPEATS$auto under $ACCEL_USED: $(plan_words "$plan")"
}

# plan_words PLAN: benchstat plan's line for people.
plan_words() {
	awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		END {
			printf "%s gating rows judged together (Holm), %s%% noise assumed (PLAN_NOISE), threshold %s%%: ", v["rows"], v["noise_pct"], v["threshold_pct"]
			if (v["reachable"] == "no")
				printf "UNDERPOWERED: no row can be shown slower at n=%s (n >= %s needed); ", v["n"], v["need"]
			printf "one row 2%% slower is found with probability %s, 5%% slower %s; an unchanged series passes with %s\n", v["power_2pct"], v["power_5pct"], v["pass_0pct"]
		}' <<<"$1"
}

main() {
	local dir line plan_file
	local -a boots
	# shellcheck disable=SC2086 # a list of words
	[[ $MODE != all ]] || check_built $CONFIGS
	# shellcheck disable=SC2086
	[[ $MODE != all || $PLUGIN == 0 ]] || hot_funcs_check $CONFIGS
	choose_boots
	plan_file=$(mktemp)
	# shellcheck disable=SC2064 # the path now: plan_file is local to main
	trap "rm -f '$plan_file'" EXIT
	make_plan >"$plan_file"
	if [[ $MODE == list ]]; then
		plan_jobs "$BOOTS" <"$plan_file"
		return
	fi
	if [[ $MODE == job ]]; then
		line=$(plan_jobs "$BOOTS" <"$plan_file" | awk -v id="$JOB_ID" '$1 == id { $1 = ""; sub(/^ /, ""); print }')
		[[ -n $line ]] || die_bad_input "unknown job '$JOB_ID' under $ACCEL_USED (valid: $(plan_jobs "$BOOTS" <"$plan_file" | cut -d' ' -f1 | one_line))"
		boots=("$line")
		check_built "$(cut -d' ' -f2 <<<"$line")"
		[[ $PLUGIN == 0 ]] || hot_funcs_check "$(cut -d' ' -f2 <<<"$line")"
	else
		mapfile -t boots <"$plan_file"
	fi
	log "bench: accelerator $ACCEL_USED, $BOOTS boots"
	[[ $RUN_ID != auto ]] || RUN_ID=$(date -u +%Y%m%d-%H%M%S)-$ACCEL_USED${JOB_ID:+-$JOB_ID}
	dir=${PLAN_DIR:-$(results_root)/$RUN_ID}
	[[ ! -e $dir ]] || die_bad_input "$dir exists already"
	mkdir -p "$dir/raw"
	mv "$plan_file" "$dir/plan.txt"
	keep_plan "$dir"
	start_meta "$dir"
	if [[ -n $PLAN_DIR ]]; then
		rmdir "$dir/raw"
		plan_boot "$dir" "${boots[0]}"
		return
	fi
	[[ $COUNT_IOS == 0 || $PLUGIN == 0 ]] || PLUGIN_SO=$(plugin_so)
	run_boots "$dir" "${boots[@]}"
}

# plan_boot DIR PLAN_LINE: --plan-job's description of the job's boot.
plan_boot() {
	local dir=$1 seq cfg rep states
	read -r seq cfg rep states <<<"$2"
	printf '%s\n' "SEQ=$seq" "CONFIG=$cfg" "REPEAT=$rep" "STATES=$states" "ACCEL=$ACCEL_USED" \
		"TIMEOUT=$(boot_timeout "$states")" "PLUGIN=$([[ $COUNT_IOS != 0 && $PLUGIN == 1 ]] && echo 1 || echo 0)" \
		>"$dir/boot.env"
	boot_env "$states" "$rep" "$cfg" >"$dir/guest.env"
	printf '%s\n' "$dir"
}

# keep_plan DIR: the resolved plan into the run, and the run into the
# list of runs made on this machine (the default RESULTS of make plots,
# report and disasm).
keep_plan() {
	[[ -n $MY_PLAN && ! -e $1/plan.env ]] || return 0
	cp "$MY_PLAN" "$1/plan.env"
}

# start_meta DIR: meta.json; a job's piece names its job and the build
# of its own config only (a lab host may have built no other).
start_meta() {
	local dir=$1 all=$CONFIGS
	[[ $MODE != job ]] || CONFIGS=${JOB_ID%%.*}
	write_meta "$dir" "$ACCEL_USED" "$BENCH_COMMAND" "REPEATS=$REPEATS" "REPEATS_PLAN=${REPEATS_PLAN:-}" "SEED=$SEED" \
		"REPEATS_MAX=$REPEATS_MAX" "SEQUENTIAL=$([[ $MODE == all ]] && echo "${SEQ_DESIGN:-}")" \
		"FIO_RUNTIME=$FIO_RUNTIME" "FIO_RAMP=$FIO_RAMP" "WORKLOADS=$WORKLOADS" \
		"SOFTIRQ_WORKLOADS=$SOFTIRQ_WORKLOADS" "BOOTS=$BOOTS" "FIO_IOS=$COUNT_IOS" "PLUGIN=$PLUGIN" \
		"JOB_FILE=$(basename "$JOB_FILE")"
	CONFIGS=$all
	[[ $MODE != job ]] || meta_set "$dir" CONFIGS "$CONFIGS"
	[[ $MODE != job ]] || meta_set "$dir" JOB_ID "$JOB_ID"
}

# run_boots DIR PLAN_LINE...: boot each, then raw.tar.xz; a whole run
# also summarises, a job leaves that to bench/lab/merge.sh.
run_boots() {
	local dir=$1 n seq cfg rep states failed=0 timed_out=0 line
	shift
	n=$(wc -l <"$dir/plan.txt")
	job_plan_start "$dir/job-plan"
	for line in "$@"; do
		read -r seq cfg rep states <<<"$line"
		printf '%s#%s %s\n' "$(boot_key "$cfg" "$states")" "$seq" "$(boot_estimate "$cfg" "$states")"
	done | job_plan_replace bench
	log "bench: $# of $n boots under $ACCEL_USED into $dir"
	BOOTS_T0=$EPOCHSECONDS
	prepare_boots "$@"
	metrics_load "$(benchstat_bin)"
	BOOTS_PLANNED=$n boot_lines "$dir" first_label "$@"
	BOOTED=("$@")
	[[ $MODE != all || -z ${SEQ_DESIGN:-} ]] || more_rounds "$dir"
	job_step_end
	join_rows "$dir"
	rm -f "$dir"/raw/*.rows
	tar -C "$dir" -cJf "$dir/raw.tar.xz" raw
	rm -rf "$dir/raw"
	[[ $JOB_PLAN != "$dir/job-plan" ]] || rm -f "$JOB_PLAN"*
	if [[ $MODE == all ]]; then
		summarise "$dir"
		# The code beside the counts: each config against the baseline's.
		# shellcheck disable=SC2086 # a list of words
		static_answer "$dir" "${BASELINE%% *}" $CONFIGS
		log "bench: $dir/summary.csv"
	fi
	printf '%s\n' "$dir"
	((failed > 0)) || return 0
	# Exit 3 when every failed boot timed out (bench/lib/status.sh).
	((timed_out < failed)) || DIE_STATUS=$STATUS_TIMEOUT
	die "$failed of $# boots failed (see $dir/failures.txt); their rows are marked failed"
}

# boot_lines DIR LABEL LINE...: one_boot of each "SEQ CONFIG REPEAT
# STATES" LINE into DIR, at most GUEST_JOBS at once, each a job step
# named by the function LABEL (given SEQ CONFIG REPEAT STATES); returns
# when every boot has ended.
boot_lines() {
	local dir=$1 label=$2 line seq cfg rep states
	shift 2
	for line in "$@"; do
		read -r seq cfg rep states <<<"$line"
		# a step starts with its boot
		while (($(jobs -rp | wc -l) >= GUEST_JOBS)); do
			reap
		done
		job_step "$(boot_key "$cfg" "$states")#$seq" "$("$label" "$seq" "$cfg" "$rep" "$states")"
		one_boot "$seq" "$cfg" "$rep" "$states" "$dir" &
	done
	while (($(jobs -rp | wc -l) > 0)); do
		reap
	done
}

# first_label SEQ CONFIG REPEAT STATES: a boot of the planned matrix
# (BOOTS_PLANNED boots)
first_label() {
	printf 'bench %s/%s (boot %s/%s, repeat %s/%s)\n' "$2" "${4//,/ }" "$1" "$BOOTS_PLANNED" "$3" "$REPEATS"
}

# round_label SEQ CONFIG REPEAT STATE: a boot of the sequential gate's
# round SEQ_ROUND
round_label() {
	printf 'bench %s/%s (round %s, repeat %s)\n' "$2" "$4" "$SEQ_ROUND" "$3"
}

# join_rows DIR: DIR/runs.csv, the rows of every boot in BOOTED in plan
# order, whichever boot finished first.
join_rows() {
	local line
	{
		printf 'seq,config,state,workload,repeat,status,metric,value\n'
		for line in "${BOOTED[@]}"; do
			cat "$1/raw/$(printf '%03d' "${line%% *}")"-*.rows
		done
	} >"$1/runs.csv"
}

# more_rounds DIR: the sequential gate's rounds after the first: the
# rows benchstat sequential leaves undecided against BASELINE get boots,
# repeat by repeat, each row's after the baseline's, added to plan.txt and
# BOOTED; DIR/sequential.txt has each look's verdicts.
more_rounds() {
	local dir=$1 round=2 start=$BOOTS_T0 seq line cfg state r
	local -a todo=() words=() add=() order=()
	local -A last=()
	mapfile -t words < <(seq_args "$SEQ_DESIGN")
	while read -r seq cfg r states; do
		((r <= ${last[$cfg $states]:-0})) || last[$cfg $states]=$r
	done <"$dir/plan.txt"
	seq=$(wc -l <"$dir/plan.txt")
	while :; do
		join_rows "$dir"
		rm -f "$dir/next"
		{
			printf '=== look after round %d: %d boots, %d s ===\n' $((round - 1)) "${#BOOTED[@]}" $((EPOCHSECONDS - start))
			# its lines on stderr; the summary itself is made at the end
			{ "$(benchstat_bin)" "${words[@]}" --next "$dir/next" summary --accel "$ACCEL_USED" \
				--baseline-config "${BASELINE% *}" --baseline-state "${BASELINE#* }" \
				"$dir/runs.csv" >/dev/null || true; } 2>&1
		} >>"$dir/sequential.txt"
		[[ -f $dir/next ]] || die "benchstat sequential failed (see $dir/sequential.txt)"
		[[ -s $dir/next ]] || break
		mapfile -t todo < <(seq_targets "$dir/next")
		add=()
		mapfile -t order < <(seq_order "${todo[@]}")
		for line in "${order[@]}"; do
			read -r cfg state r <<<"$line"
			seq=$((seq + 1))
			add+=("$seq $cfg $r $state")
			last[$cfg $state]=$r
		done
		if ! seq_round_fits "$start" "${#BOOTED[@]}" "${#add[@]}"; then
			log "bench: the time budget (REPEATS_MINUTES=$REPEATS_MINUTES) has no room for round $round (${#add[@]} boots): the rows still open end undecided"
			break
		fi
		log "bench: round $round of the sequential gate: ${#add[@]} boots for ${#todo[@]} rows still undecided"
		printf '%s\n' "${add[@]}" >>"$dir/plan.txt"
		SEQ_ROUND=$round boot_lines "$dir" round_label "${add[@]}"
		BOOTED+=("${add[@]}")
		round=$((round + 1))
	done
	rm -f "$dir/next"
	meta_set "$dir" BOOTS_DONE "${#BOOTED[@]}"
}

# prepare_boots PLAN_LINE...: what boots would otherwise make at once
# (the guest images, the gate's address tool), made once beforehand.
prepare_boots() {
	local cfg
	"$BENCH_DIR/vm/image.sh" base >/dev/null
	for cfg in $(printf '%s\n' "$@" | cut -d' ' -f2 | sort -u); do
		"$BENCH_DIR/vm/image.sh" modules "$cfg" >/dev/null
		gate_site "$(kernel_build_dir "$cfg")" >/dev/null || true
	done
}

# boot_estimate CONFIG STATES: seconds, from the last boot like it or a
# rough default (10 s to boot, about 12 s per guest second of fio under TCG).
boot_estimate() {
	local cfg=$1 states=$2 key
	key=$(boot_key "$cfg" "$states")
	step_estimate "$key" "$(awk -v n="$(tr , '\n' <<<"$states" | wc -l)" -v w="$(wc -w <<<"$WORKLOADS")" \
		-v rt="$FIO_RUNTIME" -v j="$GUEST_JOBS" 'BEGIN { printf "%d", (10 + n * (w * (rt + 0.5) * 12 + 8)) / j }')"
}

boot_key() {
	printf 'boot:%s:%s:%s:%s:%s:%s:x%s\n' "$1" "$2" "${WORKLOADS// /+}" "$FIO_RUNTIME" "$FIO_RAMP" "$COUNT_IOS" "$GUEST_JOBS"
}

main "$@"
