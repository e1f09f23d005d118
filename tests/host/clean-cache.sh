#!/usr/bin/env bash
# make clean-cache removes everything the suite made under CACHE and nothing
# else: checked on a fake CACHE (every entry of bench/setup/clean-cache.sh --list,
# plus a file of the user's) and a fake shared CCACHE_DIR beside it, never
# on a real cache.  Also: every name the scripts make under CACHE is on the
# list, and a CACHE that is not ours is refused.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="make clean-cache removes what the suite made, only that"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"

# names_used: the names the code makes directly under CACHE
names_used() {
	git -C "$REPO_DIR" ls-files Makefile bench perf-scripts plots tests | grep -v '^tests/host/clean-cache\.sh$' |
		(cd "$REPO_DIR" && xargs grep -hoE '\$\{?\(?CACHE\)?\}?/[A-Za-z0-9_.-]+') |
		sed -E 's,^[^/]*/,,; s,[.]+$,,' | sort -u
}

# listed NAME: NAME matches an entry of the list
listed() {
	local e
	for e in "${LIST[@]}"; do
		# shellcheck disable=SC2053 # an entry may be a pattern
		[[ $1 == $e ]] && return 0
	done
	return 1
}

# every_name_listed: the code makes nothing under CACHE that the list lacks
every_name_listed() {
	local n missing=()
	while read -r n; do
		listed "$n" || missing+=("$n")
	done < <(names_used)
	[[ ${#missing[@]} == 0 ]] || { printf '      not on the list: %s\n' "${missing[*]}"; return 1; }
}

# fill DIR: every entry of the list, with content (a read-only file in
# trees, as git objects are), and a file of the user's
fill() {
	local e
	mkdir -p "$1"
	for e in "${LIST[@]}"; do
		case $e in
		*\**) : >"$1/${e//\*/0123}" ;;
		*.* | runs-made) echo x >"$1/$e" ;;
		*) mkdir -p "$1/$e/sub" && echo x >"$1/$e/sub/file" ;;
		esac
	done
	chmod a-w "$1/trees/sub/file" "$1/trees/sub"
	echo mine >"$1/my-notes.txt"
}

run_clean() {
	(cd "$REPO_DIR" && env "$@" make -s clean-cache) >"$SCRATCH/out" 2>&1
}

main() {
	local c=$SCRATCH/cache shared=$SCRATCH/shared-ccache rc
	mapfile -t LIST < <("$REPO_DIR/bench/setup/clean-cache.sh" --list)
	check "every name the scripts make under CACHE is on clean-cache's list" every_name_listed

	fill "$c"
	mkdir -p "$shared"
	echo object >"$shared/object"
	check "make clean-cache on a fake CACHE exits 0" run_clean CACHE="$c" CCACHE_DIR="$shared"
	check "  ... it removed every entry, the user's file is left" \
		test "$(cd "$c" && ls -A)" == my-notes.txt
	check "  ... and named" grep -q 'left (not made by the suite): my-notes.txt' "$SCRATCH/out"
	check "  ... the shared CCACHE_DIR outside CACHE is untouched" test "$(cat "$shared/object")" == object
	check "  ... and named as left alone" grep -q "CCACHE_DIR=$shared is outside CACHE (shared): left alone" "$SCRATCH/out"

	rm -rf "$c"
	fill "$c"
	rm "$c/my-notes.txt"
	check "with nothing else in it, CACHE itself is removed" run_clean CACHE="$c" CCACHE_DIR="$c/ccache"
	check "  ... it is gone" test ! -e "$c"

	mkdir -p "$SCRATCH/other"
	echo keep >"$SCRATCH/other/file"
	rc=0
	(cd "$REPO_DIR" && CACHE=$SCRATCH/other bench/setup/clean-cache.sh) >"$SCRATCH/out" 2>&1 || rc=$?
	check "a CACHE with nothing of ours is refused (exit 2)" test "$rc" == 2
	check "  ... and untouched" test "$(cat "$SCRATCH/other/file")" == keep
	check "  ... it says why" grep -q 'holds nothing the suite made' "$SCRATCH/out"
	rc=0
	(cd "$REPO_DIR" && CACHE=/ bench/setup/clean-cache.sh) >"$SCRATCH/out" 2>&1 || rc=$?
	check "CACHE=/ is refused (exit 2)" test "$rc" == 2
	finish
}

main "$@"
