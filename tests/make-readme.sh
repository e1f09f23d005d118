#!/usr/bin/env bash
# Writes the table of guest tests in tests/README.md from what each test in
# tests/block declares (tests/lib/rc): its DESCRIPTION, what its requires()
# checks, and OWN_BOOT=1.  The table sits between two marker lines, and
# nothing else in the file changes.
#
#   tests/make-readme.sh [-c] [TESTS_DIR]
#     -c   check only: exit 1 (with a diff) when the committed table is not
#          what the declarations make, or a test has no DESCRIPTION
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/lib/help.sh
. "$(dirname "$0")/../bench/lib/help.sh"

BEGIN_MARK='<!-- guest tests: made by tests/make-readme.sh from the declarations; do not edit -->'
END_MARK='<!-- end of the guest tests -->'

usage() {
	help_header "$0"
	exit "${1:-2}"
}

die() {
	printf 'make-readme: %s\n' "$*" >&2
	exit 1
}

# declared TEST_FILE: "DESCRIPTION|NEEDS|OWN_BOOT" of a guest test: its
# declarations run by sh with the guest's helpers, the _have_* ones only
# listing what they check (REQUIRES_LIST=1).  No test runs here.
declared() {
	# shellcheck disable=SC2016 # expanded by sh, not here
	sh -c '
		. "$1"
		requires() { :; }
		DESCRIPTION= OWN_BOOT=
		eval "$(_declarations "$2")"
		needs=$(REQUIRES_LIST=1 requires | paste -sd ";" - | sed "s/;/; /g")
		printf "%s|%s|%s\n" "$DESCRIPTION" "$needs" "$OWN_BOOT"
	' sh "$TESTS_DIR/lib/rc" "$1"
}

# table: the Markdown table, one row a guest test, in the order they run.
table() {
	local t name desc needs own
	printf '%s\n' "$BEGIN_MARK"
	printf '| test | what it checks | not run without | boot |\n'
	printf '|---|---|---|---|\n'
	for t in "$TESTS_DIR"/block/[0-9]*; do
		[[ $t != *.out ]] || continue
		name=${t##*/}
		grep -q '^DESCRIPTION="[^"|]*"$' "$t" ||
			die "$name: no DESCRIPTION=\"one line, no |\" before it sources ../lib/rc"
		IFS='|' read -r desc needs own < <(declared "$t")
		[[ $own == 1 ]] && own='its own' || own='shared'
		printf '| [%s](block/%s) | %s | %s | %s |\n' "$name" "$name" "$desc" "${needs:-–}" "$own"
	done
	printf '%s\n' "$END_MARK"
}

# readme_with TABLE_FILE: tests/README.md with its table replaced.
readme_with() {
	local readme=$TESTS_DIR/README.md
	if ! grep -qxF "$BEGIN_MARK" "$readme" || ! grep -qxF "$END_MARK" "$readme"; then
		die "$readme: no table markers ($BEGIN_MARK ... $END_MARK)"
	fi
	awk -v b="$BEGIN_MARK" -v e="$END_MARK" -v t="$1" '
		$0 == b { while ((getline l < t) > 0) print l; skip = 1; next }
		$0 == e { skip = 0; next }
		!skip
	' "$readme"
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
	readme_with "$tmp/table" >"$tmp/README.md"
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
