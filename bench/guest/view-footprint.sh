#!/bin/sh
# Guest side of the footprint view: a fixed count of qd1 reads (the
# per-call job of make perf) while the host's QEMU plugin counts the
# instructions executed in each 64-byte line of submit_bio_noacct_nocheck.
set -eu
# shellcheck source=bench/guest/state.sh
. /bench/state.sh

load_nullb irqmode=0
setup_state "$STATE"
echo "=== fio count-randread-qd1 ==="
FIO_DEV=$TARGET_DEV fio --output-format=json /bench/fio/count-randread-qd1.fio
echo "=== end ==="
unload_nullb
