#!/usr/bin/env bash
# The test command (make test): the host checks first (tests/check.sh,
# make check), then the kernels of TEST_CONFIGS (default: debug on) and
# the tests that boot them, as a pipeline of stages for the host's cores:
#
#   build CONFIG         bench/kernel/build.sh build, one config at a
#                        time, in TEST_CONFIGS' order, at a lower priority
#                        than the boots beside it
#   CONFIG guest tests   the tests of tests/block that share a boot, once
#   CONFIG own boots     CONFIG is built; the tests with FRESH_BOOT=1
#                        after the first (which leads the shared boot),
#                        each in a boot of its own, beside the shared boot
#   runner, lab,         with on in TEST_CONFIGS, once on is built: the
#   compare-series       runner's checks, the lab's tests and the
#                        compare-series test (tests/README.md)
#
# A stage starts when what it needs is built, at most STAGE_JOBS at once
# (default: the host's cores plus one: QEMU under TCG keeps one core busy,
# a kernel build all of them but in its serial steps).  Each stage's output
# is kept and printed whole when it ends; a line per test.  At the end:
# each stage's time, then "N passed, N failed".
#
#   TEST_CONFIGS="on" TESTS="001-readback 007-invalid" tests/run.sh
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/lib/lib.sh
. "$(dirname "$0")/../bench/lib/lib.sh"
driver_start test -- "$0" "$@"
# shellcheck source=bench/lib/guest-tests.sh
. "$BENCH_DIR/lib/guest-tests.sh"
guest_results_init

TESTS_DIR=$GUEST_TESTS_DIR
plan_read TEST_CONFIGS TESTS TEST_TIMEOUT

# command_test KIND NAME COMMAND...: KIND/NAME passes when COMMAND exits 0.
# A test runs its commands as a user does: without this command's plan.
command_test() {
	local name=$1/$2 logfile
	shift 2
	logfile=$(mktemp)
	if (unset BIB_PLAN; "$@") >"$logfile" 2>&1; then
		result "$name" PASS
	else
		result "$name" FAIL "(last lines below)"
		tail -n 15 "$logfile" | sed 's/^/    /'
	fi
	rm -f "$logfile"
}

# runner_output OUT ERRLOG: what a runner check's golden file holds: the
# verdict, the guest script's output and run-guest's own lines on stderr
# (not the console's tail, its progress lines or their times).
runner_output() {
	sed -n 's/^verdict=/verdict: /p' "$1/meta"
	sed 's/^/result: /' "$1/result.log"
	grep -E '^(run-guest: |--- )' "$2" | sed "s|$1/|OUT/|g"
}

# expect_runner NAME STATUS VERDICT_RE [SETTING=VALUE...] RUN-GUEST-ARGS...:
# the runner (on this plan, with the SETTINGs) must exit with STATUS, say
# VERDICT_RE and show the console's tail, and what it says must be
# tests/runner/NAME.out (else TEST_RESULTS/runner/NAME.out.bad).
expect_runner() {
	local name=$1 want=$2 re=$3 out got=0 errlog bad diff=''
	local -a settings=()
	shift 3
	while [[ ${1:-} =~ ^[A-Z][A-Z0-9_]*= ]]; do settings+=("$1"); shift; done
	out=$CACHE/test-runs/runner-$name
	bad=$(failed_files_dir runner)/$name.out.bad
	errlog=$(mktemp)
	rm -f "$bad"
	plan_call test ${settings[@]+"${settings[@]}"} -- "$BENCH_DIR/vm/run-guest" -c on -o "$out" "$@" >/dev/null 2>"$errlog" || got=$?
	if ! runner_output "$out" "$errlog" | cmp -s - "$TESTS_DIR/runner/$name.out"; then
		mkdir -p "${bad%/*}"
		runner_output "$out" "$errlog" >"$bad"
		diff="; output differs from tests/runner/$name.out, see ${bad#"$REPO_DIR"/}"
	fi
	if [[ $got == "$want" && -z $diff ]] && grep -Eq "$re" "$out/meta" && grep -q -- '--- last 40 lines' "$errlog"; then
		result "runner/$name" PASS
	else
		result "runner/$name" FAIL "(exit $got, want $want; $(sed -n 's/^verdict=//p' "$out/meta")$diff)"
		tail -n 5 "$errlog" | sed 's/^/    /'
	fi
	rm -f "$errlog"
}

# The runner tells failures apart instead of returning numbers.  A guest
# whose CPUs never start (QEMU -S) stands in for a hung boot, like the KVM
# guests that stop right after "Booting from ROM" on some machines.
run_runner_tests() {
	local script
	script=$(mktemp)
	printf 'echo about to fail\nexit 3\n' >"$script"
	expect_runner "script-failure" "$STATUS_FAILED" 'verdict=guest script failed with rc=3' "$script"
	# A busy loop, not a sleep: under tcg-icount (sleep=off) an idle guest's
	# clock jumps to its next timer, so "sleep 600" ends at once.  The limit
	# leaves room for a boot on a loaded host.
	printf 'while :; do :; done\n' >"$script"
	expect_runner "hung-script" "$STATUS_TIMEOUT" 'verdict=timeout: guest script still running' -t 90 "$script"
	expect_runner "kernel-panic" "$STATUS_FAILED" 'verdict=kernel panic' -k rdinit=/bin/false "$script"
	expect_runner "hung-boot" "$STATUS_TIMEOUT" 'verdict=hung boot' QEMU_EXTRA_ARGS=-S -t 10 "$script"
	rm -f "$script"
}

# How a lab runs the matrix, with the build of on: a prebuilt kernel and
# a modules archive (one boot), the matrix in two shards merged against
# one run of it (4 boots under tcg-icount), and a shard as a LAVA job run
# by lava-run against the same shard run by bench.sh (3 boots).
run_lab_tests() {
	command_test lab "run-guest -K/-M boots a prebuilt kernel" bash "$TESTS_DIR/prebuilt-kernel.sh"
	command_test lab "two shards merged equal one run" bash "$TESTS_DIR/shard-merge.sh"
	if [[ $(id -u) != 0 ]]; then
		result "lab/a shard through lava-run equals bench.sh --job" SKIP "(lava-run runs as root only)"
	elif ! command -v lava-run >/dev/null; then
		result "lab/a shard through lava-run equals bench.sh --job" SKIP "(no lava-run: make deps installs lava-dispatcher)"
	else
		command_test lab "a shard through lava-run equals bench.sh --job" bash "$TESTS_DIR/lava-run.sh"
	fi
}

# host_checks: tests/check.sh, its TAP lines as they come, each test
# counted as one result (host/NAME); its closing count line is make
# test's only at the very end.
host_checks() {
	local line out
	out=$(mktemp)
	{ "$TESTS_DIR/check.sh" 2>&1 || echo "tests/check.sh: exit $?"; } | tee "$out" |
		sed -E 's/^([0-9]+ passed, [0-9]+ failed.*)$/host checks: \1/'
	while IFS= read -r line; do
		if [[ $line =~ ^ok\ [0-9]+\ -\ (.*)\ \#\ SKIP\ (.*)$ ]]; then
			count_result SKIP "host/${BASH_REMATCH[1]}"
		elif [[ $line =~ ^ok\ [0-9]+\ -\ (.*)$ ]]; then
			count_result PASS "host/${BASH_REMATCH[1]% (*}"
		elif [[ $line =~ ^not\ ok\ [0-9]+\ -\ (.*)$ ]]; then
			count_result FAIL "host/${BASH_REMATCH[1]% (*}"
		elif [[ $line =~ ^tests/check.sh:\ exit\ ([0-9]+)$ && ${BASH_REMATCH[1]} != 1 ]]; then
			count_result FAIL "host/$line"
		fi
	done <"$out"
	rm -f "$out"
}

# count_result VERDICT NAME: result's count, without its line.
count_result() {
	case $1 in
	PASS) PASSED=$((PASSED + 1)) ;;
	SKIP) SKIPPED=$((SKIPPED + 1)) ;;
	*) FAILED=$((FAILED + 1)); FAILURES+=("$2") ;;
	esac
}

# The pipeline's stages: STAGE_NAMES[i] runs STAGE_CMDS[i] (a function of
# this script and its arguments) once every stage of STAGE_DEPS[i] (names
# separated by "|": a name has spaces, "build on") passed.
STAGE_NAMES=() STAGE_DEPS=() STAGE_CMDS=()

# stage NAME DEPS COMMAND...: a stage of the pipeline, in priority order;
# DEPS the names of the stages it needs, separated by "|".
stage() {
	STAGE_NAMES+=("$1")
	STAGE_DEPS+=("$2")
	shift 2
	STAGE_CMDS+=("$*")
}

# stage_build CONFIG: the kernel, then its modules' image piece and the
# plugin, so that the boots that start at once do not make them together.
# Below the boots' priority: a boot has a limit, a build none.
stage_build() {
	if nice -n 5 "$BENCH_DIR/kernel/build.sh" build "$1" && "$BENCH_DIR/vm/image.sh" modules "$1" >/dev/null; then
		result "build/$1" PASS
	else
		result "build/$1" FAIL "(the tests that boot it are not run)"
		return 1
	fi
	[[ $1 != on ]] || plugin_so >/dev/null
}

# stage_guest CONFIG shared|own: CONFIG's guest tests, those of the
# shared boot or those with a boot of their own.
stage_guest() {
	run_guest_tests "$1" "$2"
}

stage_runner() {
	run_runner_tests
}

stage_lab() {
	run_lab_tests
}

stage_compare_series() {
	command_test runner "compare-series: a planted +2 instructions exits 1" bash "$TESTS_DIR/compare-series.sh"
}

# stage_state I: done (passed), failed, running or waiting, from the
# stage's files in STAGES.
stage_state() {
	if [[ -f $STAGES/$1.rc ]]; then
		[[ $(cat "$STAGES/$1.rc") == 0 ]] && echo passed || echo failed
	elif [[ -f $STAGES/$1.start ]]; then
		echo running
	else
		echo waiting
	fi
}

# ready I: every stage stage I needs passed (0), one failed (2), or some
# have not ended yet (1).
ready() {
	local dep j st
	local -a deps=()
	# by "|", not by words: "build on" split in two named no stage, and
	# every stage started at once, the tests before their kernel was built
	[[ -z ${STAGE_DEPS[$1]} ]] || IFS='|' read -r -a deps <<<"${STAGE_DEPS[$1]}"
	for dep in ${deps[@]+"${deps[@]}"}; do
		for j in "${!STAGE_NAMES[@]}"; do
			[[ ${STAGE_NAMES[j]} == "$dep" ]] || continue
			st=$(stage_state "$j")
			[[ $st != failed ]] || return 2
			[[ $st == passed ]] || return 1
		done
	done
	return 0
}

# start_stage I: stage I in the background, its output in STAGES/I.log,
# its results in STAGES/I.results, its exit status last in STAGES/I.rc.
start_stage() {
	local i=$1
	date +%s >"$STAGES/$i.start"
	log "tests: stage ${STAGE_NAMES[i]} started"
	(
		set +e
		# shellcheck disable=SC2086 # a function and its words
		RESULT_FILE=$STAGES/$i.results ${STAGE_CMDS[i]} >"$STAGES/$i.log" 2>&1
		echo $? >"$STAGES/$i.rc.tmp"
		date +%s >"$STAGES/$i.end"
		mv "$STAGES/$i.rc.tmp" "$STAGES/$i.rc"
	) &
}

# skip_stage I: stage I cannot run (a stage it needs failed).
skip_stage() {
	local i=$1
	date +%s | tee "$STAGES/$i.start" >"$STAGES/$i.end"
	printf '%s\t%s\n' FAIL "${STAGE_NAMES[i]}" >"$STAGES/$i.results"
	printf '%-44s FAIL (not run: a stage it needs failed: %s)\n' "${STAGE_NAMES[i]}" "${STAGE_DEPS[i]}" >"$STAGES/$i.log"
	echo 1 >"$STAGES/$i.rc"
}

# report_stage I: a stage that ended: its output, counted.
report_stage() {
	local i=$1 verdict name
	printf -- '--- %s (%d s)\n' "${STAGE_NAMES[i]}" "$(($(cat "$STAGES/$i.end") - $(cat "$STAGES/$i.start")))"
	cat "$STAGES/$i.log"
	[[ -f $STAGES/$i.results ]] || return 0
	while IFS=$'\t' read -r verdict name; do
		count_result "$verdict" "$name"
	done <"$STAGES/$i.results"
}

# run_stages: every stage, each as soon as what it needs passed, at most
# STAGE_JOBS at once, in the order they were added; each one reported
# when it ends.
run_stages() {
	local i st left running started rc
	local -A reported=()
	while :; do
		left=0 running=0 started=0
		for i in "${!STAGE_NAMES[@]}"; do
			st=$(stage_state "$i")
			case $st in
			running) running=$((running + 1)) ;;
			waiting) left=$((left + 1)) ;;
			*) [[ -n ${reported[$i]:-} ]] || { report_stage "$i"; reported[$i]=1; } ;;
			esac
		done
		for i in "${!STAGE_NAMES[@]}"; do
			[[ $(stage_state "$i") == waiting ]] || continue
			rc=0
			ready "$i" || rc=$?
			if [[ $rc == 2 ]]; then
				skip_stage "$i"
				started=1
			elif [[ $rc == 0 ]] && ((running < STAGE_JOBS)); then
				start_stage "$i"
				running=$((running + 1))
				started=1
			fi
		done
		((started == 0)) || continue
		((left > 0 || running > 0)) || break
		wait -n || true
	done
	wait
}

# stage_times T0: each stage's time and when it ran, from T0 (the start
# of make test), and the whole run's.
stage_times() {
	local t0=$1 i s e
	printf 'stage times (s; from the start of make test):\n'
	printf '  %-34s %6d  %5d-%d\n' "host checks" "$((HOST_END - t0))" 0 "$((HOST_END - t0))"
	for i in "${!STAGE_NAMES[@]}"; do
		[[ -f $STAGES/$i.start && -f $STAGES/$i.end ]] || continue
		s=$(cat "$STAGES/$i.start") e=$(cat "$STAGES/$i.end")
		printf '  %-34s %6d  %5d-%d\n' "${STAGE_NAMES[i]}" "$((e - s))" "$((s - t0))" "$((e - t0))"
	done
	printf '  %-34s %6d\n' "make test" "$((EPOCHSECONDS - t0))"
}

main() {
	local cfg t0 on_built='' prev=''
	t0=$EPOCHSECONDS
	log "tests: host checks (make check)"
	host_checks
	HOST_END=$EPOCHSECONDS
	# the guest's image made once, before boots share it
	"$BENCH_DIR/vm/image.sh" base >/dev/null
	for cfg in $TEST_CONFIGS; do
		stage "build $cfg" "$prev" stage_build "$cfg"
		prev="build $cfg"
		[[ $cfg != on ]] || on_built="build on"
	done
	if [[ -n $on_built ]]; then
		stage "compare-series" "build on" stage_compare_series
		stage "lab" "build on" stage_lab
	fi
	for cfg in $TEST_CONFIGS; do
		stage "$cfg guest tests" "build $cfg" stage_guest "$cfg" shared
		stage "$cfg own boots" "build $cfg" stage_guest "$cfg" own
	done
	[[ -z $on_built ]] || stage "runner" "build on" stage_runner
	STAGE_JOBS=${STAGE_JOBS:-$(($(nproc) + 1))}
	STAGES=$(mktemp -d)
	# shellcheck disable=SC2064 # STAGES is set now, once
	trap "rm -rf '$STAGES'" EXIT
	run_stages
	stage_times "$t0"
	if [[ $FAILED -gt 0 ]]; then
		printf 'failed: %s\n' "${FAILURES[*]}"
	fi
	if [[ $SKIPPED -gt 0 ]]; then
		printf '%d passed, %d failed, %d skipped\n' "$PASSED" "$FAILED" "$SKIPPED"
	else
		printf '%d passed, %d failed\n' "$PASSED" "$FAILED"
	fi
	[[ $FAILED -eq 0 ]]
}

main "$@"
