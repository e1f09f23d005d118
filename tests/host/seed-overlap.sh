#!/usr/bin/env bash
# Our prose must be our own: list every run of 12 or more consecutive words
# that the series' prose (commit messages, Documentation/ and Kconfig text,
# the comments in the C code the patches add) or our documentation
# (README.md, docs/*.md, results/*/README.md) shares with the
# specification in ../shared/seeds.  Words are compared lower-cased, with
# punctuation and markup dropped.  A run that lies inside one entry of
# tests/seed-overlap.allow (interface strings and example commands, which
# carry over on purpose) is listed as allowed; any other run makes the
# script exit 1.
#
#   tests/host/seed-overlap.sh [-c] [SEEDS_DIR]
#     -c  also list runs in the code the patches add (for information; code
#         runs never fail the check)
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="no 12-word run shared with the seeds"

# The seeds sit next to the repository on the project's machines, not
# in a clone.
requires() {
	_have_path "$REPO_DIR/../shared/seeds" "../shared/seeds beside the checkout"
}

REPO_DIR=$(cd "$(dirname "$0")/../.." && pwd)
NGRAM=12
# shellcheck source=bench/lib/help.sh
. "$REPO_DIR/bench/lib/help.sh"
help_answer "$0" "$@"

usage() {
	echo "usage: $0 [-c] [SEEDS_DIR]" >&2
	exit 2
}

# prose_of PATCH [code|comments]: the parts of a format-patch file that are
# ours to word: the message from Subject: to the first "---", and the lines a
# diff adds to or keeps in Documentation/ and Kconfig files (or, with "code",
# the lines it adds to any other file; with "comments", only the text of the
# C comments, /* */ and //, in those added lines).  A form feed marks where
# one piece of text ends, so no word run crosses it: each comment is a piece.
prose_of() {
	awk -v want="${2:-prose}" '
		# comment_text(LINE): the comment text in LINE, with a form feed
		# line after each comment that ends; in_comment carries a /* */
		# comment over to the next line.
		function comment_text(s,   out, i, j) {
			out = ""
			while (s != "") {
				if (in_comment) {
					j = index(s, "*/")
					if (!j)
						return out " " s
					out = out " " substr(s, 1, j - 1) "\n\f\n"
					s = substr(s, j + 2)
					in_comment = 0
					continue
				}
				i = index(s, "/*")
				j = index(s, "//")
				if (j && (!i || j < i))
					return out " " substr(s, j + 2) "\n\f\n"
				if (!i)
					return out
				s = substr(s, i + 2)
				in_comment = 1
			}
			return out
		}
		/^Subject: / && state == "" { state = "msg" }
		state == "msg" && /^---$/ { state = "diff"; print "\f"; next }
		state == "msg" { if (want == "prose") print; next }
		state != "diff" { next }
		/^-- $/ { exit }
		/^diff --git / {
			is_prose = $NF ~ /^b\/Documentation\// || $NF ~ /Kconfig/
			is_c = $NF ~ /\.[ch]$/
			keep = want == "prose" ? is_prose : want == "code" ? !is_prose : is_c
			in_comment = 0
			print "\f"
			next
		}
		/^(\+\+\+|---|@@|index |new file|deleted file)/ { next }
		keep && want == "comments" && /^\+/ {
			t = comment_text(substr($0, 2))
			if (t != "")
				print t
			next
		}
		keep && /^\+/ { print substr($0, 2); next }
		keep && want == "prose" && /^ / { print substr($0, 2) }
	' "$1"
}

# texts_to_check [code]: "FILE<TAB>TEXT" lines for every patch and every
# page of our documentation.
texts_to_check() {
	local p
	for p in "$REPO_DIR"/patches/*.patch "$REPO_DIR"/patches/next/*.patch "$REPO_DIR"/patches/ablation/*.patch; do
		{
			prose_of "$p" "${1:-prose}"
			if [[ ${1:-prose} == prose ]]; then
				printf '\f\n'
				prose_of "$p" comments
			fi
		} | sed "s|^|${p#"$REPO_DIR"/}\t|"
	done
	if [[ ${1:-prose} == prose ]]; then
		for p in "$REPO_DIR"/README.md "$REPO_DIR"/docs/*.md "$REPO_DIR"/results/*/README.md; do
			[[ -f $p ]] || continue
			sed "s|^|${p#"$REPO_DIR"/}\t|" "$p"
		done
	fi
}

# find_runs SEEDS_DIR ALLOW_FILE: reads texts_to_check output, prints one
# line per shared run ("allowed" or "SHARED"), exits 1 on any SHARED run.
find_runs() {
	local seeds=$1 allow=$2
	awk -v n="$NGRAM" -v allowfile="$allow" -v seedlist="$(printf '%s\n' "$seeds"/*)" '
		function words(s, out) {
			s = tolower(s)
			gsub(/[^a-z0-9_]+/, " ", s)
			sub(/^ +/, "", s)
			sub(/ +$/, "", s)
			return s == "" ? 0 : split(s, out, / /)
		}
		function flush(   i, j, key, start, run, ok, a) {
			for (i = 1; i + n - 1 <= nw; i++) {
				key = w[i]
				for (j = 1; j < n; j++)
					key = key " " w[i + j]
				if (key in seed)
					for (j = 0; j < n; j++)
						mark[i + j] = 1
			}
			for (i = 1; i <= nw; i++) {
				if (!mark[i])
					continue
				run = w[i]
				start = i
				while (i + 1 <= nw && mark[i + 1])
					run = run " " w[++i]
				ok = ""
				for (a = 1; a <= nallow; a++)
					if (index(" " allowed[a] " ", " " run " ")) {
						ok = allowed[a]
						break
					}
				printf "%s: %d words, %s: %s\n", file, i - start + 1,
					ok == "" ? "SHARED" : "allowed", run
				if (ok == "")
					bad++
			}
			delete w
			delete mark
			nw = 0
		}
		BEGIN {
			nf = split(seedlist, seedfiles, "\n")
			for (f = 1; f <= nf; f++) {
				if (seedfiles[f] == "")
					continue
				ns = 0
				while ((getline line < seedfiles[f]) > 0) {
					k = words(line, lw)
					for (j = 1; j <= k; j++)
						sw[++ns] = lw[j]
				}
				close(seedfiles[f])
				for (i = 1; i + n - 1 <= ns; i++) {
					key = sw[i]
					for (j = 1; j < n; j++)
						key = key " " sw[i + j]
					seed[key] = 1
				}
				delete sw
			}
			while ((getline line < allowfile) > 0) {
				if (line ~ /^#/ || line ~ /^[ \t]*$/)
					continue
				k = words(line, lw)
				s = lw[1]
				for (j = 2; j <= k; j++)
					s = s " " lw[j]
				allowed[++nallow] = s
			}
			FS = "\t"
		}
		$1 != file { flush(); file = $1 }
		{
			text = substr($0, length($1) + 2)
			if (text ~ /\f/) {
				flush()
				next
			}
			k = words(text, lw)
			for (j = 1; j <= k; j++)
				w[++nw] = lw[j]
		}
		END {
			flush()
			exit bad > 0
		}
	'
}

main() {
	local mode=prose seeds
	if [[ ${1:-} == -c ]]; then
		mode=code
		shift
	fi
	[[ $# -le 1 ]] || usage
	seeds=${1:-$REPO_DIR/../shared/seeds}
	if [[ ! -d $seeds ]] || ! compgen -G "$seeds/*" >/dev/null; then
		echo "$0: no seed files in $seeds" >&2
		exit 2
	fi
	if [[ $mode == code ]]; then
		texts_to_check code | find_runs "$seeds" /dev/null || true
		return
	fi
	texts_to_check | find_runs "$seeds" "$REPO_DIR/tests/seed-overlap.allow"
}

main "$@"
