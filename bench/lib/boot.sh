# shellcheck shell=bash
# The boot every driver of the pipeline makes, and the collect step the
# measuring ones share.  boot_guest is the one call of bench/vm/run-guest
# (bench, perf, views, the guest tests that coverage and make test run,
# fuzz, peers' capability boot, soak, disasm's live look); boot_collect
# adds what bench, perf and views do with what came back.  The drivers
# differ only in the guest script and its settings (run-guest's
# arguments) and in the parser that turns the raw directory into rows
# (bench/collect/).  Needs bench/lib/lib.sh; sourcing it defines functions
# and nothing else.

# boot_guest [-q] OUT RUN-GUEST-ARG...: run-guest -o OUT RUN-GUEST-ARG...,
# its progress on stderr, or with -q in OUT.log.  Returns run-guest's
# status (bench/lib/status.sh: 1 failed, 2 bad input, 3 timeout, 4 setup).
boot_guest() {
	if [[ $1 == -q ]]; then
		"$BENCH_DIR/vm/run-guest" -o "$2" "${@:3}" >"$2.log" 2>&1
	else
		"$BENCH_DIR/vm/run-guest" -o "$1" "${@:2}"
	fi
}

# boot_verdict OUT STATUS: one line saying why boot_guest's boot into OUT
# ended with STATUS: the runner's verdict, or, where the runner left none
# (it refused its arguments), its status and the last line of OUT.log.
boot_verdict() {
	local verdict=''
	# no meta when the runner refused its arguments or died before it
	# wrote one: not an error here, where errexit may be on
	[[ ! -f $1/meta ]] || verdict=$(sed -n 's/^verdict=//p' "$1/meta")
	[[ -n $verdict ]] || verdict="run-guest exit $2$([[ ! -s $1.log ]] || printf ': %s' "$(tail -n 1 "$1.log")")"
	printf '%s\n' "$verdict"
}

# boot_collect RAW WHAT DIR RUN-GUEST-ARG...: boot_guest -q RAW/boot
# RUN-GUEST-ARG... (RAW exists: the callers put the plugin's ranges
# there); then RAW/boot-meta (the runner's verdict and timings) and the
# guest's blocks split into RAW (split_blocks), or, for a boot that
# failed, its console in RAW, a progress line and "WHAT: VERDICT"
# appended to DIR/failures.txt.  The boot's directory and log are
# removed.  Returns boot_guest's status.
boot_collect() {
	local raw=$1 what=$2 dir=$3 status=0 verdict
	shift 3
	boot_guest -q "$raw/boot" "$@" || status=$?
	[[ ! -f $raw/boot/meta ]] || cp "$raw/boot/meta" "$raw/boot-meta"
	if [[ $status == 0 ]]; then
		split_blocks "$raw/boot/result.log" "$raw"
	else
		verdict=$(boot_verdict "$raw/boot" "$status")
		log "boot $what: FAILED: $verdict (console in $raw)"
		[[ ! -f $raw/boot/console.log ]] || cp "$raw/boot/console.log" "$raw/console.log"
		printf '%s: %s\n' "$what" "$verdict" >>"$dir/failures.txt"
	fi
	rm -rf "${raw:?}/boot" "$raw/boot.log"
	return "$status"
}
