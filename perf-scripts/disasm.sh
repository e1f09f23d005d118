#!/usr/bin/env bash
# Static and live evidence of what the error-injection gate compiles to.
#
#   disasm.sh [-h] [CONFIG...]     default: CONFIGS (bench/plan/drivers/disasm.job)
#
# For each built config: the disassembly of submit_bio_noacct_nocheck from
# vmlinux up to a few instructions past the gate, with the jump-label site
# of blk_error_injection_enabled marked.  Then, from a running "on" guest,
# the live bytes at that site before a rule is added, while one exists and
# after removeall, read through /proc/kcore (NOP, JMP, NOP).
# Output also goes to $OUT (default $CACHE/disasm.txt; make disasm sets
# RESULTS/disasm.txt).
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../bench/lib/lib.sh"
tool_start disasm 'CACHE KSRC SERIES CONFIGS' -- "$0" "$@"

OUT=${OUT:-$CACHE/disasm.txt}
FUNC=submit_bio_noacct_nocheck

# Address range of a function from System.map: "START END".
function_range() {
	awk -v f="$2" '
		found { print start, "0x" $1; exit }
		$3 == f { start = "0x" $1; found = 1 }
	' "$1/System.map"
}

# Disassemble FUNC, marking the gate, stopping 4 instructions after the
# gate or after the first 40 instructions when there is no site.
show_config() {
	local cfg=$1 build start end gate
	build=$(kernel_build_dir "$cfg")
	[[ -f $build/vmlinux ]] || { printf '== %s: not built\n' "$cfg"; return; }
	read -r start end < <(function_range "$build" "$FUNC")
	gate=$(gate_site "$build" || true)
	printf '== %s: %s [%s, %s), %s bytes, gate site: %s\n' "$cfg" "$FUNC" "$start" "$end" \
		$((end - start)) "${gate:-none (no jump label for blk_error_injection_enabled)}"
	if grep -q " __blk_error_inject$" "$build/System.map"; then
		printf '   calls into __blk_error_inject: %s\n' \
			"$(objdump -d --no-show-raw-insn --start-address="$start" --stop-address="$end" \
				"$build/vmlinux" | grep -c '__blk_error_inject' || true) site(s)"
	else
		printf '   no __blk_error_inject in this kernel: the hook is compiled out\n'
	fi
	objdump -d --start-address="$start" --stop-address="$end" "$build/vmlinux" |
		awk -v gate="${gate#0x}" '
			# Read to the end (no exit) so that objdump never sees SIGPIPE.
			/^ *ffffffff[0-9a-f]+:/ && !done {
				addr = $1; sub(":", "", addr); n++
				mark = (gate != "" && addr == gate) ? "   <== gate (jump-label site)" : ""
				if (mark != "") seen = n
				print "   " $0 mark
				if ((seen && n >= seen + 4) || (!gate && n >= 40)) done = 1
			}'
}

live_bytes() {
	local gate script dir
	gate=$(gate_site "$(kernel_build_dir on)" || true)
	[[ -n $gate ]] || { printf '== live: no gate site in on\n'; return; }
	script=$(mktemp)
	cat >"$script" <<-'EOF'
		modprobe null_blk nr_devices=1 gb=1
		F=/sys/kernel/debug/block/nullb0/error_injection
		echo "before any rule:  $(kpeek "$GATE" 5)"
		echo "add,op=READ,status=IOERR,start=0,nr_sectors=8" >$F
		echo "with one rule:    $(kpeek "$GATE" 5)"
		echo removeall >$F
		echo "after removeall:  $(kpeek "$GATE" 5)"
		rmmod null_blk
	EOF
	dir=$CACHE/runs/disasm-live
	boot_guest "$dir" -c on -e "GATE=$gate" "$script" >&2
	rm -f "$script"
	printf '== live bytes at the gate %s in a running on guest (%s):\n' "$gate" \
		"$(sed -n 's/^accel=//p' "$dir/meta")"
	sed 's/^/   /' "$dir/result.log"
	printf '   (0f 1f 44 00 00 / 66 90 = NOP, e9 / eb = JMP)\n'
}

main() {
	local cfg configs=("$@")
	# shellcheck disable=SC2206 # a list of words
	[[ ${#configs[@]} -gt 0 ]] || configs=($CONFIGS)
	check_configs "${configs[@]}"
	mkdir -p "$(dirname "$OUT")"
	{
		for cfg in "${configs[@]}"; do
			show_config "$cfg"
			echo
		done
		live_bytes
	} | tee "$OUT"
}

main "$@"
