#!/usr/bin/env bash
# A finished LAVA job of bench/lab/lava-jobs.sh back into our rows: the
# job's piece of results as bench.sh --job would have written it (runs.csv,
# plan.txt, meta.json, raw.tar.xz), for bench/lab/merge.sh, the summary and the
# KCIDB export.
#
#   lava-results.sh [-o DIR] JOBDIR LOG
#     JOBDIR   the job's folder that lava-jobs.sh made (piece/, boot.env,
#              guest.env)
#     LOG      the finished job's log: what lava-run writes on stderr, or
#              the job log a lava-server gives (YAML, "- {dt, lvl, msg}" a
#              line), or the job's results a lava-server exports (YAML, a
#              list of test cases: suite, name, result, measurement, unit,
#              metadata)
#     -o DIR   the piece (default RESULTS_ROOT/RUN_ID, RUN_ID from the
#              job's meta.json); it must not exist
#
# The rows are those of bench.sh's collection: the fio rows the guest sent
# (bench/collect/fio-rows.jq run in the guest) and the plugin's instructions per
# call from the snapshots QEMU wrote around each counted run.  Only a job
# log has the console, so only with a log are kernel panics and reports on
# the console found here; the guest's own count of reports in dmesg comes
# either way.
#
# Exit status: 0 the piece is written; 1 the job failed (LAVA's error, a
# kernel panic or report, the guest script's status, a run without I/O,
# no plugin counts): the reason and the console's tail, and nothing
# written; 2 bad input: not a LAVA log or results, a case that is
# missing, repeated, unknown or not a number (also usage errors).
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lab/lava.sh
. "$HERE/lava.sh"
lab_start lava-results 'CACHE RESULTS_ROOT' "$0" "$@"
# shellcheck source=bench/collect/plugin.sh
. "$BENCH_DIR/collect/plugin.sh"

SPLAT_RE="^\\[ *[0-9]+\\.[0-9]+\\] ($(cat "$BENCH_DIR/guest/kernel-report.ere"))"

# normalise JSON: the input as {form, results, console}: every result as
# {suite, case, id, result, measurement, units, error}, id the monitor's
# test_case_id (a server keeps it in the metadata's extra), and the
# console's lines (a log's "target" lines; none in exported results).
normalise() {
	jq '
		def tcid: (if type == "array" then add elif type == "object" then . else {} end) // {} | .test_case_id;
		def error_of: [.error_type, .error_msg] | map(select(. != null and . != "") | tostring | sub("\\s+$"; "")) | join(": ");
		if type != "array" or length == 0 then error("not a list of log lines or test cases")
		elif all(.[]; type == "object" and has("lvl") and has("msg")) then {
			form: "log",
			results: [.[] | select(.lvl == "results") | .msg | select(type == "object") |
				{suite: .definition, case, id: (.extra | tcid // null), result, measurement, units,
				 error: error_of, extra}],
			console: [.[] | select(.lvl == "target") | .msg | strings]}
		elif all(.[]; type == "object" and has("suite") and has("name") and has("result")) then {
			form: "results",
			results: [.[] | {suite, case: .name, id: (.metadata.extra | tcid // null), result,
				measurement, units: .unit, error: (.metadata // {} | error_of),
				extra: (.metadata.extra | if type == "array" then add else . end)}],
			console: []}
		else error("neither a LAVA job log (dt, lvl, msg) nor LAVA results (suite, name, result)") end' "$1"
}

# console_reason: why the console says the guest failed, if it does.
console_reason() {
	local line
	line=$(jq -r '.console[]' "$NORM" | grep 'Kernel panic' | sed -n 1p || true)
	[[ -z $line ]] || { printf 'kernel panic: %s\n' "$line"; return; }
	line=$(jq -r '.console[]' "$NORM" | grep -E "$SPLAT_RE" | sed -n 1p || true)
	[[ -z $line ]] || printf 'kernel report: %s\n' "${line:0:120}"
}

# job_failed REASON: the job's failure, with the console's tail; exit 1.
job_failed() {
	local reason
	reason=$(console_reason)
	{
		printf 'error: %s: %s%s\n' "$JOB_ID" "$1" "${reason:+ ($reason)}"
		if [[ $(jq '.console | length' "$NORM") -gt 0 ]]; then
			printf -- '--- last 20 console lines of the job ---\n'
			jq -r '.console[-20:][]' "$NORM"
			printf -- '--- end ---\n'
		fi
		printf 'no rows written\n'
	} >&2
	exit "$STATUS_FAILED"
}

# lava_case SUITE CASE FIELD: a field of LAVA's own result SUITE/CASE.
lava_case() {
	jq -r --arg s "$1" --arg c "$2" --arg f "$3" \
		'[.results[] | select(.suite == $s and .case == $c)] | last | .[$f] // empty | tostring' "$NORM"
}

# load_values: VALUE[id] for every case of our suite; dies on a malformed one.
load_values() {
	local bad id v
	bad=$(jq -r --arg s "$LAVA_SUITE" '
		[.results[] | select(.suite == $s)] |
		(map(select((.id | type) != "string" or (.id | test("^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$") | not)))
			| first | if . then "a case without a valid test_case_id: \(.case)" else empty end),
		(map(select((.measurement | tostring | test("^-?[0-9][0-9.]*([eE][-+]?[0-9]+)?$")) | not))
			| first | if . then "case \(.id): measurement \(.measurement | tojson) is not a number" else empty end),
		(group_by(.id) | map(select(length > 1)) | first | if . then "case \(.[0].id) is there \(length) times" else empty end)
		' "$NORM" | sed -n 1p)
	[[ -z $bad ]] || die "$LOG: $bad"
	while IFS=$'\t' read -r id v; do
		VALUE[$id]=$v
	done < <(jq -r --arg s "$LAVA_SUITE" '.results[] | select(.suite == $s) | [.id, (.measurement | tostring | tonumber)] | @tsv' "$NORM")
}

# value ID: V=VALUE[ID], marked as used; dies when the log lacks it.
value() {
	[[ -n ${VALUE[$1]+set} ]] || die "$LOG: no case $1 (the job's plan expects it)"
	USED[$1]=1
	V=${VALUE[$1]}
}

# fio_metrics: the metrics bench/collect/fio-rows.jq makes of a run, in its order.
fio_metrics() {
	jq -r --arg p x --arg icount "$(! accel_exact "$ACCEL_USED" || echo 1)" -f "$BENCH_DIR/collect/fio-rows.jq" \
		<<<'{"jobs": [{"read": {"iops": 1, "clat_ns": {"mean": 1, "percentile": {}}}, "total_err": 0}]}' |
		cut -d, -f2
}

# plugin_file RAW: RAW/plugin.txt, the plugin's snapshots in its own
# format ("mark N", "NAME entries=E insns=I"), from the insncount cases.
plugin_file() {
	local id
	local -a lines=()
	for id in "${!VALUE[@]}"; do
		[[ $id =~ ^(m[0-9]+|end)\. ]] || continue
		USED[$id]=1
		lines+=("$id"$'\t'"${VALUE[$id]}")
	done
	[[ ${#lines[@]} -gt 0 ]] || return 0
	printf '%s\n' "${lines[@]}" | sort | awk -F'\t' '
		# SNAP.NAME.FIELD; a function name may hold dots itself
		{ snap = substr($1, 1, index($1, ".") - 1); rest = substr($1, index($1, ".") + 1)
		  field = rest; sub(/.*\./, "", field); name = rest; sub(/\.[^.]*$/, "", name)
		  mark = snap == "end" ? 999999999 : substr(snap, 2) + 0
		  marks[mark] = 1
		  if (field != "entries" && field != "insns") next
		  v[mark, name, field] = $2
		  if (!((mark, name) in seen)) { seen[mark, name] = 1; names[mark] = names[mark] " " name } }
		END {
			for (m in marks) order[++k] = m + 0
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (order[j] < order[i]) { t = order[i]; order[i] = order[j]; order[j] = t }
			for (i = 1; i <= k; i++) {
				m = order[i]
				print (m == 999999999 ? "end" : "mark " m)
				c = split(names[m], nm, " ")
				for (j = 1; j <= c; j++) printf "%s entries=%s insns=%s\n", nm[j], v[m, nm[j], "entries"], v[m, nm[j], "insns"]
			}
		}' >"$1/plugin.txt"
}

# has_counts: the log has a snapshot of the plugin's counters.
has_counts() {
	local id
	for id in "${!VALUE[@]}"; do
		[[ ! $id =~ ^m[0-9]+\. ]] || return 0
	done
	return 1
}

# rows RAW: the job's runs.csv rows, in bench.sh's order.
rows() {
	local raw=$1 state w m ios first last p
	local -a metrics
	mapfile -t metrics < <(fio_metrics)
	for state in ${STATES//,/ }; do
		while read -r w; do
			value "$state/$w/total_ios"
			[[ $V != 0 ]] || job_failed "fio did no I/O in $state $w"
			for m in "${metrics[@]}"; do
				value "$state/$w/$m"
				collect_row "$SEQ,$CONFIG,$state,$w,$REPEAT,ok" "$m" "$V"
			done
		done < <(run_workloads "$state")
		[[ $PLUGIN == 1 ]] || continue
		p=$state/$COUNTED
		value "$p/total_ios"
		ios=$V
		value "$p/mark_first"
		first=$V
		value "$p/mark_last"
		last=$V
		[[ $ios != 0 ]] || job_failed "the counted fio run did no I/O in $state"
		printf '%s %s %s\n' "$state" "$first" "$last" >>"$raw/marks"
		collect_plugin_marks "$SEQ,$CONFIG,$state,$COUNTED,$REPEAT,ok" "$raw" "$state" "$ios" "${HOT_FUNC_LIST[@]}"
	done
}

# check_guest: the guest's own verdict, and the console's.
check_guest() {
	local reason
	if [[ -z ${VALUE[guest/rc]+set} ]]; then
		[[ $(lava_case lava lava-test-monitor result) != fail ]] ||
			job_failed "LAVA's monitors stopped before the guest's last line ($(lava_case lava lava-test-monitor error))"
	fi
	value guest/rc
	[[ $V == 0 ]] || job_failed "the guest script failed with rc=$V"
	value guest/kernel_reports
	[[ $V == 0 ]] || job_failed "$V kernel report lines in the guest's dmesg"
	reason=$(console_reason)
	[[ -z $reason ]] || job_failed "$reason"
}

# set_boot JOBDIR: the job's boot (boot.env) and guest settings (guest.env).
set_boot() {
	local k
	local -A boot guest
	env_lines boot "$1/boot.env"
	env_lines guest "$1/guest.env"
	for k in SEQ CONFIG REPEAT STATES ACCEL PLUGIN; do
		[[ -n ${boot[$k]:-} ]] || die "$1/boot.env has no $k: not a job folder of lava-jobs.sh"
		printf -v "$k" '%s' "${boot[$k]}"
	done
	for k in WORKLOADS SOFTIRQ_WORKLOADS COUNT_IOS; do
		[[ -n ${guest[$k]+set} ]] || die "$1/guest.env has no $k: not a job folder of lava-jobs.sh"
		printf -v "$k" '%s' "${guest[$k]}"
	done
	# shellcheck disable=SC2153 # set above with printf -v
	ACCEL_USED=$ACCEL
	[[ $COUNT_IOS != 0 ]] || PLUGIN=0
}

# write_piece JOBDIR OUT: the piece, built aside and moved into place.
write_piece() {
	local jobdir=$1 out=$2 tmp raw id qemu
	tmp=$(mktemp -d "$(dirname "$out")/.lava-results.XXXXXX")
	TMP_PIECE=$tmp
	raw=$tmp/raw/$(printf '%03d' "$SEQ")-$CONFIG-r$REPEAT
	mkdir -p "$raw"
	cp "$jobdir/piece/plan.txt" "$jobdir/piece/meta.json" "$jobdir/boot.env" "$tmp/"
	mv "$tmp/boot.env" "$raw/boot.env"
	cp "$LOG" "$raw/lava-$(basename "$LOG")"
	[[ $PLUGIN == 0 ]] || plugin_file "$raw"
	{
		printf 'seq,config,state,workload,repeat,status,metric,value\n'
		rows "$raw"
	} >"$tmp/runs.csv"
	for id in "${!VALUE[@]}"; do
		[[ -n ${USED[$id]:-} || $id == guest/* ]] || die "$LOG: unknown case $id (not one of the job's)"
	done
	qemu=$(jq -r '[.results[] | select(.suite == "lava" and .case == "execute-qemu")] | last | .extra.qemu_version // empty' "$NORM")
	meta_set "$tmp" RUN_BY "LAVA ($FORM of $(basename "$LOG"), bench/lab/lava-results.sh)"
	meta_set "$tmp" HOST_CPU "unknown (LAVA worker)"
	meta_set "$tmp" HOST_KERNEL "unknown (LAVA worker)"
	if [[ -n $qemu && $(meta_get "$tmp" QEMU) != *"(Debian $qemu)"* ]]; then
		meta_set "$tmp" QEMU "qemu-system-x86 $qemu (Debian package, LAVA worker)"
	fi
	tar -C "$tmp" -cJf "$tmp/raw.tar.xz" raw
	rm -rf "$tmp/raw"
	mv "$tmp" "$out"
	TMP_PIECE=''
	chmod 755 "$out"
}

main() {
	local out='' jobdir status
	local -A VALUE=() USED=()
	help_option "$0" -o out "$@"
	shift $((OPTIND - 1))
	[[ $# -eq 2 ]] || help_usage "$0"
	jobdir=$1 LOG=$2
	[[ -f $jobdir/piece/meta.json && -f $jobdir/boot.env ]] || die "$jobdir is not a job folder of lava-jobs.sh (no piece/meta.json, boot.env)"
	[[ -f $LOG && -r $LOG ]] || die "$LOG: no such file"
	set_boot "$jobdir"
	JOB_ID=$(meta_get "$jobdir/piece" JOB_ID)
	# the functions the job's plugin counted: its piece's, not a setting here
	read -r -a HOT_FUNC_LIST <<<"$(meta_get "$jobdir/piece" HOT_FUNCS)"
	out=${out:-$(results_root)/$(meta_get "$jobdir/piece" RUN_ID)}
	[[ ! -e $out ]] || die "$out exists already"
	mkdir -p "$(dirname "$out")"
	NORM=$(mktemp) TMP_PIECE=''
	trap 'rm -rf "$NORM" "$NORM.json" ${TMP_PIECE:+"$TMP_PIECE"}' EXIT
	yaml_to_json "$LOG" >"$NORM.json" 2>"$NORM" || die "$LOG: $(tail -1 "$NORM")"
	normalise "$NORM.json" >"$NORM" 2>/dev/null ||
		die "$LOG: $(normalise "$NORM.json" 2>&1 >/dev/null | sed 's/^jq: error ([^)]*): //' | sed -n 1p)"
	FORM=$(jq -r .form "$NORM")
	status=$(lava_case lava job result)
	[[ -n $status ]] || die "$LOG: no result for the whole job (lava/job): not a finished LAVA job's $FORM"
	[[ $status == pass ]] || job_failed "the LAVA job failed: $(lava_case lava job error)"
	load_values
	check_guest
	[[ $PLUGIN == 0 ]] || has_counts ||
		job_failed "no insncount counts in the log: the device must run QEMU with the insncount plugin (tag insncount)"
	metrics_load "$(benchstat_bin)"
	write_piece "$jobdir" "$out"
	log "lava-results: $JOB_ID: $(($(wc -l <"$out/runs.csv") - 1)) rows into $out"
	printf '%s\n' "$out"
}

main "$@"
