# blkinject-bench: one Makefile drives everything; the scripts do the work.
#
#   make              deps, the bench configs' kernels, benchmark (with the
#                     instruction counts), plots, report; prints report.txt
#   make quick        the same for off and on in key-off, key-on-other and
#                     rules-1, one repeat (bench/plan/jobs/quick.job)
#   make check        the host-side checks alone (tests/host/*.sh, TAP)
#   make test         make check, then the functional tests in QEMU
#                     (builds TEST_CONFIGS: debug on), as a pipeline
#   make static       the static answer (96 s cold, 11 s warm: docs/times.md):
#                     the hot functions' code, off against on, from their
#                     objects alone (no vmlinux, no boot); BASE_CONFIG/
#                     NEW_CONFIG, BASE_SERIES/NEW_SERIES, BASE_KSRC/NEW_KSRC
#                     compare any two
#   make per-patch    what each patch of SERIES costs, against pristine
#   make compare-series BASE_SERIES=A NEW_SERIES=B   series against series
#   make help         every target and variable
#
# Kernel trees, builds, images and ccache live in $(CACHE), never in git.

# Every target that does work resolves its settings first: bench/plan/run
# hands the job file, make's VAR=... and the environment to the resolver
# (bench/plan/resolve), which refuses bad input with exit 2 before anything
# is installed, extracted, built or booted, and passes the plan on.  The
# settings, their defaults and checks: bench/plan/settings.table,
# docs/settings.md; `bench/plan/resolve --settings DRIVER` shows them.
RUN := bench/plan/run
# The command recorded in meta.json.  The whole job's clock (BENCH_T0) is
# started by bench/plan/run, which every target that does work runs first:
# not a date process each time make reads this file.
export BENCH_COMMAND := $(strip make $(MAKEOVERRIDES) $(MAKECMDGOALS))

.PHONY: all quick help deps kernels patches-check image shell check test bench perf \
	disasm plots report compare peers views fuzz coverage mutants boot-soak clean-cache \
	per-patch compare-series static

all:
	$(RUN) -d all -- bench/run/all.sh

quick:
	$(RUN) -d quick -- bench/run/all.sh

help:
	@sed -n 's/^#   //p' $(MAKEFILE_LIST)
	@echo
	@echo "targets:"
	@echo "  all (default)  quick  check  test  deps  kernels  patches-check  image  shell"
	@echo "  bench  perf  disasm  plots  report  compare  peers  views  fuzz  coverage"
	@echo "  mutants  boot-soak  per-patch  compare-series  static  clean-cache  help"
	@echo "  make kernels         build CONFIGS"
	@echo "  make patches-check   checkpatch and build every prefix of the series"
	@echo "  make shell           boot CONFIG to a shell on the console"
	@echo "  make bench, perf     fio per config and state; instruction counts (see -h of"
	@echo "                       bench/run/bench.sh and bench/run/perf.sh)"
	@echo "  make disasm          the gate's disassembly into RESULTS/disasm.txt"
	@echo "  make static          BASE_CONFIG=off NEW_CONFIG=on: the hot functions' code"
	@echo "                       compared instruction by instruction, from the objects"
	@echo "                       alone (perf-scripts/static.sh -h; STATIC_CONTEXT=3)"
	@echo "  make plots, report   figures and report.md for RESULTS"
	@echo "  make compare         BASE=results/A NEW=results/B: regression table"
	@echo "  make per-patch       build pristine and every prefix of SERIES, count what"
	@echo "                       each patch adds per call and per I/O (tcg-icount)"
	@echo "  make compare-series  BASE_SERIES=A NEW_SERIES=B (or BASE_KSRC/NEW_KSRC):"
	@echo "                       build both, measure, regression table; gate on"
	@echo "                       bench/run/compare-series.sh (make turns exit 1 into 2)"
	@echo "  make peers           fail_make_request and dm targets beside error injection"
	@echo "  make views           multi-queue, polled, latency, switching, error cost,"
	@echo "                       footprint, layout noise floor (VIEWS='mq polled ...',"
	@echo "                       default all; layout also builds off-layout)"
	@echo "  make fuzz            a long eifuzz campaign on debug (FUZZ_SECONDS, FUZZ_SEED,"
	@echo "                       CONFIG, FUZZ_OUT: see bench/run/fuzz.sh)"
	@echo "  make coverage        gcov line/branch coverage of the series' kernel code by"
	@echo "                       the guest tests and a fuzz campaign (FUZZ_SECONDS=120)"
	@echo "                       on the gcov config, into results/<date>-coverage"
	@echo "  make mutants         the mutation score: each generated mutant of the series"
	@echo "                       built and booted with the guest tests (MUTANT_REPEATS,"
	@echo "                       MUTANT_DEBUG, MUTANT_RACE, MUTANT_LIMIT, MUTANT_OUT:"
	@echo "                       resumable; tests/mutants/score.sh), into results/<date>-<time>-mutants"
	@echo "  make boot-soak       30 debug boots, 2 at a time: any kernel report fails"
	@echo "variables (make VAR=... or the environment):"
	@echo "  (each command's settings, their values and where each came from:"
	@echo "   bench/plan/resolve --settings bench; all of them: bench/plan/settings.table)"
	@echo "  CACHE=.cache"
	@echo "  JOB_FILE=default   the matrix (bench/plan/jobs/*.job or a path)"
	@echo "  CONFIGS            the benchmark matrix (kernels, bench, perf, all; default: the job file's)"
	@echo "  TEST_CONFIGS='debug on'   what make test boots;  TESTS='001-readback ...'"
	@echo "  CONFIG=on          make shell (fuzz, boot-soak: debug);  RESULTS   plots, report, disasm"
	@echo "  STATES WORKLOADS SOFTIRQ_WORKLOADS REPEATS PLAN_NOISE BOOTS FIO_RUNTIME FIO_RAMP FIO_IOS"
	@echo "  PLUGIN PERF_RECORD SEED RUN_ID RUN_TIMEOUT PERF_REPEATS GUEST_JOBS   (bench/run/bench.sh -h)"
	@echo "  ACCEL=auto|kvm|tcg|tcg-icount   auto: kvm where it works, else tcg-icount"
	@echo "  BASE NEW THRESHOLD EXACT_TOLERANCE   make compare (compare-series: the last two)"
	@echo "  KSRC=   the kernel source: a git checkout, an extracted tree or a tarball"
	@echo "          (default /usr/src/linux-source-6.12.tar.xz)"
	@echo "  SERIES=patches   a directory with a series file, or none (tree has the change)"
	@echo "  HOT_FUNCS='submit_bio_noacct_nocheck __blk_error_inject'   what the plugin counts"
	@echo "  BASE_SERIES NEW_SERIES BASE_KSRC NEW_KSRC   make compare-series (CONFIGS default on)"
	@echo "  BASELINE='off off'   the row every other is compared with"
	@echo "  RESULTS_ROOT=results   where bench.sh makes RUN_ID;  RESULTS_DIR   perf/peers: add to a run"
	@echo "  TEST_TIMEOUT=1800   per test boot;  JOBS=nproc   kernel builds"
	@echo "  QEMU KVM_PROBE_TIMEOUT=5 QEMU_EXTRA_ARGS   the runner (bench/vm/run-guest -h)"

# CC, LLVM, O, ARCH: refused before any work unless they say what the
# kernels are built with anyway (bench/kernel/build.sh check-vars).
deps:
	bench/kernel/build.sh check-vars
	bench/setup/install-deps.sh

kernels:
	$(RUN) -d -b CONFIGS kernels

patches-check:
	$(RUN) -d patches-check -- bench/kernel/build.sh check

image:
	$(RUN) -d image -- bench/vm/image.sh base

shell:
	$(RUN) -d -b CONFIG shell -- bench/vm/run-guest -i -c @CONFIG@ -t 0

check:
	$(RUN) -d check -- tests/check.sh

test:
	$(RUN) -d test -- tests/run.sh

bench:
	$(RUN) -d -b CONFIGS bench -- bench/run/bench.sh

perf:
	$(RUN) -d -b CONFIGS perf -- bench/run/perf.sh

disasm:
	$(RUN) -d disasm -- env OUT=@RESULTS@/disasm.txt perf-scripts/disasm.sh

static:
	$(RUN) -d static -- perf-scripts/static.sh @BASE_CONFIG@ @NEW_CONFIG@

plots:
	$(RUN) plots -- plots/make-plots.sh @RESULTS@

report:
	$(RUN) report -- sh -c 'plots/make-plots.sh "$$1" && exec bench/report/report.sh "$$1"' sh @RESULTS@

compare:
	$(RUN) compare -- bench/stats/compare.sh @BASE@ @NEW@

peers:
	$(RUN) -d -b CONFIGS peers -- bench/run/peers.sh

# every config the views boot (the plan's VIEWS_CONFIGS: layout's off-layout too)
views:
	$(RUN) -d -b VIEWS_CONFIGS views -- sh -c 'd=$$(bench/run/views.sh "$$@") && \
		plots/make-plots.sh "$$d" && plots/make-view-plots.sh "$$d" && exec bench/report/report.sh "$$d"' sh @VIEWS@

fuzz:
	$(RUN) -d -b CONFIG fuzz -- bench/run/fuzz.sh

coverage:
	$(RUN) -d coverage -- bench/run/coverage.sh

mutants:
	$(RUN) -d mutants -- tests/mutants/score.sh

boot-soak:
	$(RUN) -d -b CONFIG soak -- bench/run/soak.sh

per-patch:
	$(RUN) -d per-patch -- bench/run/per-patch.sh

compare-series:
	$(RUN) -d compare-series -- bench/run/compare-series.sh

clean-cache:
	$(RUN) clean-cache -- bench/setup/clean-cache.sh
