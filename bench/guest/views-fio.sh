# shellcheck shell=sh
# Shared by the fio views' guest scripts (bench/views.sh): null_blk with the
# view's parameters, the injection state, each workload's fio JSON between
# "=== fio WORKLOAD ===" and "=== end ===" lines.  Needs /bench/state.sh.
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
		echo "=== fio $w ==="
		FIO_DEV=$TARGET_DEV fio --output-format=json "/bench/fio/$w.fio"
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
