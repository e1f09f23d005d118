#!/bin/sh
# Guest side of the multi-queue view: 2 vCPUs, null_blk with one submission
# queue per CPU, one fio job per CPU (bench/guest/fio/mq-*.fio).
set -eu
# shellcheck source=bench/guest/state.sh
. /bench/state.sh
# shellcheck source=bench/guest/views-fio.sh
. /bench/views-fio.sh
run_view_fio submit_queues=2
