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
#               REPEATS=5 times, in a seeded random order.
#
#   bench.sh [-h]
# Settings (environment):
#   CONFIGS="off on on-nojl nokey"   configs of the matrix
#   STATES="key-off key-on-other rules-1 rules-10 rules-100 rules-1000 match-chance"
#   WORKLOADS="randread-qd1 randread-qd32"     fio jobs in bench/fio
#   SOFTIRQ_WORKLOADS="randread-qd1"   also run with irqmode=1 in off and key-off
#   FIO_RUNTIME=2 FIO_RAMP=500ms       per workload, in guest seconds
#   ACCEL=auto|kvm|tcg|tcg-icount      SEED=1  RUN_ID=<date>-<accel>
#   REPEATS=2 (tcg-icount) or 5        boots per config (per-config) or per row
#   BOOTS=per-config|per-state         default: per-config under tcg-icount
#   PLUGIN=1 FIO_IOS=20000 PERF_RECORD=1   tcg-icount only: counts, annotate
#   RUN_TIMEOUT=600                    seconds per state and boot
#   HOT_FUNCS="submit_bio_noacct_nocheck __blk_error_inject"   what the plugin counts
#   KSRC= SERIES=                      the kernels' source and series (kernel.sh -h)
# Output: results/RUN_ID/ with runs.csv, summary.csv, summary.json, meta.env,
# plan.txt (the boots in order), raw.tar.xz (fio JSON and plugin counts of
# every boot) and annotate/.  The results directory is printed on stdout at
# the end.  Exit status 1 when any boot failed (after writing everything).
set -euo pipefail
shopt -s inherit_errexit

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

case ${1:-} in
-h | --help) sed -n '2,35s/^# \{0,1\}//p' "$0"; exit 0 ;;
'') ;;
*) die "unknown argument '$1' (bench.sh takes settings from the environment; see bench.sh -h)" ;;
esac
[[ -z ${BENCH_CONFIGS:-} ]] || die "BENCH_CONFIGS is now CONFIGS (one name for the configs everywhere)"
# shellcheck source=bench/results.sh
. "$BENCH_DIR/results.sh"

WORKLOADS=${WORKLOADS-randread-qd1 randread-qd32}
SOFTIRQ_WORKLOADS=${SOFTIRQ_WORKLOADS-randread-qd1}
FIO_RUNTIME=${FIO_RUNTIME:-2}
FIO_RAMP=${FIO_RAMP:-500ms}
FIO_IOS=${FIO_IOS:-20000}
SEED=${SEED:-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-600}
PLUGIN=${PLUGIN:-1}
PERF_RECORD=${PERF_RECORD:-1}
METRICS=(iops lat_ns lat_p50_ns lat_p99_ns lat_p999_ns io_errors)
COUNTED=count-randread-qd1

check_settings() {
	local w
	# shellcheck disable=SC2086 # lists of words
	check_configs $CONFIGS
	# shellcheck disable=SC2086
	check_states $STATES
	# shellcheck disable=SC2086
	check_workloads $WORKLOADS $SOFTIRQ_WORKLOADS
	check_accel "${ACCEL:-auto}"
	for w in REPEATS:"${REPEATS:-1}" FIO_RUNTIME:"$FIO_RUNTIME" FIO_IOS:"$FIO_IOS" SEED:"$SEED" RUN_TIMEOUT:"$RUN_TIMEOUT"; do
		[[ ${w#*:} =~ ^[0-9]+$ ]] || die "${w%%:*}=${w#*:}: expected a number"
	done
	[[ ${REPEATS:-1} -ge 1 ]] || die "REPEATS must be at least 1"
	[[ $PLUGIN == [01] && $PERF_RECORD == [01] ]] || die "PLUGIN and PERF_RECORD are 0 or 1"
	[[ -n $WORKLOADS || $FIO_IOS != 0 ]] || die "nothing to measure: WORKLOADS is empty and FIO_IOS=0"
	# shellcheck disable=SC2086 # a list of words
	check_built $CONFIGS
	# shellcheck disable=SC2086
	[[ $PLUGIN == 0 ]] || hot_funcs_check $CONFIGS
}

# states_of CONFIG: the states a config is measured in ("off" has one).
states_of() {
	if [[ $1 == off ]]; then echo off; else echo "$STATES"; fi
}

# make_plan: the boots, "SEQ CONFIG REPEAT STATE[,STATE...]" a line.
# per-config: repeat by repeat, configs in order; per-state: every row
# REPEATS times, shuffled with SEED.
make_plan() {
	local cfg state r
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

# Workloads of a state, the softirq variants only for off and key-off.
run_workloads() {
	local state=$1 w
	for w in $WORKLOADS; do printf '%s\n' "$w"; done
	if [[ $state == off || $state == key-off ]]; then
		for w in $SOFTIRQ_WORKLOADS; do printf '%s-softirq\n' "$w"; done
	fi
}

# fio_rows PREFIX FILE: the metrics of one fio result.  Under icount guest
# time is instructions, so the time per I/O inside fio's job is the
# instructions per I/O (fio's own start and exit left out).
fio_rows() {
	jq -r --arg p "$1" --arg icount "$([[ $ACCEL_USED == tcg-icount ]] && echo 1)" '
		.jobs[0] as $j | $j.read.clat_ns.percentile as $pc |
		"\($p),iops,\($j.read.iops)",
		"\($p),lat_ns,\($j.read.clat_ns.mean)",
		"\($p),lat_p50_ns,\($pc["50.000000"])",
		"\($p),lat_p99_ns,\($pc["99.000000"])",
		"\($p),lat_p999_ns,\($pc["99.900000"])",
		"\($p),io_errors,\($j.total_err)",
		(if $icount == "1" then "\($p),insns_per_io,\(1e9 / $j.read.iops)" else empty end)' "$2"
}

# plugin_delta FILE FIRST LAST FUNC FIELD: a counter's growth between marks.
plugin_delta() {
	awk -v a="$2" -v b="$3" -v f="$4" -v k="$5" '
		$1 == "mark" { m = $2; next }
		$1 == "end" { m = -1; next }
		$1 == f && (m == a || m == b) {
			for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) v[m] = kv[2] }
		}
		END { if ((a in v) && (b in v)) print v[b] - v[a] }' "$1"
}

# plugin_rows PREFIX RAW STATE IOS: instructions per call of each counted
# function over the state's counted fio job.
plugin_rows() {
	local p=$1 raw=$2 state=$3 ios=$4 first last f calls insns m
	read -r first last < <(awk -v s="$state" '$1 == s { print $2, $3 }' "$raw/marks")
	[[ -n $last ]] || return 0
	for f in "${HOT_FUNC_LIST[@]}"; do
		calls=$(plugin_delta "$raw/plugin.txt" "$first" "$last" "$f" entries)
		insns=$(plugin_delta "$raw/plugin.txt" "$first" "$last" "$f" insns)
		[[ -n $calls && $calls != 0 ]] || continue
		printf '%s,%s,%s\n' "$p" "$(plugin_metric "$f")" "$(awk -v a="$insns" -v b="$calls" 'BEGIN { printf "%.4f", a / b }')"
		[[ $f != submit_bio_noacct_nocheck ]] ||
			printf '%s,calls_per_io,%s\n' "$p" "$(awk -v a="$calls" -v b="$ios" 'BEGIN { printf "%.4f", a / b }')"
	done
}

# csv_rows SEQ CONFIG REPEAT STATES RAW STATUS: runs.csv rows of one boot.
csv_rows() {
	local seq=$1 cfg=$2 rep=$3 states=$4 raw=$5 status=$6 state w f m ios
	for state in ${states//,/ }; do
		while read -r w; do
			f=$raw/fio-$state-$w
			if [[ $status == 0 && -s $f ]] && jq -e '.jobs[0].read.total_ios > 0' "$f" >/dev/null 2>&1; then
				fio_rows "$seq,$cfg,$state,$w,$rep,ok" "$f"
			else
				for m in "${METRICS[@]}"; do
					printf '%s,%s,%s,%s,%s,failed,%s,\n' "$seq" "$cfg" "$state" "$w" "$rep" "$m"
				done
			fi
		done < <(run_workloads "$state")
		[[ $COUNT_IOS != 0 && $PLUGIN == 1 ]] || continue
		f=$raw/fio-$state-$COUNTED
		ios=$(jq -r '.jobs[0].read.total_ios' "$f" 2>/dev/null || echo 0)
		if [[ $status == 0 && $ios =~ ^[1-9][0-9]*$ && -f $raw/plugin.txt ]]; then
			plugin_rows "$seq,$cfg,$state,$COUNTED,$rep,ok" "$raw" "$state" "$ios"
		else
			printf '%s,%s,%s,%s,%s,failed,insns_per_call,\n' "$seq" "$cfg" "$state" "$COUNTED" "$rep"
		fi
	done
}

# plugin_args CONFIG RAW: run-guest's -p for the counted functions, with a
# snapshot whenever the guest enters ksys_sync (bench-guest.sh's marks).
plugin_args() {
	local cfg=$1 raw=$2 map mark
	map=$(kernel_build_dir "$cfg")/System.map
	write_plugin_ranges "$cfg" "$raw/ranges.txt"
	mark=$(awk '$3 == "ksys_sync" { print "0x" $1; exit }' "$map")
	[[ -n $mark ]] || die "$map has no ksys_sync for the plugin's marks"
	printf '%s\n' -p "$PLUGIN_SO,ranges=$raw/ranges.txt,out=$raw/plugin.txt,mark=$mark"
}

# one_boot SEQ CONFIG REPEAT STATES DIR: boot, collect, append rows; 1 if failed.
one_boot() {
	local seq=$1 cfg=$2 rep=$3 states=$4 dir=$5 raw status=0 gate s nstates
	local -a extra=()
	raw=$dir/raw/$(printf '%03d' "$seq")-$cfg-r$rep
	[[ $BOOTS == per-config ]] || raw+=-$states
	mkdir -p "$raw"
	[[ $COUNT_IOS == 0 || $PLUGIN == 0 ]] || mapfile -t extra < <(plugin_args "$cfg" "$raw")
	gate=$(gate_site "$(kernel_build_dir "$cfg")" || true)
	nstates=$(tr , '\n' <<<"$states" | wc -l)
	"$BENCH_DIR/run-guest" -c "$cfg" -a "$ACCEL_USED" -t $((RUN_TIMEOUT * nstates)) -o "$raw/boot" \
		"${extra[@]}" -f "$BENCH_DIR/fio" -f "$BENCH_DIR/guest/state.sh" \
		-e "STATES=${states//,/ }" -e "WORKLOADS=$WORKLOADS" -e "SOFTIRQ_WORKLOADS=$SOFTIRQ_WORKLOADS" \
		-e "FIO_RUNTIME=$FIO_RUNTIME" -e "FIO_RAMP=$FIO_RAMP" -e "COUNT_IOS=$COUNT_IOS" \
		-e "PERF_RECORD=$([[ $rep == 1 ]] && echo "$PERF_RECORD" || echo 0)" -e "BENCH_GATE_ADDR=$gate" \
		"$BENCH_DIR/guest/bench-guest.sh" >"$raw/run.log" 2>&1 || status=$?
	cp "$raw/boot/meta" "$raw/boot-meta"
	if [[ $status == 0 ]]; then
		split_blocks "$raw/boot/result.log" "$raw"
		for s in ${states//,/ }; do
			[[ -s $raw/perf-data-$s ]] || continue
			mkdir -p "$dir/annotate"
			annotate_gate "$raw/perf-data-$s" "$cfg" "$dir/annotate/$cfg-$s.txt"
		done
	else
		log "boot $seq: FAILED: $(sed -n 's/^verdict=//p' "$raw/boot/meta") (console in $raw)"
		printf '%s %s r%s %s: %s\n' "$seq" "$cfg" "$rep" "$states" \
			"$(sed -n 's/^verdict=//p' "$raw/boot/meta")" >>"$dir/failures.txt"
		cp "$raw/boot/console.log" "$raw/console.log"
	fi
	rm -rf "${raw:?}/boot" "$raw"/perf-data-* "$raw/run.log"
	csv_rows "$seq" "$cfg" "$rep" "$states" "$raw" "$status" >>"$dir/runs.csv"
	[[ $status == 0 ]]
}

main() {
	local dir n seq cfg rep states failed=0
	local -a plan
	check_settings
	ACCEL_USED=$("$BENCH_DIR/run-guest" -A -c "${CONFIGS%% *}" -a "${ACCEL:-auto}")
	if [[ $ACCEL_USED == tcg-icount ]]; then
		BOOTS=${BOOTS:-per-config} REPEATS=${REPEATS:-2} COUNT_IOS=$FIO_IOS
	else
		BOOTS=${BOOTS:-per-state} REPEATS=${REPEATS:-5} COUNT_IOS=0 PERF_RECORD=0
	fi
	[[ $BOOTS == per-state || ($BOOTS == per-config && $ACCEL_USED == tcg-icount) ]] ||
		die "BOOTS=$BOOTS: valid are per-state, and per-config under tcg-icount only (a boot's history changes kvm and tcg numbers)"
	[[ $COUNT_IOS != 0 || -n $WORKLOADS ]] || die "nothing to measure under $ACCEL_USED: WORKLOADS is empty"
	log "bench: accelerator $ACCEL_USED, $BOOTS boots"
	[[ $COUNT_IOS == 0 || $PLUGIN == 0 ]] || PLUGIN_SO=$(plugin_so)
	RUN_ID=${RUN_ID:-$(date -u +%Y%m%d-%H%M%S)-$ACCEL_USED}
	dir=${RESULTS_ROOT:-$REPO_DIR/results}/$RUN_ID
	[[ ! -e $dir ]] || die "$dir exists already"
	mkdir -p "$dir/raw"
	write_meta "$dir" "$ACCEL_USED" "$BENCH_COMMAND" "REPEATS=$REPEATS" "SEED=$SEED" \
		"FIO_RUNTIME=$FIO_RUNTIME" "FIO_RAMP=$FIO_RAMP" "WORKLOADS=$WORKLOADS" \
		"SOFTIRQ_WORKLOADS=$SOFTIRQ_WORKLOADS" "BOOTS=$BOOTS" "FIO_IOS=$COUNT_IOS" "PLUGIN=$PLUGIN"
	make_plan >"$dir/plan.txt"
	mapfile -t plan <"$dir/plan.txt"
	n=${#plan[@]}
	job_plan_start "$dir/job-plan"
	while read -r seq cfg rep states; do
		printf '%s#%s %s\n' "$(boot_key "$cfg" "$states")" "$seq" "$(boot_estimate "$cfg" "$states")"
	done <"$dir/plan.txt" >"$dir/boots-plan"
	if [[ -s $JOB_PLAN ]]; then
		job_plan_replace bench <"$dir/boots-plan"
	else
		cp "$dir/boots-plan" "$JOB_PLAN"
	fi
	rm -f "$dir/boots-plan"
	log "bench: $n boots under $ACCEL_USED into $dir"
	printf 'seq,config,state,workload,repeat,status,metric,value\n' >"$dir/runs.csv"
	for line in "${plan[@]}"; do
		read -r seq cfg rep states <<<"$line"
		job_step "$(boot_key "$cfg" "$states")#$seq" "bench $cfg/${states//,/ } (boot $seq/$n, repeat $rep/$REPEATS)"
		one_boot "$seq" "$cfg" "$rep" "$states" "$dir" || failed=$((failed + 1))
	done
	job_step_end
	tar -C "$dir" -cJf "$dir/raw.tar.xz" raw
	rm -rf "$dir/raw"
	[[ $JOB_PLAN != "$dir/job-plan" ]] || rm -f "$JOB_PLAN"*
	summarise "$dir"
	log "bench: $dir/summary.csv"
	printf '%s\n' "$dir"
	((failed == 0)) || die "$failed of $n boots failed (see $dir/failures.txt); their rows are marked failed"
}

# boot_estimate CONFIG STATES: seconds, from the last boot like it or a
# rough default (10 s to boot, about 12 s per guest second of fio under TCG).
boot_estimate() {
	local cfg=$1 states=$2 key
	key=$(boot_key "$cfg" "$states")
	step_estimate "$key" "$(awk -v n="$(tr , '\n' <<<"$states" | wc -l)" -v w="$(wc -w <<<"$WORKLOADS")" \
		-v rt="$FIO_RUNTIME" 'BEGIN { printf "%d", 10 + n * (w * (rt + 0.5) * 12 + 8) }')"
}

boot_key() {
	printf 'boot:%s:%s:%s:%s:%s:%s\n' "$1" "$2" "${WORKLOADS// /+}" "$FIO_RUNTIME" "$FIO_RAMP" "$COUNT_IOS"
}

main "$@"
