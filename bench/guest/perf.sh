#!/bin/sh
# Guest side of one perf run: set up the state, run a fixed-count fio job
# under "perf stat", then under "perf record", and print the results in
# "=== NAME ===" ... "=== end ===" blocks: perf-stat (CSV), fio (JSON),
# perf-report (text) and perf-data (base64, for annotate on the host).
#
# Environment: STATE, FIO_IOS, PERF_PERIOD_NS (cpu-clock sampling period).
set -eu
# shellcheck source=bench/guest/state.sh
. /bench/state.sh

block() {
	echo "=== $1 ==="
	cat "$2"
	echo "=== end ==="
}

load_nullb irqmode=0
setup_state "$STATE"
events=task-clock,cpu-clock
if perf stat -e cycles,instructions true >/dev/null 2>&1; then
	events=$events,cycles,instructions
	echo "perf: hardware PMU available" >&2
else
	echo "perf: no hardware PMU (cycles not supported), software events only" >&2
fi
export FIO_DEV=$TARGET_DEV
perf stat -x, -e "$events" -o /tmp/stat.csv -- \
	fio --output-format=json /bench/fio/count-randread-qd1.fio >/tmp/fio.json
block perf-stat /tmp/stat.csv
block "fio count-randread-qd1" /tmp/fio.json
perf record -q -e cpu-clock -c "${PERF_PERIOD_NS:-20000}" -o /tmp/perf.data -- \
	fio --output-format=json /bench/fio/count-randread-qd1.fio >/dev/null
perf report -i /tmp/perf.data --stdio --sort sym 2>/dev/null | grep -v '^#' | grep -v '^$' >/tmp/report.txt
block perf-report /tmp/report.txt
base64 /tmp/perf.data >/tmp/perf.b64
block perf-data /tmp/perf.b64
unload_nullb
