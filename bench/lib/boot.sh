# shellcheck shell=bash
# The boot-and-collect step every driver of the pipeline shares (bench,
# perf, views): one boot through bench/vm/run-guest, then what came back,
# in the boot's raw directory.  The drivers differ only in the guest
# script and its settings (run-guest's arguments) and in the parser that
# turns the raw directory into rows (bench/collect/).  Needs
# bench/lib/lib.sh; sourcing it defines one function and nothing else.

# boot_collect RAW WHAT DIR RUN-GUEST-ARG...: run-guest RUN-GUEST-ARG...
# -o RAW/boot, its output in RAW/run.log; then RAW/boot-meta (the runner's
# verdict and timings) and the guest's blocks split into RAW
# (split_blocks), or, for a boot that failed, its console in RAW, a
# progress line and "WHAT: VERDICT" appended to DIR/failures.txt.  The
# boot's directory and log are removed.  Returns run-guest's status
# (bench/lib/status.sh: 1 failed, 3 timeout).
boot_collect() {
	local raw=$1 what=$2 dir=$3 status=0 verdict
	shift 3
	mkdir -p "$raw"
	"$BENCH_DIR/vm/run-guest" -o "$raw/boot" "$@" >"$raw/run.log" 2>&1 || status=$?
	[[ ! -f $raw/boot/meta ]] || cp "$raw/boot/meta" "$raw/boot-meta"
	if [[ $status == 0 ]]; then
		split_blocks "$raw/boot/result.log" "$raw"
	else
		verdict=$(sed -n 's/^verdict=//p' "$raw/boot/meta" 2>/dev/null)
		[[ -n $verdict ]] || verdict="run-guest exit $status: $(tail -n 1 "$raw/run.log")"
		log "boot $what: FAILED: $verdict (console in $raw)"
		[[ ! -f $raw/boot/console.log ]] || cp "$raw/boot/console.log" "$raw/console.log"
		printf '%s: %s\n' "$what" "$verdict" >>"$dir/failures.txt"
	fi
	rm -rf "${raw:?}/boot" "$raw/run.log"
	return "$status"
}
