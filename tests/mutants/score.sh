#!/usr/bin/env bash
# The mutation score of the series (make mutants): every mutant that
# tests/mutants/generate.sh makes of the series' code is built as a
# variant of on (only the objects it changes are compiled again) and
# booted with the guest tests; it is killed when one of them fails.  A
# mutant that survives on is run on debug too (KASAN, lockdep, kmemleak,
# full preemption) with the tests of concurrent use, and one of the
# concurrency class (deleted locks, RCU, key and bit calls, RCU forms made
# plain, reorderings) that survives debug on kcsan (KCSAN watching the
# error-injection code: a race whatever order the CPUs take).  A
# concurrency kill is repeated, the killing test alone in a boot of its
# own, MUTANT_REPEATS times, and its rate reported.  Before the first
# mutant on a config the series itself boots there with the same tests,
# and must pass them; a mutant's boot that takes four times as long as
# the series' own (at least 300 s) is a hang, and a kill.  A benchmark,
# not part of make test: a build and one to MUTANT_REPEATS + 3 boots per
# mutant.
#
#   tests/mutants/score.sh [-o DIR] [ID...]     (default: every mutant)
#
# Resumable: each mutant's verdict is a file in DIR/verdicts, and a mutant
# with one is not run again; a run stopped (or out of time) goes on where
# it stopped when started again with the same DIR.  Settings:
# MUTANT_REPEATS (default 20; 0: none), MUTANT_DEBUG (default 1: a
# survivor of on on debug too), MUTANT_RACE (default 1: the concurrency
# class on kcsan too), MUTANT_LIMIT (stop after running this many
# mutants, default 0: all), MUTANT_OUT (DIR), MUTANT_TESTS (tests to boot
# first on on, the others after them: a mutant they kill costs less),
# MUTANT_TESTS_DEBUG and MUTANT_TESTS_RACE (the tests run on debug, on
# kcsan), TEST_TIMEOUT (the most a boot may take).  A verdict "survived
# on" or "survived on+debug" from a run with fewer of those configs goes
# on to the ones it missed.  Output in DIR (-o DIR is
# MUTANT_OUT=DIR; default DATE-TIME-mutants under RESULTS_ROOT, else
# results/; never a committed run, started again with its DIR to go on):
# mutants/ (the patches and index.tsv), verdicts/ID (one line:
# VERDICT CONFIG TEST DETAIL), logs/, and summary.md (the score table
# and every mutant's line, made again after each mutant).  Equivalent
# mutants, each with its argument, are in tests/mutants/equivalent.tsv.
# Exit status: 0 when every mutant run is killed or argued equivalent, 1
# otherwise, 2 bad input.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/lib/lib.sh
. "$(dirname "$0")/../../bench/lib/lib.sh"
# -o DIR is the setting MUTANT_OUT, checked with the others
out_setting=()
help_option_setting "$0" -o MUTANT_OUT out_setting "$@"
shift $((OPTIND - 1))
driver_start mutants ${out_setting[@]+"${out_setting[@]}"} -- "$0" "$@"
plan_read MUTANT_REPEATS MUTANT_DEBUG MUTANT_RACE MUTANT_LIMIT MUTANT_OUT MUTANT_TESTS MUTANT_TESTS_DEBUG \
	MUTANT_TESTS_RACE TEST_TIMEOUT RESULTS_ROOT
# shellcheck source=bench/lib/guest-tests.sh
. "$BENCH_DIR/lib/guest-tests.sh"

MUTANTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Mutants build in the cache's own root (src/tree-main, build/CONFIG): a
# kernel's compile commands name the absolute path of its tree, so in any
# other root every object would be compiled again; here the tree is synced
# to the mutant's series by content and make compiles what the mutant
# changes.  The series' build is restored at the end (restore_builds).
MUTANTS_ROOT=$CACHE
EQUIVALENT=$MUTANTS_DIR/equivalent.tsv

# BUILT_FOR_MUTANTS[CONFIG]: set once the series' own build of CONFIG is
# there (ensure_built); restore_builds puts back those alone.
declare -A BUILT_FOR_MUTANTS=()
# SERIES_SECONDS[CONFIG]: how long the series' own boot on CONFIG took
# (ensure_built), what hang_limit scales.
declare -A SERIES_SECONDS=()

# ensure_built CONFIG: the series' own build of CONFIG, which every mutant
# starts from, made before CONFIG's first mutant (a run that goes on to
# kcsan alone builds neither on nor debug); then the series itself booted
# with the tests its mutants boot on CONFIG: a test that fails without a
# mutant would "kill" every one, so the run stops there instead.
ensure_built() {
	local fail t0 log=$RUN_DIR/logs/series.$1.log
	[[ -z ${BUILT_FOR_MUTANTS[$1]:-} ]] || return 0
	# explicit: build_mutant, which calls this, runs in an if
	"$BENCH_DIR/kernel/build.sh" build "$1" >&2 || die "the series' own build of $1 failed"
	BUILT_FOR_MUTANTS[$1]=1
	log "mutants: the series itself on $1"
	t0=$EPOCHSECONDS
	# shellcheck disable=SC2046 # the tests, one word each
	fail=$(boot_with : "$1" "$log" $(tests_on "$1"))
	SERIES_SECONDS[$1]=$((EPOCHSECONDS - t0))
	[[ -z $fail ]] || die "the series itself fails $fail on $1 ($log): its mutants cannot be scored there"
}

# restore_builds: the cache's builds back to the series (one file
# compiled again and a link, each).
restore_builds() {
	local cfg
	log "mutants: restoring the series' builds"
	for cfg in "${!BUILT_FOR_MUTANTS[@]}"; do
		"$BENCH_DIR/kernel/build.sh" build "$cfg" >&2 || true
	done
}

# series_with ID DIR: a series directory for SERIES=: patches/ and the
# mutant last, always as mutant.patch.
series_with() {
	series_plus "$REPO_DIR/patches" "$CACHE/mutants/series" "$2/$1.patch" mutant.patch
}

# mutant_variant: SERIES= the mutant's series (series_with), built in
# MUTANTS_ROOT, not in a variant root of its own.  A plan of its own, as
# build.sh and the boots read SERIES from the plan: an exported SERIES
# alone would build the series without the mutant, and every mutant
# would survive.
mutant_variant() {
	plan_make "$CACHE/mutants/plan" mutants SERIES="$CACHE/mutants/series" || exit
	export BIB_PLAN=$CACHE/mutants/plan
	plan_read SERIES
	unset VARIANT_FOR
	resolve_variant
	export VARIANT_ROOT=$MUTANTS_ROOT
}

# build_mutant ID GEN CONFIG LOG: build CONFIG with the mutant.
build_mutant() {
	ensure_built "$3"
	series_with "$1" "$2" >/dev/null
	(
		mutant_variant
		"$BENCH_DIR/kernel/build.sh" build "$3"
	) >"$4" 2>&1
}

# hang_limit CONFIG: the seconds a mutant's boot on CONFIG may take before
# it counts as hung: four times the series' own boot there (every test
# the mutant boots, or more), at least 300 s, at most TEST_TIMEOUT.  A
# mutant that deadlocks (an unlock deleted) or loses a bio (bio_endio
# deleted) hangs its test: with TEST_TIMEOUT alone (1800 s) each such
# kill, and each of its repeats, took half an hour.
hang_limit() {
	local limit=$((4 * ${SERIES_SECONDS[$1]:-$TEST_TIMEOUT}))
	((limit >= 300)) || limit=300
	((limit <= TEST_TIMEOUT)) || limit=$TEST_TIMEOUT
	printf '%s\n' "$limit"
}

# boot_tests CONFIG LOG TEST...: the TESTs in one boot of the mutants'
# CONFIG, stopping at the first failure; prints "TEST DETAIL" of the
# first that failed, nothing when all passed.
boot_tests() {
	boot_with mutant_variant "$@"
}

# boot_with SETUP CONFIG LOG TEST...: boot_tests of the build that SETUP
# (a function run first in the boot's subshell: mutant_variant, or : for
# the series' own) names.  A boot that did not come to a verdict (no
# result line: the setup failed before it; or the runner ended without
# one, "run-guest exit N": its arguments refused, or it was killed) is
# neither a kill nor a pass: the run stops there with the log's tail.
boot_with() {
	local setup=$1 cfg=$2 log=$3
	shift 3
	(
		"$setup"
		[[ $setup == : ]] || TEST_TIMEOUT=$(hang_limit "$cfg")
		guest_results_init
		export TESTS="$*" GUEST_ENV="STOP_AFTER_FAIL=1" TEST_RESULTS=$CACHE/mutants/results
		# the tests with a boot of their own (FRESH_BOOT=1 after the
		# first) only when the shared boot killed nothing: a mutant that
		# hangs I/O would hang each of them too, hang_limit each
		run_guest_tests "$cfg" shared
		[[ $FAILED -gt 0 ]] || run_guest_tests "$cfg" own
	) >"$log" 2>&1 || true
	boot_came_to_verdict "$cfg" "$log" || die_with_log "the boot of $cfg for $* came to no verdict" "$log"
	awk -v c="$cfg/" 'index($1, c) == 1 && $2 == "FAIL" {
		t = substr($1, length(c) + 1); $1 = ""; $2 = ""; sub(/^ +/, ""); sub(/ \(see [^)]*\)$/, ""); print t, $0; exit }' "$log"
}

# on_tests: the tests booted on on: MUTANT_TESTS first (in its order),
# then every other guest test in order.
on_tests() {
	local t
	# shellcheck disable=SC2086 # the names, one word each
	{ printf '%s\n' $MUTANT_TESTS; TESTS='' selected_tests; } |
		awk 'NF && !seen[$0]++' | while read -r t; do printf '%s ' "$t"; done
}

# class_of ID GEN: the mutant's class, from the index.
class_of() {
	awk -F'\t' -v id="$1" '$1 == id { print $2 }' "$2/index.tsv"
}

# configs_after_on CLASS: the configs a mutant of CLASS that survives on
# goes on to, in order, as MUTANT_DEBUG and MUTANT_RACE say: "debug
# kcsan" for the concurrency class, debug for logic (kmemleak sees a
# deleted kfree that on cannot).
configs_after_on() {
	[[ $MUTANT_DEBUG == 0 ]] || printf 'debug '
	[[ $MUTANT_RACE == 0 || $1 != concurrency ]] || printf 'kcsan '
}

# survived_on ID OUT: the configs an earlier verdict "survived" of ID
# names ("on+debug"), nothing without one.
survived_on() {
	local v=$2/verdicts/$1
	[[ -f $v ]] || return 0
	awk -F'\t' '$1 == "survived" { print $2 }' "$v"
}

# pending ID GEN OUT: the mutant still has something to run: no verdict,
# or it survived the configs it ran on and has one of configs_after_on
# still to go.
pending() {
	local ran c
	[[ -f $3/verdicts/$1 ]] || return 0
	ran=+$(survived_on "$1" "$3")+
	[[ $ran != ++ ]] || return 1
	for c in $(configs_after_on "$(class_of "$1" "$2")"); do
		[[ $ran == *"+$c+"* ]] || return 0
	done
	return 1
}

# tests_on CONFIG: the tests a mutant boots on CONFIG.
tests_on() {
	case $1 in
	on) on_tests ;;
	debug) printf '%s\n' "$MUTANT_TESTS_DEBUG" ;;
	kcsan) printf '%s\n' "$MUTANT_TESTS_RACE" ;;
	esac
}

# run_mutant ID GEN OUT: build, boot, verdict.  A mutant that survives
# goes on to each of configs_after_on it has not run on (an earlier run's
# verdict "survived on+debug" goes on to kcsan alone).
run_mutant() {
	local id=$1 gen=$2 out=$3 class fail="" t0 cfg test detail k n kills ran repeat
	class=$(class_of "$id" "$gen")
	t0=$EPOCHSECONDS
	ran=$(survived_on "$id" "$out")
	if [[ -n $ran ]]; then
		log "mutant $id ($class): survived $ran before; on to the configs it missed"
		series_with "$id" "$gen" >/dev/null
	else
		log "mutant $id ($class): building on"
		if ! build_mutant "$id" "$gen" on "$out/logs/$id.build.log"; then
			verdict "$out" "$id" stillborn on - "does not compile" "$t0"
			return
		fi
		log "mutant $id: the guest tests on on"
		# shellcheck disable=SC2046 # the tests, one word each
		fail=$(boot_tests on "$out/logs/$id.on.log" $(on_tests))
		[[ -z $fail ]] || fail="on $fail"
		ran=on
	fi
	if [[ -z $fail ]]; then
		for cfg in $(configs_after_on "$class"); do
			[[ +$ran+ != *"+$cfg+"* ]] || continue
			log "mutant $id: survived $ran; building $cfg"
			if ! build_mutant "$id" "$gen" "$cfg" "$out/logs/$id.build-$cfg.log"; then
				verdict "$out" "$id" stillborn "$cfg" - "does not compile" "$t0"
				return
			fi
			log "mutant $id: the concurrency tests on $cfg"
			# shellcheck disable=SC2046 # the tests, one word each
			fail=$(boot_tests "$cfg" "$out/logs/$id.$cfg.log" $(tests_on "$cfg"))
			if [[ -n $fail ]]; then
				fail="$cfg $fail"
				break
			fi
			ran+=+$cfg
		done
	fi
	if [[ -z $fail ]]; then
		verdict "$out" "$id" survived "$ran" - "every test passed" "$t0"
		return
	fi
	read -r cfg test detail <<<"$fail"
	kills=""
	if [[ $class == concurrency && $MUTANT_REPEATS -gt 0 ]]; then
		k=0
		for ((n = 1; n <= MUTANT_REPEATS; n++)); do
			log "mutant $id: repeat $n of $MUTANT_REPEATS of $test on $cfg"
			# an assignment, so that a boot with no verdict stops the run
			repeat=$(boot_tests "$cfg" "$out/logs/$id.repeat-$n.log" "$test")
			[[ -z $repeat ]] || k=$((k + 1))
		done
		kills="; killed in $k of $MUTANT_REPEATS repeats"
	fi
	verdict "$out" "$id" killed "$cfg" "$test" "${detail:-}$kills" "$t0"
}

# verdict OUT ID VERDICT CONFIG TEST DETAIL T0: the mutant's verdict file.
verdict() {
	printf '%s\t%s\t%s\t%s\t%ss\n' "$3" "$4" "$5" "$6" "$((EPOCHSECONDS - $7))" >"$1/verdicts/$2"
	log "mutant $2: $3${5:+ by $5 on $4}"
}

# summary GEN OUT: the score table and one line per mutant.
summary() {
	local gen=$1 out=$2
	awk -F'\t' -v vdir="$out/verdicts" -v eqfile="$EQUIVALENT" '
		BEGIN { while ((getline l < eqfile) > 0) if (l !~ /^#/ && l != "") { split(l, f, "\t"); eq[f[1]] = f[2] } }
		{
			id = $1; file = vdir "/" id; v = "not run"; cfg = test = detail = took = ""
			if ((getline l < file) > 0) { split(l, f, "\t"); v = f[1]; cfg = f[2]; test = f[3]; detail = f[4]; took = f[5] }
			close(file)
			if (v == "survived" && (id in eq)) { v = "equivalent"; detail = eq[id] }
			n[v]++; cls[$2, v]++
			gsub(/\|/, "\\|", $6); gsub(/\|/, "\\|", $7); gsub(/\|/, "\\|", detail)
			row[NR] = sprintf("| %s | %s | %s:%s | `%s` | `%s` | %s | %s | %s | %s |", id, $2, $4, $5, $6, $7, v, (test == "-" ? "" : cfg " " test), detail, took)
		}
		END {
			print "| verdict | logic | concurrency | all |"
			print "|---|---|---|---|"
			split("killed,survived,equivalent,stillborn,not run", vs, ",")
			for (i = 1; i <= 5; i++)
				printf "| %s | %d | %d | %d |\n", vs[i], cls["logic", vs[i]], cls["concurrency", vs[i]], n[vs[i]]
			print ""
			print "| mutant | class | where | original | mutated | verdict | killed by | detail | time |"
			print "|---|---|---|---|---|---|---|---|---|"
			for (i = 1; i <= NR; i++) print row[i]
		}' "$gen/index.tsv" >"$out/summary.md"
}

main() {
	local out=$MUTANT_OUT gen id ran=0 bad=0 t0
	local -a ids
	t0=$EPOCHSECONDS
	[[ -n $out ]] || out=$(results_root)/$(date +%Y%m%d-%H%M%S)-mutants
	gen=$out/mutants
	RUN_DIR=$out
	mkdir -p "$out/verdicts" "$out/logs"
	if [[ ! -f $gen/index.tsv ]]; then
		"$BENCH_DIR/kernel/build.sh" tree main >&2
		"$MUTANTS_DIR/generate.sh" "$CACHE/src/tree-main" "$gen"
	fi
	if [[ $# -gt 0 ]]; then
		ids=("$@")
		for id in "${ids[@]}"; do
			[[ -f $gen/$id.patch ]] || die_bad_input "unknown mutant '$id' (see $gen/index.tsv)"
		done
	else
		# the concurrency class first: it is what the run is for
		mapfile -t ids < <(awk -F'\t' '$2 == "concurrency" { print $1 }' "$gen/index.tsv"
			awk -F'\t' '$2 != "concurrency" { print $1 }' "$gen/index.tsv")
	fi
	trap restore_builds EXIT
	for id in "${ids[@]}"; do
		pending "$id" "$gen" "$out" || continue
		if [[ $MUTANT_LIMIT -gt 0 && $ran -ge $MUTANT_LIMIT ]]; then
			log "mutants: stopping after $ran (MUTANT_LIMIT)"
			break
		fi
		run_mutant "$id" "$gen" "$out"
		ran=$((ran + 1))
		summary "$gen" "$out"
	done
	summary "$gen" "$out"
	printf '%s\n' "$((EPOCHSECONDS - t0))" >>"$out/wall-seconds"
	cat "$out/summary.md"
	grep -q '| survived |' <(sed -n '/^| mutant /,$p' "$out/summary.md") && bad=1
	return "$bad"
}

main "$@"
