# shellcheck shell=bash
# What a host test's requires() calls, as a guest test's calls tests/lib/rc:
# each _have_* adds "no WHAT" to SKIP_REASONS when this machine lacks WHAT
# (tests/check.sh then reports the test as skipped, and does not run it),
# or with REQUIRES_LIST=1 prints WHAT (tests/make-readme.sh's table).
# requires() runs in the runner, with REPO_DIR (the checkout) and CACHE
# set.  Sourcing this file defines functions and nothing else.

# _require NEED COMMAND...: "no NEED" joins SKIP_REASONS unless COMMAND
# succeeds.
_require() {
	local need=$1
	shift
	if [[ ${REQUIRES_LIST:-0} == 1 ]]; then
		printf '%s\n' "$need"
	elif ! "$@" >/dev/null 2>&1; then
		SKIP_REASONS="${SKIP_REASONS:+$SKIP_REASONS; }no $need"
	fi
}

# _have_program NAME: NAME is on PATH.
_have_program() {
	_require "$1" command -v "$1"
}

# _have_path PATH WHAT: PATH exists (WHAT names it for a reader).
_have_path() {
	_require "$2" test -e "$1"
}

# _have_root: the test runs as root.
_have_root() {
	_require "root" test "$(id -u)" = 0
}

# _host_declarations FILE: the declaration lines of the host test FILE (a
# shell fragment to eval: DESCRIPTION and requires()), not the test.
_host_declarations() {
	sed -n -e '/^DESCRIPTION=/p' -e '/^requires() {$/,/^}$/p' "$1"
}
