#!/usr/bin/env bash
# Every script on the host answers -h with its usage and exit 0, and does
# nothing else (issue 23): run with an empty HOME and a CACHE that does not
# exist, it prints "usage" or its own name, exits 0 within 20 s (no build,
# no boot, no test run), makes no CACHE and leaves the checkout as it was.
# What it prints on stdout is its whole leading comment block (the help
# bench/lib/help.sh reads), so a header that grows is never cut short.
#
#   tests/host/help.sh      "ok"/"not ok" a line; exit 1 on a failure
#
# The scripts are found, not listed: every file git tracks that starts
# with "#!" (the libraries, sourced, have none), except what runs inside
# the guest (bench/guest/ but for bpf/build.sh, which builds on the host;
# bench/lab/lava-guest.sh; tests/guest/ and the guest tests tests/block/).
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="every host script answers -h: usage, exit 0, nothing made"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"

scripts() {
	local f magic
	git -C "$REPO_DIR" ls-files | while read -r f; do
		case $f in
		bench/guest/bpf/build.sh) ;;
		bench/guest/* | bench/lab/lava-guest.sh | tests/guest/* | tests/block/*) continue ;;
		esac
		[[ -f $REPO_DIR/$f ]] || continue
		# the first two bytes read by the shell: a head each was a process
		# for each of the checkout's files
		magic=''
		IFS= read -r -n 2 magic <"$REPO_DIR/$f" || :
		[[ $magic != '#!' ]] || printf '%s\n' "$f"
	done
}

# header FILE: the leading comment block: the comment lines after the
# shebang up to the first line that is not one, "#" and one space after it
# stripped.  Worked out here, not by bench/lib/help.sh, so that the check
# does not agree with the code by construction.
header() {
	awk 'NR == 1 && /^#!/ { next } !/^#/ { exit } { sub(/^#/, ""); sub(/^ /, ""); print }' "$1"
}

# status: the checkout's state, ignored files included; an ignored
# directory as one line, not walked (--ignored=matching): the default
# mode reads all of a CACHE inside the checkout, 0.3 s a call with a
# kernel tree in it, 40 s over the scripts.  Without the probes of other
# tests' resolvers (repo_status); -h resolves nothing.
status() {
	repo_status "$REPO_DIR" --ignored=matching
}

mapfile -t SCRIPTS < <(scripts)
before=$(status)
for s in "${SCRIPTS[@]}"; do
	dir=$SCRATCH/${s//\//_}
	mkdir -p "$dir/home"
	rc=0
	# a script that is not executable is run as its header says: bash SCRIPT
	run=("$REPO_DIR/$s")
	[[ -x $REPO_DIR/$s ]] || run=(bash "$REPO_DIR/$s")
	(cd "$dir" && HOME=$dir/home CACHE=$dir/cache timeout 20 "${run[@]}" -h \
		>"$dir/out" 2>"$dir/err" </dev/null) || rc=$?
	check "$s -h: exit 0 (got $rc)" test "$rc" = 0
	name=${s##*/}
	check "$s -h: prints its usage" grep -qiE -e usage -e "$name" "$dir/out" "$dir/err"
	header "$REPO_DIR/$s" >"$dir/header"
	check "$s -h: prints its whole leading comment block" cmp -s "$dir/header" "$dir/out"
	check "$s -h: makes no CACHE" test ! -e "$dir/cache"
	after=$(status)
	check "$s -h: leaves the checkout as it was" test "$before" = "$after"
	before=$after
	[[ $rc == 0 ]] || sed -n '1,3s/^/      /p' "$dir/err"
done
finish
