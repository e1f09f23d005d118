#!/bin/sh
# Guest side of one benchmark boot: for each state of STATES in turn, load
# null_blk, set the state up, run each fio workload, tear the state down
# and check that nothing of it is left; then the softirq variants (null_blk
# irqmode=1) for the idle states.  One state per boot is the fresh-boot
# mode (KVM, TCG); several in one boot is the icount mode, where a boot's
# history does not change what fio measures (see README).
#
# Results are blocks between "=== NAME ===" and "=== end ===" lines:
#   fio STATE WORKLOAD     fio's JSON
#   marks                  "STATE FIRST LAST": the plugin snapshots around
#                          the counted workload (COUNT_IOS > 0)
#   perf-report STATE, perf-data STATE   perf record of the counted
#                          workload (PERF_RECORD=1), after every state
#
# Environment: STATES, WORKLOADS (fio job names in /bench/fio), FIO_RUNTIME,
# FIO_RAMP, SOFTIRQ_WORKLOADS (run with irqmode=1 in states off and key-off),
# COUNT_IOS (0: no counted workload), PERF_RECORD (0/1), BENCH_GATE_ADDR
# and BENCH_GATE_BRANCH (the jump-label site and its branch bit, to check
# that the key is off between states).
set -eu
# shellcheck source=bench/guest/state.sh
. /bench/state.sh

COUNT_IOS=${COUNT_IOS:-0}
MARK=0
MARKS=/tmp/marks

run_fio() {
	echo "=== fio $1 $3 ==="
	FIO_DEV=$TARGET_DEV fio --output-format=json "/bench/fio/$2.fio"
	echo "=== end ==="
}

# mark: a snapshot of the plugin's counters (it snapshots when the guest
# enters ksys_sync); nothing else in the guest calls sync(2) until init
# powers off.
mark() {
	sync
	MARK=$((MARK + 1))
}

# The counted workload: a fixed number of reads between two marks.
run_counted() {
	mark
	_first=$MARK
	echo "=== fio $1 count-randread-qd1 ==="
	FIO_DEV=$TARGET_DEV FIO_IOS=$COUNT_IOS fio --output-format=json /bench/fio/count-randread-qd1.fio
	echo "=== end ==="
	mark
	echo "$1 $_first $MARK" >>"$MARKS"
}

# no_residue STATE: after teardown no rule, no dm device, no BPF program
# on should_fail_bio, the key off.
no_residue() {
	for _d in nullb0 nullb1; do
		if [ -e "$EI/$_d/error_injection" ] && [ -n "$(cat "$EI/$_d/error_injection")" ]; then
			echo "state $1: rules left on $_d" >&2
			return 1
		fi
	done
	if [ -e /dev/mapper/peer ]; then
		echo "state $1: dm device left" >&2
		return 1
	fi
	if [ -e /sys/fs/bpf/failbio ] || grep -qs should_fail_bio /sys/kernel/debug/kprobes/list; then
		echo "state $1: fail-bio still attached" >&2
		return 1
	fi
	if [ "$(gate_key)" = on ]; then
		echo "state $1: the static key is still on" >&2
		return 1
	fi
}

# teardown_state STATE: undo setup_state, then unload null_blk.
teardown_state() {
	for _d in nullb0 nullb1; do
		[ ! -e "$EI/$_d/error_injection" ] || rule "$_d" removeall
	done
	[ ! -e /sys/fs/bpf/failbio ] || failbio detach
	if [ "$1" = fmr-p0 ]; then
		echo 0 >/sys/block/nullb0/make-it-fail
		echo 1 >/sys/kernel/debug/fail_make_request/times
	fi
	unload_nullb
	TARGET_DEV=/dev/nullb0
	no_residue "$1"
}

: >"$MARKS"
for s in $STATES; do
	load_nullb irqmode=0
	setup_state "$s"
	for w in $WORKLOADS; do
		run_fio "$s" "$w" "$w"
	done
	[ "$COUNT_IOS" = 0 ] || run_counted "$s"
	teardown_state "$s"
	case $s in off | key-off) ;; *) continue ;; esac
	[ -n "${SOFTIRQ_WORKLOADS:-}" ] || continue
	load_nullb irqmode=1
	setup_state "$s"
	for w in $SOFTIRQ_WORKLOADS; do
		run_fio "$s" "$w" "$w-softirq"
	done
	teardown_state "$s"
done
if [ "$COUNT_IOS" != 0 ]; then
	echo "=== marks ==="
	cat "$MARKS"
	echo "=== end ==="
fi
# perf record samples with timer interrupts, which change what runs after
# it: only once every measurement of the boot is done.
if [ "$PERF_RECORD" = 1 ]; then
	for s in $STATES; do
		load_nullb irqmode=0
		setup_state "$s"
		FIO_DEV=$TARGET_DEV FIO_IOS=$COUNT_IOS perf record -q -e cpu-clock \
			-c "${PERF_PERIOD_NS:-20000}" -o /tmp/perf.data -- \
			fio --output-format=json /bench/fio/count-randread-qd1.fio >/dev/null
		echo "=== perf-report $s ==="
		perf report -i /tmp/perf.data --stdio --sort sym 2>/dev/null | grep -v '^#' | grep -v '^$' || true
		echo "=== end ==="
		echo "=== perf-data $s ==="
		base64 /tmp/perf.data
		echo "=== end ==="
		rm -f /tmp/perf.data
		teardown_state "$s"
	done
fi
