#!/usr/bin/env bash
# The coverage table of make coverage, from lcov tracefiles (.info).
#
#   coverage-table.sh [-r REASONS] SRC_DIR LABEL=INFO...
#
# For each scope of SCOPES (below, or $COVERAGE_SCOPES, one a line), the
# lines, branches and functions hit/total in each tracefile, in plain text
# within 80 columns with one numbered column per LABEL; then the lines of the scopes that the last
# tracefile never reached, each with its function, its code (read from
# SRC_DIR, the tree the kernel was built from) and the reason that
# REASONS (default bench/report/coverage-reasons.txt) gives for it.
#
# A scope is "FILE" (every line of it) or "FILE:FUNC[,FUNC...]" (those
# functions, from the line of their name to the first "}" in column 0).
# FILE is the path in the tracefile, relative to SRC_DIR.  A line of
# REASONS is "FILE|FUNC|CODE|REASON": an unreached line of FILE in FUNC
# whose code contains CODE has that REASON.
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/help.sh
. "$HERE/../lib/help.sh"
help_answer "$0" "$@"

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCOPES=${COVERAGE_SCOPES:-"block/error-injection.c
block/error-injection.h:blk_error_inject
block/blk-core.c:submit_bio_noacct_nocheck
block/blk-core.c:str_to_blk_op,blk_status_to_tag,tag_to_blk_status"}

die() {
	printf 'error: %s\n' "$*" >&2
	exit "$STATUS_BAD_INPUT"
}

main() {
	local reasons=$BENCH_DIR/report/coverage-reasons.txt src arg labels=() infos=()
	help_option "$0" -r reasons "$@"
	shift $((OPTIND - 1))
	[[ $# -ge 2 ]] || help_usage "$0"
	src=$1
	shift
	[[ -d $src ]] || die "SRC_DIR '$src' is not a directory"
	[[ -f $reasons ]] || die "reasons file '$reasons' missing"
	for arg in "$@"; do
		[[ $arg == ?*=?* ]] || die "'$arg': want LABEL=INFO"
		[[ -f ${arg#*=} ]] || die "tracefile '${arg#*=}' missing"
		labels+=("${arg%%=*}")
		infos+=("${arg#*=}")
	done
	awk -v src="$src" -v scopes="$SCOPES" -v labels="$(printf '%s\n' "${labels[@]}")" \
		-v reasons="$reasons" -f "$BENCH_DIR/report/coverage-table.awk" "${infos[@]}"
}

main "$@"
