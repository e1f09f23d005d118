# static-listing.awk: one function of an object file as a listing that
# perf-scripts/static-diff.c compares, with its relocations resolved to
# symbol names and its jump-label sites named from __jump_table.
#
#   awk -f static-listing.awk SYMBOLS SITES DISASSEMBLY
# SYMBOLS: `objdump -t OBJ`.  SITES: `jump-sites OBJ` (may be empty).
# DISASSEMBLY: for each part of the function (the function, then its
# .cold parts), a line "#part N NAME SECTION START SIZE" (hex START and
# SIZE) followed by `objdump -dr --no-show-raw-insn -j SECTION` of it.
# Output: the "#part" lines, then one line per instruction, tab-separated:
#   PART OFFSET KIND TARGET SITE TEXT
# PART: the part's number; OFFSET: hex, from the part's start; KIND: seq
# (falls through), call, jcc (conditional), jmp, ijmp (indirect), ret
# (returns, tail-calls or stops); TARGET: "PART:0xOFF" of a jump inside
# the function, else "-"; SITE: "KEY:BRANCH:NOP_AT_LINK" of a jump-label
# site, else "-"; TEXT: the instruction, local targets as <+0xOFF> (or
# <.cold+0xOFF> in another part), relocated fields as symbol names.

function hex(s,    i, c, v) {
	s = tolower(s)
	sub(/^0x/, "", s)
	v = 0
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (c == 0)
			break
		v = v * 16 + c - 1
	}
	return v
}

function signed_hex(s) {
	if (substr(s, 1, 1) == "-")
		return -hex(substr(s, 2))
	sub(/^\+/, "", s)
	return hex(s)
}

function fmt_off(v) {
	return v < 0 ? sprintf("-0x%x", -v) : sprintf("+0x%x", v)
}

# sym_at(SECTION, OFF): "name+0xN" of the function symbol holding OFF.
function sym_at(sec, off,    i) {
	for (i = 1; i <= nsym; i++)
		if (sym_sec[i] == sec && off >= sym_val[i] && off < sym_val[i] + (sym_size[i] ? sym_size[i] : 1))
			return sym_name[i] (off == sym_val[i] ? "" : fmt_off(off - sym_val[i]))
	return sec fmt_off(off)
}

# local_place(SECTION, OFF): "PART:0xOFF" when OFF of SECTION lies in a
# part of this function, else "".
function local_place(sec, off,    p) {
	for (p = 0; p < nparts; p++)
		if (part_sec[p] == sec && off >= part_start[p] && off < part_start[p] + part_size[p])
			return p ":" sprintf("0x%x", off - part_start[p])
	return ""
}

function place_text(place,    p, off) {
	p = substr(place, 1, index(place, ":") - 1) + 0
	off = hex(substr(place, index(place, ":") + 1))
	return "<" (p == 0 ? "" : part_suffix[p]) sprintf("+0x%x", off) ">"
}

# A relocation's symbol and the address its field refers to.  A PC-relative
# field (PC32, PLT32) holds S + A - P, and the CPU adds the end of the
# instruction, so the place meant is S + A + (END - P).
function reloc_value(type, sym, addend, roff, iend,    v) {
	v = addend
	if (type ~ /PC32|PLT32|PC64|GOTPCREL/)
		v += iend - roff
	return v
}

# The text of a relocated symbol: a function's or object's name, or the
# section and offset for a section symbol (strings, tables).
function reloc_text(sym, v,    t, p) {
	if (sym ~ /^\./) {
		p = local_place(sym, v)
		if (p != "")
			return "@" p
		t = sym_at(sym, v)
		return t
	}
	return sym (v == 0 ? "" : fmt_off(v))
}

function emit(    kind, target, site, text, mn, ops, p, t, i, sitekey) {
	if (!have)
		return
	text = cur_text
	sub(/[ \t]+#.*$/, "", text)
	sub(/^[ \t]+/, "", text)
	sub(/[ \t]+$/, "", text)
	mn = text
	sub(/[ \t].*$/, "", mn)
	ops = text
	if (index(ops, " "))
		sub(/^[^ \t]+[ \t]+/, "", ops)
	else
		ops = ""
	# Prefixes objdump prints before the mnemonic.
	while (mn ~ /^(lock|rep|repz|repnz|repe|repne|notrack|bnd|cs|ds|es|ss|fs|gs|data16|addr32)$/ && ops != "") {
		p = ops
		sub(/[ \t].*$/, "", p)
		mn = mn " " p
		if (index(ops, " "))
			sub(/^[^ \t]+[ \t]+/, "", ops)
		else
			ops = ""
	}
	target = "-"
	kind = "seq"
	sitekey = site_at[part_sec[cur_part] SUBSEP (part_start[cur_part] + cur_off)]
	m = mn
	sub(/^(notrack|bnd) /, "", m)
	if (m ~ /^(call|callq)$/)
		kind = "call"
	else if (m ~ /^(jmp|jmpq)$/)
		kind = ops ~ /^\*/ ? "ijmp" : "jmp"
	else if (m ~ /^j[a-z]+$/ || m ~ /^loop/)
		kind = "jcc"
	else if (m ~ /^(ret|retq|iret|iretq|sysret|sysretq|ud2|ud1|int3|lret)$/)
		kind = "ret"
	# A relocated field: the first relocation of the instruction names it.
	if (nrel > 0) {
		t = reloc_text(rel_sym[1], reloc_value(rel_type[1], rel_sym[1], rel_add[1], rel_off[1], cur_end))
		if ((kind == "call" || kind == "jmp" || kind == "jcc") && ops !~ /^\*/) {
			if (substr(t, 1, 1) == "@") {
				target = substr(t, 2)
				ops = place_text(target)
			} else {
				ops = t
				if (kind == "jmp")
					kind = "ret"
			}
		} else if (ops ~ /0x0\(%rip\)/) {
			sub(/0x0\(%rip\)/, (substr(t, 1, 1) == "@" ? place_text(substr(t, 2)) : t) "(%rip)", ops)
		} else if (ops ~ /\$0x0(,|$)/) {
			sub(/\$0x0/, "$" t, ops)
		} else if (ops ~ /(^|[^0-9a-fx])0x0\(/) {
			sub(/0x0\(/, t "(", ops)
		} else {
			ops = ops " <" t ">"
		}
		for (i = 2; i <= nrel; i++)
			ops = ops " <" reloc_text(rel_sym[i], reloc_value(rel_type[i], rel_sym[i], rel_add[i], rel_off[i], cur_end)) ">"
	} else if ((kind == "call" || kind == "jmp" || kind == "jcc") && ops ~ /^[0-9a-f]+ </) {
		# A resolved target: this function's own code, or another
		# function of the same section.
		t = hex(ops)
		p = local_place(part_sec[cur_part], t)
		if (p != "") {
			target = p
			ops = place_text(p)
		} else {
			ops = sym_at(part_sec[cur_part], t)
			if (kind == "jmp")
				kind = "ret"
		}
	}
	if (kind == "ret" && ops ~ /^__x86_return_thunk/)
		ops = "__x86_return_thunk"
	if (kind == "call" && target != "-")
		target = "-"
	site = "-"
	if (sitekey != "") {
		# A site's target comes from the table: a NOP in the object has
		# none of its own.
		site = sitekey
		kind = "site"
		target = site_target[part_sec[cur_part] SUBSEP (part_start[cur_part] + cur_off)]
	}
	text = ops == "" ? mn : sprintf("%-6s %s", mn, ops)
	printf "%d\t0x%x\t%s\t%s\t%s\t%s\n", cur_part, cur_off, kind, target, site, text
	have = 0
}

# objdump -t: "VALUE FLAGS SECTION<TAB>SIZE NAME".
FILENAME == ARGV[1] {
	n = split($0, f, "\t")
	if (n < 2 || $0 !~ /^[0-9a-f]+ /)
		next
	split(f[1], a, " ")
	split(f[2], b, " ")
	if (b[2] == "")
		next
	nsym++
	sym_val[nsym] = hex(a[1])
	sym_sec[nsym] = a[length(a)]
	sym_size[nsym] = hex(b[1])
	sym_name[nsym] = b[2]
	next
}

# jump-sites OBJ: "SEC+0xOFF TSEC+0xOFF KEY branch=B nop-at-link=N".
FILENAME == ARGV[2] {
	if (NF < 5)
		next
	cs = $1; ts = $2
	coff = hex(substr(cs, index(cs, "+") + 1)); cs = substr(cs, 1, index(cs, "+") - 1)
	toff = hex(substr(ts, index(ts, "+") + 1)); ts = substr(ts, 1, index(ts, "+") - 1)
	br = $4; sub(/^branch=/, "", br)
	nl = $5; sub(/^nop-at-link=/, "", nl)
	site_at[cs SUBSEP coff] = $3 ":" br ":" nl
	site_tsec[cs SUBSEP coff] = ts
	site_toff[cs SUBSEP coff] = toff
	next
}

/^#part / {
	emit()
	p = $2 + 0
	part_name[p] = $3
	part_sec[p] = $4
	part_start[p] = hex($5)
	part_size[p] = hex($6)
	part_suffix[p] = substr($3, index($3, "."))
	if (p >= nparts)
		nparts = p + 1
	next
}

# The sites' targets as places, once every part is known.
!resolved && nparts > 0 && /^ +[0-9a-f]+:\t/ {
	for (k in site_at) {
		split(k, kk, SUBSEP)
		site_target[k] = local_place(site_tsec[k], site_toff[k])
		if (site_target[k] == "")
			site_target[k] = "-"
	}
	for (p = 0; p < nparts; p++)
		printf "#part %d %s %s 0x%x 0x%x\n", p, part_name[p], part_sec[p], part_start[p], part_size[p]
	resolved = 1
}

/^[0-9a-f]+ <.*>:$/ {
	# A symbol header: which part the following lines belong to.
	emit()
	name = $2
	gsub(/[<>:]/, "", name)
	cur_part = -1
	for (p = 0; p < nparts; p++)
		if (part_name[p] == name)
			cur_part = p
	next
}

/^ +[0-9a-f]+:\t/ && cur_part >= 0 {
	addr = $1
	sub(/:$/, "", addr)
	iaddr = hex(addr)
	if (have)
		cur_end = iaddr - part_start[cur_part]
	emit()
	line = $0
	sub(/^ +[0-9a-f]+:\t/, "", line)
	cur_text = line
	cur_off = iaddr - part_start[cur_part]
	cur_end = part_size[cur_part]
	nrel = 0
	have = 1
	next
}

/^\t+[0-9a-f]+: R_X86_64_/ && have {
	# "OFF: TYPE<TAB>SYM[+-]0xADDEND"
	r = $0
	sub(/^\t+/, "", r)
	roff = hex(substr(r, 1, index(r, ":") - 1))
	split(r, rf, /[ \t]+/)
	type = rf[2]
	s = rf[3]
	add = 0
	if (match(s, /[+-]0x[0-9a-f]+$/)) {
		add = signed_hex(substr(s, RSTART))
		s = substr(s, 1, RSTART - 1)
	}
	nrel++
	rel_type[nrel] = type
	rel_sym[nrel] = s
	rel_add[nrel] = add
	rel_off[nrel] = roff - part_start[cur_part]
	next
}

END {
	emit()
}
