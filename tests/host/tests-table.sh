#!/usr/bin/env bash
# Every guest test declares itself (tests/lib/rc), every host test too
# (tests/lib/host.sh), and tests/README.md's tables are what the
# declarations make (tests/make-readme.sh -c), so a new test cannot go
# undocumented; no guest test skips from inside any more (exit 77:
# requires() says what it needs).  Also, on a copy: the check fails for a
# test added without its row, and for one without a DESCRIPTION.
#
#   tests/host/tests-table.sh     "ok"/"not ok" a line; exit 1 on a failure
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="guest and host tests declare themselves; tests/README.md's tables are theirs"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"

MAKE_README=$REPO_DIR/tests/make-readme.sh

# fails COMMAND...: COMMAND exits non-zero.
fails() {
	! "$@" >/dev/null 2>&1
}

# copy_tests: the tests' README, lib and guest tests in a scratch folder.
copy_tests() {
	rm -rf "$SCRATCH/tests"
	mkdir -p "$SCRATCH/tests"
	cp -a "$REPO_DIR/tests/README.md" "$REPO_DIR/tests/lib" "$REPO_DIR/tests/block" "$REPO_DIR/tests/host" "$SCRATCH/tests/"
}

check "tests/README.md's tables are what the declarations make" "$MAKE_README" -c
for t in "$REPO_DIR"/tests/block/[0-9]*; do
	[[ $t != *.out ]] || continue
	name=${t##*/}
	check "$name: one DESCRIPTION line" test "$(grep -c '^DESCRIPTION="[^"|]\{1,\}"$' "$t")" = 1
	check "$name: declared before it sources ../lib/rc" \
		test "$(sed -n '/^DESCRIPTION=/=' "$t")" -lt "$(sed -n '/^\. \.\.\/lib\/rc$/=' "$t")"
	check "$name: no skip from inside (requires() instead)" fails grep -qE '^[[:space:]]*skip |exit 77' "$t"
	check "$name: has its golden $name.out" test -f "$t.out"
done

for t in "$REPO_DIR"/tests/host/*.sh; do
	name=host/${t##*/}
	check "$name: one DESCRIPTION line" test "$(grep -c '^DESCRIPTION="[^"|]\{1,\}"$' "$t")" = 1
	check "$name: declared within its first 40 lines" test "$(sed -n '/^DESCRIPTION=/=' "$t")" -le 40
done

copy_tests
printf '#!/bin/sh\n# shellcheck disable=SC2034\nDESCRIPTION="new"\n. ../lib/rc\necho hi\n' >"$SCRATCH/tests/block/099-new"
check "a test added without its row: the check fails" fails "$MAKE_README" -c "$SCRATCH/tests"
"$MAKE_README" "$SCRATCH/tests"
check "and passes once make-readme.sh wrote the row" "$MAKE_README" -c "$SCRATCH/tests"
check "the row has the test's description" grep -qF '| [099-new](block/099-new) | new | – | shared |' "$SCRATCH/tests/README.md"
printf 'requires() {\n\t_have_cpus 4\n\t_have_module dm-dust\n}\n' >>"$SCRATCH/tests/block/099-new"
"$MAKE_README" "$SCRATCH/tests"
check "the row lists what requires() checks" grep -qF '| [099-new](block/099-new) | new | 4 CPUs; module dm-dust | shared |' "$SCRATCH/tests/README.md"
sed -i '/^DESCRIPTION=/d' "$SCRATCH/tests/block/099-new"
check "a test without a DESCRIPTION: the check fails" fails "$MAKE_README" -c "$SCRATCH/tests"

copy_tests
printf '#!/usr/bin/env bash\n# shellcheck disable=SC2034\nDESCRIPTION="a new host check"\necho "ok - x"\n' >"$SCRATCH/tests/host/new.sh"
check "a host test added without its row: the check fails" fails "$MAKE_README" -c "$SCRATCH/tests"
"$MAKE_README" "$SCRATCH/tests"
check "and passes once make-readme.sh wrote the row" "$MAKE_README" -c "$SCRATCH/tests"
check "the row has the host test's description" grep -qF '| [new](host/new.sh) | a new host check | – |' "$SCRATCH/tests/README.md"
printf 'requires() {\n\t_have_root\n\t_have_program lava-run\n}\n' >>"$SCRATCH/tests/host/new.sh"
"$MAKE_README" "$SCRATCH/tests"
check "the row lists what its requires() checks" grep -qF '| [new](host/new.sh) | a new host check | root; lava-run |' "$SCRATCH/tests/README.md"
sed -i '/^DESCRIPTION=/d' "$SCRATCH/tests/host/new.sh"
check "a host test without a DESCRIPTION: the check fails" fails "$MAKE_README" -c "$SCRATCH/tests"
finish
