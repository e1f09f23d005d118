#!/usr/bin/env bash
# checkpatch.pl --strict (the kernel's: the pristine tree's in CACHE, or
# the script alone from the tarball, bench/kernel/build.sh checkpatch) on
# every patch: the series, its follow-up (patches/next), the ablation and
# instrumentation patches, and the guest tests' kernel module; a line a
# file.
#
#   tests/host/checkpatch.sh     "ok"/"not ok" a line; exit 1 on a failure
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="checkpatch --strict on every patch"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"
export CACHE=${CACHE:-$REPO_DIR/.cache}

# checkpatch PATCH: checkpatch.pl --strict on PATCH, quiet unless it finds
# something.
checkpatch() {
	"$CHECKPATCH" --strict --no-tree --ignore FILE_PATH_CHANGES -q "$1"
}

# checkpatch_file FILE: the same on a source file.
checkpatch_file() {
	"$CHECKPATCH" --strict --no-tree -q -f "$1"
}

main() {
	local p
	CHECKPATCH=$("$REPO_DIR/bench/kernel/build.sh" checkpatch)
	for p in "$REPO_DIR"/patches/*.patch "$REPO_DIR"/patches/next/*.patch \
		"$REPO_DIR"/patches/ablation/*.patch "$REPO_DIR"/patches/instrument/*.patch; do
		check "checkpatch --strict ${p#"$REPO_DIR"/}" checkpatch "$p"
	done
	# the guest tests' own kernel module is kernel C too
	for p in "$REPO_DIR"/bench/guest/kmod/*.c; do
		check "checkpatch --strict ${p#"$REPO_DIR"/}" checkpatch_file "$p"
	done
	finish
}

main "$@"
