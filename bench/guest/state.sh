# shellcheck shell=sh
# Shared by the benchmark guest scripts: null_blk set-up and the injection
# states of the matrix.

NULLB_PARAMS="nr_devices=2 gb=16 queue_mode=2 memory_backed=0 submit_queues=1 hw_queue_depth=64"
EI=/sys/kernel/debug/block
# fio reads the first 1 GiB of nullb0 (sectors 0-2097151); rules that must
# not match start past it.
SPARE_SECTOR=4194304

load_nullb() {
	# shellcheck disable=SC2086 # the parameters are words on purpose
	modprobe null_blk $NULLB_PARAMS "$@"
	while [ ! -b /dev/nullb1 ]; do sleep 0.1; done
}

# io_uring drops its file references from a workqueue after fio exits, so
# the module can be busy for a moment.
unload_nullb() {
	# --retry: the same io_uring delay keeps the dm device open briefly.
	# mknodes: without udev the node outlives the device; drop it (a
	# device still there keeps its node, which no_residue then sees).
	if [ -e /dev/mapper/peer ]; then
		dmsetup --noudevsync remove --retry peer
		dmsetup mknodes
	fi
	_i=0
	until rmmod null_blk 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -lt 100 ] || { rmmod null_blk; return; }
		sleep 0.1
	done
}

rule() {
	echo "$2" >"$EI/$1/error_injection"
}

# A dm table over nullb0: dm_table NAME TABLE.  No udev in the guest, so
# dmsetup makes the device node itself.
dm_table() {
	dmsetup --noudevsync create "$1" --table "$2"
	dmsetup mknodes "$1"
}

# The device fio runs on: nullb0, or a device-mapper device stacked on it.
# shellcheck disable=SC2034 # read by the scripts that source this file
TARGET_DEV=/dev/nullb0

# setup_state STATE: the rules of a state, on a freshly loaded null_blk.
# The peer states (issue "peer comparison") put another mechanism, idle,
# in nullb0's I/O path instead.
setup_state() {
	_sectors=$(cat /sys/block/nullb0/size)
	case $1 in
	off | key-off | ei-idle) ;;
	ei-rule) rule nullb0 "add,op=READ,start=$SPARE_SECTOR,nr_sectors=8,status=IOERR" ;;
	fmr-p0)
		echo 1 >/sys/block/nullb0/make-it-fail
		echo 0 >/sys/kernel/debug/fail_make_request/probability
		echo -1 >/sys/kernel/debug/fail_make_request/times
		;;
	dm-linear) dm_table peer "0 $_sectors linear /dev/nullb0 0" ;;
	dm-error-unused)
		dm_table peer "0 $SPARE_SECTOR linear /dev/nullb0 0
$SPARE_SECTOR $((_sectors - SPARE_SECTOR)) error"
		;;
	dm-flakey-up) dm_table peer "0 $_sectors flakey /dev/nullb0 0 3600 0" ;;
	dm-dust)
		dm_table peer "0 $_sectors dust /dev/nullb0 0 512"
		dmsetup message peer 0 enable
		;;
	# The BPF way (bench/guest/bpf): detached again after a rule, so what stays
	# of it is measured; attached without a rule; with ei-rule's rule.
	bpf-detached)
		failbio attach
		failbio add nullb0 "op=READ,start=$SPARE_SECTOR,nr_sectors=8"
		failbio detach
		;;
	bpf-idle) failbio attach ;;
	bpf-rule)
		failbio attach
		failbio add nullb0 "op=READ,start=$SPARE_SECTOR,nr_sectors=8,status=IOERR"
		;;
	key-on-other) rule nullb1 "add,op=READ,status=IOERR" ;;
	rules-*)
		_n=${1#rules-}
		_i=0
		# READ rules over sectors fio never reads: each is compared by
		# op and range, the most work a non-matching rule costs.
		while [ $_i -lt "$_n" ]; do
			rule nullb0 "add,op=READ,start=$((SPARE_SECTOR + _i * 8)),nr_sectors=8,status=IOERR"
			_i=$((_i + 1))
		done
		;;
	match-chance) rule nullb0 "add,op=READ,status=IOERR,chance=1000" ;;
	*) echo "unknown state $1" >&2; return 1 ;;
	esac
	# shellcheck disable=SC2034
	case $1 in dm-*) TARGET_DEV=/dev/mapper/peer ;; esac
	case $1 in
	bpf-*) echo "state $1: failbio rule: $(failbio show 2>&1 | sed 's/^$/none/')" >&2 ;;
	esac
	if [ -e "$EI/nullb0/error_injection" ]; then
		echo "state $1: $(wc -l <"$EI/nullb0/error_injection") rules on nullb0, $(wc -l <"$EI/nullb1/error_injection") on nullb1" >&2
	else
		echo "state $1: no error_injection file (feature compiled out)" >&2
	fi
}

# gate_key: "on" or "off", the error-injection static key's state read from
# the live bytes of its jump-label site (BENCH_GATE_ADDR): the kernel makes
# a site a JMP exactly when the key's state differs from the site's branch
# bit (BENCH_GATE_BRANCH, read from its __jump_table entry on the host), so
# a gate compiled with the other polarity jumps while the key is off.
# "unknown" without a site.
gate_key() {
	if [ -z "${BENCH_GATE_ADDR:-}" ]; then
		echo unknown
		return
	fi
	case $(kpeek "$BENCH_GATE_ADDR" 1) in
	e9 | eb) _jmp=1 ;;
	*) _jmp=0 ;;
	esac
	if [ "$_jmp" = "${BENCH_GATE_BRANCH:-0}" ]; then echo off; else echo on; fi
}
