#!/usr/bin/env bash
# One table of exit statuses (bench/lib/status.sh) for every command, and
# the documentation carries it: each row below runs a command on an input
# that must give one of the statuses the command documents, with no kernel
# build and no boot (an empty scratch CACHE; fakes of QEMU, id, dpkg-query
# and gnuplot on PATH; a fake bzImage, modules archive and kernel tree).
# run-guest's verdicts from real boots are tests/run.sh's runner checks.
# docs/exit-status.md and README.md must hold status_table's output as is.
#
#   tests/host/exit-status.sh     a line per check; exit 1 if any failed
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="one exit-status table: each command's statuses, the docs carry it"

REPO_DIR=$(cd "$(dirname "$0")/../.." && pwd)
REAL_CACHE=${CACHE:-$REPO_DIR/.cache}
# shellcheck source=bench/lib/status.sh
. "$REPO_DIR/bench/lib/status.sh"
# shellcheck source=tests/lib/assert.sh
. "$REPO_DIR/tests/lib/assert.sh"
help_answer "$0" "$@"
S=$(mktemp -d)
trap 'rm -rf "$S"' EXIT

# fakes: programs on $S/bin that stand in for the machine's.
fakes() {
	mkdir -p "$S/bin"
	# qemu: FAKE_QEMU says how the "boot" ends, written to the first
	# -serial file (the console), as a kernel and bench/guest/init would.
	cat >"$S/bin/qemu" <<'EOF'
#!/usr/bin/env bash
[[ ${1:-} != --version ]] || { echo "QEMU emulator version 0.0 (fake)"; exit 0; }
con=''
while (($#)); do
	[[ $1 != -serial || ${2:-} != file:* || -n $con ]] || con=${2#file:}
	shift
done
case ${FAKE_QEMU:-ok} in
ok) printf 'Linux version 0.0\nBLKINJECT-STAGE script\nBLKINJECT-EXIT rc=0\n' >>"$con" ;;
script-failed) printf 'Linux version 0.0\nBLKINJECT-STAGE script\nBLKINJECT-EXIT rc=3\n' >>"$con" ;;
panic) printf 'Linux version 0.0\nKernel panic - not syncing: fake\n' >>"$con" ;;
died) printf 'Linux version 0.0\n' >>"$con" ;;
hang) exec sleep 60 ;;
esac
EOF
	# id -u: not root, so install-deps never reaches apt-get
	printf '#!/bin/sh\necho 1000\n' >"$S/bin/id"
	# dpkg-query -W -f=FORMAT PACKAGE...: FAKE_DPKG=all says every
	# package is installed (as "${Package} ${Status}"), else none is
	cat >"$S/bin/dpkg-query" <<'EOF'
#!/bin/sh
[ "${FAKE_DPKG:-}" = all ] || exit 1
for p; do
	case $p in -*) ;; *) echo "$p install ok installed" ;; esac
done
EOF
	# gnuplot without a png or svg terminal
	printf '#!/bin/sh\necho "Available terminal types: dumb"\n' >"$S/bin/gnuplot"
	chmod +x "$S/bin"/*
}

# fixtures: a bzImage with a boot header naming release 0.0-fake, its
# modules archive, a kernel tree whose make always fails, a results
# directory with only a summary header.
fixtures() {
	mkdir -p "$S/mods/lib/modules/0.0-fake" "$S/ktree/scripts/kconfig" "$S/header-only"
	head -c 1024 /dev/zero >"$S/bzImage"
	printf 'HdrS' | dd of="$S/bzImage" bs=1 seek=514 conv=notrunc status=none
	# kernel_version at 0x20e: 0x100, the string at 0x100 + 0x200
	printf '\000\001' | dd of="$S/bzImage" bs=1 seek=526 conv=notrunc status=none
	printf '0.0-fake (fake@test) #1\000' | dd of="$S/bzImage" bs=1 seek=768 conv=notrunc status=none
	: >"$S/mods/lib/modules/0.0-fake/modules.dep"
	tar -C "$S/mods" -czf "$S/mods.tar.gz" lib
	printf '%%:\n\t@echo "a fake tree: nothing builds here"; false\n' >"$S/ktree/Makefile"
	: >"$S/ktree/Kconfig"
	# the symbol the configs need, so that the resolver lets the tree through
	mkdir -p "$S/ktree/block"
	printf 'config BLK_ERROR_INJECTION\n\tbool\n' >"$S/ktree/block/Kconfig"
	# and the functions the plugin counts, so that their check lets it through
	printf 'void submit_bio_noacct_nocheck(struct bio *bio)\n{\n}\n\nint __blk_error_inject(struct bio *bio)\n{\n}\n' >"$S/ktree/block/blk-core.c"
	printf '#!/bin/sh\nexit 1\n' >"$S/ktree/scripts/kconfig/merge_config.sh"
	chmod +x "$S/ktree/scripts/kconfig/merge_config.sh"
	head -1 "$REPO_DIR/plots/testdata/summary.csv" >"$S/header-only/summary.csv"
	cp "$REPO_DIR/plots/testdata/meta.env" "$S/header-only/"
}

# run_one STATUS NAME COMMAND: run COMMAND (bash, in the repository, with
# the scratch CACHE and the fakes' directory first on PATH only when it
# asks for $S/bin) and check its status.
run_one() {
	local want=$1 name=$2 cmd=$3 got=0
	(cd "$REPO_DIR" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u MAKEOVERRIDES -u BIB_PLAN \
		CACHE="$S/cache" BENCH_T0='' S="$S" timeout 120 bash -c "$cmd" >"$S/out" 2>&1 </dev/null) || got=$?
	check "$name: exit $want ($(status_name "$want")), got $got" test "$got" = "$want"
	[[ $got == "$want" ]] || tail -n 3 "$S/out" | sed 's/^/      /'
}

# status_name N: the table's name for status N.
status_name() {
	status_table | awk -F' [|] ' -v n="$1" '$1 == "| " n { print $2 }'
}

# STATUS | NAME | COMMAND; $S is the scratch directory, $S/bin the fakes.
ROWS=$(
	cat <<'ROWS_END'
0|run-guest -h|bench/vm/run-guest -h
0|run-guest: a boot whose script exits 0|QEMU=$S/bin/qemu FAKE_QEMU=ok bench/vm/run-guest -K $S/bzImage -M $S/mods.tar.gz -a tcg-icount -t 60 -o $S/rg-ok /dev/null
1|run-guest: the guest script failed|QEMU=$S/bin/qemu FAKE_QEMU=script-failed bench/vm/run-guest -K $S/bzImage -M $S/mods.tar.gz -a tcg-icount -t 60 -o $S/rg-fail /dev/null
1|run-guest: a kernel panic|QEMU=$S/bin/qemu FAKE_QEMU=panic bench/vm/run-guest -K $S/bzImage -M $S/mods.tar.gz -a tcg-icount -t 60 -o $S/rg-panic /dev/null
1|run-guest: the guest died without reporting|QEMU=$S/bin/qemu FAKE_QEMU=died bench/vm/run-guest -K $S/bzImage -M $S/mods.tar.gz -a tcg-icount -t 60 -o $S/rg-died /dev/null
3|run-guest: a hung boot|QEMU=$S/bin/qemu FAKE_QEMU=hang bench/vm/run-guest -K $S/bzImage -M $S/mods.tar.gz -a tcg-icount -t 2 -o $S/rg-hang /dev/null
2|run-guest: an unknown option|bench/vm/run-guest -x /dev/null
2|run-guest: an unknown config|bench/vm/run-guest -c bogus /dev/null
2|run-guest: -K without -M|bench/vm/run-guest -K $S/bzImage /dev/null
4|run-guest: a config that is not built|bench/vm/run-guest -c on -a tcg-icount /dev/null
4|run-guest: -a kvm where KVM runs no guest|QEMU=false bench/vm/run-guest -K $S/bzImage -M $S/mods.tar.gz -a kvm /dev/null
0|build.sh -h|bench/kernel/build.sh -h
1|build.sh: a build that fails|KSRC=$S/ktree SERIES=none bench/kernel/build.sh build on
2|build.sh: an unknown command|bench/kernel/build.sh bogus
2|build.sh: an unknown config|bench/kernel/build.sh build bogus
2|build.sh: CC=clang|CC=clang bench/kernel/build.sh build on
0|image.sh -h|bench/vm/image.sh -h
2|image.sh: an unknown piece|bench/vm/image.sh bogus
0|install-deps.sh: every package installed|PATH=$S/bin:$PATH FAKE_DPKG=all bench/setup/install-deps.sh
4|install-deps.sh: packages missing, not root|PATH=$S/bin:$PATH bench/setup/install-deps.sh
0|clean-cache.sh --list|bench/setup/clean-cache.sh --list
2|clean-cache.sh: CACHE=/|CACHE=/ bench/setup/clean-cache.sh
0|bench.sh -h|bench/run/bench.sh -h
2|bench.sh: an unknown argument|bench/run/bench.sh --bogus
2|bench.sh: an unknown state|STATES=bogus bench/run/bench.sh
2|bench.sh: a malformed job file|printf 'CONFIGS on\n' >$S/bad.job && JOB_FILE=$S/bad.job bench/run/bench.sh --list
4|bench.sh: a config that is not built|ACCEL=tcg-icount CONFIGS=on STATES=key-off BASELINE='on key-off' bench/run/bench.sh
4|bench.sh: ACCEL=kvm where KVM runs no guest|ACCEL=kvm QEMU=false bench/run/bench.sh --list
4|all.sh: ACCEL=kvm where KVM runs no guest, before any build|ACCEL=kvm QEMU=false bench/run/all.sh
2|all.sh: an unknown argument|bench/run/all.sh bogus
2|perf.sh: an unknown argument|bench/run/perf.sh bogus
2|peers.sh: an unknown argument|bench/run/peers.sh bogus
2|views.sh: no view|bench/run/views.sh
2|fuzz.sh: a bad FUZZ_SECONDS|FUZZ_SECONDS=soon bench/run/fuzz.sh
2|coverage.sh: an unknown option|bench/run/coverage.sh --bogus
2|per-patch.sh: SERIES=none|SERIES=none bench/run/per-patch.sh
2|soak.sh: -n 0|bench/run/soak.sh -n 0
2|soak.sh: an unknown option|bench/run/soak.sh -x
2|mutants/run.sh: an unknown mutant|tests/mutants/run.sh bogus
2|mutants/score.sh: a bad MUTANT_REPEATS|MUTANT_REPEATS=many tests/mutants/score.sh
2|mutants/generate.sh: not a tree with the series|tests/mutants/generate.sh $S $S/gen
0|compare-series.sh -h|bench/run/compare-series.sh -h
1|compare-series.sh: a side that could not be measured|KSRC=$S/ktree SERIES=none RESULTS_ROOT=$S RUN_ID=cs bench/run/compare-series.sh
2|compare-series.sh: an unknown argument|bench/run/compare-series.sh bogus
2|compare.sh: one directory|bench/stats/compare.sh results
2|summarise.sh: a directory without runs.csv|bench/stats/summarise.sh $S
2|report.sh: a directory without summary.csv|bench/report/report.sh $S
2|coverage-table.sh: no arguments|bench/report/coverage-table.sh
2|merge.sh: no pieces|bench/lab/merge.sh
2|lava-jobs.sh: no output directory|bench/lab/lava-jobs.sh
2|lava-results.sh: no arguments|bench/lab/lava-results.sh
2|export-kcidb.sh: not a results directory|bench/lab/export-kcidb.sh $S
2|pack-build.sh: no archive|bench/lab/pack-build.sh on
4|pack-build.sh: a config that is not built|bench/lab/pack-build.sh on $S/x.tar
2|make-plots.sh: no arguments|plots/make-plots.sh
1|make-plots.sh: a summary with no rows, no figure|plots/make-plots.sh $S/header-only $S/plots
4|make-plots.sh: gnuplot without png and svg terminals|PATH=$S/bin:$PATH plots/make-plots.sh $S/header-only $S/plots
2|make-view-plots.sh: no arguments|plots/make-view-plots.sh
2|static.sh: one config|perf-scripts/static.sh on
ROWS_END
)

# Rows that need what this machine may not have: a QEMU boot needs
# bench/vm/image.sh's base image (busybox, fio, perf, ... installed);
# make-plots' "no figure" needs gnuplot itself.
skip_row() {
	case $2 in
	*FAKE_QEMU=*) [[ -n $BASE_IMAGE ]] || { echo "skip - $1 (bench/vm/image.sh base failed here)"; return 0; } ;;
	*"plots/make-plots.sh \$S/header-only"*) [[ $2 == PATH=* ]] || command -v gnuplot >/dev/null ||
		{ echo "skip - $1 (no gnuplot)"; return 0; } ;;
	esac
	return 1
}

# the documentation holds the table as status_table prints it
check_docs() {
	local table doc
	table=$(status_table)
	# the table's lines, one after another (grep -F would take each line
	# of a multi-line pattern on its own)
	for doc in docs/exit-status.md README.md; do
		# shellcheck disable=SC2016 # awk's own $0
		check "$doc holds status_table's table as is" \
			awk -v t="$table" 'BEGIN { n = split(t, want, "\n") }
				$0 == want[k + 1] { k++; if (k == n) found = 1; next }
				{ k = ($0 == want[1]) ? 1 : 0 }
				END { exit !found }' "$REPO_DIR/$doc"
	done
}

main() {
	local want name cmd
	fakes
	fixtures
	BASE_IMAGE=''
	# the real cache's base image when it has one (image.sh rebuilds it
	# in the scratch cache if its inputs changed since)
	mkdir -p "$S/cache/images"
	[[ ! -f $REAL_CACHE/images/base.cpio.hash ]] ||
		cp "$REAL_CACHE/images/base.cpio" "$REAL_CACHE/images/base.cpio.hash" "$S/cache/images/"
	if (cd "$REPO_DIR" && CACHE=$S/cache bench/vm/image.sh base >"$S/image.log" 2>&1); then
		BASE_IMAGE=$S/cache/images/base.cpio
	fi
	check "status_table: a header, a rule and 5 rows" test "$(status_table | wc -l)" = 7
	check "status_table: the names in order" test "$(status_table | awk -F' [|] ' 'NR > 2 { printf "%s,", $2 }')" = "ok,failed,bad input,timeout,setup,"
	while IFS='|' read -r want name cmd; do
		skip_row "$name" "$cmd" || run_one "$want" "$name" "$cmd"
	done <<<"$ROWS"
	check_docs
	finish
}

main "$@"
