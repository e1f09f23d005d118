#!/usr/bin/env bash
# The static answer's pieces on committed fixtures, without a kernel build:
#  - polarity: perf-scripts/jump-sites reads each site's branch bit from
#    __jump_table in an object (relocations) and in a linked image;
#  - the guest's state check (bench/guest/state.sh gate_key) tells the
#    key's state from the site's live bytes and that bit;
#  - the listing (perf-scripts/static-listing.awk) and the difference
#    (perf-scripts/static-diff.c) of fixture objects built from
#    fixtures/static/gate.c, and of the text kept from the kernel's
#    block/blk-core.o of off, on and on with series-likely-gate: each
#    output is compared with its expected .out (a difference is kept as
#    .out.bad), and the verdicts a reviewer reads are checked by name.
#  - host_tool (bench/lib/kernel-syms.sh), which builds these tools into
#    the cache, asked for one from two subshells of a shell at once.
#
#   tests/host/static.sh     "ok"/"not ok" a line; exit 1 on a failure
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="static answer: polarity, state check, objdump diff"

repo=$(cd "$(dirname "$0")/../.." && pwd)
fx=$repo/tests/fixtures/static
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/assert.sh
. "$repo/tests/lib/assert.sh"
help_answer "$0" "$@"

for t in jump-sites static-diff; do
	gcc -std=c11 -Wall -Wextra -Werror -O2 -o "$tmp/$t" "$repo/perf-scripts/$t.c"
done

# golden NAME: $tmp/NAME.out equals $fx/expected/NAME.out.
golden() {
	if diff -u "$fx/expected/$1.out" "$tmp/$1.out" >"$tmp/$1.diff"; then
		rm -f "$fx/expected/$1.out.bad"
		return 0
	fi
	cp "$tmp/$1.out" "$fx/expected/$1.out.bad"
	head -n 20 "$tmp/$1.diff"
	return 1
}

# has NAME TEXT: the output NAME has a line TEXT.
has() { grep -qxF -- "$2" "$tmp/$1.out"; }

# no_sites OBJECT: jump-sites prints nothing and exits 1.
no_sites() {
	local rc=0 out
	out=$("$tmp/jump-sites" "$1") || rc=$?
	[[ $rc == 1 && -z $out ]]
}

polarity_in_objects() {
	"$tmp/jump-sites" "$fx/gate.o" >"$tmp/gate.sites"
	"$tmp/jump-sites" "$fx/likely.o" >"$tmp/likely.sites"
	check "object, static_branch_unlikely: branch bit 0, a jmp objtool NOPs" \
		grep -qx '.text+0x10 .text+0x38 fixture_key branch=0 nop-at-link=1' "$tmp/gate.sites"
	check "object, static_branch_likely: branch bit 1, a jmp as is" \
		grep -qx '.text+0x10 .text+0x38 fixture_key branch=1 nop-at-link=0' "$tmp/likely.sites"
	check "object without __jump_table: exit 1, no site" no_sites "$fx/base.o"
	check "kernel blk-core.o of on: the gate's site, branch bit 0" \
		grep -q ' blk_error_injection_enabled branch=0 nop-at-link=1$' "$fx/kernel-on/sites"
	check "kernel blk-core.o of on(series-likely-gate): branch bit 1" \
		grep -q ' blk_error_injection_enabled branch=1 nop-at-link=0$' "$fx/kernel-likely/sites"
}

# The same entries once linked: the key field is resolved, its low bits
# kept (what the state check's host side reads from vmlinux).
polarity_linked() {
	local o out
	for o in gate likely; do
		ld -static -e hot -o "$tmp/$o.elf" "$fx/$o.o"
		"$tmp/jump-sites" "$tmp/$o.elf" fixture_key >"$tmp/$o.linked" || true
	done
	check "linked, static_branch_unlikely: hot+0x0 branch=0" grep -Eqx '0x[0-9a-f]+ hot\+0x0 branch=0' "$tmp/gate.linked"
	check "linked, static_branch_likely: hot+0x0 branch=1" grep -Eqx '0x[0-9a-f]+ hot\+0x0 branch=1' "$tmp/likely.linked"
	out=$("$tmp/jump-sites" "$tmp/gate.elf" no_such_key 2>&1 || true)
	check "linked, an unknown key is named" grep -q 'no symbol no_such_key' <<<"$out"
}

# gate_key BYTE BRANCH: the state check with kpeek answering BYTE.
gate_key() {
	sh -c '. "$1"; byte=$2; kpeek() { echo "$byte"; }; BENCH_GATE_ADDR=0xffffffff81000000 BENCH_GATE_BRANCH=$3 gate_key' \
		_ "$repo/bench/guest/state.sh" "$1" "$2"
}

state_check() {
	check "state check: NOP, branch 0: key off" test "$(gate_key 66 0)" = off
	check "state check: JMP, branch 0: key on (still on)" test "$(gate_key eb 0)" = on
	check "state check: JMP, branch 1: key off (the other polarity)" test "$(gate_key e9 1)" = off
	check "state check: NOP, branch 1: key on" test "$(gate_key 0f 1)" = on
	check "state check: no site: unknown" test "$(sh -c '. "$1"; BENCH_GATE_ADDR= gate_key' _ "$repo/bench/guest/state.sh")" = unknown
}

# diff_objects NAME BASE NEW: static-diff of function hot in two objects.
diff_objects() {
	CACHE=$tmp/cache "$repo/perf-scripts/static.sh" --listing "$fx/$2.o" hot >"$tmp/$2.lst"
	CACHE=$tmp/cache "$repo/perf-scripts/static.sh" --listing "$fx/$3.o" hot >"$tmp/$3.lst"
	"$tmp/static-diff" "$2" "$tmp/$2.lst" "$3" "$tmp/$3.lst" >"$tmp/$1.out"
}

# diff_kernel NAME BASE NEW: the same from the kernel text fixtures.
diff_kernel() {
	local s
	for s in "$2" "$3"; do
		awk -f "$repo/perf-scripts/static-listing.awk" "$fx/kernel-$s/symbols" "$fx/kernel-$s/sites" \
			"$fx/kernel-$s/disassembly" >"$tmp/kernel-$s.lst"
	done
	"$tmp/static-diff" -s "$tmp/$1.sum" "$2" "$tmp/kernel-$2.lst" "$3" "$tmp/kernel-$3.lst" >"$tmp/$1.out"
}

differences() {
	diff_objects gate base gate
	check "fixture, no gate -> gate: golden" golden gate
	check "fixture, no gate -> gate: +1 site (a NOP), nothing else" \
		has gate '  +1 patchable jump-label site, 0 registers renamed, 0 other instructions'
	diff_objects likely base likely
	check "fixture, no gate -> likely gate: golden" golden likely
	check "fixture, no gate -> likely gate: the site is a taken jump" \
		has likely '  +1 jump-label site TAKEN while off, 0 registers renamed, 0 other instructions'
	diff_objects polarity gate likely
	check "fixture, gate -> likely gate: golden" golden polarity
	check "fixture, gate -> likely gate: the other polarity, named" \
		has polarity '  a TAKEN jump while off, not a NOP (branch bit 1): fixture_key'
	diff_objects cold cold-inline cold
	check "fixture, an error path moved to .cold: golden" golden cold
	check "fixture, an error path moved to .cold: marked moved out of line" \
		grep -q '# moved out of line, was at <+0x' "$tmp/cold.out"
	check "fixture, an error path moved to .cold: 0 other instructions" \
		has cold '  0 jump-label sites, 0 registers renamed, 0 other instructions'

	diff_kernel kernel-on off on
	check "kernel off -> on: golden" golden kernel-on
	check "kernel off -> on: +1 NOP site, 1 register renamed, 0 other" \
		has kernel-on '  +1 patchable jump-label site, 1 register renamed, 0 other instructions'
	check "kernel off -> on: the renaming named" has kernel-on '  renamed: %rdi -> %rbx (1 instruction)'
	check "kernel off -> on: the .o's jmp reads as the NOP it is" \
		grep -q '^+ idle +0x1d     nop$' "$tmp/kernel-on.out"
	check "kernel off -> on: summary for the report" grep -qx 'idle_delta=+1' "$tmp/kernel-on.sum"
	diff_kernel kernel-likely on likely
	check "kernel on -> on(series-likely-gate): golden" golden kernel-likely
	check "kernel on -> on(series-likely-gate): a taken jump, not a NOP" \
		has kernel-likely '  a TAKEN jump while off, not a NOP (branch bit 1): blk_error_injection_enabled'
	"$tmp/static-diff" -v -t total "$tmp/kernel-on.sum" "$tmp/kernel-likely.sum" >"$tmp/total.out"
	check "verdict over summaries adds them up" \
		has total '  +1 patchable jump-label site, 1 site of the other polarity,'
	check "kernel on -> likely: the flipped site is on the idle path and now taken (summary)" \
		grep -qx 'sites_flipped_taken=1' "$tmp/kernel-likely.sum"
	check "kernel off -> on: no site of the other polarity (summary)" \
		grep -qx 'sites_flipped_taken=0' "$tmp/kernel-on.sum"
}

# csv_of SUMMARY STATUS: a static.csv (as perf-scripts/static.sh writes it)
# of one function compared, from a static-diff summary
csv_of() {
	local k row='' cols='sites_added sites_removed sites_taken sites_flipped renamed other_added other_removed other_changed key_added key_removed cold_added cold_removed moved copied idle_delta sites_flipped_taken'
	for k in $cols; do row+=,$(sed -n "s/^$k=//p" "$1"); done
	printf 'base,new,function,status,%s\n' "$(tr ' ' , <<<"$cols")"
	printf 'a,b,submit_bio_noacct_nocheck,%s%s\n' "$2" "$row"
}

# gate CSV TOLERANCE: bench/lib/results.sh static_gate, its lines in
# $tmp/gate.out and its status echoed
gate() {
	local rc=0
	bash -c '. "$1/bench/lib/lib.sh"; static_gate "$2" "$3"' _ "$repo" "$1" "$2" >"$tmp/gate.out" || rc=$?
	echo "$rc"
}

# The static answer as compare-series's gate (issue 35): a taken jump and
# a NOP are one instruction each, so the counts passed the likely gate.
static_gate_checks() {
	csv_of "$tmp/kernel-likely.sum" compared >"$tmp/likely.csv"
	check "gate: on -> on(series-likely-gate): slower, exit 1" test "$(gate "$tmp/likely.csv" 0)" = 1
	check "  ... a site of the other polarity, the idle path +0" \
		grep -qx 'submit_bio_noacct_nocheck: idle path +0, 0 renamed, 0 moved, 3 copied: SLOWER: 1 site of the other polarity (a TAKEN jump while the key is off, not a NOP)' "$tmp/gate.out"
	check "  ... whatever EXACT_TOLERANCE" test "$(gate "$tmp/likely.csv" 5)" = 1
	csv_of "$tmp/kernel-on.sum" compared >"$tmp/on.csv"
	check "gate: off -> on, +1 NOP site: the idle path gains an instruction, exit 1" test "$(gate "$tmp/on.csv" 0)" = 1
	check "  ... said so" grep -q 'SLOWER: its idle path gains 1 instruction$' "$tmp/gate.out"
	check "gate: the same with EXACT_TOLERANCE=1: exit 0, the rename reported" test "$(gate "$tmp/on.csv" 1)" = 0
	check "  ... said so" grep -qx 'submit_bio_noacct_nocheck: idle path +1, 1 renamed, 0 moved, 3 copied: no cost while idle' "$tmp/gate.out"
	awk -F, -v OFS=, 'NR == 2 { $5 = 0; $19 = "+0" } { print }' "$tmp/on.csv" >"$tmp/renamed.csv"
	check "gate: a register renamed and blocks copied only: exit 0" test "$(gate "$tmp/renamed.csv" 0)" = 0
	awk -F, -v OFS=, 'NR == 2 { $5 = 0; $19 = "+0"; $17 = 12 } { print }' "$tmp/on.csv" >"$tmp/moved.csv"
	check "gate: a moved block: exit 0" test "$(gate "$tmp/moved.csv" 0)" = 0
	awk -F, -v OFS=, 'NR == 2 { $7 = 1 } { print }' "$tmp/renamed.csv" >"$tmp/taken.csv"
	check "gate: a site added TAKEN while off: exit 1" test "$(gate "$tmp/taken.csv" 0)" = 1
	printf 'base,new,function,status,sites_added\na,b,__blk_error_inject,only-new,0\n' >"$tmp/only.csv"
	check "gate: a function only NEW builds: reported, exit 0" test "$(gate "$tmp/only.csv" 0)" = 0
}

bad_input() {
	local rc=0
	printf 'not a listing\n' >"$tmp/bad.lst"
	"$tmp/static-diff" a "$tmp/bad.lst" b "$tmp/bad.lst" >/dev/null 2>&1 || rc=$?
	check "static-diff: a malformed listing exits 2 (got $rc)" test "$rc" = 2
	rc=0
	"$tmp/jump-sites" "$fx/gate.c" >/dev/null 2>&1 || rc=$?
	check "jump-sites: not an ELF file exits 2 (got $rc)" test "$rc" = 2
}

# host_tool from two subshells of one shell at once, as make test's two
# stages of debug's boots ask for the gate site together: each gets the
# tool, no error.  A gcc that writes its output and then takes a second
# makes the two builds overlap: both outputs are written before either is
# moved into place.
tool_at_once() {
	local ato=$tmp/tool-at-once f
	mkdir -p "$ato/bin"
	# shellcheck disable=SC2016 # the fake's own variables
	printf '%s\n' '#!/bin/sh' \
		'while [ $# -gt 1 ]; do [ "$1" = -o ] && out=$2; shift; done' \
		'printf "#!/bin/sh\n" >"$out" && chmod +x "$out"' 'sleep 1' >"$ato/bin/gcc"
	chmod +x "$ato/bin/gcc"
	(
		export PATH=$ato/bin:$PATH CACHE=$ato/cache
		# shellcheck source=bench/lib/lib.sh
		. "$repo/bench/lib/lib.sh"
		host_tool jump-sites >"$ato/1" 2>&1 &
		a=$!
		host_tool jump-sites >"$ato/2" 2>&1 &
		b=$!
		wait "$a" && wait "$b"
	) || return 1
	for f in "$ato/1" "$ato/2"; do
		[[ $(wc -l <"$f") == 1 && $(cat "$f") == "$ato/cache/tools/jump-sites-"* ]] || return 1
	done
}

polarity_in_objects
polarity_linked
state_check
differences
static_gate_checks
bad_input
check "host_tool from two subshells of one shell at once: each gets the tool" tool_at_once
finish
