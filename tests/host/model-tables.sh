#!/usr/bin/env bash
# The fuzzer's model against the documentation: the tables eifuzz's model
# is built on (operations and what their rules match on, statuses and the
# errno each gives, the refused statuses, the limits of a command) must be
# the ones Documentation/block/error-injection.rst states, as the series in
# patches/ leaves it; and with the follow-up's facts (the limits of its
# items, the refused pair, its read-back: eifuzz -T -X) as the follow-up
# in patches/next leaves it.  Any difference fails, with the diff.
#
#   tests/host/model-tables.sh [RST] (default: the rsts built from patches/
#                                       and patches/next; an RST that states
#                                       the follow-up's limits is held to -X)
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="eifuzz's model tables are the documentation's"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"

RST_PATH=Documentation/block/error-injection.rst

# rst_from_series DIR SERIES: the rst as the series in SERIES (a folder of
# the repository) leaves it, in DIR/$RST_PATH: the hunks of each patch
# that touch it, applied in series order.
rst_from_series() {
	local dir=$1 series=$REPO_DIR/$2 p
	mkdir -p "$dir"
	while read -r p; do
		[[ -n $p && $p != \#* ]] || continue
		awk -v f="$RST_PATH" '
			/^diff --git / { on = ($3 == "a/" f) }
			/^-- $/ { on = 0 }
			on' "$series/${p%% *}" >"$dir/piece.patch"
		[[ ! -s $dir/piece.patch ]] ||
			patch -s -p1 -d "$dir" --fuzz=0 --no-backup-if-mismatch <"$dir/piece.patch"
	done <"$series/series"
	[[ -f $dir/$RST_PATH ]] || { echo "error: no patch in $2/series creates $RST_PATH" >&2; return 1; }
}

# rst_table RST HEADER: the rows of the simple table whose header line
# starts with HEADER (tabs expanded), as "col1|col2|col3" lines; a row
# whose first column is blank continues the row before it.
rst_table() {
	expand -t 8 "$1" | awk -v h="$2" '
		# cut LINE into the columns that the === rule marks
		function cols(s,   out, i) {
			out = ""
			for (i = 1; i <= n; i++) {
				c = substr(s, start[i], (i < n ? start[i + 1] - start[i] : 1000))
				gsub(/^ +| +$/, "", c)
				out = out (i > 1 ? "|" : "") c
			}
			return out
		}
		# past the table, read to the end: an awk that exits leaves
		# expand writing into a closed pipe (SIGPIPE, and pipefail fails)
		rules < 0 { next }
		/^=+( +=+)*$/ {
			rules++
			if (rules == 1) {
				n = 0; pos = 1; line = $0
				while (match(substr(line, pos), /=+/)) {
					start[++n] = pos + RSTART - 1
					pos += RSTART + RLENGTH - 1
				}
			}
			if (rules == 3) { if (row != "") print row; rules = -1 }
			next
		}
		rules == 0 { next }
		rules == 1 { if (index($0, h) != 1) { rules = 0 } ; next }
		rules == 2 && NF {
			r = cols($0)
			if (substr($0, 1, 1) != " ") { if (row != "") print row; row = r }
			else {
				# a continuation line: append each cell to the row above
				split(row, a, "|"); split(r, b, "|"); row = ""
				for (i = 1; i <= n; i++) row = row (i > 1 ? "|" : "") a[i] (b[i] != "" ? " " b[i] : "")
			}
		}'
}

# rst_says RST TEXT: the rst holds TEXT, line breaks, indentation and
# ``literal`` markup aside.  grep reads a process substitution: under
# pipefail, a pipe into grep -q fails with 141 when grep stops reading
# before the writer is done.
rst_says() {
	grep -qF -- "$2" < <(tr '\n' ' ' <"$1" | tr -s ' \t' ' ' | sed 's/``//g')
}

# doc_tables RST: the facts eifuzz -T prints, as the rst states them.
doc_tables() {
	local rst=$1
	rst_table "$rst" operation | awk -F'|' '{ print "op " $1 " " $2 }'
	rst_table "$rst" status | awk -F'|' '{ print "status " $1 " " $2 ($3 ~ /must not block/ ? " nowait-only" : "") }'
	rst_table "$rst" 'refused status' | awk -F'|' '{ print "refused " $1 }'
	# The limits, each where the rst states it.
	local sentence fact
	while IFS='|' read -r sentence fact; do
		! rst_says "$rst" "$sentence" || echo "$fact"
	done <<FACTS
A write of a page (PAGE_SIZE bytes) or more is refused|limit write-bytes-refused-from $(getconf PAGESIZE)
A number written with more than 23 characters is refused|limit number-characters 23
chance takes 1 to 4294967295|limit chance 1 4294967295
that last sector must not be past 2^64 - 1|limit last-sector 18446744073709551615
delay_us is written the same way, takes 1 to 30000000|limit delay_us 1 30000000
count is written the same way, takes 1 to 4294967295|limit count 1 4294967295
seed is written the same way, takes 0 to 4294967295|limit seed 0 4294967295
a rule with both status=AGAIN and delay_us|refused delay_us with AGAIN
A rule without status shows status=none|readback no-status none
,matched=<M>,failed=<F>,delayed=<D>|readback counters matched failed delayed
FACTS
}

# compare RST NAME: RST's facts against the model's, -X for an RST that
# states the follow-up's limits.
compare() {
	local rst=$1 name=$2 opts=()
	! rst_says "$rst" "delay_us is written the same way" || opts=(-X)
	"$tmp/eifuzz" -T "${opts[@]}" >"$tmp/model"
	doc_tables "$rst" >"$tmp/doc"
	if ! diff -u --label "the rst ($name)" --label "eifuzz -T ${opts[*]}" "$tmp/doc" "$tmp/model"; then
		echo "error: eifuzz's model tables differ from the documentation of $name (above: - rst, + model)" >&2
		return 1
	fi
	echo "eifuzz's model tables match the rst of $name: $(wc -l <"$tmp/model") facts"
}

main() {
	local s
	tmp=$SCRATCH
	gcc -std=c11 -Wall -Wextra -Werror -O2 -o "$tmp/eifuzz" "$REPO_DIR/bench/guest/tools/eifuzz.c"
	if [[ $# -gt 0 ]]; then
		compare "$1" "$1"
		return
	fi
	for s in patches patches/next; do
		rst_from_series "$tmp/$s" "$s"
		compare "$tmp/$s/$RST_PATH" "$s/"
	done
}

main "$@"
