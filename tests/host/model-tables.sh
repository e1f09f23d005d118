#!/usr/bin/env bash
# The fuzzer's model against the documentation: the tables eifuzz's model
# is built on (operations and what their rules match on, statuses and the
# errno each gives, the refused statuses, the limits of a command) must be
# the ones Documentation/block/error-injection.rst states, as the series in
# patches/ leaves it.  Any difference fails, with the diff.
#
#   tests/host/model-tables.sh [RST]   (default: the rst built from patches/)
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="eifuzz's model tables are the documentation's"
# shellcheck source=bench/lib/help.sh
. "$(dirname "$0")/../../bench/lib/help.sh"
help_answer "$0" "$@"

REPO_DIR=$(cd "$(dirname "$0")/../.." && pwd)
RST_PATH=Documentation/block/error-injection.rst

# rst_from_series DIR: the rst as the series leaves it, in DIR/$RST_PATH:
# the hunks of each patch that touch it, applied in series order.
rst_from_series() {
	local dir=$1 p
	while read -r p; do
		[[ -n $p && $p != \#* ]] || continue
		awk -v f="$RST_PATH" '
			/^diff --git / { on = ($3 == "a/" f) }
			/^-- $/ { on = 0 }
			on' "$REPO_DIR/patches/$p" >"$dir/piece.patch"
		[[ ! -s $dir/piece.patch ]] ||
			patch -s -p1 -d "$dir" --fuzz=0 --no-backup-if-mismatch <"$dir/piece.patch"
	done <"$REPO_DIR/patches/series"
	[[ -f $dir/$RST_PATH ]] || { echo "error: no patch in patches/series creates $RST_PATH" >&2; return 1; }
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
		/^=+( +=+)*$/ {
			rules++
			if (rules == 1) {
				n = 0; pos = 1; line = $0
				while (match(substr(line, pos), /=+/)) {
					start[++n] = pos + RSTART - 1
					pos += RSTART + RLENGTH - 1
				}
			}
			if (rules == 3) { if (row != "") print row; exit }
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
# ``literal`` markup aside.
rst_says() {
	tr '\n' ' ' <"$1" | tr -s ' \t' ' ' | sed 's/``//g' | grep -qF -- "$2"
}

# doc_tables RST: the facts eifuzz -T prints, as the rst states them.
doc_tables() {
	local rst=$1
	rst_table "$rst" operation | awk -F'|' '{ print "op " $1 " " $2 }'
	rst_table "$rst" status | awk -F'|' '{ print "status " $1 " " $2 ($3 ~ /must not block/ ? " nowait-only" : "") }'
	rst_table "$rst" 'refused status' | awk -F'|' '{ print "refused " $1 }'
	# The limits, each where the rst states it.
	if rst_says "$rst" "A write of a page (PAGE_SIZE bytes) or more is refused"; then
		echo "limit write-bytes-refused-from $(getconf PAGESIZE)"
	fi
	if rst_says "$rst" "A number written with more than 23 characters is refused"; then
		echo "limit number-characters 23"
	fi
	if rst_says "$rst" "chance takes 1 to 4294967295"; then
		echo "limit chance 1 4294967295"
	fi
	if rst_says "$rst" "that last sector must not be past 2^64 - 1"; then
		echo "limit last-sector 18446744073709551615"
	fi
}

main() {
	local tmp rst
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # expand now: tmp is local
	trap "rm -rf '$tmp'" EXIT
	if [[ $# -gt 0 ]]; then
		rst=$1
	else
		rst_from_series "$tmp"
		rst=$tmp/$RST_PATH
	fi
	gcc -std=c11 -Wall -Wextra -Werror -O2 -o "$tmp/eifuzz" "$REPO_DIR/bench/guest/tools/eifuzz.c"
	"$tmp/eifuzz" -T >"$tmp/model"
	doc_tables "$rst" >"$tmp/doc"
	if ! diff -u --label "the rst" --label "eifuzz -T" "$tmp/doc" "$tmp/model"; then
		echo "error: eifuzz's model tables differ from the documentation (above: - rst, + model)" >&2
		return 1
	fi
	echo "eifuzz's model tables match the rst: $(wc -l <"$tmp/model") facts"
}

main "$@"
