#!/usr/bin/env bash
# The results directory a make target reads or writes (make plots, report,
# disasm).  Committed runs are read-only to make: a target that writes
# (plots, report, disasm) into a run that git tracks works on a copy in
# CACHE/copies/<run> instead, and says so.  Without RESULTS the target
# uses the newest run made on this machine, as listed in CACHE/runs-made
# (bench/results.sh record_run appends each run a driver makes), never the
# newest committed one.
#
#   runs-made.sh target TARGET [RESULTS]   prints the directory to use
#   runs-made.sh newest                    the newest run made here, or nothing
#   runs-made.sh -h
#
# Exit status: 0, or 2 (no such run, none made yet, bad usage).
set -euo pipefail
shopt -s inherit_errexit

REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${CACHE:-$REPO_DIR/.cache}

usage() {
	sed -n 's/^#   runs-made.sh/runs-made.sh/p' "${BASH_SOURCE[0]}"
}

die() {
	printf 'error: %s\n' "$*" >&2
	exit 2
}

# is_run DIR: a results directory with a summary
is_run() {
	[[ -d $1 && -f $1/summary.csv ]]
}

# newest: the last line of CACHE/runs-made that is still a run
newest() {
	local list=$CACHE/runs-made runs i
	[[ -f $list ]] || return 0
	mapfile -t runs <"$list"
	for ((i = ${#runs[@]} - 1; i >= 0; i--)); do
		if is_run "${runs[i]}"; then
			printf '%s\n' "${runs[i]}"
			return 0
		fi
	done
}

# committed DIR: git tracks a file in DIR
committed() {
	local files
	files=$(git -C "$1" ls-files -- . 2>/dev/null) || return 1
	[[ -n $files ]]
}

# target TARGET [RESULTS]
target() {
	local name=$1 dir=${2:-} copy
	if [[ -z $dir ]]; then
		dir=$(newest)
		[[ -n $dir ]] || die "make $name: RESULTS is not set and no run was made on this machine yet ($CACHE/runs-made lists none); give RESULTS=results/<run>"
	fi
	dir=${dir%/}
	is_run "$dir" || die "RESULTS='$dir' is not a results directory with a summary.csv (e.g. RESULTS=results/<run>)"
	if committed "$dir"; then
		copy=$CACHE/copies/$(basename "$(cd "$dir" && pwd -P)")
		rm -rf "$copy"
		mkdir -p "$CACHE/copies"
		[[ -e $CACHE/.blkinject-cache ]] || : >"$CACHE/.blkinject-cache"
		cp -a "$dir" "$copy"
		printf 'make %s: %s is a committed run, which make never writes into: working on a copy, %s\n' "$name" "$dir" "$copy" >&2
		dir=$copy
	fi
	printf '%s\n' "$dir"
}

case ${1:-} in
-h | --help) usage ;;
target) [[ $# -ge 2 && $# -le 3 ]] || die "usage: runs-made.sh target TARGET [RESULTS]"; target "$2" "${3:-}" ;;
newest) [[ $# -eq 1 ]] || die "usage: runs-made.sh newest"; newest ;;
*) usage >&2; exit 2 ;;
esac
