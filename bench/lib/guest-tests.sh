# shellcheck shell=bash
# Running the guest tests (tests/block) in QEMU, for make test
# (tests/run.sh), make coverage (bench/run/coverage.sh, on the gcov config)
# and the mutants (tests/mutants/run.sh): one boot for the tests, led by
# the first that declares FRESH_BOOT=1, and one for each other such test;
# a line per test (result), and a failed test's output, dmesg and status
# brought back as files, as blktests keeps NNN.out.bad.  Needs
# bench/lib/lib.sh (lib_init done).  Sourcing it defines functions and
# nothing else; a caller counts results from zero with guest_results_init.
#
# Settings, read by the caller from its plan (plan_read): TESTS (the tests
# to run, empty: every one), TEST_TIMEOUT (seconds a boot may take).  And
# from the environment, not settings: TEST_RESULTS (where failed tests'
# files go, default tests/results), GUEST_ENV ("K=V ..." for the tests).

# shellcheck source=bench/lib/path.sh
. "${BASH_SOURCE[0]%/*}/path.sh"

# guest_results_init: PASSED, FAILED, SKIPPED and FAILURES, which result
# counts in, from zero.
guest_results_init() {
	PASSED=0
	FAILED=0
	SKIPPED=0
	FAILURES=()
}

# boot_came_to_verdict CONFIG LOG: LOG (result lines of a boot of CONFIG)
# has a result, and the runner did not end without a verdict ("run-guest
# exit N": its arguments refused, or it was killed).  Where not, a failed
# line there is no test's verdict: the mutation runs stop on it.
boot_came_to_verdict() {
	awk -v c="$1/" 'index($1, c) == 1 { seen = 1 } $1 == c "boot" && / run-guest exit / { bad = 1 }
		END { exit !seen || bad }' "$2"
}

# result NAME VERDICT [DETAIL]: one test's line, counted; also
# "VERDICT<tab>NAME" appended to RESULT_FILE when it is set (tests/run.sh
# counts the results of its stages, each run in a shell of its own, so).
result() {
	local name=$1 verdict=$2 detail=${3:-}
	printf '%-44s %s %s\n' "$name" "$verdict" "$detail"
	[[ -z ${RESULT_FILE:-} ]] || printf '%s\t%s\n' "$verdict" "$name" >>"$RESULT_FILE"
	case $verdict in
	PASS) PASSED=$((PASSED + 1)) ;;
	SKIP) SKIPPED=$((SKIPPED + 1)) ;;
	*) FAILED=$((FAILED + 1)); FAILURES+=("$name") ;;
	esac
}

# tests/, where the guest tests and their library are.
path_abs GUEST_TESTS_DIR "${BASH_SOURCE[0]%/*}/../../tests"

# failed_files_dir NAME: where the files of NAME's failed tests go (NAME:
# a config, or runner), as blktests keeps results/: TEST_RESULTS/NAME.
failed_files_dir() {
	printf '%s/%s\n' "${TEST_RESULTS:-$GUEST_TESTS_DIR/results}" "$1"
}

# fresh_boot TEST: TEST declares FRESH_BOOT=1 (a line of its file, read
# here, not run): no test runs before it in its boot.  Some reports come
# once per boot (a WARN_ONCE, KASAN's first report, lockdep turning itself
# off), so a test that must see one cannot come after tests that may
# spend it.  Tests after it are no such risk: the runner checks the
# kernel log after each test.  The first such test leads the shared boot
# (a boot of its own took 54 s on on and 71 s on debug in a cold CI);
# any other gets a boot of its own.
fresh_boot() {
	grep -qx 'FRESH_BOOT=1' "$GUEST_TESTS_DIR/block/$1"
}

# selected_tests: the guest tests to run, TESTS or every one, in order.
selected_tests() {
	local t names
	if [[ -n ${TESTS:-} ]]; then
		read -ra names <<<"$TESTS"
		printf '%s\n' "${names[@]}"
		return
	fi
	for t in "$GUEST_TESTS_DIR"/block/[0-9]*; do
		[[ $t == *.out ]] || printf '%s\n' "${t##*/}"
	done
}

# own_boot_dir CONFIG: where the runs of the tests with a boot of their
# own (the second FRESH_BOOT=1 test on) go, one directory each
# (bench/run/coverage.sh reads them too).
own_boot_dir() {
	printf '%s/test-runs/%s-own\n' "$CACHE" "$1"
}

# run_guest_tests CONFIG [shared|own]: boot once for the tests that share
# a boot (the first FRESH_BOOT=1 test first), then once for each other
# FRESH_BOOT=1 test; report each test.  With "shared" or "own", only those
# boots (tests/run.sh runs the two at once).
run_guest_tests() {
	local cfg=$1 which=${2:-both} name lead=''
	local -a shared=() own=()
	[[ $which == shared ]] || rm -rf "$(own_boot_dir "$cfg")"
	while read -r name; do
		if [[ ! -f $GUEST_TESTS_DIR/block/$name || $name == *.out ]]; then
			[[ $which == own ]] || result "$cfg/$name" FAIL "(no such test)"
		elif ! fresh_boot "$name"; then
			shared+=("$name")
		elif [[ -z $lead ]]; then
			lead=$name
		else
			own+=("$name")
		fi
	done < <(selected_tests)
	[[ -z $lead ]] || shared=("$lead" ${shared[@]+"${shared[@]}"})
	[[ $which != own ]] || shared=()
	[[ $which != shared ]] || own=()
	[[ ${#shared[@]} -eq 0 ]] || guest_boot "$cfg" "$CACHE/test-runs/$cfg" "${shared[@]}"
	for name in ${own[@]+"${own[@]}"}; do
		guest_boot "$cfg" "$(own_boot_dir "$cfg")/$name" "$name"
	done
}

# save_test_files LOG DIR: the files the guest runner sent for its failed
# tests (base64 between "=== out.bad|dmesg|status TEST ===" and
# "=== end ===") into DIR/TEST.out.bad, DIR/TEST.dmesg, DIR/TEST.status.
save_test_files() {
	local f
	mkdir -p "$2"
	awk -v dir="$2" '
		/^=== end ===$/ { if (file != "") close(file); file = ""; next }
		/^=== (out\.bad|dmesg|status) [^ \/]+ ===$/ { file = dir "/" $3 "." $2 ".b64"; printf "" >file; next }
		file != "" { print >file }
	' "$1"
	for f in "$2"/*.b64; do
		[[ -e $f ]] || continue
		base64 -d "$f" >"${f%.b64}"
		rm -f "$f"
	done
}

# guest_boot CONFIG OUT TEST...: boot CONFIG once into OUT, run the TESTs
# in order, report each; a failed one's files go to TEST_RESULTS/CONFIG
# (those of an earlier run of each TEST are removed first).
# GUEST_ENV="K=V ..." gives the tests more variables (tests/mutants/run.sh:
# STRESS_PROGRESS=1).
guest_boot() {
	local cfg=$1 out=$2 status=0 gate line name verdict detail alone='' what kv
	local saved bad
	local -A reported=()
	local -a envs=()
	shift 2
	saved=$(failed_files_dir "$cfg")
	for name in "$@"; do
		rm -f "$saved/$name.out.bad" "$saved/$name.dmesg" "$saved/$name.status"
	done
	for kv in ${GUEST_ENV:-}; do envs+=(-e "$kv"); done
	what="$# tests"
	[[ $# -ne 1 ]] || { alone="$1: "; what="$1 alone"; }
	gate=$(gate_site "$(kernel_build_dir "$cfg")" || true)
	log "tests: booting $cfg for $what (gate site ${gate:-none})"
	boot_guest "$out" -c "$cfg" -s 2 -t "$TEST_TIMEOUT" \
		-f "$GUEST_TESTS_DIR/block" -f "$GUEST_TESTS_DIR/lib" -e "BENCH_GATE_ADDR=$gate" -e "TESTS=$*" "${envs[@]}" \
		"$GUEST_TESTS_DIR/guest/run-tests.sh" || status=$?
	save_test_files "$out/result.log" "$saved"
	while IFS= read -r line; do
		if [[ $line =~ ^TEST\ ([^ ]+)\ (PASS|FAIL|SKIP)\ ?(.*)$ ]]; then
			name=${BASH_REMATCH[1]} verdict=${BASH_REMATCH[2]} detail=${BASH_REMATCH[3]}
			reported[$name]=1
			bad=$saved/$name.out.bad
			[[ $verdict != FAIL || ! -f $bad ]] || detail+=" (see ${bad#"$REPO_DIR"/})"
			result "$cfg/$name" "$verdict" "$detail"
		elif [[ $line == "    "* ]]; then
			printf '%s\n' "$line"
		fi
	done <"$out/result.log"
	for name in "$@"; do
		[[ -n ${reported[$name]:-} ]] || result "$cfg/$name" FAIL "(not run: boot ended early)"
	done
	if [[ $status != 0 ]]; then
		result "$cfg/boot" FAIL "$alone$(boot_verdict "$out" "$status")"
	fi
}
