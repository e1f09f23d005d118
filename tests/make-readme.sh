#!/usr/bin/env bash
# Writes the tables of tests in tests/README.md from what each test
# declares: a guest test in tests/block (tests/lib/rc) its DESCRIPTION,
# what its requires() checks, and FRESH_BOOT=1; a host test in tests/host
# (tests/lib/host.sh) its DESCRIPTION and what its requires() checks.
# Each table sits between two marker lines, and nothing else in the file
# changes.
#
#   tests/make-readme.sh [-c] [TESTS_DIR]
#     -c   check only: exit 1 (with a diff) when a committed table is not
#          what the declarations make, or a test has no DESCRIPTION
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/lib/help.sh
. "$(dirname "$0")/../bench/lib/help.sh"

BEGIN_MARK='<!-- guest tests: made by tests/make-readme.sh from the declarations; do not edit -->'
END_MARK='<!-- end of the guest tests -->'
HOST_BEGIN_MARK='<!-- host tests: made by tests/make-readme.sh from the declarations; do not edit -->'
HOST_END_MARK='<!-- end of the host tests -->'

usage() {
	help_header "$0"
	exit "${1:-2}"
}

die() {
	printf 'make-readme: %s\n' "$*" >&2
	exit 1
}

# declared SHELL LIB DECLS TEST_FILE...: "NAME|DESCRIPTION|NEEDS|FRESH_BOOT"
# a line, one a test: its declarations (DECLS, a function of LIB, prints
# them) run by SHELL with the tests' helpers from LIB, the _have_* ones
# only listing what they check (REQUIRES_LIST=1).  No test runs here; one
# SHELL reads every test.
declared() {
	local shell=$1 lib=$2 decls=$3
	shift 3
	# shellcheck disable=SC2016 # expanded by the inner shell, not here
	"$shell" -c '
		decls=$2
		. "$1"
		shift 2
		for t in "$@"; do
			requires() { :; }
			DESCRIPTION= FRESH_BOOT=
			eval "$("$decls" "$t")"
			needs=
			while IFS= read -r l; do
				[ -z "$l" ] || needs="${needs:+$needs; }$l"
			done <<NEEDS
$(REQUIRES_LIST=1 requires)
NEEDS
			printf "%s|%s|%s|%s\n" "${t##*/}" "$DESCRIPTION" "$needs" "$FRESH_BOOT"
		done
	' "$shell" "$lib" "$decls" "$@"
}

# without_description TEST_FILE...: the first TEST_FILE that declares no
# one-line DESCRIPTION (nothing: each does), by one grep for them all.
without_description() {
	local line
	while IFS= read -r line; do
		[[ $line == *:0 ]] || continue
		printf '%s\n' "${line%:0}"
		return
	done < <(grep -c -H '^DESCRIPTION="[^"|]*"$' "$@" || :)
}

# table: the Markdown table, one row a guest test, in the order of their files.
table() {
	local t name desc needs fresh boot
	local -a tests=()
	printf '%s\n' "$BEGIN_MARK"
	printf '| test | what it checks | not run without | boot |\n'
	printf '|---|---|---|---|\n'
	for t in "$TESTS_DIR"/block/[0-9]*; do
		[[ $t == *.out ]] || tests+=("$t")
	done
	t=$(without_description "${tests[@]}")
	[[ -z $t ]] || die "${t##*/}: no DESCRIPTION=\"one line, no |\" before it sources ../lib/rc"
	while IFS='|' read -r name desc needs fresh; do
		[[ $fresh == 1 ]] && boot='fresh: first in its boot' || boot='shared'
		printf '| [%s](block/%s) | %s | %s | %s |\n' "$name" "$name" "$desc" "${needs:-–}" "$boot"
	done < <(declared sh "$TESTS_DIR/lib/rc" _declarations "${tests[@]}")
	printf '%s\n' "$END_MARK"
}

# host_table: the Markdown table of the host tests, one row a test, in the
# order tests/check.sh numbers them.
host_table() {
	local t name desc needs _
	local -a tests=()
	printf '%s\n' "$HOST_BEGIN_MARK"
	printf '| test | what it checks | not run without |\n'
	printf '|---|---|---|\n'
	tests=("$TESTS_DIR"/host/*.sh)
	t=$(without_description "${tests[@]}")
	[[ -z $t ]] || die "host/${t##*/}: no DESCRIPTION=\"one line, no |\" near its top"
	while IFS='|' read -r name desc needs _; do
		printf '| [%s](host/%s) | %s | %s |\n' "${name%.sh}" "$name" "$desc" "${needs:-–}"
	done < <(declared bash "$TESTS_DIR/lib/host.sh" _host_declarations "${tests[@]}")
	printf '%s\n' "$HOST_END_MARK"
}

# with_table FILE BEGIN END TABLE_FILE: FILE with the lines from BEGIN to
# END replaced by TABLE_FILE.
with_table() {
	if ! grep -qxF "$2" "$1" || ! grep -qxF "$3" "$1"; then
		die "$1: no table markers ($2 ... $3)"
	fi
	awk -v b="$2" -v e="$3" -v t="$4" '
		$0 == b { while ((getline l < t) > 0) print l; skip = 1; next }
		$0 == e { skip = 0; next }
		!skip
	' "$1"
}

# readme_with GUEST_TABLE HOST_TABLE: tests/README.md with both tables
# replaced.
readme_with() {
	with_table "$TESTS_DIR/README.md" "$BEGIN_MARK" "$END_MARK" "$1" >"$1.readme"
	with_table "$1.readme" "$HOST_BEGIN_MARK" "$HOST_END_MARK" "$2"
}

main() {
	local check=0 tmp status=0
	case ${1:-} in
	-h | --help) usage 0 ;;
	-c) check=1; shift ;;
	-*) usage ;;
	esac
	[[ $# -le 1 ]] || usage
	TESTS_DIR=$(cd "${1:-$(dirname "$0")}" && pwd)
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # tmp is set now, once
	trap "rm -rf '$tmp'" EXIT
	table >"$tmp/table"
	host_table >"$tmp/host-table"
	readme_with "$tmp/table" "$tmp/host-table" >"$tmp/README.md"
	if [[ $check == 1 ]]; then
		diff -u "$TESTS_DIR/README.md" "$tmp/README.md" >&2 || {
			printf 'make-readme: tests/README.md is not what the declarations make: run tests/make-readme.sh\n' >&2
			status=1
		}
	else
		cp "$tmp/README.md" "$TESTS_DIR/README.md"
	fi
	return "$status"
}

main "$@"
