# shellcheck shell=sh
# Shared by the fio views' guest scripts (bench/run/views.sh): null_blk with the
# view's parameters, the injection state, each workload's fio JSON between
# "=== fio WORKLOAD ===" and "=== end ===" lines, and after it a block
# "=== count WORKLOAD ===" with "READS FIRST LAST": the reads nullb0
# completed during the run (the block layer's count, so fio's ramp_time
# I/O is in it, unlike fio's total_ios) and the plugin's marks around it
# (sync(2) makes the plugin snapshot its counters; nothing else in the
# guest calls it before init powers off).  Needs /bench/state.sh.
#
# Environment: STATE, WORKLOADS, FIO_RUNTIME, FIO_RAMP.

# State rule-churn: no rule on nullb0 while a loop adds a rule to nullb1 and
# removes it again (each a static-key flip: every jump-label site patched,
# the CPUs synchronised), paced by CHURN_PAUSE seconds, for as long as fio
# runs.  Other states are bench/guest/state.sh's.
CHURN_PAUSE=${CHURN_PAUSE:-0.01}

churn_loop() {
	_n=0
	while [ -e /tmp/churn ]; do
		rule nullb1 "add,op=READ,status=IOERR"
		rule nullb1 removeall
		_n=$((_n + 1))
		sleep "$CHURN_PAUSE"
	done
	echo "$_n" >/tmp/churn-count
}

MARK=0

mark() {
	sync
	MARK=$((MARK + 1))
}

reads_done() {
	read -r _reads _ </sys/block/nullb0/stat
	echo "$_reads"
}

# run_view_fio NULLB_PARAM...: the whole run of one fio view
run_view_fio() {
	echo "=== cpus ==="
	nproc
	echo "=== end ==="
	load_nullb irqmode=0 "$@"
	if [ "$STATE" = rule-churn ]; then
		setup_state key-off
	else
		setup_state "$STATE"
	fi
	for w in $WORKLOADS; do
		if [ "$STATE" = rule-churn ]; then
			: >/tmp/churn
			churn_loop &
		fi
		_reads=$(reads_done)
		mark
		_first=$MARK
		echo "=== fio $w ==="
		FIO_DEV=$TARGET_DEV fio --output-format=json "/bench/fio/$w.fio"
		echo "=== end ==="
		mark
		echo "=== count $w ==="
		echo "$(($(reads_done) - _reads)) $_first $MARK"
		echo "=== end ==="
		if [ "$STATE" = rule-churn ]; then
			rm /tmp/churn
			wait
			echo "=== churn $w ==="
			cat /tmp/churn-count
			echo "=== end ==="
		fi
	done
	unload_nullb
}
