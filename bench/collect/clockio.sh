# shellcheck shell=bash
# The clockio guest tool's summary line (bench/guest/tools/clockio.c:
# "ios=N errors=E ns=T ns_per_io=X") -> runs.csv rows.  Functions only:
# nothing happens on source.
#
#   collect_clockio PREFIX FILE   pread_ns_per_io and io_errors

# shellcheck source=bench/collect/rows.sh
. "${BASH_SOURCE[0]%/*}/rows.sh"

collect_clockio() {
	local prefix=$1 COLLECT_INPUT=$2 ns errors
	read -r ns errors < <(sed -n 's/.*errors=\([0-9]*\) .*ns_per_io=\([0-9.]*\).*/\2 \1/p' "$2" | sed -n 1p) || true
	[[ -n $ns && -n $errors ]] || collect_bad "$2" "no clockio summary line (ios=N errors=E ns=T ns_per_io=X)"
	collect_row "$prefix" pread_ns_per_io "$ns"
	collect_row "$prefix" io_errors "$errors"
}
