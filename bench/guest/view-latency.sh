#!/bin/sh
# Guest side of the latency view: the main benchmark's two workloads
# (randread-qd1, randread-qd32) on the main null_blk set-up; the host takes
# clat percentiles from the fio JSON.
set -eu
# shellcheck source=bench/guest/state.sh
. /bench/state.sh
# shellcheck source=bench/guest/views-fio.sh
. /bench/views-fio.sh
run_view_fio
