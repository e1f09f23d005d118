#!/usr/bin/env bash
# The settings resolver (bench/plan/resolve, bench/lib/settings.sh): every
# class of bad input is refused with exit 2 and a message naming the valid
# values, before any work; good input gives the plan the stages read.
#
#   tests/host/settings.sh      "ok"/"not ok" a line; exit 1 on a failure
#
# Each row of the tables runs in an empty environment with CACHE and
# RESULTS_ROOT in a scratch directory that does not exist yet.  A row
# passes when the exit status and the text match and nothing was made: no
# CACHE, no RESULTS_ROOT, no plan file or temporary file after a refusal,
# no change in the repository.  Bad-input rows with $M go through the
# repository's Makefile, as a user's make command does, with a fake tar,
# xz, apt-get and qemu-system-x86_64 first on PATH: a row fails if any of
# them ran (something was extracted, installed or booted).  Good rows with
# $P go through a Makefile whose targets only resolve.
# shellcheck disable=SC2016 # commands and plan values, expanded later or never
# shellcheck disable=SC2034 # read by the runner, as blktests reads it
DESCRIPTION="the settings resolver: bad input exits 2 before any work; the plan"
set -euo pipefail
shopt -s inherit_errexit

TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPO=$(cd "$TESTS_DIR/.." && pwd)
# shellcheck source=tests/lib/assert.sh
. "$TESTS_DIR/lib/assert.sh"
help_answer "$0" "$@"

S=$(mktemp -d)
trap 'rm -rf "$S"' EXIT
OUT=$S/plan/plan
# A committed run, which make must never write into.
COMMITTED=results/20261203-210359-tcg-icount

fixtures() {
	mkdir -p "$S/plan" "$S/home" "$S/empty-series" "$S/dup-series" "$S/missing-series" "$S/made" "$S/fake" \
		"$S/notdiff-series" "$S/crlf-series"
	local tool
	for tool in tar xz apt-get qemu-system-x86_64; do
		printf '#!/bin/sh\necho "%s $*" >>"$FAKE_LOG"\nexit 1\n' "$tool" >"$S/fake/$tool"
		chmod +x "$S/fake/$tool"
	done
	printf '# a typo\nCONFIGS off\n' >"$S/bad.job"
	printf 'CONFIG = on\n' >"$S/typo.job"
	printf 'REPEATS = 1\nREPEATS = 2\n' >"$S/twice.job"
	printf 'CONFIGS =\n' >"$S/empty.job"
	printf 'CONFIGS = on\nSTATES = key-off rules-1\nBASELINE = on key-off\n' >"$S/mine.job"
	printf '# nothing\n' >"$S/empty-series/series"
	printf -- '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n' >"$S/dup-series/0001-a.patch"
	printf 'Subject: notes, not a diff\n\nNothing to apply.\n' >"$S/notdiff-series/0001-notes.patch"
	printf '0001-notes.patch\n' >"$S/notdiff-series/series"
	cp "$S/dup-series/0001-a.patch" "$S/crlf-series/"
	printf '0001-a.patch\r\n' >"$S/crlf-series/series"
	printf '0001-a.patch\n0001-a.patch\n' >"$S/dup-series/series"
	printf '0001-gone.patch\n' >"$S/missing-series/series"
	cp -r "$REPO/$COMMITTED" "$S/made/run"
	# The targets a user runs, each only resolving its settings.
	local targets='bench kernels quick views compare-series compare per-patch peers fuzz coverage soak test shell plots report export'
	printf '.PHONY: %s\n%s:\n\t@"$(REPO)/bench/plan/resolve" -o "$(OUT)" $@\n' "$targets" "$targets" >"$S/Makefile"
}

# STATUS | TEXT | COMMAND: $R is the resolver writing the plan to $OUT,
# $M the repository's make, $P make with the targets above (resolving
# only), $S the scratch directory.
BAD=$(
	cat <<'ROWS_END'
2|CONFIGS is empty (the environment): want config names (valid: debug gcov |CONFIGS= $M bench
2|CONFIGS is empty (make's command line)|$M kernels CONFIGS=
2|CONFIGS='on on' (the environment): 'on' is listed twice|CONFIGS='on on' $M bench
2|'../on' is not a config (valid: debug gcov kcsan nokey off-layout off on-nojl on peers pristine)|CONFIGS='on ../on' $M kernels
2|'on/x' is not a config|$M kernels CONFIGS=on/x
2|CONFIG (make's command line) is not read by bench (it is a setting of: shell fuzz soak); did you mean CONFIGS?|$M bench CONFIG=on
2|CONFIG (the environment) is not a setting of bench: did you mean CONFIGS?|CONFIG=on $M bench
2|configs (the environment) is not a setting of bench: did you mean CONFIGS?|configs=on $M bench
2|JOB_FILE='bogus' (make's command line): unknown job file (valid: default quick, or the path|$M kernels JOB_FILE=bogus
2|JOB_FILE is empty (the environment)|JOB_FILE= $M bench
2|bad.job:2: expected NAME = VALUE, got "CONFIGS off"|JOB_FILE=$S/bad.job $M bench
2|typo.job:1: unknown setting CONFIG (did you mean CONFIGS?) (valid: CONFIGS STATES|JOB_FILE=$S/typo.job $M bench
2|twice.job:2: REPEATS set twice (first on line 1)|JOB_FILE=$S/twice.job $M bench
2|CONFIGS is empty (|JOB_FILE=$S/empty.job $M bench
2|STATES is empty (make's command line): want states (valid: off key-off|$M bench STATES=
2|STATES='rules-1 rules-1' (the environment): 'rules-1' is listed twice|STATES='rules-1 rules-1' $M bench
2|'rules-0' is not a state (valid: off key-off key-on-other|STATES=rules-0 $M bench
2|'rules-99999999999999999999' is not a state|STATES=rules-99999999999999999999 $M bench
2|STATE (the environment) is not a setting of bench: did you mean STATES?|STATE=key-off $M bench
2|state fmr-p0 needs CONFIG_FAIL_MAKE_REQUEST, which config on lacks (configs with it: peers)|$M bench CONFIGS=on STATES=fmr-p0 BASELINE='on fmr-p0'
2|REPEATS='0' (make's command line): out of range: want a whole number from 1 to 1000, or auto|$M bench REPEATS=0
2|REPEATS='-1' (the environment): negative: want a whole number from 1 to 1000|REPEATS=-1 $M bench
2|REPEATS='99999999999999999999' (the environment): out of range|REPEATS=99999999999999999999 $M bench
2|REPEATS='1.5' (the environment): not a whole number|REPEATS=1.5 $M bench
2|REPEATS='two' (the environment): not a whole number|REPEATS=two $M bench
2|REPEATS is empty (the environment): want a whole number from 1 to 1000, or auto|REPEATS= $M bench
2|REPEAT (make's command line) is not a setting of bench: did you mean REPEATS?|$M bench REPEAT=2
2|FIO_RUNTIME='0' (the environment): out of range: want a whole number from 1 to 3600, or auto|FIO_RUNTIME=0 $M bench
2|FIO_RAMP='0.2' (the environment): want whole seconds, or a whole number with ms or s|FIO_RAMP=0.2 $M bench
2|FIO_RAMP='99999s' (the environment): out of range: at most 3600s|FIO_RAMP=99999s $M bench
2|FIO_IOS='-5' (the environment): negative|FIO_IOS=-5 $M bench
2|FIO_IOS='1e6' (the environment): not a whole number|FIO_IOS=1e6 $M bench
2|SEED='4294967296' (the environment): out of range: want a whole number from 0 to 4294967295|SEED=4294967296 $M bench
2|RUN_TIMEOUT='0' (the environment): out of range|RUN_TIMEOUT=0 $M bench
2|GUEST_JOBS='0' (the environment): out of range: want a whole number from 1 to 64, or auto|GUEST_JOBS=0 $M bench
2|PLUGIN='yes' (the environment): want 0 or 1|PLUGIN=yes $M bench
2|BOOTS='sometimes' (the environment): unknown value (valid: auto per-config per-state)|BOOTS=sometimes $M bench
2|BOOTS='per-config' (the environment): per-config needs exact counts, which kvm does not give|ACCEL=kvm QEMU=$K BOOTS=per-config $M bench
2|ACCEL='kvm' (the environment): KVM does not run guests here: QEMU under -accel kvm -cpu host: exit 1|ACCEL=kvm QEMU=false $M bench
2|ACCEL='kvm' (make's command line): KVM does not run guests here|$M bench ACCEL=kvm QEMU=false
4|ACCEL='kvm' (the environment): KVM does not run guests here|ACCEL=kvm QEMU=false $R views
2|ACCEL='KVM' (make's command line): unknown value (valid: auto kvm tcg tcg-icount)|$M bench ACCEL=KVM
2|ACCELERATOR (the environment) is now ACCEL|ACCELERATOR=kvm $M bench
2|BASELINE='of off' (the environment): not a row of the matrix|BASELINE='of off' $M bench
2|BASELINE='off off' (bench/plan/jobs/default.job:12): not a row of the matrix (CONFIGS from make's command line|$M bench CONFIGS=on
2|BASELINE='on' (the environment): want two words, CONFIG STATE|BASELINE=on $M bench
2|WORKLOADS='randread-qd1 randread-qd1' (the environment): 'randread-qd1' is listed twice|WORKLOADS='randread-qd1 randread-qd1' $M bench
2|'bogus' is not a workload (valid: count-randread-qd1 |SOFTIRQ_WORKLOADS=bogus $M bench
2|nothing to measure: WORKLOADS is empty and FIO_IOS=0|WORKLOADS= FIO_IOS=0 ACCEL=tcg-icount $M bench
2|nothing to measure under kvm|WORKLOADS= ACCEL=kvm QEMU=$K $M bench
2|'a-b' is not a function name (valid: C identifiers|HOT_FUNCS=a-b $M bench
2|HOT_FUNCS='f f' (the environment): 'f' is listed twice|HOT_FUNCS='f f' $M bench
2|HOT_FUNCS is empty (the environment)|HOT_FUNCS= $M bench
2|RUN_ID='../escape' (the environment): a run's name, not a path|RUN_ID=../escape $M bench
2|RUN_ID='a/b' (the environment): a run's name, not a path|RUN_ID=a/b $M bench
2|RUN_ID='..' (the environment): a run's name, not a path|RUN_ID=.. $M bench
2|exists already|RESULTS_ROOT=results RUN_ID=20261203-210359-tcg-icount $M bench
2|RESULTS_ROOT='/proc/bib-results' (the environment): not writable (/proc refuses new files)|RESULTS_ROOT=/proc/bib-results $M bench
2|CACHE='/proc/bib-cache' (make's command line): not writable|$M kernels CACHE=/proc/bib-cache
2|exists and is not a directory|CACHE=README.md $M bench
2|CACHE is empty (the environment)|CACHE= $M bench
2|CCACHE_DIR='/proc/bib-ccache' (the environment): not writable|CCACHE_DIR=/proc/bib-ccache $M kernels
2|RESULT_ROOT (the environment) is now RESULTS_ROOT|RESULT_ROOT=/tmp $M bench
2|BENCH_CONFIGS (the environment) is now CONFIGS|BENCH_CONFIGS=on $M bench
2|VIEW_CONFIGS (the environment) is now CONFIGS|VIEW_CONFIGS=on $M views
2|VIEW_JOBS (the environment) is now GUEST_JOBS|VIEW_JOBS=2 $M views
2|PLOT_THRESHOLD (the environment) is now THRESHOLD|PLOT_THRESHOLD=2 $M compare-series
2|VIEWS (make's command line) is not read by bench (it is a setting of: views)|$M bench VIEWS=mq
2|'bogus' is not a view (valid: errcost footprint latency layout mq polled switch, or all)|$M views VIEWS='mq bogus'
2|VIEWS='mq mq' (make's command line): 'mq' is listed twice|$M views VIEWS='mq mq'
2|'bogus' is no state of the views mq (valid: key-off key-on-other rules-1 rule-churn)|$M views VIEWS=mq VIEW_STATES=bogus
2|SWITCH_CYCLES='0' (make's command line): out of range|$M views SWITCH_CYCLES=0
2|POLL_TAGS='99999' (make's command line): out of range: want a whole number from 1 to 4096|$M views POLL_TAGS=99999
2|ERRCOST_IOS='many' (the environment): not a whole number|ERRCOST_IOS=many $M views
2|BASELINE='off off' (make's command line): not a row of the views|$M views VIEWS=switch CONFIGS='off on' BASELINE='off off'
2|FUZZ_SECONDS='0' (make's command line): out of range: want a whole number from 1 to 604800|$M fuzz FUZZ_SECONDS=0
2|FUZZ_SEED='-1' (make's command line): negative|$M fuzz FUZZ_SEED=-1
2|CONFIG='off' (make's command line): has no error injection to fuzz (configs with it: debug|$M fuzz CONFIG=off
2|FUZZ_CONFIG (make's command line) is now CONFIG|$M fuzz FUZZ_CONFIG=debug
2|SOAK_BOOTS='0' (make's command line): out of range|$M boot-soak SOAK_BOOTS=0
2|CONFIG='on off' (make's command line): one config, not a list|$M shell CONFIG='on off'
2|THRESHOLD='abc' (make's command line): not a number: want a percentage above 0|$M compare-series THRESHOLD=abc
2|THRESHOLD='0' (make's command line): out of range|$M compare-series THRESHOLD=0
2|THRESHOLD='101' (the environment): out of range|THRESHOLD=101 $M compare-series
2|THRESHOLD='100' (make's command line): out of range: want a percentage above 0 and below 50|$M compare-series THRESHOLD=100
2|THRESHOLD='50' (make's command line): out of range: want a percentage above 0 and below 50|$M compare THRESHOLD=50 BASE=results/20261205-061154-tcg-icount NEW=results/20261205-075900-tcg-icount
2|EXACT_TOLERANCE='-1' (make's command line): negative: want a whole number from 0 to 1000000|$M compare-series EXACT_TOLERANCE=-1
2|EXACT_TOLERANCE='one' (the environment): not a whole number|EXACT_TOLERANCE=one $M compare-series
2|PERF_RECORD='1' (make's command line): compare-series always runs with PERF_RECORD='0'|$M compare-series PERF_RECORD=1
2|REPEATS_MAX='0' (make's command line): out of range|$M compare-series REPEATS_MAX=0
2|REPEATS_MINUTES='-5' (the environment)|REPEATS_MINUTES=-5 $M bench
2|CONFIGS='on' (make's command line): peers always runs with CONFIGS='peers'|$M peers CONFIGS=on
2|JOB_FILE='default' (make's command line): quick always runs with JOB_FILE='quick'|$M quick JOB_FILE=default
2|NEW_SERIES='/etc' (make's command line): no series file|$M compare-series NEW_SERIES=/etc
2|BASE_KSRC='/no/such/linux' (make's command line): no such file or directory|$M compare-series BASE_KSRC=/no/such/linux
2|its series file lists no patches|$M per-patch SERIES=$S/empty-series
2|its series file lists 0001-a.patch twice|$M per-patch SERIES=$S/dup-series
2|0001-gone.patch is listed in its series file but missing|$M per-patch SERIES=$S/missing-series
2|SERIES='__S__/notdiff-series' (make's command line): 0001-notes.patch is not a patch: no diff in it|$M per-patch SERIES=$S/notdiff-series
2|SERIES='__S__/crlf-series' (make's command line): its series file has CRLF line ends (a carriage return, \r, on line 1)|$M kernels CONFIGS=on SERIES=$S/crlf-series
2|NEW_SERIES='__S__/notdiff-series' (make's command line): 0001-notes.patch is not a patch|$M compare-series NEW_SERIES=$S/notdiff-series
2|SERIES='none' (make's command line): per-patch needs a series|$M per-patch SERIES=none
2|has no BLK_ERROR_INJECTION, which config(s) on need|$M kernels SERIES=none CONFIGS=on
2|KSRC='/etc' (make's command line): not a kernel source|$M kernels KSRC=/etc
2|KSRC='/etc/hostname' (the environment): a file must be a tarball|KSRC=/etc/hostname $M kernels
2|KSRC is empty (the environment)|KSRC= $M kernels
2|'bogus' is not a test (valid: 001-readback|$M test TESTS=bogus
2|TESTS='001-readback 001-readback' (make's command line): '001-readback' is listed twice|$M test TESTS='001-readback 001-readback'
2|'../block/001-readback' is not a test|$M test TESTS=../block/001-readback
2|TEST (make's command line) is not a setting of test: did you mean TESTS?|$M test TEST=001-readback
2|'bogus' is not a config|$M test TEST_CONFIGS='on bogus'
2|TEST_TIMEOUT='0' (make's command line): out of range|$M test TEST_TIMEOUT=0
2|CC='tcc' (make's command line): kernels are built with gcc through ccache|$M kernels CC=tcc
2|CC='clang' (make's command line): kernels are built with gcc through ccache|$M kernels CC=clang
2|LLVM='1' (make's command line): clang/LLVM kernel builds are not supported|$M kernels CC=gcc LLVM=1
2|LLVM='0' (make's command line): clang/LLVM kernel builds are not supported|$M kernels LLVM=0
2|O='/tmp/bib-o' (make's command line): builds go to CACHE/build/CONFIG|$M kernels O=/tmp/bib-o
2|KBUILD_OUTPUT='/tmp/bib-o' (the environment): builds go to CACHE|KBUILD_OUTPUT=/tmp/bib-o $M kernels
2|ARCH='arm64' (make's command line): kernels are built for x86_64 only|$M kernels ARCH=arm64
2|CROSS_COMPILE='aarch64-linux-gnu-' (make's command line): not used|$M kernels CROSS_COMPILE=aarch64-linux-gnu-
2|JOBS='0' (make's command line): out of range|$M kernels JOBS=0
2|V (make's command line) is not a setting of kernels (its settings: JOB_FILE CONFIGS|$M kernels V=1
2|usage: make compare BASE=results/A NEW=results/B|$M compare
2|BASE and NEW are the same run|$M compare BASE=results/20261203-210359-tcg-icount NEW=results/20261203-210359-tcg-icount/
2|BASE='results/no-such-run' (make's command line): no such directory|$M compare BASE=results/no-such-run NEW=results/20261203-210359-tcg-icount
2|NEW='patches' (make's command line): not a results directory|$M compare BASE=results/20261203-210359-tcg-icount NEW=patches
2|a committed run, which make never writes into|$M report RESULTS=results/20261203-210359-tcg-icount
2|a committed run, which make never writes into|$M views RESULTS_DIR=results/20261203-173800-tcg-icount-views
2|RESULTS is not set and no run was made on this machine yet|$M plots
2|KCIDB_ORIGIN='My-Lab' (the environment): KCIDB origins are [a-z0-9_]+|KCIDB_ORIGIN=My-Lab $R export
2|QEMU='/no/such/qemu' (the environment): no such program|QEMU=/no/such/qemu $M bench
2|a value is one line|CONFIGS=$'on\noff' $R kernels
2|BASELINE='of off' (make's command line): not a row of the matrix|$M bench BASELINE='of off'
2|RUN_ID='a/b' (make's command line): a run's name, not a path|$M bench RUN_ID=a/b
2|RUN_ID='..' (make's command line): a run's name, not a path|$M all RUN_ID=..
2|THRESHOLD='abc' (the environment): not a number|THRESHOLD=abc bench/run/compare-series.sh
2|THRESHOLD='-1' (make's command line)|$M bench THRESHOLD=-1
2|VIEWS='mq bogus' (the command line): 'bogus' is not a view|bench/run/views.sh mq bogus
2|CONFIGS='on on' (the environment): 'on' is listed twice|CONFIGS='on on' bench/run/views.sh mq
2|QEMU='/no/such/qemu' (make's command line): no such program|$M views QEMU=/no/such/qemu
2|typo.job:1: unknown setting CONFIG (did you mean CONFIGS?)|$M kernels JOB_FILE=$S/typo.job
2|bad.job:2: expected NAME = VALUE|$M bench JOB_FILE=$S/bad.job
2|NEW_CONFIG='bogus' (make's command line): not a config|$M static NEW_CONFIG=bogus
2|BASE_CONFIG='off on' (make's command line): one config, not a list|$M static BASE_CONFIG='off on'
2|a committed run, which make never writes into|$M disasm RESULTS=results/20261203-210359-tcg-icount
2|SERIES='/etc' (make's command line): no series file|$M patches-check SERIES=/etc
2|BASELINE='off off' (bench/plan/jobs/default.job:|$M all CONFIGS=on
2|CONFIGS='on on' (make's command line): 'on' is listed twice|$M quick CONFIGS='on on'
2|PERF_REPEATS='0' (make's command line): out of range|$M perf PERF_REPEATS=0
2|REPEATS='0' (make's command line): out of range|$M peers REPEATS=0
2|FUZZ_SECONDS='0' (make's command line): out of range|$M coverage FUZZ_SECONDS=0
2|CONFIG='bogus' (make's command line): not a config|$M boot-soak CONFIG=bogus
2|CONFIG is empty (make's command line)|$M shell CONFIG=
2|TEST_CONFIGS is empty (make's command line)|$M test TEST_CONFIGS=
2|CONFIGS (make's command line) is not read by fuzz (it is a setting of:|$M fuzz CONFIGS=on
2|CONFIGS (make's command line) is not read by per-patch|$M per-patch CONFIGS=on
2|NEW='results/no-such-run' (make's command line): no such directory|$M compare BASE=results/20261203-210359-tcg-icount NEW=results/no-such-run
2|'../on' is not a config|$M kernels CONFIGS='on ../on'
2|ACCEL='kvm' (make's command line): per-patch always runs with ACCEL='tcg-icount'|$M per-patch ACCEL=kvm
2|STATES='key-off key-off' (make's command line): 'key-off' is listed twice|$M compare-series STATES='key-off key-off'
2|VIEW_STATES='key-off key-off' (make's command line): 'key-off' is listed twice|$M views VIEWS=mq VIEW_STATES='key-off key-off'
2|GUEST_JOBS='65' (make's command line): out of range|$M boot-soak GUEST_JOBS=65
2|unknown driver 'bogus' (valid: all bench |$R bogus
2|'CONFIGS': want NAME=VALUE|$R bench CONFIGS
2|VIEWS is not a setting of report|$R -n 'CACHE VIEWS' report
2|-p __S__/no-such-plan: no such plan|$R -p $S/no-such-plan bench
ROWS_END
)

# STATUS | TEXT IN THE PLAN | COMMAND
GOOD=$(
	cat <<'ROWS_END'
0|CONFIGS=off on on-nojl nokey|$R bench
0|#   CONFIGS: make's command line|$P kernels CONFIGS=on
0|CONFIGS=off on|$P quick
0|REPEATS=3|$P quick REPEATS=3
0|STATES=key-off key-on-other rules-1|$P quick REPEATS=3
0|REPEATS=auto|ACCEL=kvm QEMU=$K $R bench
0|BOOTS=per-state|ACCEL=kvm QEMU=$K $R bench
0|ACCEL_USED=kvm|ACCEL=kvm QEMU=$K $R bench
0|ACCEL_USED=tcg-icount|ACCEL=tcg-icount QEMU=false $R bench
0|REPEATS=5|ACCEL=kvm QEMU=$K $R views
0|REPEATS=1|ACCEL=tcg-icount $R bench
0|REPEATS=7|ACCEL=kvm QEMU=$K REPEATS=007 $R bench
0|BASELINE=on key-off|$P compare-series
0|BASELINE=off off|$P views
0|VIEWS=mq polled|$P views VIEWS='mq polled'
0|VIEW_STATES=rule-churn|$P views VIEWS='mq' VIEW_STATES=rule-churn
0|VIEWS=errcost footprint latency layout mq polled switch|$P views VIEWS=all
0|CONFIGS=on|JOB_FILE=$S/mine.job $R bench
0|BASELINE=on key-off|JOB_FILE=$S/mine.job $R bench
0|WORKLOADS=|WORKLOADS= ACCEL=tcg-icount $R bench
0|TOOLCHAIN=gcc|$P kernels CC=gcc
0|ARCH=x86_64|$P kernels ARCH=x86_64
0|SERIES=none|$P kernels SERIES=none CONFIGS=pristine
0|CONFIG=debug|$P fuzz
0|FUZZ_SECONDS=120|$P coverage
0|TESTS=001-readback 007-invalid|$P test TESTS='001-readback  007-invalid'
0|ACCEL=tcg-icount|$P per-patch
0|CONFIGS=peers|$P peers
0|HOT_FUNCS=submit_bio_noacct_nocheck __blk_error_inject should_fail_bio|$P peers
0|THRESHOLD=1|$R -n 'CACHE THRESHOLD' report
0|#   WORKLOADS: the plan of per-patch|bench/plan/resolve -o $S/pp.plan per-patch && HOT_FUNCS=f $R -p $S/pp.plan bench CONFIGS=on BASELINE='on key-off'
0|HOT_FUNCS=submit_bio_noacct_nocheck __blk_error_inject|bench/plan/resolve -o $S/pp.plan per-patch && HOT_FUNCS=f $R -p $S/pp.plan bench CONFIGS=on BASELINE='on key-off'
0|BASE_KSRC=|bench/plan/resolve -o $S/cs.plan compare-series && $R -p $S/cs.plan static BASE_CONFIG=on NEW_CONFIG=on
0|THRESHOLD=0.5|$P compare-series THRESHOLD=0.5
0|THRESHOLD=49.9|$P compare-series THRESHOLD=49.9
0|EXACT_TOLERANCE=2|$P compare-series EXACT_TOLERANCE=2
0|VIEW_LAYOUT_CONFIGS=off off-layout|$P views VIEWS=layout
0|VIEWS_CONFIGS=off on off-layout|$P views VIEWS='mq layout'
0|VIEW_MQ_GUEST=view-mq|$P views VIEWS=mq
0|RESULTS=__S__/made/run|printf '%s\n' $S/made/run >$S/made/runs-made && CACHE=$S/made $R plots
ROWS_END
)

# run_row DIR COMMAND: run it as a user would, in an empty environment,
# with CACHE, RESULTS_ROOT and the plan in DIR (DIR/out and DIR/tmp made).
run_row() {
	# env -C, not a subshell's cd: one process a row fewer
	env -i -C "$REPO" PATH="$S/fake:$PATH" HOME="$S/home" S="$S" OUT="$1/out/plan" REPO="$REPO" \
		CACHE="$1/cache" RESULTS_ROOT="$1/results" FAKE_LOG="$1/called" TMPDIR="$1/tmp" \
		R="$REPO/bench/plan/resolve -o $1/out/plan" M="make -s --no-print-directory" \
		K="$REPO/tests/fixtures/kvm/qemu-kvm-runs" \
		P="make -s --no-print-directory -f $S/Makefile" \
		bash -c "$2" 2>&1 </dev/null
}

# row DIR STATUS TEXT COMMAND: the status and the text (the output on a
# refusal, the plan otherwise), and nothing made; "PASS<tab>NAME" or
# "FAIL<tab>NAME<tab>DETAIL" into DIR/result.
row() {
	local dir=$1 want=$2 text=${3//__S__/$S} cmd=$4 got=0 out name
	mkdir -p "$dir/out" "$dir/tmp"
	out=$(run_row "$dir" "$cmd") || got=$?
	[[ $want != 0 || ! -f $dir/out/plan ]] || out=$(<"$dir/out/plan")
	name="exit $want, \"${text:0:60}\": $cmd"
	if [[ $got != "$want" || $out != *"$text"* ]]; then
		printf 'FAIL\t%s\tgot exit %s: %s\n' "$name" "$got" "$(tail -n 3 <<<"$out" | tr '\n' ' ')"
	elif [[ -e $dir/cache || -e $dir/results ]]; then
		printf 'FAIL\t%s\tit made CACHE or RESULTS_ROOT\n' "$name"
	elif [[ $want != 0 && -e $dir/out/plan ]]; then
		printf 'FAIL\t%s\tit wrote a plan\n' "$name"
	elif [[ -e $dir/called ]]; then
		printf 'FAIL\t%s\tit went on to work: %s\n' "$name" "$(tr '\n' ';' <"$dir/called")"
	elif [[ $want != 0 ]] && dir_has "$dir/tmp"; then
		printf 'FAIL\t%s\tit left %s in TMPDIR\n' "$name" "$(find "$dir/tmp" -mindepth 1 -printf '%f ')"
	else
		printf 'PASS\t%s\n' "$name"
	fi >"$dir/result"
}

# rows TABLE: every row, as many at once as the host has cores, reported
# in the table's order.
rows() {
	local want text cmd i=0 j verdict name detail
	while IFS='|' read -r want text cmd; do
		i=$((i + 1))
		bg_slot
		row "$S/rows/$i" "$want" "$text" "$cmd" &
	done <<<"$1"
	wait
	for ((j = 1; j <= i; j++)); do
		IFS=$'\t' read -r verdict name detail <"$S/rows/$j/result"
		if [[ $verdict == PASS ]]; then
			pass "$name"
		else
			fail "$name"
			printf '    %s\n' "$detail"
		fi
	done
	rm -rf "$S/rows"
}

# Sourcing a library defines functions and nothing else: no variable, no
# output, no file.
check_no_side_effects() {
	local lib out
	for lib in bench/lib/settings.sh bench/lib/catalog.sh bench/lib/plan.sh; do
		out=$(cd "$S/home" && env -i PATH="$PATH" CACHE="$S/cache" bash -c '
			set -euo pipefail
			before=$(compgen -v | grep -vxE "before|BASH_.*|_|PIPESTATUS|FUNCNAME|LINENO|SECONDS|RANDOM|SRANDOM|EPOCH.*")
			. "$1"
			after=$(compgen -v | grep -vxE "before|BASH_.*|_|PIPESTATUS|FUNCNAME|LINENO|SECONDS|RANDOM|SRANDOM|EPOCH.*")
			[[ $before == "$after" ]] || diff <(echo "$before") <(echo "$after")' _ "$REPO/$lib" 2>&1) || true
		check "sourcing $lib sets no variable and prints nothing${out:+ (got: $out)}" test -z "$out"
		check "sourcing $lib makes no file" test -z "$(ls -A "$S/home")" -a ! -e "$S/cache"
	done
}

# A plan is read as it was written: no value runs or expands.
check_plan_roundtrip() {
	local v='-S $(touch '"$S"'/ran) "q" * `x`'
	rm -f "$OUT"
	(cd "$REPO" && env -i PATH="$PATH" CACHE="$S/cache" RESULTS_ROOT="$S/results" \
		QEMU_EXTRA_ARGS="$v" bench/plan/resolve -o "$OUT" bench)
	# shellcheck source=bench/lib/plan.sh
	. "$REPO/bench/lib/plan.sh"
	plan_load "$OUT"
	check "plan_load gives a value back as it was given" test "${PLAN[QEMU_EXTRA_ARGS]}" == "$v"
	check "plan_get gives it back too" test "$(plan_get "$OUT" QEMU_EXTRA_ARGS)" == "$v"
	check "nothing in the value ran" test ! -e "$S/ran"
	check "the plan names its driver" test "${PLAN[DRIVER]}" == bench
	printf 'PLAN_VERSION=1\nnot a line\n' >"$S/bad.plan"
	check "plan_load refuses a line that is not KEY=VALUE" bash -c '. "$1"; plan_load "$2" 2>/dev/null; [[ $? == 2 ]]' _ "$REPO/bench/lib/plan.sh" "$S/bad.plan"
	rm -rf "$S/cache" "$S/results"
}

# Every driver resolves with its defaults (so every driver and view file
# parses), except those that need a run to work on.
check_every_driver() {
	local d got
	for d in $("$REPO/bench/plan/resolve" --drivers); do
		got=0
		mkdir -p "$S/d/out" "$S/d/tmp"
		run_row "$S/d" "\$R $d" >/dev/null || got=$?
		case $d in
		compare | plots | report | disasm) check "$d with no run to work on is refused (exit 2)" test "$got" == 2 ;;
		*) check "$d resolves with its defaults" test "$got" == 0 ;;
		esac
		rm -rf "$S/d"
	done
}

# Each view's job file names a guest script that exists, fio workloads
# where its parsers read fio, and states the guest knows.
check_view_files() {
	local f v guest parsers w st workloads states
	for f in "$REPO"/bench/plan/views/*.job; do
		v=$(basename "$f" .job)
		guest=$(sed -n 's/^GUEST *= *//p' "$f")
		parsers=$(sed -n 's/^PARSERS *= *//p' "$f")
		read -r -a workloads <<<"$(sed -n 's/^WORKLOADS *= *//p' "$f")"
		read -r -a states <<<"$(sed -n 's/^STATES *= *//p' "$f")"
		check "view $v: its guest script bench/guest/$guest.sh exists" test -f "$REPO/bench/guest/$guest.sh"
		if [[ " $parsers " == *" fio "* ]]; then
			for w in "${workloads[@]}"; do
				check "view $v: workload $w is a fio job" test -f "$REPO/bench/guest/fio/$w.fio"
			done
		fi
		for st in "${states[@]}"; do
			check "view $v: state $st is a state or one its guest sets up" bash -c '
				. "$1/bench/lib/catalog.sh"
				catalog_is_state "$2" || grep -qE "(^|[[:space:]|])$2[[:space:]]*[|)]|= *$2[]; ]" "$1"/bench/guest/views-fio.sh "$1/bench/guest/$3.sh"
			' _ "$REPO" "$st" "$guest"
		done
	done
}

# bench/plan/run, make's way in: the plan's words in place of @KEY@,
# BIB_PLAN set and no setting put into the environment (the scripts read
# the plan), nothing left.
check_run() {
	local out
	mkdir -p "$S/run-tmp"
	run() {
		(cd "$REPO" && env -i PATH="$PATH" HOME="$S/home" CACHE="$S/cache" RESULTS_ROOT="$S/results" \
			TMPDIR="$S/run-tmp" bench/plan/run "$@" 2>&1)
	}
	out=$(run views VIEWS='mq polled' -- printf '[%s]' @VIEWS@ @VIEW_STATES@ x=@CONFIGS@)
	check "plan/run: @KEY@ is the plan's words, none for an empty value (got: $out)" test "$out" == "[mq][polled][x=off on]"
	out=$(run views -- bash -c 'echo "${CONFIGS-unset}|${VIEWS-unset}|$(sed -n "s/^DRIVER=//p" "$BIB_PLAN")|$(sed -n "s/^CONFIGS=//p" "$BIB_PLAN")"')
	check "plan/run: no setting exported, BIB_PLAN set (got: $out)" test "$out" == "unset|unset|views|off on"
	out=$(run bench CONFIGS=on BASELINE='on key-off' -- bash -c 'echo "$BENCH_COMMAND"')
	check "plan/run: the given settings in BENCH_COMMAND (got: $out)" \
		test "${out%%RESULTS_ROOT=*}" == 'CONFIGS=on BASELINE=on\ key-off CACHE='"$S/cache "
	local got=0
	run -d bench CONFIGS= -- touch "$S/ran" >/dev/null || got=$?
	check "plan/run: bad input is exit 2, before deps and the command" test "$got" == 2 -a ! -e "$S/ran"
	check "plan/run leaves no file behind" test -z "$(ls -A "$S/run-tmp")" -a ! -e "$S/cache" -a ! -e "$S/results"
}

# plan_first under a plan of the same driver: a NAME=VALUE the plan holds
# keeps it, one it does not is resolved again (once), never ignored.
check_plan_first() {
	local run d out
	# sed reads to the end: head's early exit can kill git with SIGPIPE
	run=$(git -C "$REPO" ls-files 'results/*/meta.json' | sed -n 1p)
	run=${run%/meta.json}
	for d in r1 r2; do
		mkdir -p "$S/pf/$d"
		cp "$REPO/$run/meta.json" "$REPO/$run/runs.csv" "$S/pf/$d/"
	done
	printf '%s\n' '#!/usr/bin/env bash' 'set -euo pipefail' ". '$REPO/bench/lib/lib.sh'" \
		'driver_start report RESULTS="$1" -- "$0" "$@"' 'plan_read RESULTS' 'echo "RESULTS=$RESULTS"' >"$S/pf/drv.sh"
	chmod +x "$S/pf/drv.sh"
	(cd "$S/pf" && CACHE=$S/cache "$REPO/bench/plan/resolve" -o "$S/pf/plan" report RESULTS="$S/pf/r1")
	out=$(plan_first_driver "$S/pf/r2")
	check "driver_start under a plan of its driver: RESULTS=r2 given, r1 planned: r2 (got: $out)" \
		test "$out" == "RESULTS=$S/pf/r2"
	out=$(plan_first_driver r2)
	check "  ... given relative (the plan's absolute): resolved once, r2 (got: $out)" test "$out" == "RESULTS=$S/pf/r2"
	out=$(plan_first_driver "$S/pf/r1")
	check "  ... the planned value given: the plan (got: $out)" test "$out" == "RESULTS=$S/pf/r1"
}

# plan_first_driver RESULTS: check_plan_first's driver given RESULTS under
# the plan naming r1; the last line it prints.
plan_first_driver() {
	(cd "$S/pf" && CACHE=$S/cache BIB_PLAN=$S/pf/plan timeout 60 ./drv.sh "$1" 2>&1 | tail -n 1)
}

check_help() {
	local out got=0
	out=$(cd "$S/home" && "$REPO/bench/plan/resolve" -h) || got=$?
	check "resolve -h prints its usage and exits 0" test "$got" == 0 -a -n "$(grep -F 'bench/plan/resolve [-p PARENT] [-n' <<<"$out")"
	check "resolve -h makes nothing" test -z "$(ls -A "$S/home")"
}

# The cores JOBS and GUEST_JOBS default to are nproc's, read without it
# (bench/lib/cores.sh): on every CPU, on one (taskset), and with
# OMP_NUM_THREADS, which nproc obeys.
check_cores() {
	local want got
	# shellcheck disable=SC2016 # expanded by the inner shell
	local count='. "$1"; host_cores n; printf "%s\n" "$n"'
	want=$(nproc) got=$(bash -c "$count" _ "$REPO/bench/lib/cores.sh")
	check "host_cores counts the CPUs as nproc does ($got, $want)" test "$got" == "$want"
	want=$(taskset -c 0 nproc) got=$(taskset -c 0 bash -c "$count" _ "$REPO/bench/lib/cores.sh")
	check "host_cores on one CPU (taskset -c 0) as nproc ($got, $want)" test "$got" == "$want"
	want=$(OMP_NUM_THREADS=3 nproc) got=$(OMP_NUM_THREADS=3 bash -c "$count" _ "$REPO/bench/lib/cores.sh")
	check "host_cores with OMP_NUM_THREADS=3 as nproc ($got, $want)" test "$got" == "$want"
}

main() {
	local status_before n
	fixtures
	status_before=$(repo_status "$REPO" 2>/dev/null || true)
	n=$(grep -c '^2|' <<<"$BAD")
	check "the bad-input table has at least 40 rows ($n)" test "$n" -ge 40
	rows "$BAD"
	rows "$GOOD"
	check_no_side_effects
	check_plan_roundtrip
	check_every_driver
	check_view_files
	check_run
	check_plan_first
	check_help
	check_cores
	check "the repository is as it was" test "$(repo_status "$REPO" 2>/dev/null || true)" == "$status_before"
	# what that comparison leaves out: another test's probe, nothing else
	git init -q "$S/st" && mkdir -p "$S/st/results"
	touch "$S/st/.bib-probe.12.345" "$S/st/results/.bib-probe.6.789" "$S/st/results/kept" "$S/st/.bib-probe.x"
	check "repo_status: the probes of other tests' resolvers left out, nothing else" \
		test "$(repo_status "$S/st" --untracked-files=all | paste -sd' ')" == '?? .bib-probe.x ?? results/kept'
	finish
}

main "$@"
