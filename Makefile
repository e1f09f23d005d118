# blkinject-bench: one Makefile drives everything; the scripts do the work.
#
#   make              deps, the bench configs' kernels, benchmark (with the
#                     instruction counts), plots, report; prints report.txt
#   make quick        the same for off and on in key-off, key-on-other and
#                     rules-1, one repeat (bench/jobs/quick.job)
#   make test         host-side checks, then the functional tests in QEMU
#                     (builds TEST_CONFIGS: debug on)
#   make static       the static answer in about a minute: the hot functions'
#                     code, off against on, from their objects alone (no
#                     vmlinux, no boot); BASE_CONFIG/NEW_CONFIG, BASE_SERIES/
#                     NEW_SERIES, BASE_KSRC/NEW_KSRC compare any two
#   make per-patch    what each patch of SERIES costs, against pristine
#   make compare-series BASE_SERIES=A NEW_SERIES=B   series against series
#   make help         every target and variable
#
# Kernel trees, builds, images and ccache live in $(CACHE), never in git.

CACHE        ?= $(CURDIR)/.cache
# The benchmark matrix: a job file, bench/jobs/NAME.job or a path (make
# quick: quick); CONFIGS, STATES, REPEATS, ... override its settings.
JOB_FILE     ?= default
# The configs of the matrix (bench, perf, kernels, run-all): the job file's.
CONFIGS      ?= $(shell JOB_FILE='$(JOB_FILE)' bench/bench.sh --settings 2>/dev/null | sed -n 's/^CONFIGS=//p')
# The configs the functional tests boot.
TEST_CONFIGS ?= debug on
CONFIG       ?= on
# A results directory (results/<run>); default: the newest.
RESULTS      ?= $(patsubst %/,%,$(dir $(lastword $(sort $(wildcard results/*/summary.csv)))))
export CACHE CONFIGS TEST_CONFIGS JOB_FILE
# The whole job's clock (progress lines) and the command recorded in meta.json.
export BENCH_T0 := $(shell date +%s)
export BENCH_COMMAND := $(strip make $(MAKEOVERRIDES) $(MAKECMDGOALS))

.PHONY: all quick help deps kernels patches-check image shell test bench perf \
	disasm plots report compare peers views fuzz coverage boot-soak clean-cache \
	per-patch compare-series static

all: deps
	bench/run-all.sh

quick: JOB_FILE = quick
quick: deps
	bench/run-all.sh

help:
	@sed -n 's/^#   //p' $(MAKEFILE_LIST)
	@echo
	@echo "targets:"
	@echo "  all (default)  quick  test  deps  kernels  patches-check  image  shell"
	@echo "  bench  perf  disasm  plots  report  compare  peers  views  fuzz  coverage"
	@echo "  boot-soak  per-patch  compare-series  static  clean-cache  help"
	@echo "  make kernels         build CONFIGS"
	@echo "  make patches-check   checkpatch and build every prefix of the series"
	@echo "  make shell           boot CONFIG to a shell on the console"
	@echo "  make bench, perf     fio per config and state; instruction counts (see -h of"
	@echo "                       bench/bench.sh and perf-scripts/perf.sh)"
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
	@echo "                       bench/compare-series.sh (make turns exit 1 into 2)"
	@echo "  make peers           fail_make_request and dm targets beside error injection"
	@echo "  make views           multi-queue, polled, latency, switching, error cost,"
	@echo "                       footprint, layout noise floor (VIEWS='mq polled ...',"
	@echo "                       default all; layout also builds off-layout)"
	@echo "  make fuzz            a long eifuzz campaign on debug (FUZZ_SECONDS, FUZZ_SEED,"
	@echo "                       FUZZ_CONFIG, FUZZ_OUT: see bench/fuzz.sh)"
	@echo "  make coverage        gcov line/branch coverage of the series' kernel code by"
	@echo "                       the guest tests and a fuzz campaign (FUZZ_SECONDS=120)"
	@echo "                       on the gcov config, into results/<date>-coverage"
	@echo "  make boot-soak       30 debug boots, 2 at a time: any kernel report fails"
	@echo "variables (make VAR=... or the environment):"
	@echo "  CACHE=$(CACHE)"
	@echo "  JOB_FILE=$(JOB_FILE)   the matrix (bench/jobs/*.job or a path; bench/bench.sh --settings)"
	@echo "  CONFIGS='$(CONFIGS)'   the benchmark matrix (kernels, bench, perf, all)"
	@echo "  TEST_CONFIGS='$(TEST_CONFIGS)'   what make test boots;  TESTS='001-readback ...'"
	@echo "  CONFIG=$(CONFIG)   make shell;  RESULTS=$(RESULTS)   plots, report, disasm"
	@echo "  STATES WORKLOADS SOFTIRQ_WORKLOADS REPEATS PLAN_NOISE BOOTS FIO_RUNTIME FIO_RAMP FIO_IOS"
	@echo "  PLUGIN PERF_RECORD SEED RUN_ID RUN_TIMEOUT PERF_REPEATS GUEST_JOBS   (bench/bench.sh -h)"
	@echo "  ACCEL=auto|kvm|tcg|tcg-icount   auto: kvm where it works, else tcg-icount"
	@echo "  BASE NEW THRESHOLD   make compare"
	@echo "  KSRC=   the kernel source: a git checkout, an extracted tree or a tarball"
	@echo "          (default /usr/src/linux-source-6.12.tar.xz)"
	@echo "  SERIES=patches   a directory with a series file, or none (tree has the change)"
	@echo "  HOT_FUNCS='submit_bio_noacct_nocheck __blk_error_inject'   what the plugin counts"
	@echo "  BASE_SERIES NEW_SERIES BASE_KSRC NEW_KSRC   make compare-series (CONFIGS default on)"
	@echo "  BASELINE='off off'   the row every other is compared with"
	@echo "  RESULTS_ROOT=results   where bench.sh makes RUN_ID;  RESULTS_DIR   perf/peers: add to a run"
	@echo "  TEST_TIMEOUT=1800   per test boot;  JOBS=nproc   kernel builds"
	@echo "  QEMU KVM_PROBE_TIMEOUT=20 QEMU_EXTRA_ARGS   the runner (bench/run-guest -h)"

deps:
	bench/install-deps.sh

kernels: deps
	bench/kernel.sh build $(CONFIGS)

patches-check: deps
	bench/kernel.sh check

image: deps
	bench/image.sh base

shell: deps
	bench/kernel.sh build $(CONFIG)
	bench/run-guest -i -c $(CONFIG) -t 0

test: deps
	tests/run.sh

bench: deps
	bench/kernel.sh build $(CONFIGS)
	bench/bench.sh

perf: deps
	bench/kernel.sh build $(CONFIGS)
	perf-scripts/perf.sh

# RESULTS names a directory; results/<run>/ and results/<run> both work.
results-dir = $(patsubst %/,%,$(RESULTS))
check-results = @test -n "$(RESULTS)" -a -f "$(results-dir)/summary.csv" || \
	{ echo "error: RESULTS='$(RESULTS)' is not a results directory with a summary.csv (e.g. RESULTS=results/<run>)" >&2; exit 2; }

disasm: deps
	$(check-results)
	OUT=$(results-dir)/disasm.txt perf-scripts/disasm.sh

static: deps
	perf-scripts/static.sh $(or $(BASE_CONFIG),off) $(or $(NEW_CONFIG),on)

plots:
	$(check-results)
	plots/make-plots.sh $(results-dir)

report: plots
	bench/report.sh $(results-dir)

compare:
	@test -n "$(BASE)" -a -n "$(NEW)" || { echo "usage: make compare BASE=results/A NEW=results/B" >&2; exit 2; }
	bench/compare.sh $(BASE) $(NEW)

peers: deps
	bench/kernel.sh build peers
	bench/peers.sh

views: deps
	bench/kernel.sh build $(CONFIGS) $(if $(filter all layout,$(or $(VIEWS),all)),$(filter-out $(CONFIGS),off off-layout))
	d=$$(bench/views.sh $(or $(VIEWS),all)) && plots/make-plots.sh $$d && \
		plots/make-view-plots.sh $$d && bench/report.sh $$d

fuzz: deps
	bench/kernel.sh build debug
	bench/fuzz.sh

coverage: deps
	bench/coverage.sh

boot-soak: deps
	bench/kernel.sh build debug
	bench/boot-soak.sh -c debug -n 30 -j 2

per-patch: deps
	bench/per-patch.sh

# The matrix of compare-series is on alone unless CONFIGS is given.
compare-series: deps
	CONFIGS="$(if $(filter command line environment,$(origin CONFIGS)),$(CONFIGS),on)" \
		bench/compare-series.sh

clean-cache:
	rm -rf $(CACHE)/build $(CACHE)/src $(CACHE)/images $(CACHE)/runs
