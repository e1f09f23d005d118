# blkinject-bench: one Makefile drives everything; the scripts do the work.
#
#   make              deps, kernels, benchmark, perf, plots and report
#   make test         functional tests in QEMU (and the host-side unit tests)
#   make help         all targets
#
# Kernel trees, builds, images and ccache live in $(CACHE), never in git.

CACHE   ?= $(CURDIR)/.cache
CONFIGS ?= off on on-nojl nokey debug
CONFIG  ?= on
RESULTS ?= $(lastword $(sort $(wildcard results/*/summary.csv)))
export CACHE

.PHONY: all help deps kernels patches-check image shell test bench perf \
	disasm plots report compare peers clean-cache

all: deps kernels
	bench/run-all.sh

help:
	@sed -n 's/^#   //p' $(MAKEFILE_LIST)
	@echo "targets: deps kernels patches-check image shell test bench perf disasm plots report compare"
	@echo "variables: CACHE=$(CACHE) CONFIGS='$(CONFIGS)' CONFIG=$(CONFIG) ACCEL=auto|kvm|tcg|tcg-icount"

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
	bench/kernel.sh build off on on-nojl nokey
	bench/bench.sh

perf: deps
	bench/kernel.sh build off on on-nojl nokey
	perf-scripts/perf.sh

disasm: deps
	perf-scripts/disasm.sh

plots:
	plots/make-plots.sh $(dir $(RESULTS))

report: plots
	bench/report.sh $(dir $(RESULTS))

compare:
	@test -n "$(BASE)" -a -n "$(NEW)" || { echo "usage: make compare BASE=results/A NEW=results/B"; exit 2; }
	bench/compare.sh $(BASE) $(NEW)

peers: deps
	bench/kernel.sh build peers
	bench/peers.sh

clean-cache:
	rm -rf $(CACHE)/build $(CACHE)/src $(CACHE)/images $(CACHE)/runs
