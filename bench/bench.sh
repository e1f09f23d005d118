#!/usr/bin/env bash
# The benchmark driver: fio IOPS on null_blk per config and injection state,
# each run in a fresh boot, repeated and interleaved in a seeded random
# order, summarised with medians, CIs and verdicts against "off".
#
# Settings (environment):
#   REPEATS=5              runs per config and state
#   BENCH_CONFIGS="off on on-nojl nokey"
#   STATES="key-off key-on-other rules-1 rules-10 rules-100 rules-1000 match-chance"
#   WORKLOADS="randread-qd1 randread-qd32"     fio jobs in bench/fio
#   SOFTIRQ_WORKLOADS="randread-qd1"   also run with irqmode=1 in off and key-off
#   FIO_RUNTIME=2 FIO_RAMP=500ms       per workload, in guest seconds
#   ACCEL=auto|kvm|tcg|tcg-icount      SEED=1  RUN_ID=<date>-<accel>
#   RUN_TIMEOUT=600                    seconds per boot
# Output: results/RUN_ID/ with runs.csv, summary.csv, summary.json, meta.env,
# plan.txt (the run order) and raw/ (fio JSON of every run).  Progress goes
# to stderr; the results directory is printed on stdout at the end.
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=bench/results.sh
. "$BENCH_DIR/results.sh"

REPEATS=${REPEATS:-5}
WORKLOADS=${WORKLOADS:-randread-qd1 randread-qd32}
SOFTIRQ_WORKLOADS=${SOFTIRQ_WORKLOADS-randread-qd1}
FIO_RUNTIME=${FIO_RUNTIME:-2}
FIO_RAMP=${FIO_RAMP:-500ms}
SEED=${SEED:-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-600}
METRICS=(iops lat_ns io_errors)

# The run plan: every row REPEATS times, shuffled with SEED.
make_plan() {
	local row r
	while read -r row; do
		for ((r = 1; r <= REPEATS; r++)); do
			printf '%s %d\n' "$row" "$r"
		done
	done < <(matrix_rows) |
		awk -v seed="$SEED" 'BEGIN { srand(seed) } { printf "%.12f %s\n", rand(), $0 }' |
		sort -k1,1 | cut -d' ' -f2- | awk '{ print NR, $0 }'
}

# Workloads of a run, the softirq variants only for off and key-off.
run_workloads() {
	local state=$1 w
	for w in $WORKLOADS; do printf '%s\n' "$w"; done
	if [[ $state == off || $state == key-off ]]; then
		for w in $SOFTIRQ_WORKLOADS; do printf '%s-softirq\n' "$w"; done
	fi
}

# csv_rows SEQ CONFIG STATE REPEAT DIR: runs.csv rows of one run.
csv_rows() {
	local seq=$1 cfg=$2 state=$3 rep=$4 dir=$5 w f m status
	while read -r w; do
		f=$dir/fio-$w
		if [[ -s $f ]] && jq -e '.jobs[0].read.total_ios > 0' "$f" >/dev/null 2>&1; then
			jq -r --arg p "$seq,$cfg,$state,$w,$rep,ok" '
				.jobs[0] as $j |
				"\($p),iops,\($j.read.iops)",
				"\($p),lat_ns,\($j.read.clat_ns.mean)",
				"\($p),io_errors,\($j.total_err)"' "$f"
		else
			status=failed
			for m in "${METRICS[@]}"; do
				printf '%s,%s,%s,%s,%s,%s,%s,\n' "$seq" "$cfg" "$state" "$w" "$rep" "$status" "$m"
			done
		fi
	done < <(run_workloads "$state")
}

main() {
	local accel cfg dir n k=0 seq state rep t0 now elapsed eta raw status workloads
	local -a plan
	for cfg in $BENCH_CONFIGS; do
		[[ -f $(kernel_build_dir "$cfg")/.blkinject-stamp ]] ||
			die "config $cfg is not built: run 'make kernels'"
	done
	accel=$("$BENCH_DIR/run-guest" -A -c on -a "${ACCEL:-auto}") || die "cannot choose an accelerator"
	RUN_ID=${RUN_ID:-$(date -u +%Y%m%d-%H%M%S)-$accel}
	dir=$REPO_DIR/results/$RUN_ID
	[[ ! -e $dir ]] || die "$dir exists already"
	mkdir -p "$dir/raw"
	write_meta "$dir" "$accel" "REPEATS=$REPEATS BENCH_CONFIGS='$BENCH_CONFIGS' STATES='$STATES' WORKLOADS='$WORKLOADS' SOFTIRQ_WORKLOADS='$SOFTIRQ_WORKLOADS' FIO_RUNTIME=$FIO_RUNTIME FIO_RAMP=$FIO_RAMP BASELINE='$BASELINE' ACCEL=$accel SEED=$SEED make bench"
	printf 'REPEATS=%s\nSEED=%s\nFIO_RUNTIME=%s\nFIO_RAMP=%s\nWORKLOADS=%q\nSOFTIRQ_WORKLOADS=%q\n' \
		"$REPEATS" "$SEED" "$FIO_RUNTIME" "$FIO_RAMP" "$WORKLOADS" "$SOFTIRQ_WORKLOADS" >>"$dir/meta.env"
	make_plan >"$dir/plan.txt"
	mapfile -t plan <"$dir/plan.txt"
	n=${#plan[@]}
	log "bench: $n runs ($REPEATS repeats of $(matrix_rows | wc -l) config/state rows) under $accel, into $dir"
	printf 'seq,config,state,workload,repeat,status,metric,value\n' >"$dir/runs.csv"
	t0=$(date +%s)
	for line in "${plan[@]}"; do
		read -r seq cfg state rep <<<"$line"
		k=$((k + 1))
		now=$(date +%s)
		elapsed=$((now - t0))
		eta=$((k > 1 ? elapsed * (n - k + 1) / (k - 1) : 0))
		log "[run $k/$n] config=$cfg state=$state repeat $rep/$REPEATS (elapsed $(fmt_duration $elapsed), left ~$(fmt_duration $eta))"
		raw=$dir/raw/$(printf '%03d' "$seq")-$cfg-$state-r$rep
		workloads=$(run_workloads "$state" | grep -v -- '-softirq$' | tr '\n' ' ')
		status=0
		"$BENCH_DIR/run-guest" -c "$cfg" -a "$accel" -t "$RUN_TIMEOUT" -o "$raw.boot" \
			-f "$BENCH_DIR/fio" -f "$BENCH_DIR/guest/state.sh" -e "STATE=$state" -e "WORKLOADS=$workloads" \
			-e "SOFTIRQ_WORKLOADS=$([[ $state == off || $state == key-off ]] && echo "$SOFTIRQ_WORKLOADS")" \
			-e "FIO_RUNTIME=$FIO_RUNTIME" -e "FIO_RAMP=$FIO_RAMP" \
			"$BENCH_DIR/guest/bench-guest.sh" >"$raw.log" 2>&1 || status=$?
		mkdir -p "$raw"
		if [[ $status == 0 ]]; then
			split_blocks "$raw.boot/result.log" "$raw"
		else
			log "[run $k/$n] FAILED: $(sed -n 's/^verdict=//p' "$raw.boot/meta") (log: $raw.log); marked failed, not averaged"
			printf '%s %s %s r%s: %s\n' "$seq" "$cfg" "$state" "$rep" \
				"$(sed -n 's/^verdict=//p' "$raw.boot/meta")" >>"$dir/failures.txt"
			cp "$raw.boot/console.log" "$raw/console.log"
		fi
		cp "$raw.boot/meta" "$raw/boot-meta"
		rm -rf "$raw.boot" "$raw.log"
		csv_rows "$seq" "$cfg" "$state" "$rep" "$raw" >>"$dir/runs.csv"
	done
	summarise "$dir"
	log "bench: done in $(fmt_duration $(($(date +%s) - t0))): $dir/summary.csv"
	column -s, -t <"$dir/summary.csv" | cut -c1-160 >&2
	printf '%s\n' "$dir"
}

main "$@"
