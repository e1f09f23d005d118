# shellcheck shell=bash
# A kernel image's footprint (nm, objdump, perf-scripts/jump-sites) and the
# footprint view's plugin counts per 64-byte line -> runs.csv rows and a
# listing.  Functions only: nothing happens on source.
#
#   collect_footprint PREFIX CONFIG VMLINUX JUMP_SITES PLUGIN_OUT LISTING
#       text_bytes (the sum of every function's size: .text itself, and
#       _stext.._etext, is padded to a 2 MiB boundary, the same 6 MiB in
#       every config), func_bytes of submit_bio_noacct_nocheck and
#       jump_sites (JUMP_SITES: the jump-sites tool's path) of the key
#       blk_error_injection_enabled; and LISTING: the function's
#       disassembly, each instruction marked with its 64-byte line and how
#       many instructions the measured run executed there (PLUGIN_OUT's
#       "line-0x..." ranges)

# shellcheck source=bench/collect/rows.sh
. "${BASH_SOURCE[0]%/*}/rows.sh"

collect_footprint() {
	local prefix=$1 cfg=$2 vmlinux=$3 jump_sites=$4 COLLECT_INPUT=$3 syms text fsize sites
	local GATE_FUNC=submit_bio_noacct_nocheck
	[[ -f $vmlinux ]] || collect_bad "$vmlinux" "no such kernel image"
	# the sum of every function's size: .text itself (and _stext.._etext)
	# is padded to a 2 MiB boundary, the same 6 MiB in both configs
	syms=$(nm -S "$vmlinux" 2>&1) || collect_bad "$vmlinux" "nm cannot read it: $(sed -n 1p <<<"$syms")"
	text=$(awk '
		function hex(s,   i, v) {
			v = 0; s = tolower(s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		NF == 4 && $3 ~ /^[tT]$/ { t += hex($2) } END { printf "%d\n", t }' <<<"$syms")
	fsize=$(awk -v f="$GATE_FUNC" '$4 == f && !n++ { print $2 }' <<<"$syms")
	[[ $fsize =~ ^[0-9a-fA-F]+$ ]] || collect_bad "$vmlinux" "no $GATE_FUNC in its symbols (nm -S)"
	fsize=$((16#$fsize))
	sites=$("$jump_sites" "$vmlinux" blk_error_injection_enabled 2>/dev/null | grep -c . || true)
	collect_row "$prefix" text_bytes "$text"
	collect_row "$prefix" func_bytes "$fsize"
	collect_row "$prefix" jump_sites "${sites:-0}"
	{
		printf '# %s in config %s: %s bytes; .text %s bytes; %s jump-label entries for blk_error_injection_enabled\n' \
			"$GATE_FUNC" "$cfg" "$fsize" "$text" "${sites:-0}"
		if [[ $sites -gt 0 ]]; then
			printf '# jump-label sites (address, function+offset, branch bit):\n'
			"$jump_sites" "$vmlinux" blk_error_injection_enabled | sed 's/^/#   /'
		fi
		printf '# line (64 B)  executed-insns  | instruction\n'
		objdump -d --no-show-raw-insn --disassemble="$GATE_FUNC" "$vmlinux" |
			awk -v counts="$5" '
				function hex(s,   i, v) {
					v = 0
					for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
					return v
				}
				BEGIN { while ((getline l < counts) > 0) { split(l, f, " ")
					if (f[1] ~ /^line-/) { split(f[3], kv, "="); n[substr(f[1], 8)] = kv[2] } } }
				/^ *ffffffff[0-9a-f]+:/ {
					# the high 32 bits are ffffffff in the kernel map; the
					# low ones fit a double
					a = $1; sub(":", "", a); lo = hex(substr(a, 9))
					line = substr(a, 1, 8) sprintf("%08x", lo - lo % 64)
					printf "%s %10s  | %s\n", line, (line in n ? n[line] : "-"), $0
				}'
	} >"$6"
}
