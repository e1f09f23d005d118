# shellcheck shell=bash
# fio's JSON output (--output-format=json) -> runs.csv rows, through
# fio-rows.jq (the one jq program; a LAVA guest runs it too,
# bench/lab/lava-guest.sh).  Functions only: nothing happens on source.
#
#   collect_fio PREFIX FILE ACCEL   iops, lat_ns, lat_p50_ns, lat_p99_ns,
#                                   lat_p999_ns, io_errors of the first job's
#                                   reads; insns_per_io where guest time
#                                   counts instructions (bench/lib/accel.sh)
#   fio_ios FILE                    the reads fio completed (0: none or no file)
#   fio_ok FILE                     FILE is a fio result with reads in it

# shellcheck source=bench/collect/rows.sh
. "${BASH_SOURCE[0]%/*}/rows.sh"
# accel_exact: which accelerators' guest time counts instructions
# shellcheck source=bench/lib/accel.sh
. "${BASH_SOURCE[0]%/*}/../lib/accel.sh"

# The metrics collect_fio prints, in its order (a failed run's rows).
fio_metrics() {
	printf '%s\n' iops lat_ns lat_p50_ns lat_p99_ns lat_p999_ns io_errors
}

fio_ios() {
	jq -r '.jobs[0].read.total_ios' "$1" 2>/dev/null || echo 0
}

fio_ok() {
	[[ -s $1 ]] && jq -e '.jobs[0].read.total_ios > 0' "$1" >/dev/null 2>&1
}

collect_fio() {
	local prefix=$1 COLLECT_INPUT=$2 out m v icount=''
	! accel_exact "$3" || icount=1
	out=$(jq -r --arg p x --arg icount "$icount" \
		-f "${BASH_SOURCE[0]%/*}/fio-rows.jq" "$2" 2>&1) ||
		collect_bad "$2" "not fio JSON output (jq: $(sed -n 1p <<<"$out"))"
	[[ -n $out ]] || collect_bad "$2" "no fio job in it"
	# every value checked before the first row is printed
	while IFS=, read -r _ m v; do
		[[ $v != null ]] || collect_bad "$2" "fio JSON without $m (.jobs[0].read: iops, clat_ns mean and percentiles; total_err)"
	done <<<"$out"
	while IFS=, read -r _ m v; do
		collect_row "$prefix" "$m" "$v"
	done <<<"$out"
}
