#!/usr/bin/env bash
# Mutation runs: each mutant in tests/mutants/list is the series plus one
# patch that plants a bug a reviewer fears.  It is built as a variant of
# MUTANT_CONFIG (SERIES= a copy of patches/ plus the mutant, as
# bench/run/compare-series.sh builds a series), booted once for each of its
# tests alone, and is "killed" when the first of them fails.  Not part of
# make test: a build and a few boots per mutant.
#
#   tests/mutants/run.sh [-o DIR] [MUTANT...]     (default: every mutant listed)
#
# Settings: MUTANT_CONFIG (default debug); MUTANT_SERIES (default patches):
# the series the mutants apply on, patches/'s listed in tests/mutants,
# another's in the folder of tests/mutants named as the series' folder
# (patches/next: tests/mutants/next); MUTANT_KEEP_BUILDS=1 keeps the mutants'
# build (one variant root, $CACHE/variants/mutants, shared by every mutant
# so that each rebuilds only what it changes; else removed at the end).
# Output: DIR (-o DIR is MUTANT_OUT=DIR; default DATE-TIME-mutants-listed
# under RESULTS_ROOT, else results/; never a committed run):
# summary.md (a table: mutant, test, result, what the test printed or the
# kernel reported), and for each mutant and test the runner's lines
# (MUTANT.TEST.txt) and the console's kernel-report and stress-progress
# lines (MUTANT.TEST.console).  Exit status 0 when every mutant was killed
# and "none" passed, 1 otherwise, 2 for an unknown mutant.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/lib/lib.sh
. "$(dirname "$0")/../../bench/lib/lib.sh"
# -o DIR is the setting MUTANT_OUT, checked with the others
out_setting=()
help_option_setting "$0" -o MUTANT_OUT out_setting "$@"
shift $((OPTIND - 1))
tool_start mutants 'CACHE KSRC SERIES TEST_TIMEOUT RESULTS_ROOT MUTANT_CONFIG MUTANT_SERIES MUTANT_OUT MUTANT_KEEP_BUILDS' \
	${out_setting[@]+"${out_setting[@]}"} -- "$0" "$@"
# run_guest_tests
# shellcheck source=bench/lib/guest-tests.sh
. "$BENCH_DIR/lib/guest-tests.sh"
guest_results_init

MUTANTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The plan holds MUTANT_SERIES checked (a series, not none) and absolute;
# its default is not a physical path, so both sides are made one.
[[ $(cd "$MUTANT_SERIES" && pwd -P) == "$(cd "$REPO_DIR/patches" && pwd -P)" ]] ||
	MUTANTS_DIR=$MUTANTS_DIR/$(basename "$MUTANT_SERIES")
[[ -f $MUTANTS_DIR/list ]] || die_bad_input "MUTANT_SERIES: no list of mutants in $MUTANTS_DIR"

MUTANTS_ROOT=$CACHE/variants/mutants
SPLAT_ERE="$(cat "$BENCH_DIR/guest/kernel-report.ere")"

# mutant_tests MUTANT: its tests, from the list.
mutant_tests() {
	awk -v m="$1" '$1 == m { for (i = 2; i <= NF; i++) print $i }' "$MUTANTS_DIR/list"
}

all_mutants() {
	awk '!/^#/ && NF { print $1 }' "$MUTANTS_DIR/list"
}

# series_dir MUTANT: a series directory (MUTANT_SERIES and the mutant last)
# for SERIES=, in the cache; "none" is MUTANT_SERIES itself.
series_dir() {
	if [[ $1 == none ]]; then
		printf '%s\n' "$MUTANT_SERIES"
	else
		series_plus "$MUTANT_SERIES" "$CACHE/mutants/$1" "$MUTANTS_DIR/$1.patch"
	fi
}

# how FILE CONSOLE: one line on what the test saw: its new output lines
# (the diff's + lines), else the runner's detail, and the last progress
# line of a stress run.
how() {
	local txt=$1 console=$2 plus detail progress
	plus=$(sed -n 's/^    +\([^+].*\)$/\1/p' "$txt" | paste -sd';' - | sed 's/;/; /g')
	detail=$(sed -n "s|^$MUTANT_CONFIG/[^ ]* *FAIL *||p" "$txt" | paste -sd';' - | sed 's/;/; /g')
	progress=$(grep -o 'eistress: iteration [0-9]* of [0-9]*' "$console" | tail -n 1 || true)
	printf '%s%s\n' "${plus:-$detail}" "${progress:+ (console: $progress done)}"
}

# run_mutant MUTANT OUT: build the mutant, run each of its tests alone,
# on a plan of its own: this one's with the mutant's series.
run_mutant() {
	local m=$1 out=$2 series t txt verdict first=1 killed plan=$BIB_PLAN
	# the console of the boot that ran a test alone: the shared boot's (a
	# FRESH_BOOT=1 test alone leads it)
	local console=$CACHE/test-runs/$MUTANT_CONFIG/console.log
	series=$(series_dir "$m")
	plan_make "$out/$m.plan" test SERIES="$series" || exit
	export BIB_PLAN=$out/$m.plan
	plan_read SERIES
	resolve_variant
	# Every mutant builds in one variant root: its tree is synced to the
	# mutant's series by content, so make rebuilds only the files the
	# mutant changes (not the whole kernel, as a root per series would).
	[[ $m == none ]] || export VARIANT_ROOT=$MUTANTS_ROOT
	log "mutant $m: building $MUTANT_CONFIG (SERIES=$series)"
	"$BENCH_DIR/kernel/build.sh" build "$MUTANT_CONFIG" >"$out/$m.build.log" 2>&1 ||
		die_with_log "mutant $m: the build failed" "$out/$m.build.log"
	while read -r t; do
		txt=$out/$m.$t.txt
		log "mutant $m: $t"
		TESTS=$t GUEST_ENV=STRESS_PROGRESS=1 run_guest_tests "$MUTANT_CONFIG" >"$txt" 2>>"$out/$m.build.log" || true
		{ grep -E "$SPLAT_ERE|Kernel panic" "$console" | head -n 5
			grep -o 'eistress: iteration [0-9]* of [0-9]*' "$console" | tail -n 1
		} >"$out/$m.$t.console" || true
		boot_came_to_verdict "$MUTANT_CONFIG" "$txt" ||
			die_with_log "mutant $m: the boot of $MUTANT_CONFIG for $t came to no verdict" "$txt"
		verdict=$(grep -q ' FAIL' "$txt" && echo FAIL || echo PASS)
		printf '| %s | %s | %s | %s |\n' "$m" "$t" "$verdict" "$(how "$txt" "$out/$m.$t.console")" >>"$out/summary.md"
		if [[ $first == 1 ]]; then
			killed=$verdict
			first=0
		fi
	done < <(mutant_tests "$m")
	[[ $m == none ]] || rm -rf "$CACHE/mutants/$m"
	export BIB_PLAN=$plan
	rm -f "$out/$m.plan"
	plan_read SERIES
	resolve_variant
	# The series itself must pass; a mutant must fail its first test.
	[[ ($m == none && $killed == PASS) || ($m != none && $killed == FAIL) ]]
}

main() {
	local out=$MUTANT_OUT m bad=0
	local -a mutants
	if [[ $# -gt 0 ]]; then mutants=("$@"); else mapfile -t mutants < <(all_mutants); fi
	for m in "${mutants[@]}"; do
		[[ -n $(mutant_tests "$m") ]] || die_bad_input "unknown mutant '$m' (valid: $(all_mutants | one_line))"
		[[ $m == none || -f $MUTANTS_DIR/$m.patch ]] || die "mutant $m: no $MUTANTS_DIR/$m.patch"
	done
	[[ -n $out ]] || out=$(results_root)/$(date +%Y%m%d-%H%M%S)-mutants-listed
	mkdir -p "$out"
	[[ -f $out/summary.md ]] || printf '| mutant | test | result | what the test printed, or the kernel reported |\n|---|---|---|---|\n' >"$out/summary.md"
	for m in "${mutants[@]}"; do
		if run_mutant "$m" "$out"; then
			log "mutant $m: as expected"
		else
			log "mutant $m: NOT as expected (see $out/summary.md)"
			bad=1
		fi
	done
	[[ $MUTANT_KEEP_BUILDS == 1 ]] || rm -rf "$MUTANTS_ROOT"
	cat "$out/summary.md"
	return "$bad"
}

main "$@"
