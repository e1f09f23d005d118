#!/usr/bin/env bash
# The documentation's shape and links: README.md is at most 250 lines, its
# "Expected result" section starts within the first 60 (the first screen),
# every relative link in README.md, docs/*.md and results/*/README.md
# names a file or directory that exists, and a heading that exists when it
# points into a Markdown file (#anchor, as GitHub makes it); and a time
# `make help` gives for a command is a figure of that command's row in
# README's table of times (never a time in words: "about a minute").
#
#   tests/host/doc-check.sh [REPO_DIR]   prints each problem; exit 1 if any
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="README at most 250 lines, its expected result first, doc links resolve"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"

REPO_DIR=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
README_MAX_LINES=250
EXPECTED_BY_LINE=60
PROBLEMS=0

problem() {
	printf 'doc-check: %s\n' "$*" >&2
	PROBLEMS=$((PROBLEMS + 1))
}

# links FILE: "LINE<TAB>TARGET" for every Markdown link or image outside
# code fences and inline code.
links() {
	awk '
		/^ *```/ { fence = !fence; next }
		fence { next }
		{
			s = $0
			gsub(/`[^`]*`/, "", s)
			while (match(s, /\]\([^) \t]+\)/)) {
				printf "%d\t%s\n", NR, substr(s, RSTART + 2, RLENGTH - 3)
				s = substr(s, RSTART + RLENGTH)
			}
		}
	' "$1"
}

# anchors FILE: the anchor of every heading of a Markdown file, one a line
# (lower case, punctuation other than - and _ dropped, spaces as -).
anchors() {
	awk '
		/^ *```/ { fence = !fence; next }
		fence || !/^#+ / { next }
		{
			s = tolower($0)
			sub(/^#+ +/, "", s)
			gsub(/[^a-z0-9 _-]/, "", s)
			gsub(/ /, "-", s)
			print s
		}
	' "$1"
}

check_links() {
	local file=$1 rel=${1#"$REPO_DIR"/} line target path frag dest
	while IFS=$'\t' read -r line target; do
		case $target in
		http://* | https://* | mailto:*) continue ;;
		esac
		path=${target%%#*}
		frag=''
		[[ $target != *'#'* ]] || frag=${target#*#}
		if [[ -z $path ]]; then
			dest=$file
		else
			dest=${file%/*}/$path
		fi
		if [[ ! -e $dest ]]; then
			problem "$rel:$line: $target: no such file or directory"
		elif [[ -n $frag && -f $dest && $dest == *.md ]] &&
			! grep -qxF -- "$frag" < <(anchors "$dest"); then
			problem "$rel:$line: $target: no heading with that anchor"
		fi
	done < <(links "$file")
}

# help_entries: the commands of make help's summary (the Makefile's "#   "
# lines), "TARGET<TAB>TEXT" a line, an entry's indented lines joined.
help_entries() {
	sed -n 's/^#   //p' "$REPO_DIR/Makefile" | awk '
		/^make/ { if (t != "") print t "\t" x; t = /^make [a-z]/ ? $2 : "all"; x = $0; next }
		/^ / { x = x " " $0; next }
		END { if (t != "") print t "\t" x }'
}

# check_help_times: each time in make help's entry for a command (N s,
# N min) is on that command's row of README's table of times.
check_help_times() {
	local target text row fig
	while IFS=$'\t' read -r target text; do
		grep -qiE '[0-9]+ (s|min)\b|minute|hour' <<<"$text" || continue
		row="make"
		[[ $target == all ]] || row+=" $target"
		row=$(grep -m1 -F "| \`$row\` |" "$REPO_DIR/README.md" || true)
		if [[ -z $row ]]; then
			problem "Makefile: make help gives a time for make $target, which README's table of times has no row for"
			continue
		fi
		if grep -qiE 'minute|hour' <<<"$text"; then
			problem "Makefile: make help says how long make $target takes in words; give README's figures"
		fi
		while read -r fig; do
			[[ $row == *"$fig"* ]] || problem "Makefile: make help says make $target takes $fig, which README's row does not: $row"
		done < <(grep -oE '[0-9]+ (s|min)\b' <<<"$text")
	done < <(help_entries)
}

main() {
	local readme=$REPO_DIR/README.md n at f
	n=$(wc -l <"$readme")
	((n <= README_MAX_LINES)) || problem "README.md has $n lines, more than $README_MAX_LINES"
	at=$(grep -n -m1 '^## Expected result' "$readme" | cut -d: -f1 || true)
	if [[ -z $at ]]; then
		problem "README.md has no '## Expected result' section"
	elif ((at > EXPECTED_BY_LINE)); then
		problem "README.md: '## Expected result' starts at line $at, after line $EXPECTED_BY_LINE"
	fi
	for f in "$readme" "$REPO_DIR"/docs/*.md "$REPO_DIR"/results/*/README.md; do
		[[ -f $f ]] || continue
		check_links "$f"
	done
	check_help_times
	if ((PROBLEMS > 0)); then
		printf 'doc-check: %d problems\n' "$PROBLEMS" >&2
		return 1
	fi
	printf 'doc-check: README.md %d lines, Expected result at line %s, links resolve\n' "$n" "$at"
}

main "$@"
