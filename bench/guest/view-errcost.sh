#!/bin/sh
# Guest side of the injected-error view: guest time per 4 KiB O_DIRECT read
# over a fixed sequence of ERRCOST_IOS reads (clockio pread), with STATE's
# rules; fail-all is one READ rule over the whole of nullb0, so every read
# ends in bio_endio from the submit path with an I/O error.
set -eu
# shellcheck source=bench/guest/state.sh
. /bench/state.sh

load_nullb irqmode=0
case $STATE in
fail-all)
	setup_state key-off
	rule nullb0 "add,op=READ,status=IOERR"
	;;
*) setup_state "$STATE" ;;
esac
# once to warm up (page tables, caches of the path), then the measured run
clockio pread /dev/nullb0 "$ERRCOST_IOS" >/dev/null
echo "=== clockio ==="
clockio pread /dev/nullb0 "$ERRCOST_IOS"
echo "=== end ==="
unload_nullb
