#!/usr/bin/env bash
# Generates the mutants of the series' code: one patch each, to apply on
# top of patches/series, and an index.  No mutation tool that handles
# kernel C is packaged for Debian 12 (docs/mutants.md), so the operators
# are ours: line operators in mutate.awk, reorderings here.
#
#   tests/mutants/generate.sh SRC OUT
#
# SRC: a tree with the series applied (build.sh tree main makes one:
# $CACHE/src/tree-main).  What is mutated: block/error-injection.c whole,
# the gate in block/error-injection.h (the body of blk_error_inject()) and
# the hook in block/blk-core.c (the lines that call it).
# OUT gets ID.patch for each mutant and index.tsv, one line each:
#   ID  CLASS  OPERATOR  FILE  LINE  ORIGINAL  MUTATED
# CLASS is "concurrency" for deleted locks, RCU, key and bit calls, RCU
# forms made plain and reorderings (on debug and kcsan too, their kills
# repeated), else "logic" (a deleted kfree, bio_endio or return among
# them).  An ID is OPERATOR-FILE-LINE-HASH, the hash of the mutated text,
# so it names the same mutant while the line stays where it is.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/lib/help.sh
. "$(dirname "$0")/../../bench/lib/help.sh"

MUTANTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TARGETS=(block/error-injection.c block/error-injection.h block/blk-core.c)

usage() {
	help_header "$0"
	exit "${1:-2}"
}

# line_range SRC FILE: "FROM TO", the lines of FILE to mutate.
line_range() {
	local src=$1 file=$2
	case $file in
	block/error-injection.c) echo "1 1000000" ;;
	block/error-injection.h)
		# the first definition of blk_error_inject(), the gate, to its "}"
		awk '/^static inline bool blk_error_inject\(struct bio \*bio\)$/ && !f { f = NR }
			f && !t && NR > f && /^}$/ { t = NR } END { print f, t }' "$src/$file" ;;
	block/blk-core.c)
		awk '/blk_error_inject\(bio\)/ { print NR, NR + 1; exit }' "$src/$file" ;;
	esac
}

# mutant_id OPERATOR FILE LINE TEXT
mutant_id() {
	local base=${2##*/}
	printf '%s-%s-%s-%s\n' "$1" "${base%%.*}${base##*.}" "$3" \
		"$(printf '%s' "$4" | sha256sum | cut -c1-6)"
}

# class_of OPERATOR MUTATED: deleted kfree(), bio_endio() and return are
# logic (a leak, a lost bio, a fall-through: no other CPU needed to see
# them, no race to repeat); the other deletions, plain forms and
# reorderings are concurrency.
class_of() {
	case $1 in
	delete)
		case $2 in
		*'kfree() deleted'* | *'bio_endio() deleted'* | *'return deleted'*) echo logic ;;
		*) echo concurrency ;;
		esac
		;;
	plain | reorder) echo concurrency ;;
	*) echo logic ;;
	esac
}

# emit_patch OUT FILE ORIG NEW OPERATOR LINE ORIGINAL_TEXT MUTATED_TEXT
emit_patch() {
	local out=$1 file=$2 orig=$3 new=$4 op=$5 line=$6 before=$7 after=$8 id
	id=$(mutant_id "$op" "$file" "$line" "$after")
	[[ ! -e $out/$id.patch ]] || return 0
	{
		printf 'Mutant %s: %s at %s:%s\n\n' "$id" "$op" "$file" "$line"
		diff -u --label "a/$file" --label "b/$file" "$orig" "$new" || true
	} >"$out/$id.patch"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$(class_of "$op" "$after")" "$op" "$file" "$line" \
		"$(trim "$before")" "$(trim "$after")" >>"$out/index.tsv"
}

trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	printf '%s' "${s//$'\t'/ }"
}

# line_mutants SRC FILE OUT: every line operator of mutate.awk.
line_mutants() {
	local src=$1 file=$2 out=$3 from to line op text orig tmp
	read -r from to < <(line_range "$src" "$file")
	[[ -n $from && -n $to ]] || { printf 'generate: %s: found nothing to mutate\n' "$file" >&2; exit 1; }
	tmp=$(mktemp)
	while IFS=$'\037' read -r line op text; do
		orig=$(sed -n "${line}p" "$src/$file")
		T=$text awk -v n="$line" 'NR == n { print ENVIRON["T"]; next } { print }' "$src/$file" >"$tmp"
		emit_patch "$out" "$file" "$src/$file" "$tmp" "$op" "$line" "$orig" "$text"
	done < <(awk -v FROM="$from" -v TO="$to" -f "$MUTANTS_DIR/mutate.awk" "$src/$file")
	rm -f "$tmp"
}

# move SRC_FILE OUT_FILE WHAT_ERE COUNT AFTER_ERE: the COUNT lines from the
# first matching WHAT_ERE moved to after the first line matching AFTER_ERE
# below them; prints the line they came from.
move_lines() {
	# The expressions go in through the environment: -v would take their
	# backslashes as escapes.
	WHAT=$3 AFTER=$5 awk -v n="$4" -v out="$2" '
		!from && $0 ~ ENVIRON["WHAT"] { from = NR; k = 0 }
		from && NR < from + n { held[k++] = $0; next }
		{ print >out }
		from && !done && NR >= from + n && $0 ~ ENVIRON["AFTER"] {
			for (i = 0; i < k; i++) print held[i] >out
			done = 1
		}
		END { print from + 0 }
	' "$1"
}

# reorder SRC OUT NAME WHAT COUNT AFTER: a reordering mutant of
# error-injection.c.
reorder() {
	local src=$1 out=$2 name=$3 file=block/error-injection.c tmp from
	tmp=$(mktemp)
	from=$(move_lines "$src/$file" "$tmp" "$4" "$5" "$6")
	if [[ $from -eq 0 ]] || cmp -s "$src/$file" "$tmp"; then
		printf 'generate: reorder %s: the code it moves is gone\n' "$name" >&2
		exit 1
	fi
	emit_patch "$out" "$file" "$src/$file" "$tmp" reorder "$from" \
		"$(sed -n "${from}p" "$src/$file")" "$name"
	rm -f "$tmp"
}

# The orders of initialisation and publication that the code relies on.
reorderings() {
	local src=$1 out=$2
	# a rule's fields set after it is on the list readers walk
	reorder "$src" "$out" "fields set after list_add_rcu()" \
		'^\tinj->op = op;$' 5 'list_add_rcu\(&inj->entry'
	# the disk's bit set after the lock is dropped
	reorder "$src" "$out" "set_bit() after mutex_unlock()" \
		'^\tset_bit\(GD_ERROR_INJECT' 1 '^\tmutex_unlock\('
	# the key taken after the rule is on the list (list_empty() then false)
	reorder "$src" "$out" "key taken after list_add_rcu()" \
		'^\tif \(list_empty\(&disk->error_injection_list\)\)$' 2 'list_add_rcu\(&inj->entry'
	# the key dropped after the rules are unlinked
	reorder "$src" "$out" "key dropped after the rules are unlinked" \
		'^\tif \(test_and_clear_bit\(GD_ERROR_INJECT' 2 '^\t}$'
}

main() {
	local src out file
	case ${1:-} in -h | --help) usage 0 ;; esac
	[[ $# -eq 2 ]] || usage
	src=$1 out=$2
	for file in "${TARGETS[@]}"; do
		[[ -f $src/$file ]] || { printf 'generate: %s: no %s (not a tree with the series)\n' "$src" "$file" >&2; exit 2; }
	done
	mkdir -p "$out"
	rm -f "$out"/*.patch
	: >"$out/index.tsv"
	for file in "${TARGETS[@]}"; do
		line_mutants "$src" "$file" "$out"
	done
	reorderings "$src" "$out"
	printf 'generate: %d mutants in %s\n' "$(wc -l <"$out/index.tsv")" "$out" >&2
}

main "$@"
