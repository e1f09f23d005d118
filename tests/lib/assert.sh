# shellcheck shell=bash
# Assertions for the host-side unit tests: "ok - NAME" / "not ok - NAME"
# lines and a closing "N passed, N failed".

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

finish() {
	echo "$passed passed, $failed failed"
	[[ $failed -eq 0 ]]
}
