#!/bin/sh
# Guest side of one benchmark run: set up null_blk and the injection state,
# run each fio workload, print each result as a JSON document between
# "=== fio WORKLOAD ===" and "=== end ===" lines.
#
# Environment: STATE, WORKLOADS (fio job names in /bench/fio), FIO_RUNTIME,
# FIO_RAMP, and SOFTIRQ_WORKLOADS (also run with null_blk irqmode=1).
set -eu
# shellcheck source=bench/guest/state.sh
. /bench/state.sh

run_fio() {
	echo "=== fio $2 ==="
	FIO_DEV=$TARGET_DEV fio --output-format=json "/bench/fio/$1.fio"
	echo "=== end ==="
}

load_nullb irqmode=0
setup_state "$STATE"
for w in $WORKLOADS; do
	run_fio "$w" "$w"
done
if [ -n "${SOFTIRQ_WORKLOADS:-}" ]; then
	unload_nullb
	load_nullb irqmode=1
	setup_state "$STATE"
	for w in $SOFTIRQ_WORKLOADS; do
		run_fio "$w" "$w-softirq"
	done
fi
unload_nullb
