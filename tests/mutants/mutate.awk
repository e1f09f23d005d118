# Line mutants of C code, one a record: LINE, OPERATOR and the NEW LINE,
# separated by the ASCII unit separator (037), which no C line holds
# (tests/mutants/generate.sh makes each a patch).  Reads one C file; mutates
# the lines from FROM to TO (default: all) that are code: not in a
# comment, not a preprocessor line, not a log call.  Every operator
# changes one place of one line:
#
#   ror        a relational operator replaced (< <= > >= == !=, each by
#              its neighbours and its negation's)
#   boundary   an integer constant or a "- 1" off by one
#   negate     the condition of an if or while negated
#   logic      && and || swapped
#   delete     a call statement of lock/unlock, RCU read lock/unlock,
#              static key inc/dec, set_bit/clear_bit, list_*_rcu,
#              kfree/kfree_rcu, bio_endio replaced by (void)0, and
#              test_and_clear_bit by test_bit (the clear deleted)
#   plain      an RCU form replaced by its plain one (list_add_rcu,
#              list_del_rcu, list_for_each_entry_rcu, kfree_rcu)
#   constant   a named constant or status replaced (U64_MAX, UINT_MAX,
#              PAGE_SIZE, true/false, BLK_STS_*, GD_* bits)
#
# Reordering operators move whole statements and are made by generate.sh.

function emit(op, new) {
	if (new != $0 && !((NR SUBSEP new) in seen)) {
		seen[NR, new] = 1
		printf "%d\037%s\037%s\n", NR, op, new
	}
}

# replace_nth S RE N NEW: S with the N-th match of RE replaced by NEW.
function replace_nth(s, re, n, new,    i, pre, rest) {
	pre = ""
	rest = s
	for (i = 1; i <= n; i++) {
		if (!match(rest, re))
			return s
		if (i < n) {
			pre = pre substr(rest, 1, RSTART + RLENGTH - 1)
			rest = substr(rest, RSTART + RLENGTH)
		}
	}
	return pre substr(rest, 1, RSTART - 1) new substr(rest, RSTART + RLENGTH)
}

# count RE in S.
function count(s, re,    n) {
	n = 0
	while (match(s, re)) {
		n++
		s = substr(s, RSTART + RLENGTH)
	}
	return n
}

BEGIN {
	FS = "\n"
	if (FROM == "") FROM = 1
	if (TO == "") TO = 1e9
}

{
	line = $0
	# Comments: skip whole comment lines and blocks.
	if (in_comment) {
		if (line ~ /\*\//) in_comment = 0
		next
	}
	if (line ~ /^[ \t]*\/\*/) {
		if (line !~ /\*\//) in_comment = 1
		next
	}
	if (NR < FROM || NR > TO) next
	if (line ~ /^[ \t]*(#|$|\/\/)/ || line ~ /^[ \t]*\*/) next
	if (line ~ /pr_(info|debug|warn|err)|seq_printf|MODULE_|EXPORT_SYMBOL/) next
	if (line ~ /^[ \t]*\{ BLK_EI_OPT_/) next
	has_string = line ~ /"/

	if (!has_string) {
		# ror: with spaces as kernel style writes them; "@" separates the
		# replacements, which contain spaces and "|".
		mutate_ops(" <= ", " < @ == @ > ")
		mutate_ops(" >= ", " > @ == @ < ")
		mutate_ops(" == ", " != ")
		mutate_ops(" != ", " == ")
		mutate_ops(" < ", " <= @ != @ >= ")
		mutate_ops(" > ", " >= @ != @ <= ")
		mutate_ops(" && ", " || ", "logic")
		mutate_ops(" &&$", " ||", "logic")
		mutate_ops(" \\|\\| ", " && ", "logic")
		# boundary: "- 1" and small integer literals.
		mutate_ops(" - 1", " @ - 2", "boundary")
		boundary_literals()
	}
	# negate: if/while conditions that fit on the line.
	if (line ~ /^[ \t]*(if|while) \(.*\)$/)
		negate_condition()
	deleted_calls()
	plain_forms()
	constants()
}

# mutate_ops RE ALTS [OP]: each match of RE replaced by each of ALTS
# ("@"-separated).
function mutate_ops(re, alts, op,    n, i, k, nn, alt) {
	if (op == "") op = "ror"
	n = count($0, re)
	nn = split(alts, alt, "@")
	for (i = 1; i <= n; i++)
		for (k = 1; k <= nn; k++)
			emit(op, replace_nth($0, re, i, alt[k]))
}

function boundary_literals(    n, i, s, v, pre, rest) {
	# Integer literals standing alone (not part of a name), 0 to 9999.
	s = $0
	n = count(s, "[^A-Za-z0-9_][0-9]+[^A-Za-z0-9_x]")
	for (i = 1; i <= n; i++) {
		rest = s
		pre = ""
		for (k = 1; k <= i; k++) {
			match(rest, /[^A-Za-z0-9_][0-9]+[^A-Za-z0-9_x]/)
			if (k < i) {
				pre = pre substr(rest, 1, RSTART + RLENGTH - 2)
				rest = substr(rest, RSTART + RLENGTH - 1)
			}
		}
		v = substr(rest, RSTART + 1, RLENGTH - 2) + 0
		# "- 1" has mutants of its own (above)
		if (substr(pre substr(rest, 1, RSTART), length(pre) + RSTART - 1, 2) == "- ")
			continue
		emit("boundary", pre substr(rest, 1, RSTART) (v + 1) substr(rest, RSTART + RLENGTH - 1))
		if (v > 0)
			emit("boundary", pre substr(rest, 1, RSTART) (v - 1) substr(rest, RSTART + RLENGTH - 1))
	}
}

function negate_condition(    pre, cond, m) {
	m = match($0, /(if|while) \(/)
	pre = substr($0, 1, RSTART + RLENGTH - 1)
	cond = substr($0, RSTART + RLENGTH)
	sub(/\)$/, "", cond)
	emit("negate", pre "!(" cond "))")
}

function deleted_calls(    name, indent) {
	if (match($0, /^[ \t]*(mutex_lock|mutex_unlock|rcu_read_lock|rcu_read_unlock|static_branch_inc|static_branch_dec|set_bit|clear_bit|list_add_rcu|list_del_rcu|kfree_rcu|kfree|bio_endio)\(.*\);$/)) {
		indent = $0
		sub(/[^ \t].*$/, "", indent)
		name = $0
		sub(/^[ \t]*/, "", name)
		sub(/\(.*$/, "", name)
		emit("delete", indent "(void)0; /* mutant: " name "() deleted */")
	}
	if ($0 ~ /^[ \t]*return;$/) {
		indent = $0
		sub(/return;$/, "", indent)
		emit("delete", indent "(void)0; /* mutant: return deleted */")
	}
	if ($0 ~ /test_and_clear_bit\(/) {
		new = $0
		sub(/test_and_clear_bit\(/, "test_bit(", new)
		emit("delete", new)
	}
}

function plain_forms(    new) {
	new = $0
	if (sub(/list_add_rcu\(/, "list_add(", new)) emit("plain", new)
	new = $0
	if (sub(/list_del_rcu\(/, "list_del(", new)) emit("plain", new)
	new = $0
	if (sub(/list_for_each_entry_rcu\(/, "list_for_each_entry(", new)) emit("plain", new)
	new = $0
	if (sub(/kfree_rcu\(inj, rcu\)/, "kfree(inj)", new)) emit("plain", new)
}

function constants() {
	mutate_ops("U64_MAX", "(U64_MAX - 1)", "constant")
	mutate_ops("UINT_MAX", "(UINT_MAX - 1)", "constant")
	mutate_ops("PAGE_SIZE", "(PAGE_SIZE - 1)@(PAGE_SIZE + 1)", "constant")
	mutate_ops("return true;", "return false;", "constant")
	mutate_ops("return false;", "return true;", "constant")
	mutate_ops("BLK_STS_AGAIN", "BLK_STS_IOERR", "constant")
	mutate_ops("BLK_STS_OK", "BLK_STS_IOERR", "constant")
	mutate_ops("BLK_STS_DEV_RESOURCE", "BLK_STS_IOERR", "constant")
	mutate_ops("BLK_STS_DM_REQUEUE", "BLK_STS_IOERR", "constant")
	mutate_ops("REQ_OP_ZONE_RESET_ALL", "REQ_OP_ZONE_RESET", "constant")
	mutate_ops("REQ_OP_LAST", "REQ_OP_READ", "constant")
	mutate_ops("REQ_NOWAIT", "REQ_SYNC", "constant")
	mutate_ops("-EINVAL", "0", "constant")
	# the gate's two tests, each made always true
	mutate_ops("static_branch_unlikely\\(&blk_error_injection_enabled\\)", "true", "constant")
	mutate_ops("test_bit\\(GD_ERROR_INJECT, &bio->bi_bdev->bd_disk->state\\)", "true", "constant")
}
