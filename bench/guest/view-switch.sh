#!/bin/sh
# Guest side of the switching view: guest time of the writes that flip the
# static key, each timed by clockio right around write(2), SWITCH_CYCLES
# times: the first rule of all (key 0 -> 1: jump-label sites patched, CPUs
# synchronised), a second rule on the same disk and a first rule on another
# disk (key stays on), removeall on that disk (key 2 -> 1) and the last
# removeall (1 -> 0: patched back).  One "NAME NS" line per write.
set -eu
# shellcheck source=bench/guest/state.sh
. /bench/state.sh

timed() {
	_out=$(clockio write "$EI/$2/error_injection" "$3")
	case $_out in
	*result=ok) echo "$1 ${_out%% *}" | sed 's/ns=//' ;;
	*) echo "write '$3' to $2: $_out" >&2; return 1 ;;
	esac
}

echo "switch: $(nproc) CPUs online" >&2
load_nullb irqmode=0
echo "=== switch ==="
_i=0
while [ $_i -lt "$SWITCH_CYCLES" ]; do
	timed enable nullb1 "add,op=READ,status=IOERR"
	timed add nullb1 "add,op=READ,start=8,nr_sectors=8,status=IOERR"
	timed add-other-disk nullb0 "add,op=READ,start=$SPARE_SECTOR,nr_sectors=8,status=IOERR"
	timed removeall-other-disk nullb0 removeall
	timed disable nullb1 removeall
	_i=$((_i + 1))
done
echo "=== end ==="
unload_nullb
