# shellcheck shell=bash
# Assertions for the host-side unit tests: "ok - NAME" / "not ok - NAME"
# lines and a closing "N passed, N failed"; and how a test starts
# (test_init: its -h, then scratch_init).

# shellcheck source=bench/lib/help.sh
. "${BASH_SOURCE[0]%/*}/../../bench/lib/help.sh"
# shellcheck source=bench/lib/cores.sh
. "${BASH_SOURCE[0]%/*}/../../bench/lib/cores.sh"

passed=0
failed=0

pass() { echo "ok - $1"; passed=$((passed + 1)); }
fail() { echo "not ok - $1"; failed=$((failed + 1)); }

# check NAME CMD...: the assertion passes when CMD succeeds.
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}

# dir_entries ARRAY DIR: DIR's entries, hidden ones too, into ARRAY (by
# globs, not ls or find: the host tests ask for every row).
dir_entries() {
	local -n dir_entries_into=$1
	local de_f
	dir_entries_into=()
	for de_f in "$2"/* "$2"/.[!.]* "$2"/..?*; do
		[[ ! -e $de_f && ! -L $de_f ]] || dir_entries_into+=("$de_f")
	done
}

# dir_has DIR: DIR has an entry, hidden ones too.
dir_has() {
	local -a entries
	dir_entries entries "$1"
	((${#entries[@]} > 0))
}

# bg_slot: call before starting a row in the background: waits until fewer
# than the host's cores' worth of the rows started so run (counted here:
# "jobs | wc" and nproc were four processes a row).
BG_RUNNING=0
bg_slot() {
	[[ -n ${BG_CORES:-} ]] || host_cores BG_CORES
	while ((BG_RUNNING >= BG_CORES)); do
		wait -n || true
		BG_RUNNING=$((BG_RUNNING - 1))
	done
	BG_RUNNING=$((BG_RUNNING + 1))
}

# repo_status DIR [OPTION...]: git status --porcelain of the checkout DIR
# with OPTIONs, without the resolver's writability probes (bench/lib/
# settings.sh st_writable: .bib-probe.PID.RANDOM, made and removed in
# milliseconds in results/ or the checkout itself): make check runs other
# tests beside this one, and a status taken while theirs exists would show
# it (2 of 495 calls beside bad-input did).
repo_status() {
	local dir=$1 lines
	shift
	lines=$(git -C "$dir" status --porcelain "$@")
	grep -Ev '[ /]\.bib-probe\.[0-9]+\.[0-9]+$' <<<"$lines" || :
}

finish() {
	echo "$passed passed, $failed failed"
	[[ $failed -eq 0 ]]
}

# unwrap: stdin's lines with each indented continuation joined to the line
# before it by one space (the 80-column compare table: one row a line again)
unwrap() {
	awk '/^ / { sub(/^ +/, ""); line = line " " $0; next }
		NR > 1 { print line } { line = $0 } END { if (NR) print line }'
}

# scratch_init: what every host test starts with: REPO_DIR, the checkout's
# top; SCRATCH, a directory of its own, removed when the test exits (made
# writable first: a test may take its write permission away); and no plan
# of the command that runs it (make test's): a test's commands run as a
# user's do, resolving their settings from the environment the test gives.
scratch_init() {
	unset BIB_PLAN
	# shellcheck disable=SC2034 # read by the test that sourced this file
	REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	SCRATCH=$(mktemp -d)
	trap 'chmod -R u+w "$SCRATCH" 2>/dev/null; rm -rf "$SCRATCH"' EXIT
}

# test_init SCRIPT [ARG...]: a host test's start: SCRIPT's help on -h (and
# nothing else: bench/lib/help.sh), then scratch_init.
test_init() {
	help_answer "$@"
	scratch_init
}

# test_plan [DRIVER NAMES]: BIB_PLAN, a plan of DRIVER's settings NAMES
# resolved from this test's environment (default: test's CACHE, KSRC and
# SERIES, for a test that calls the libraries, lib_init, as a script does;
# or the plan of a driver the test runs many times, handed on to each run
# as a driver hands on its own).  Needs SCRATCH (scratch_init).
test_plan() {
	local driver=${1:-test} names=${2:-CACHE KSRC SERIES}
	"${BASH_SOURCE[0]%/*}/../../bench/plan/resolve" -n "$names" -o "$SCRATCH/$driver.plan" "$driver" || return
	export BIB_PLAN=$SCRATCH/$driver.plan
}
