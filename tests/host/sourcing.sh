#!/usr/bin/env bash
# Nothing happens when a library in bench/lib/ is sourced (issue 23): each
# one alone, then all of them in one shell (lib.sh first), sourced by a
# fresh bash under set -euo pipefail with an empty HOME and a CACHE that
# does not exist, exits 0, prints nothing, exports nothing, makes no CACHE
# and no other file, and leaves the checkout as it was.  The work a script
# needs (the cache made, the variant resolved, the job file read) is in
# functions it calls: lib_init.
#
#   tests/host/sourcing.sh     "ok"/"not ok" a line; exit 1 on a failure
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="sourcing a bench/lib library does nothing: no file, no output"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"

# status: the checkout's state, ignored files included; an ignored
# directory as one line, not walked (--ignored=matching: the default mode
# reads all of a CACHE inside the checkout, kernel tree and all), without
# other tests' resolver probes (repo_status)
status() {
	repo_status "$REPO_DIR" --ignored=matching
}

# source_libs DIR LIB...: source each LIB in order in a fresh bash run in
# DIR/work, HOME DIR/home, CACHE DIR/cache; what it prints into DIR/out,
# its exported variables before and after into DIR/env-before, env-after;
# returns its exit status.
source_libs() {
	local dir=$1
	shift
	mkdir -p "$dir/work" "$dir/home"
	# shellcheck disable=SC2016 # expanded by the inner bash
	(cd "$dir/work" && HOME=$dir/home CACHE=$dir/cache timeout 20 bash -c '
		set -euo pipefail
		shopt -s inherit_errexit
		dir=$1
		shift
		export -p >"$dir/env-before"
		for lib; do
			# shellcheck source=/dev/null
			. "$lib"
		done
		export -p >"$dir/env-after"
	' sourcing "$dir" "$@" >"$dir/out" 2>&1 </dev/null)
}

# nothing_in DIR: DIR is empty
nothing_in() {
	[[ -z $(find "$1" -mindepth 1 -print -quit) ]]
}

# expect_nothing NAME DIR LIB...: the checks above for sourcing LIB...
expect_nothing() {
	local name=$1 dir=$2 rc=0 after
	shift 2
	source_libs "$dir" "$@" || rc=$?
	check "$name: exit 0 (got $rc)" test "$rc" = 0
	check "$name: prints nothing" test ! -s "$dir/out"
	check "$name: exports nothing" cmp -s "$dir/env-before" "$dir/env-after"
	check "$name: makes no CACHE" test ! -e "$dir/cache"
	check "$name: makes no file" nothing_in "$dir/work"
	check "$name: writes nothing in HOME" nothing_in "$dir/home"
	after=$(status)
	check "$name: leaves the checkout as it was" test "$BEFORE" = "$after"
	BEFORE=$after
	[[ ! -s $dir/out ]] || sed -n '1,3s/^/      /p' "$dir/out"
}

main() {
	local lib libs=() n=0
	BEFORE=$(status)
	mapfile -t libs < <(cd "$REPO_DIR" && printf '%s\n' bench/lib/lib.sh &&
		printf '%s\n' bench/lib/*.sh | grep -vx bench/lib/lib.sh)
	[[ ${#libs[@]} -gt 1 ]] || { echo "no libraries in bench/lib" >&2; exit 2; }
	for lib in "${libs[@]}"; do
		n=$((n + 1))
		expect_nothing "source $lib" "$SCRATCH/$n" "$REPO_DIR/$lib"
	done
	expect_nothing "source every bench/lib/*.sh in one shell" "$SCRATCH/all" \
		"${libs[@]/#/$REPO_DIR/}"
	finish
}

main "$@"
