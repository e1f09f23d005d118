#!/usr/bin/env bash
# The follow-up series (patches/next) is built as SERIES=patches/next: its
# series file lists the series of patches/ first, as ../NAME in the same
# order, so that the two cannot drift apart, then the follow-up's own
# patches, each once; every patch in patches/next is listed.
#
#   tests/host/next-series.sh     "ok"/"not ok" a line; exit 1 on a failure
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="patches/next/series: patches/series first, then each patch of patches/next once"
set -euo pipefail
shopt -s inherit_errexit

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"

# entries FILE: the patch names a series file lists, one a line.
entries() {
	sed -e 's/#.*//' -e 's/[[:space:]].*//' "$1" | grep -v '^$'
}

main() {
	local next=$REPO_DIR/patches/next base own p n
	entries "$REPO_DIR/patches/series" | sed 's|^|../|' >"$SCRATCH/base"
	entries "$next/series" >"$SCRATCH/next"
	n=$(wc -l <"$SCRATCH/base")
	head -n "$n" "$SCRATCH/next" >"$SCRATCH/head"
	check "patches/next/series starts with patches/series, in order" cmp -s "$SCRATCH/base" "$SCRATCH/head"
	tail -n +"$((n + 1))" "$SCRATCH/next" >"$SCRATCH/own"
	check "the follow-up lists patches of its own" test -s "$SCRATCH/own"
	base=$(grep -c '/' "$SCRATCH/own" || true)
	check "the follow-up's own entries are files in patches/next" test "$base" = 0
	check "each of them listed once" test "$(sort "$SCRATCH/own" | uniq -d | wc -l)" = 0
	for p in "$next"/*.patch; do
		own=${p##*/}
		check "$own is listed in patches/next/series" grep -qxF "$own" "$SCRATCH/own"
	done
	while read -r p; do
		check "$p exists" test -f "$next/$p"
	done <"$SCRATCH/own"
	finish
}

main "$@"
