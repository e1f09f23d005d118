#!/bin/sh
# Guest side of the polled view: null_blk with a poll queue beside its
# submission queue, so RWF_HIPRI / IOPOLL reads complete by polling
# (bench/guest/fio/poll-*.fio), and POLL_TAGS tags per queue (the later
# hw_queue_depth wins over state.sh's).
set -eu
# shellcheck source=bench/guest/state.sh
. /bench/state.sh
# shellcheck source=bench/guest/views-fio.sh
. /bench/views-fio.sh
run_view_fio poll_queues=1 hw_queue_depth="$POLL_TAGS"
