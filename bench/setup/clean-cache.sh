#!/usr/bin/env bash
# make clean-cache: remove everything the suite made under CACHE (kernel
# trees and source variants, builds, images, tools, the QEMU plugin, runs,
# ccache when it is CACHE/ccache, ...), then CACHE itself if nothing else is
# left in it.  What is not the suite's is left and named.  A CCACHE_DIR
# outside CACHE (a shared ccache) is left alone.  CACHE must be ours: it
# holds the marker .blkinject-cache (lib_init in bench/lib/lib.sh writes
# it) or one of the entries below; "/", HOME and the repository are refused.
#
#   CACHE=DIR bench/setup/clean-cache.sh      (make clean-cache)
#   bench/setup/clean-cache.sh --list         the entries it removes, one a line
#
# Exit status: 0, or 2 (a CACHE that is not ours, bad usage).
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/lib/help.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/help.sh"
# shellcheck source=bench/lib/plan.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/plan.sh"

REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# Every name the suite makes directly under CACHE (tests/host/clean-cache.sh
# checks that the scripts use no other).
ENTRIES=(
	build src trees variants ksrc images tools plugin qemu-plugin apt
	runs runs-made copies test-runs fuzz-runs coverage-runs boot-soak
	per-patch mutants step-times disasm.txt checkpatch.log 'accel-probe-*' check
	check-fragments
	ccache .blkinject-cache
)

die() {
	printf 'clean-cache: %s\n' "$*" >&2
	exit "$STATUS_BAD_INPUT"
}

# ours DIR: DIR has the marker or an entry of the list
ours() {
	local e
	[[ -e $1/.blkinject-cache ]] && return 0
	for e in "${ENTRIES[@]}"; do
		compgen -G "$1/$e" >/dev/null && return 0
	done
	return 1
}

main() {
	local cache dir e path left ccache repo home
	case ${1:-} in
	-h | --help) help_header "${BASH_SOURCE[0]}"; return 0 ;;
	--list) printf '%s\n' "${ENTRIES[@]}"; return 0 ;;
	'') ;;
	*) die "unknown argument '$1' (usage: CACHE=DIR clean-cache.sh [--list | -h])" ;;
	esac
	# CACHE and CCACHE_DIR resolved and checked (exit 2 on bad input)
	plan_need clean-cache 'CACHE CCACHE_DIR' -- "$0" "$@"
	# shellcheck disable=SC2153 # read from the plan
	cache=$CACHE
	if [[ ! -e $cache ]]; then
		printf 'clean-cache: %s does not exist: nothing to remove\n' "$cache"
		return 0
	fi
	[[ -d $cache ]] || die "CACHE='$cache' is not a directory"
	dir=$(cd "$cache" && pwd -P)
	repo=$(cd "$REPO_DIR" && pwd -P)
	home=$(cd "${HOME:-/}" 2>/dev/null && pwd -P || echo /)
	case $dir in
	/ | "$repo" | "$home") die "CACHE='$cache' is $dir, which is never removed" ;;
	esac
	ours "$dir" || die "CACHE='$cache' holds nothing the suite made (no .blkinject-cache, none of: ${ENTRIES[*]}); not touched"
	ccache=$CCACHE_DIR
	if [[ -d $ccache && $(cd "$ccache" && pwd -P) != "$dir/ccache" ]]; then
		printf 'clean-cache: CCACHE_DIR=%s is outside CACHE (shared): left alone\n' "$ccache"
	fi
	for e in "${ENTRIES[@]}"; do
		for path in "$dir"/$e; do # $e may be a pattern
			[[ -e $path || -L $path ]] || continue
			# kernel trees may hold read-only files (git objects)
			chmod -R u+w "$path" 2>/dev/null || :
			rm -rf -- "$path"
		done
	done
	left=$(cd "$dir" && find . -mindepth 1 -maxdepth 1 -printf '%P\n' | sort)
	if [[ -z $left ]]; then
		rmdir -- "$dir"
		printf 'clean-cache: removed %s\n' "$dir"
	else
		printf 'clean-cache: removed what the suite made in %s; left (not made by the suite): %s\n' "$dir" "${left//$'\n'/ }"
	fi
}

main "$@"
