#!/bin/sh
# The guest side of a LAVA job (bench/lab/lava-jobs.sh writes it in as
# /bench/script): the shard's boot exactly as bench.sh --job makes it
# (bench/guest/bench.sh with the job's environment), then each value the host
# needs for the job's rows on the console, a line each, for the job's
# monitors test action:
#
#   BIB-LAVA CASE VALUE UNIT
#     STATE/WORKLOAD/METRIC   every row bench/collect/fio-rows.jq makes of a fio run
#     STATE/WORKLOAD/total_ios   the reads of that run (0: fio did nothing)
#     STATE/count-randread-qd1/total_ios, .../mark_first, .../mark_last
#                             the counted run: its reads and the plugin's
#                             snapshots around it (COUNT_IOS > 0)
#     guest/kernel_reports    dmesg lines /etc/kernel-report.ere matches
#     guest/rc                bench.sh's exit status (last line)
#
# The plugin's snapshots ("insncount mN...", written by QEMU on the same
# console) come while the boot measures; every BIB-LAVA line comes after
# the last of them, so nothing the guest prints can split one.  perf
# record's blocks are not sent: annotate stays with local runs.
set -u
COUNTED=count-randread-qd1

# case_line CASE VALUE UNIT
case_line() {
	echo "BIB-LAVA $1 $2 $3"
}

# unit METRIC: what a metric counts, for LAVA's "units".
unit() {
	case $1 in
	iops) echo iops ;;
	*_ns) echo ns ;;
	insns_per_io) echo insns ;;
	io_errors) echo errors ;;
	total_ios) echo ios ;;
	mark_*) echo mark ;;
	*) echo count ;;
	esac
}

# fio_cases STATE WORKLOAD FILE: the reads of one fio run and, but for
# the counted run (its rows are the plugin's), its rows.
fio_cases() {
	_ios=$(jq -r '.jobs[0].read.total_ios // 0' "$3" 2>/dev/null) || _ios=0
	case_line "$1/$2/total_ios" "${_ios:-0}" ios
	[ "${_ios:-0}" != 0 ] && [ "$2" != $COUNTED ] || return 0
	jq -r --arg p "$1/$2" --arg icount "$([ "$BENCH_ACCEL" = tcg-icount ] && echo 1)" \
		-f /bench/fio-rows.jq "$3" | while IFS=, read -r _p _m _v; do
		case_line "$_p/$_m" "$_v" "$(unit "$_m")"
	done
}

# send_blocks LOG: the cases of bench/guest/bench.sh's output, block by block
# ("=== fio STATE WORKLOAD ===" and "=== marks ===", "STATE FIRST LAST").
send_blocks() {
	awk '/^=== end ===$/ { if (f != "") close(f); f = ""; next }
		/^=== (fio .*|marks) ===$/ { n++; f = "/tmp/block-" n
			print substr($0, 5, length($0) - 8) > (f ".name"); close(f ".name")
			printf "" > f; next }
		f != "" { print > f }' "$1"
	for _name in /tmp/block-*.name; do
		[ -f "$_name" ] || continue
		# shellcheck disable=SC2046 # "fio STATE WORKLOAD ===": words
		set -- $(cat "$_name")
		if [ "$1" = fio ]; then
			fio_cases "$2" "$3" "${_name%.name}"
		else
			while read -r _s _first _last; do
				case_line "$_s/$COUNTED/mark_first" "$_first" mark
				case_line "$_s/$COUNTED/mark_last" "$_last" mark
			done <"${_name%.name}"
		fi
	done
}

main() {
	rc=0
	sh /bench/bench.sh >/tmp/blocks || rc=$?
	# From here on every line goes to the console, where LAVA reads.
	exec >/dev/console
	send_blocks /tmp/blocks
	case_line guest/kernel_reports \
		"$(dmesg | grep -Ec "^\[ *[0-9]+\.[0-9]+\] ($(cat /etc/kernel-report.ere))")" reports
	case_line guest/rc "$rc" rc
	return "$rc"
}

main
