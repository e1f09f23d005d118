#!/usr/bin/env bash
# benchstat's rank-sum test against R's wilcox.test: the table
# testdata/r-wilcox.tsv (R 4.2.2's outputs, made by r-crosscheck.R; R is
# not needed here) and `benchstat rank-sum` on the same pairs.
#
#   bash bench/stats/r-check.sh
#
# Per pair, to 1e-9: the p-value (relative), the method, and where R gives
# them the interval and its coverage (log units).  The estimate to 1e-9
# where R takes the median of the pairwise differences (exact test); with
# the normal approximation R's estimate is uniroot()'s root of the
# uncorrected statistic, which is zero anywhere between the two middle
# differences when m*n is even, so there benchstat's estimate (their
# midpoint, the Hodges-Lehmann median) is checked against mid_lo/mid_hi
# and R's is only required to lie between them.  Where R stops (a side
# whose values are all equal) only the p-value is compared, and
# benchstat's interval must be the one difference there is.
# shellcheck disable=SC2016  # awk programs in single quotes
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/help.sh
. "$HERE/../lib/help.sh"
help_answer "$0" "$@"

here=$(cd "$HERE" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/assert.sh
. "$here/../../tests/lib/assert.sh"

if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	make -s --no-print-directory -C "$here" OUT="$tmp" >"$tmp/build.log" 2>&1; then
	sed 's/^/# /' "$tmp/build.log"
	fail "build benchstat"
	finish
	exit 1
fi

table=$here/testdata/r-wilcox.tsv
tail -n +2 "$table" | cut -f1-3 >"$tmp/pairs.tsv"
"$tmp/benchstat" rank-sum "$tmp/pairs.tsv" >"$tmp/ours.tsv"
check "the table has 50 or more pairs" test "$(wc -l <"$tmp/pairs.tsv")" -ge 50
check "  ... pairs with 50 or more on a side, where R's default is the normal approximation" \
	awk -F'\t' 'NR > 1 { n = split($2, a, ","); m = split($3, b, ",") } NR > 1 && (n >= 50 || m >= 50) && $4 == "normal" { k++ }
		END { exit !(k >= 5) }' "$table"
check "  ... and exact p-values below 1e-16 (the upper tail computed as 1 - cdf was 0)" \
	awk -F'\t' 'NR > 1 && $4 == "exact" && $5 + 0 < 1e-16 && $5 + 0 > 0 { k++ } END { exit !(k >= 4) }' "$table"
check "benchstat answers every pair" test "$(($(wc -l <"$tmp/ours.tsv") - 1))" -eq "$(wc -l <"$tmp/pairs.tsv")"

# One line per pair: "ok" or what differs.
awk -F'\t' '
	function bad(what) { printf "%s %s %s\n", id, kind, what; wrong = 1 }
	function near(a, b, tol) { d = a - b; return (d < 0 ? -d : d) <= tol }
	NR == FNR { if (FNR > 1) { p[$1] = $2; e[$1] = $3; lo[$1] = $4; hi[$1] = $5; lv[$1] = $6; me[$1] = $7 }; next }
	FNR == 1 { next }
	{
		id = $1; kind = $4; wrong = 0
		if (!(id in p)) { print id " missing"; next }
		if (me[id] != $4) bad("method " me[id] " vs R " $4)
		if (!near(p[id], $5, 1e-9 * ($5 < 0 ? -$5 : $5) + 1e-300)) bad("p " p[id] " vs R " $5)
		if ($6 == "NA") {
			kind = kind "/R-stops"
			if (!(near(lo[id], $10, 1e-9) && near(hi[id], $10, 1e-9) && near(e[id], $10, 1e-9)))
				bad("interval " lo[id] ".." hi[id] " vs the one difference " $10)
		} else {
			if (!near(lo[id], $7, 1e-9) || !near(hi[id], $8, 1e-9))
				bad("interval " lo[id] ".." hi[id] " vs R " $7 ".." $8)
			if (!near(lv[id], $9, 1e-9)) bad("coverage " lv[id] " vs R " $9)
			if ($4 == "exact") {
				if (!near(e[id], $6, 1e-9)) bad("estimate " e[id] " vs R " $6)
			} else {
				if (!near(e[id], ($10 + $11) / 2, 1e-9)) bad("estimate " e[id] " vs mid " $10 ".." $11)
				if ($6 < $10 - 1e-9 || $6 > $11 + 1e-9) bad("R estimate " $6 " outside " $10 ".." $11)
			}
		}
		if (!wrong) print id " " kind " ok"
	}' "$tmp/ours.tsv" "$table" >"$tmp/result"
while read -r id kind rest; do
	if [[ $rest == ok ]]; then pass "$id ($kind) matches R"; else fail "$id ($kind): $rest"; fi
done <"$tmp/result"
finish
