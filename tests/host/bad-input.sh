#!/usr/bin/env bash
# Bad input is a clear error, never a silent success: each row runs a
# command that a user could type by mistake and expects its exit status and
# a piece of its error text (the names it must list).  Rows run with an
# empty scratch CACHE, so a command that went on to real work (extracting a
# tree, booting) would fail or leave traces; the last row boots `on` and
# is skipped when that config is not built in the real cache.
#
#   tests/host/bad-input.sh        prints a line per row; exit 1 if any failed
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="bad input: a clear error and a non-zero exit"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"

REAL_CACHE=${CACHE:-$REPO_DIR/.cache}
# The newest committed run of bench.sh (views and peers directories have
# no plan.txt), named with a trailing slash as a user might.
NEWEST=''
for d in "$REPO_DIR"/results/*/plan.txt; do
	[[ -f $d && -f ${d%plan.txt}summary.csv ]] && NEWEST=results/$(basename "$(dirname "$d")")/
done

# make_ktree: a kernel tree of a few files at SCRATCH/kt (an extracted
# tree with the feature's Kconfig symbol and one definition,
# submit_bio_noacct_nocheck's), whose make and merge_config.sh fail at
# once.  Made once, before the rows that read it run side by side.
make_ktree() {
	local kt=$SCRATCH/kt
	mkdir -p "$kt/block" "$kt/scripts/kconfig"
	printf '#!/bin/sh\nexit 1\n' >"$kt/scripts/kconfig/merge_config.sh"
	chmod +x "$kt/scripts/kconfig/merge_config.sh"
	printf 'all:\n\tfalse\n' >"$kt/Makefile"
	: >"$kt/Kconfig"
	printf 'config BLK_ERROR_INJECTION\n\tbool\n' >"$kt/block/Kconfig"
	printf 'void submit_bio_noacct_nocheck(struct bio *bio)\n{\n}\n' >"$kt/block/blk-core.c"
}

# STATUS | TEXT | COMMAND (run by bash in the repository)
ROWS=$(
	cat <<ROWS_END
2|unknown accelerator 'bogus' (valid: auto kvm tcg tcg-icount)|bench/vm/run-guest -A -a bogus
2|unknown accelerator 'bogus' (valid: auto kvm tcg tcg-icount)|bench/vm/run-guest -a bogus /dev/null
2|unknown config 'bogus' (valid: |bench/vm/run-guest -c bogus /dev/null
2|unknown config 'bogus' (valid: |bench/vm/run-guest -A -c bogus
0|run-guest [options] SCRIPT|bench/vm/run-guest -h
2|illegal option -- x|bench/vm/run-guest -x /dev/null
2|run-guest [options] SCRIPT|bench/vm/run-guest
2|-t soon: expected a number of seconds|bench/vm/run-guest -t soon /dev/null
2|unknown config 'bogus' (valid: |bench/kernel/build.sh build bogus
2|unknown mutant 'bogus' (valid: none removal-exit-before-drain |tests/mutants/run.sh bogus
2|unknown mutant 'bogus' (valid: none delay-units |MUTANT_SERIES=patches/next tests/mutants/run.sh bogus
2|MUTANT_CONFIG='bogus' (the environment): not a config (valid: |MUTANT_CONFIG=bogus tests/mutants/run.sh
2|MUTANT_SERIES='none' (the environment): the mutants need a series to apply on|MUTANT_SERIES=none tests/mutants/run.sh
2|a committed run, which no command writes into|tests/mutants/run.sh -o results/20261206-mutants none
2|a committed run, which no command writes into|MUTANT_OUT=results/20261206-mutants/ tests/mutants/score.sh
2|MUTANT_RACE='2' (the environment): want 0 or 1|MUTANT_RACE=2 tests/mutants/score.sh
2|MUTANT_TESTS_RACE='nosuch' (the environment): 'nosuch' is not a test|MUTANT_TESTS_RACE=nosuch tests/mutants/score.sh
2|unknown config 'bogus' (valid: |bench/kernel/build.sh build on bogus
2|usage: build.sh tree NAME|bench/kernel/build.sh bogus
0|build.sh build CONFIG|bench/kernel/build.sh -h
2|usage: image.sh base|bench/vm/image.sh bogus
0|perf.sh [-h]|bench/run/perf.sh --help
2|unknown argument 'bogus'|bench/run/perf.sh bogus
2|STATES='bogus' (the environment): 'bogus' is not a state (valid: |STATES=bogus bench/run/perf.sh
0|bench.sh [-h | --settings | --list | --job ID | --plan-job ID DIR]|bench/run/bench.sh -h
2|unknown argument '--repeats=2'|bench/run/bench.sh --repeats=2
2|'bogus' is not a state (valid: off key-off key-on-other match-chance ei-idle|STATES=bogus bench/run/bench.sh
2|'rules-0' is not a state (valid: |STATES=rules-0 bench/run/bench.sh
2|'bogus' is not a config (valid: |CONFIGS='on bogus' bench/run/bench.sh
2|'bogus' is not a workload (valid: count-randread-qd1 |WORKLOADS=bogus bench/run/bench.sh
2|ACCEL='bogus' (the environment): unknown value (valid: auto kvm tcg tcg-icount)|ACCEL=bogus bench/run/bench.sh
4|ACCEL='kvm' (the environment): KVM does not run guests here: QEMU under -accel kvm -cpu host: exit 1|ACCEL=kvm QEMU=false bench/run/bench.sh --list
4|ACCEL='kvm' (the environment): KVM does not run guests here|ACCEL=kvm QEMU=false CONFIGS=on BASELINE='on key-off' bench/run/all.sh
2|REPEATS='two' (the environment): not a whole number|REPEATS=two bench/run/bench.sh
2|PLUGIN='yes' (the environment): want 0 or 1|PLUGIN=yes bench/run/bench.sh
2|BENCH_CONFIGS (the environment) is now CONFIGS|BENCH_CONFIGS=on bench/run/bench.sh
2|usage: bench.sh --job ID (bench.sh --list prints the IDs)|bench/run/bench.sh --job
2|unknown argument '--lists' (valid: -h, --settings, --list, --job ID|bench/run/bench.sh --lists
2|unknown argument '--lists' (valid: -h, --settings, --list, --job ID|cd bench/run && bash bench.sh --lists
2|make-plots.sh: /nonexist: not a directory|cd plots && bash make-plots.sh /nonexist
2|unknown job 'bogus' under tcg-icount (valid: on.r1 on.r2)|ACCEL=tcg-icount CONFIGS=on BASELINE='on key-off' REPEATS=2 bench/run/bench.sh --job bogus
2|usage: bench.sh --plan-job ID DIR (bench.sh --list prints the IDs)|bench/run/bench.sh --plan-job on.r1
2|unknown job 'bogus' under tcg-icount (valid: on.r1 on.r2)|ACCEL=tcg-icount CONFIGS=on BASELINE='on key-off' REPEATS=2 bench/run/bench.sh --plan-job bogus $SCRATCH/plan
0|lava-jobs.sh [-u URL] [-p PLUGIN] OUTDIR [ID...]|bench/lab/lava-jobs.sh -h
2|usage: lava-jobs.sh [-u URL] [-p PLUGIN] OUTDIR [ID...]|bench/lab/lava-jobs.sh
2|ACCEL=tcg: a lab's device type is tcg-icount or kvm|ACCEL=tcg bench/lab/lava-jobs.sh $SCRATCH/jobs
2|exists already|bench/lab/lava-jobs.sh $SCRATCH
2|job ID 'on.r1/../x' is not a plan's job ID|ACCEL=tcg-icount bench/lab/lava-jobs.sh $SCRATCH/jobs on.r1/../x
0|lava-results.sh [-o DIR] JOBDIR LOG|bench/lab/lava-results.sh -h
2|usage: lava-results.sh [-o DIR] JOBDIR LOG|bench/lab/lava-results.sh
2|is not a job folder of lava-jobs.sh (no piece/meta.json, boot.env)|bench/lab/lava-results.sh $SCRATCH $SCRATCH/log
2|JOB_FILE='bogus' (the environment): unknown job file (valid: default quick, or the path of|JOB_FILE=bogus bench/run/bench.sh --list
2|bad.job:2: expected NAME = VALUE, got "CONFIGS off"|printf '# a typo\nCONFIGS off\n' >$SCRATCH/bad.job && JOB_FILE=$SCRATCH/bad.job bench/run/bench.sh --list
2|typo.job:1: unknown setting CONFIG (did you mean CONFIGS?) (valid: CONFIGS STATES|printf 'CONFIG = on\n' >$SCRATCH/typo.job && JOB_FILE=$SCRATCH/typo.job bench/run/bench.sh --list
2|twice.job:2: REPEATS set twice|printf 'REPEATS = 1\nREPEATS = 2\n' >$SCRATCH/twice.job && JOB_FILE=$SCRATCH/twice.job bench/run/bench.sh --settings
2|BOOTS='sometimes' (the environment): unknown value (valid: auto per-config per-state)|BOOTS=sometimes bench/run/bench.sh --list
2|usage: merge.sh [-o DIR] PIECE...|bench/lab/merge.sh
2|results/no-such-run is not a piece of bench.sh --job (no meta.json)|bench/lab/merge.sh results/no-such-run
2|a whole run needs no merge|bench/lab/merge.sh ${NEWEST%/}
2|usage: bench/guest/bpf/build.sh BUILD_DIR OUT_FILE|bench/guest/bpf/build.sh
2|$SCRATCH is not a configured kernel build (no .config)|bench/guest/bpf/build.sh $SCRATCH $SCRATCH/failbio
2|usage: export-kcidb.sh RESULTS_DIR|bench/lab/export-kcidb.sh
2|results/no-such-run is not a results directory (no summary.json|bench/lab/export-kcidb.sh results/no-such-run
2|KCIDB_ORIGIN='My-Lab' (the environment): KCIDB origins are [a-z0-9_]+|KCIDB_ORIGIN=My-Lab bench/lab/export-kcidb.sh ${NEWEST%/}
2|-K needs -M ARCHIVE|bench/vm/run-guest -K bench/vm/run-guest /dev/null
2|-M goes with -K BZIMAGE|bench/vm/run-guest -M modules.tar.gz /dev/null
2|-K /no/such/bzImage: no such file|bench/vm/run-guest -K /no/such/bzImage -M modules.tar.gz /dev/null
2|-K bench/vm/run-guest: not a bzImage|bench/vm/run-guest -K bench/vm/run-guest -M modules.tar.gz /dev/null
2|usage: pack-build.sh CONFIG ARCHIVE|bench/lab/pack-build.sh on
2|unknown config 'bogus' (valid: |bench/lab/pack-build.sh bogus $SCRATCH/x.tar
4|config on is not built|bench/lab/pack-build.sh on $SCRATCH/x.tar
0|all.sh [-h]|bench/run/all.sh -h
2|unknown argument 'quick'|bench/run/all.sh quick
2|CONFIGS='bogus' (the environment): 'bogus' is not a config (valid: |CONFIGS=bogus bench/run/all.sh
2|unknown argument 'bogus'|bench/run/peers.sh bogus
2|VIEWS='mq bogus' (the command line): 'bogus' is not a view (valid: errcost footprint latency layout mq polled switch, or all)|bench/run/views.sh mq bogus
2|usage: bench/run/views.sh [--list] VIEW... (views: |bench/run/views.sh
2|POLL_TAGS='many' (the environment): not a whole number|POLL_TAGS=many bench/run/views.sh polled
2|RESULTS='results/no-such-run' (make's command line): no such directory|make -s plots RESULTS=results/no-such-run
2|RESULTS='results/no-such-run' (make's command line): no such directory|make -s disasm RESULTS=results/no-such-run
2|a committed run, which make never writes into|make -s plots RESULTS=$NEWEST
2|usage: make compare BASE=results/A NEW=results/B|make -s compare
2|(configs: peers) and |out=\$(bench/stats/compare.sh results/20261204-152531-peers ${NEWEST%/} 2>&1); rc=\$?; printf '%s\n' "\$out"; [[ \$(wc -l <<<"\$out") -lt 10 ]] || exit 9; exit \$rc
0|0 regressions|mkdir -p $SCRATCH/cmp && cp ${NEWEST}runs.csv ${NEWEST}meta.json $SCRATCH/cmp/ && CACHE='$SCRATCH/with space' bench/stats/compare.sh ${NEWEST%/} $SCRATCH/cmp
2|the baseline on/nosuch is not a row of|mkdir -p $SCRATCH/sum && cp ${NEWEST}runs.csv ${NEWEST}summary.csv $SCRATCH/sum/ && jq '.BASELINE = "on nosuch"' ${NEWEST}meta.json >$SCRATCH/sum/meta.json && bench/stats/summarise.sh $SCRATCH/sum; rc=\$?; cmp -s ${NEWEST}summary.csv $SCRATCH/sum/summary.csv || exit 9; exit \$rc
2|CONFIG='bogus' (the environment): not a config (valid: |CONFIG=bogus bench/run/fuzz.sh
2|FUZZ_OUT='README.md' (the environment): exists and is not a directory|FUZZ_OUT=README.md bench/run/fuzz.sh
0|bench/run/coverage.sh [RESULTS_DIR|bench/run/coverage.sh -h
2|FUZZ_SECONDS='soon' (the environment): not a whole number|FUZZ_SECONDS=soon bench/run/coverage.sh
2|results directory 'results' exists already|bench/run/coverage.sh results
2|bench/run/coverage.sh [RESULTS_DIR|bench/run/coverage.sh --bogus
2|KSRC='/no/such/linux' (the environment): no such file or directory (give a git checkout, an extracted tree or a tarball|KSRC=/no/such/linux bench/kernel/build.sh build on
2|KSRC='/etc' (the environment): not a kernel source: give a git checkout (its top directory), an extracted tree|KSRC=/etc bench/kernel/build.sh build on
2|KSRC='/etc/hostname' (the environment): a file must be a tarball|KSRC=/etc/hostname bench/run/bench.sh
2|SERIES='/etc' (the environment): no series file: give a directory with a 'series' file|SERIES=/etc bench/kernel/build.sh build on
2|usage: build.sh defines TREE CONFIG_SYMBOL|bench/kernel/build.sh defines main
2|HOT_FUNCS: no_such_function: defined in no C file of the kernel source|CACHE=$SCRATCH/hc1 KSRC=$SCRATCH/kt SERIES=none CONFIGS=on STATES=key-off BASELINE='on key-off' HOT_FUNCS='submit_bio_noacct_nocheck no_such_function' bench/run/all.sh
2|HOT_FUNCS: no_such_function: defined in no C file of the kernel source|make -s bench CACHE=$SCRATCH/hc2 KSRC=$SCRATCH/kt SERIES=none CONFIGS=on STATES=key-off BASELINE='on key-off' HOT_FUNCS='submit_bio_noacct_nocheck no_such_function'
2|HOT_FUNCS: no_such_function: defined in no C file of either side's source|CACHE=$SCRATCH/hc3 KSRC=$SCRATCH/kt SERIES=none HOT_FUNCS='submit_bio_noacct_nocheck no_such_function' RESULTS_ROOT=$SCRATCH/hr bench/run/compare-series.sh
0|per-patch.sh [-h]|bench/run/per-patch.sh -h
2|unknown argument 'bogus'|bench/run/per-patch.sh bogus
2|usage: per-patch.sh report DIR (a per-patch run made on this machine|bench/run/per-patch.sh report
2|RESULTS='results/20261204-210738-per-patch' (the command line): a committed run, which make never writes into|bench/run/per-patch.sh report results/20261204-210738-per-patch && git diff --quiet -- results
2|SERIES='none' (the environment): per-patch needs a series|SERIES=none bench/run/per-patch.sh
0|compare-series.sh [-h]|bench/run/compare-series.sh -h
2|unknown argument 'bogus'|bench/run/compare-series.sh bogus
2|NEW_SERIES='/etc' (the environment): no series file|NEW_SERIES=/etc bench/run/compare-series.sh
2|BASE_KSRC='/no/such/linux' (the environment): no such file or directory|BASE_KSRC=/no/such/linux bench/run/compare-series.sh
2|'bogus' is not a config (valid: |CONFIGS=bogus bench/run/compare-series.sh
2|'bogus' is not a state (valid: |STATES=bogus bench/run/compare-series.sh
2|NEW_SERIES='/etc' (make's command line): no series file|make -s compare-series NEW_SERIES=/etc
0|static.sh [-h] [-o DIR] [BASE_CONFIG NEW_CONFIG]|perf-scripts/static.sh -h
2|unknown config 'bogus' (valid: |perf-scripts/static.sh off bogus
2|usage: static.sh [-o DIR] [BASE_CONFIG NEW_CONFIG]|perf-scripts/static.sh on
2|STATIC_CONTEXT=some: a number of lines, or all|STATIC_CONTEXT=some perf-scripts/static.sh
2|HOT_FUNCS='a-b' (the environment): 'a-b' is not a function name|HOT_FUNCS=a-b perf-scripts/static.sh
2|NEW_SERIES='/etc' (the environment): no series file|NEW_SERIES=/etc perf-scripts/static.sh
2|NEW_CONFIG='bogus' (make's command line): not a config (valid: |make -s static NEW_CONFIG=bogus
2|usage: build.sh objects CONFIG [OBJECT...]|bench/kernel/build.sh objects
2|usage: build.sh checkpatch (no arguments)|bench/kernel/build.sh checkpatch main
2|CC='clang' (the environment): kernels are built with gcc through ccache (CC="ccache gcc"); CC may be unset, gcc or cc|CC=clang bench/kernel/build.sh build on
2|LLVM='1' (the environment): clang/LLVM kernel builds are not supported|LLVM=1 bench/kernel/build.sh build on
2|O='$SCRATCH/o' (the environment): builds go to CACHE/build/CONFIG|O=$SCRATCH/o bench/kernel/build.sh build on
2|ARCH='arm64' (the environment): kernels are built for x86_64 only (ARCH may be unset, x86 or x86_64)|ARCH=arm64 bench/kernel/build.sh build on
2|CROSS_COMPILE='aarch64-linux-gnu-' (the environment): not used: kernels are built for x86_64|CROSS_COMPILE=aarch64-linux-gnu- bench/kernel/build.sh build on
2|CC='clang' (the environment): kernels are built with gcc through ccache|CC=clang bench/kernel/build.sh objects on block/blk-core.o
2|CC='clang' (make's command line): kernels are built with gcc through ccache|make -s kernels CONFIGS=on CC=clang
2|LLVM='1' (make's command line): clang/LLVM kernel builds are not supported|make -s kernels CONFIGS=on LLVM=1
2|O='$SCRATCH/o' (make's command line): builds go to CACHE/build/CONFIG|make -s kernels CONFIGS=on O=$SCRATCH/o
2|ARCH='arm64' (make's command line): kernels are built for x86_64 only|make -s bench CONFIGS=on ARCH=arm64
2|CC='ccache clang' (make's command line): kernels are built with gcc through ccache|make -s static CC='ccache clang'
2|LLVM='1' (make's command line): clang/LLVM kernel builds are not supported|make -s per-patch LLVM=1
0||CC=gcc ARCH=x86_64 bench/kernel/build.sh check-vars
ROWS_END
)

# The drivers called directly resolve their settings first, as make's
# targets do: the same input gets the same refusal either way, before
# anything is made.  STATUS | TEXT | SETTINGS | DRIVER | MAKE TARGET: the
# row runs "SETTINGS DRIVER" and, with the same settings in the
# environment, "make TARGET" (- for none), whose status and error lines
# must be the direct call's.
DIRECT=$(
	cat <<DIRECT_END
2|STATES='bogus' (the environment): 'bogus' is not a state (valid: off key-off|STATES=bogus|bench/run/bench.sh|bench
2|STATES is empty (the environment): want states (valid: off key-off|STATES=|bench/run/bench.sh|bench
2|REPEATS='0' (the environment): out of range: want a whole number from 1 to 1000, or auto|REPEATS=0|bench/run/bench.sh|bench
2|SEED='4294967296' (the environment): out of range: want a whole number from 0 to 4294967295|SEED=4294967296|bench/run/bench.sh|bench
2|CONFIGS='on on' (the environment): 'on' is listed twice|CONFIGS='on on'|bench/run/bench.sh|bench
2|STATE (the environment) is not a setting of bench: did you mean STATES?|STATE=key-off|bench/run/bench.sh|bench
2|CC='clang' (the environment): kernels are built with gcc through ccache|CC=clang|bench/run/bench.sh|bench
2|BASELINE='off off' (bench/plan/jobs/default.job:12): not a row of the matrix|CONFIGS=on|bench/run/bench.sh|bench
2|set BASELINE to one of its rows, CONFIG STATE: 'on key-off', 'on key-on-other', 'on rules-1'|CONFIGS=on|bench/run/bench.sh|bench
2|'bogus' is not a config (valid: |CONFIGS='on bogus'|bench/run/perf.sh|perf
2|PERF_REPEATS is empty (the environment): want a whole number from 1 to 100|PERF_REPEATS=|bench/run/perf.sh|perf
2|PERF_REPEATS='0' (the environment): out of range: want a whole number from 1 to 100|PERF_REPEATS=0|bench/run/perf.sh|perf
2|FIO_IOS='0' (the environment): out of range: perf runs the counted fio job|FIO_IOS=0|bench/run/perf.sh|perf
2|STATES='rules-1 rules-1' (the environment): 'rules-1' is listed twice|STATES='rules-1 rules-1'|bench/run/perf.sh|perf
2|REPEAT (the environment) is not a setting of perf: did you mean REPEATS?|REPEAT=2|bench/run/perf.sh|perf
2|LLVM='1' (the environment): clang/LLVM kernel builds are not supported|LLVM=1|bench/run/perf.sh|perf
2|'bogus' is not a workload (valid: count-randread-qd1 |WORKLOADS=bogus|bench/run/peers.sh|peers
2|REPEATS is empty (the environment): want a whole number from 1 to 1000, or auto|REPEATS=|bench/run/peers.sh|peers
2|RUN_TIMEOUT='0' (the environment): out of range|RUN_TIMEOUT=0|bench/run/peers.sh|peers
2|WORKLOADS='randread-qd1 randread-qd1' (the environment): 'randread-qd1' is listed twice|WORKLOADS='randread-qd1 randread-qd1'|bench/run/peers.sh|peers
2|configs (the environment) is not a setting of peers: did you mean CONFIGS?|configs=peers|bench/run/peers.sh|peers
2|CONFIGS='on' (the environment): peers always runs with CONFIGS='peers'|CONFIGS=on|bench/run/peers.sh|peers
2|ARCH='arm64' (the environment): kernels are built for x86_64 only|ARCH=arm64|bench/run/peers.sh|peers
2|CONFIG='bogus' (the environment): not a config (valid: debug gcov|CONFIG=bogus|bench/run/fuzz.sh|fuzz
2|CONFIG='off' (the environment): has no error injection to fuzz (configs with it: debug|CONFIG=off|bench/run/fuzz.sh|fuzz
2|FUZZ_SECONDS is empty (the environment): want a whole number from 1 to 604800|FUZZ_SECONDS=|bench/run/fuzz.sh|fuzz
2|FUZZ_SEED='-1' (the environment): negative|FUZZ_SEED=-1|bench/run/fuzz.sh|fuzz
2|FUZZ_SECONDS='0' (the environment): out of range: want a whole number from 1 to 604800|FUZZ_SECONDS=0|bench/run/fuzz.sh|fuzz
2|CONFIG='debug debug' (the environment): one config, not a list|CONFIG='debug debug'|bench/run/fuzz.sh|fuzz
2|FUZZ_CONFIG (the environment) is now CONFIG|FUZZ_CONFIG=debug|bench/run/fuzz.sh|fuzz
2|fuzz_seconds (the environment) is not a setting of fuzz: did you mean FUZZ_SECONDS?|fuzz_seconds=10|bench/run/fuzz.sh|fuzz
2|O='$SCRATCH/o' (the environment): builds go to CACHE/build/CONFIG|O=$SCRATCH/o|bench/run/fuzz.sh|fuzz
2|FUZZ_OUT='README.md' (the environment): exists and is not a directory|FUZZ_OUT=README.md|bench/run/fuzz.sh|fuzz
2|SERIES='none' (the environment): per-patch needs a series|SERIES=none|bench/run/per-patch.sh|per-patch
2|HOT_FUNCS='f f' (the environment): 'f' is listed twice|HOT_FUNCS='f f'|bench/run/per-patch.sh|per-patch
2|ACCEL='kvm' (the environment): per-patch always runs with ACCEL='tcg-icount'|ACCEL=kvm|bench/run/per-patch.sh|per-patch
2|FUZZ_SECONDS='0' (the environment): out of range|FUZZ_SECONDS=0|bench/run/coverage.sh|coverage
2|FUZZ_SEED is empty (the environment)|FUZZ_SEED=|bench/run/coverage.sh|coverage
2|CC='tcc' (the environment): kernels are built with gcc through ccache|CC=tcc|bench/run/coverage.sh|coverage
2|'rules-0' is not a state (valid: |STATES='key-off rules-0'|bench/run/all.sh|all
2|KBUILD_OUTPUT='$SCRATCH/o' (the environment): builds go to CACHE/build/CONFIG|KBUILD_OUTPUT=$SCRATCH/o|bench/run/all.sh|all
DIRECT_END
)

# Each row runs in a directory of its own (ROW: its CACHE, RESULTS_ROOT
# and the fakes' log), the host's cores' worth at once; each prints its
# "ok"/"FAIL"/"skip" lines into ROW/out, printed in the tables' order.
ROW=$SCRATCH/row

# check STATUS TEXT COMMAND: run COMMAND, compare its status and output;
# a row that made a tree or a build in its CACHE fails too (build.sh build
# bogus, CC=clang... must stop before extracting, patching or building).
# CHECK_LIMIT (seconds) only stops a hang: rows that configure a kernel
# before they can refuse take minutes on a loaded machine.
check() {
	local want=$1 text=$2 cmd=$3 got=0 out d made=''
	[[ -d $ROW/tmp ]] || mkdir -p "$ROW/tmp"
	out=$(cd "$REPO_DIR" && unset MAKEFLAGS MAKELEVEL MFLAGS MAKEOVERRIDES BIB_PLAN &&
		CACHE="$ROW/cache" TMPDIR="$ROW/tmp" BENCH_T0='' exec timeout "${CHECK_LIMIT:-60}" bash -c "$cmd" 2>&1 </dev/null) || got=$?
	for d in src ksrc trees variants build; do
		[[ ! -e $ROW/cache/$d ]] || made+=" $d"
	done
	tmp_left made
	if [[ $got == "$want" && $out == *"$text"* && -z $made ]]; then
		printf 'ok    exit %s  %s\n' "$got" "$cmd"
	else
		printf 'FAIL  exit %s (want %s and "%s")%s  %s\n' "$got" "$want" "$text" \
			"${made:+; it left behind:$made}" "$cmd"
		printf '%s\n' "$out" | tail -n 5 | sed 's/^/      /'
	fi
}

# fakes: tar, xz, apt-get and qemu-system-x86_64 that only log their
# call (into FAKE_LOG, the row's), first on PATH for the direct rows: any
# call is work done.
fakes() {
	local tool
	mkdir -p "$SCRATCH/fake"
	for tool in tar xz apt-get qemu-system-x86_64; do
		# shellcheck disable=SC2016 # FAKE_LOG is the fake's to expand
		printf '#!/bin/sh\necho "%s $*" >>"$FAKE_LOG"\nexit 1\n' "$tool" >"$SCRATCH/fake/$tool"
		chmod +x "$SCRATCH/fake/$tool"
	done
}

# tmp_left VAR: " TMPDIR/NAME" added to VAR for each file a row's command
# left in its TMPDIR (a temporary file left behind is a trace on the
# host), each then removed.
tmp_left() {
	local -n tmp_left_var=$1
	local f
	local -a left
	dir_entries left "$ROW/tmp"
	for f in ${left[@]+"${left[@]}"}; do
		tmp_left_var+=" TMPDIR/${f##*/}"
		rm -rf "$f"
	done
}

# run_row COMMAND: COMMAND's output and, last, its status, as a user runs
# it (no make around it) with the fakes first on PATH and the row's roots.
run_row() {
	local got=0 out left=''
	[[ -d $ROW/tmp ]] || mkdir -p "$ROW/tmp"
	out=$(cd "$REPO_DIR" && unset MAKEFLAGS MAKELEVEL MFLAGS MAKEOVERRIDES BIB_PLAN &&
		PATH="$SCRATCH/fake:$PATH" CACHE="$ROW/cache" RESULTS_ROOT="$ROW/results" BENCH_T0='' \
		TMPDIR="$ROW/tmp" FAKE_LOG="$ROW/fake.log" exec timeout "${CHECK_LIMIT:-60}" bash -c "$1" 2>&1 </dev/null) || got=$?
	tmp_left left
	[[ -z $left ]] || got="$got, left in$left"
	printf '%s\n%s\n' "$out" "$got"
}

# check_direct STATUS TEXT SETTINGS DRIVER TARGET: one row of DIRECT.
check_direct() {
	local want=$1 text=$2 settings=$3 driver=$4 target=$5 out got mout mgot why=''
	out=$(run_row "$settings $driver")
	got=${out##*$'\n'}
	out=${out%$'\n'*}
	[[ $got == "$want" && $out == *"$text"* ]] || why="exit $got (want $want and \"$text\")"
	[[ ! -e $ROW/fake.log ]] || why+=" ran: $(tr '\n' ' ' <"$ROW/fake.log")"
	[[ ! -e $ROW/cache && ! -e $ROW/results ]] || why+=" made CACHE or RESULTS_ROOT"
	# what the direct call left behind is not make's
	rm -rf "$ROW/fake.log" "$ROW/cache" "$ROW/results"
	if [[ $target != - ]]; then
		mout=$(run_row "$settings make -s $target")
		mgot=${mout##*$'\n'}
		mout=${mout%$'\n'*}
		# make's own "*** [...] Error 2" line aside, the same lines
		[[ $mgot == "$got" && $(grep -v '^make' <<<"$mout") == "$out" ]] ||
			why+=" make $target: exit $mgot, other lines: $(grep -v '^make' <<<"$mout" | head -n 2 | tr '\n' ' ')"
	fi
	if [[ -z $why ]]; then
		printf 'ok    exit %s  %s %s (as make %s)\n' "$got" "$settings" "$driver" "$target"
	else
		printf 'FAIL  %s  %s %s\n' "$why" "$settings" "$driver"
		printf '%s\n' "$out" | tail -n 5 | sed 's/^/      /'
	fi
}

# A benchmark whose every boot fails by timing out (a 2 s limit) writes its
# results and exits 3, timeout (bench/lib/status.sh), not 1.
check_failing_bench() {
	local cmd
	if [[ ! -f $REAL_CACHE/build/on/.blkinject-stamp ]]; then
		printf 'skip  (config on not built) a bench run whose boots all fail\n'
		return
	fi
	cmd="CACHE=$REAL_CACHE RESULTS_ROOT=$ROW/results RUN_ID=fail ACCEL=tcg CONFIGS=on STATES=key-off BASELINE='on key-off' REPEATS=1 RUN_TIMEOUT=2 bench/run/bench.sh"
	# its setup (the image's modules piece, the plugin) takes minutes on a
	# loaded machine before the boot that fails
	CHECK_LIMIT=600 check 3 "1 of 1 boots failed" "$cmd"
	if [[ -f $ROW/results/fail/runs.csv ]] && grep -q ',failed,iops,' "$ROW/results/fail/runs.csv"; then
		printf 'ok    its runs.csv marks the run failed\n'
	else
		printf 'FAIL  no runs.csv with the failed run in %s\n' "$ROW/results/fail"
	fi
}

# -M archives that do not fit a real bzImage (the cached build of on).
check_bad_archives() {
	local bz=$REAL_CACHE/build/on/arch/x86/boot/bzImage release
	if [[ ! -f $bz ]]; then
		printf 'skip  (config on not built) run-guest -M with a bad archive\n'
		return
	fi
	release=$(cat "$REAL_CACHE/build/on/include/config/kernel.release")
	mkdir -p "$ROW/mods/lib/modules/0.0-other"
	: >"$ROW/mods/lib/modules/0.0-other/modules.dep"
	tar -C "$ROW/mods" -czf "$ROW/other.tar.gz" lib
	tar -C "$ROW/mods" -czf "$ROW/empty.tar.gz" --files-from /dev/null
	check 2 "-M /etc/hostname: not a tar archive" "bench/vm/run-guest -K $bz -M /etc/hostname /dev/null"
	check 2 "-M $ROW/empty.tar.gz: no lib/modules/RELEASE/modules.dep in it" \
		"bench/vm/run-guest -K $bz -M $ROW/empty.tar.gz /dev/null"
	check 2 "-M $ROW/other.tar.gz: modules for 0.0-other, but -K $bz is $release" \
		"bench/vm/run-guest -K $bz -M $ROW/other.tar.gz /dev/null"
}

# HOT_FUNCS names are checked against the built kernels' System.map (a
# kernel must have one of them; the others are then only absent), and
# a tree without the feature's Kconfig symbol is named as such: both need
# the real cache (a built on; the pristine source for the second).
check_needs_cache() {
	if [[ ! -f $REAL_CACHE/build/on/.blkinject-stamp ]]; then
		printf 'skip  (config on not built) HOT_FUNCS and tree-without-the-change rows\n'
		return
	fi
	check 2 "HOT_FUNCS: none of no_such_function other_missing is in the kernel of config on" \
		"CACHE=$REAL_CACHE HOT_FUNCS='no_such_function other_missing' CONFIGS=on STATES=key-off BASELINE='on key-off' bench/run/bench.sh"
	check 2 "HOT_FUNCS='a-b' (the environment): 'a-b' is not a function name" \
		"CACHE=$REAL_CACHE HOT_FUNCS=a-b CONFIGS=on STATES=key-off BASELINE='on key-off' bench/run/bench.sh"
	[[ -f $REAL_CACHE/src/pristine/.blkinject-version ]] || return 0
	CHECK_LIMIT=900 check 1 "this tree has no BLK_ERROR_INJECTION (no Kconfig entry defines it): give SERIES=" \
		"CACHE=$REAL_CACHE SERIES=none bench/kernel/build.sh build on"
}

# in_row N COMMAND...: COMMAND in the row directory N, in the background
# once fewer than the host's cores' worth of rows run.
in_row() {
	local n=$1
	shift
	bg_slot
	mkdir -p "$SCRATCH/rows/$n/tmp"
	(ROW=$SCRATCH/rows/$n && "$@" >"$ROW/out" 2>&1) &
}

main() {
	local want text cmd settings driver target n=0 i passed failed
	fakes
	make_ktree
	# the slow rows first: they configure a kernel, or boot one
	in_row $((n += 1)) check_needs_cache
	in_row $((n += 1)) check_failing_bench
	in_row $((n += 1)) check_bad_archives
	while IFS='|' read -r want text cmd; do
		in_row $((n += 1)) check "$want" "$text" "$cmd"
	done <<<"$ROWS"
	while IFS='|' read -r want text settings driver target; do
		in_row $((n += 1)) check_direct "$want" "$text" "$settings" "$driver" "$target"
	done <<<"$DIRECT"
	wait
	for ((i = 1; i <= n; i++)); do cat "$SCRATCH/rows/$i/out"; done | tee "$SCRATCH/all"
	[[ ! -e $SCRATCH/o ]] || printf 'FAIL  O= made %s\n' "$SCRATCH/o" | tee -a "$SCRATCH/all"
	passed=$(grep -c '^ok ' "$SCRATCH/all" || true)
	failed=$(grep -c '^FAIL ' "$SCRATCH/all" || true)
	printf '%d passed, %d failed\n' "$passed" "$failed"
	[[ $failed == 0 ]]
}

main "$@"
