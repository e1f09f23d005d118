#!/usr/bin/env bash
# The host checks alone (make check; make test runs them first): every
# file tests/host/*.sh that declares itself, as the guest tests do, with a
# line DESCRIPTION="one line" near its top and, when it needs what a
# machine may lack, a requires() function (tests/lib/host.sh's _have_*).
# No list to keep: a new file there is a new check.  Each test runs
# standalone (bash FILE, in the checkout, CACHE exported), CHECK_JOBS at
# once (default: the host's cores), the longest first as the last run on
# this CACHE timed them (else tests/check.times); each one's output is
# kept in a file of its own and the results are printed in the tests'
# order, as TAP:
#
#   1..N
#   ok 1 - DESCRIPTION (12 s, 20 s CPU)
#   not ok 2 - DESCRIPTION (3 s, ...)     its failed lines and its tail
#   # ...                                 below, the whole log in CACHE
#   ok 3 - DESCRIPTION # SKIP no root     requires() found something missing
#   N passed, N failed                    (", N skipped" when any was)
#
# A file under tests/host/ without a DESCRIPTION line is a failure (it
# would never run).  Exit 0 when nothing failed, 1 otherwise, 2 for an
# unknown TEST.
#
#   tests/check.sh [-l] [TEST...]     TEST: a name under tests/host
#                                     (settings or settings.sh) or a path
#     -l   list the tests, one "NAME<tab>DESCRIPTION" a line, and exit
#   CHECK_JOBS=2  CACHE=.cache   full logs: CACHE/check/logs/NAME.log
set -euo pipefail
shopt -s inherit_errexit

TESTS_DIR=$(cd "$(dirname "$0")" && pwd)
REPO_DIR=$(cd "$TESTS_DIR/.." && pwd)
# shellcheck source=bench/lib/help.sh
. "$REPO_DIR/bench/lib/help.sh"
# shellcheck source=tests/lib/host.sh
. "$TESTS_DIR/lib/host.sh"

# declarations WITH_REQUIRES: DESCS and SKIPS, each of FILES' DESCRIPTION
# (empty when it declares none) and, with WITH_REQUIRES=1, what its
# requires() finds missing (empty: none); one subshell for every file,
# where two a file were a second of every make check's start.
declarations() {
	local -a decl
	local i
	mapfile -d '' -t decl < <(
		for f in "${FILES[@]}"; do
			DESCRIPTION='' SKIP_REASONS=''
			requires() { :; }
			eval "$(_host_declarations "$f")"
			[[ $1 == 0 || -z $DESCRIPTION ]] || requires
			printf '%s\0%s\0' "$DESCRIPTION" "$SKIP_REASONS"
		done
	)
	DESCS=() SKIPS=()
	for i in "${!FILES[@]}"; do
		DESCS+=("${decl[2 * i]:-}")
		SKIPS+=("${decl[2 * i + 1]:-}")
	done
}

# test_files [TEST...]: FILES, the tests' files: tests/host/*.sh in
# order, or those named (an unknown name is bad input).
test_files() {
	local t
	FILES=()
	if [[ $# -eq 0 ]]; then
		FILES=("$TESTS_DIR"/host/*.sh)
		return
	fi
	for t; do
		if [[ -f $t ]]; then
			FILES+=("$(cd "$(dirname "$t")" && pwd)/${t##*/}")
		elif [[ -f $TESTS_DIR/host/${t%.sh}.sh ]]; then
			FILES+=("$TESTS_DIR/host/${t%.sh}.sh")
		else
			printf 'check: no host test %s (valid: %s)\n' "$t" \
				"$(cd "$TESTS_DIR/host" && printf '%s ' ./*.sh | sed 's,\./,,g; s,\.sh,,g')" >&2
			exit "$STATUS_BAD_INPUT"
		fi
	done
}

# run_one I: test I run standalone (in a shell of its own, whose
# children's CPU time is the test's); its output in LOGS/I.log, its time
# in ms in LOGS/I.ms, its CPU seconds in LOGS/I.cpu, last its exit status
# in LOGS/I.rc (what print_ready waits for).
run_one() {
	local i=$1 t0 rc=0
	t0=$(date +%s%N)
	(cd "$REPO_DIR" && exec bash "${FILES[i]}") >"$LOGS/$i.log" 2>&1 </dev/null || rc=$?
	echo $((($(date +%s%N) - t0) / 1000000)) >"$LOGS/$i.ms"
	times >"$LOGS/$i.times"
	awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] } }
		END { printf "%.0f\n", s }' "$LOGS/$i.times" >"$LOGS/$i.cpu"
	echo "$rc" >"$LOGS/$i.rc.tmp"
	mv "$LOGS/$i.rc.tmp" "$LOGS/$i.rc"
}

# failure_lines LOG: what a reader of a failed test needs first: its
# failed assertions with the lines below them, and its last lines.
failure_lines() {
	grep -E -A3 '^(not ok|FAIL)' "$1" | head -n 40 || true
	echo '...'
	tail -n 10 "$1"
}

# print_ready: the results of the tests that have ended, in order, up to
# the first one still running.
print_ready() {
	local i ms cpu rc desc
	while ((NEXT < ${#FILES[@]})) && [[ -f $LOGS/$NEXT.rc ]]; do
		i=$NEXT
		NEXT=$((NEXT + 1))
		rc=$(cat "$LOGS/$i.rc")
		desc=${DESCS[i]}
		if [[ -z $desc ]]; then
			printf 'not ok %d - %s declares no DESCRIPTION="one line" (so it would never run)\n' \
				"$((i + 1))" "${FILES[i]#"$REPO_DIR"/}"
			FAILED=$((FAILED + 1))
			continue
		elif [[ $rc == skip ]]; then
			printf 'ok %d - %s # SKIP %s\n' "$((i + 1))" "$desc" "${SKIPS[i]}"
			SKIPPED=$((SKIPPED + 1))
			continue
		fi
		ms=$(cat "$LOGS/$i.ms") cpu=$(cat "$LOGS/$i.cpu")
		CPU_TOTAL=$((CPU_TOTAL + cpu))
		cp "$LOGS/$i.log" "$KEEP/${NAMES[i]}.log"
		printf '%s %s\n' "${NAMES[i]}" "$ms" >>"$TIMES.new"
		if [[ $rc == 0 ]]; then
			printf 'ok %d - %s (%d s, %d s CPU)\n' "$((i + 1))" "$desc" "$(((ms + 500) / 1000))" "$cpu"
			PASSED=$((PASSED + 1))
		else
			printf 'not ok %d - %s (%d s, %d s CPU, exit %s; log: %s)\n' "$((i + 1))" "$desc" \
				"$(((ms + 500) / 1000))" "$cpu" "$rc" "$KEEP/${NAMES[i]}.log"
			failure_lines "$LOGS/$i.log" | sed 's/^/# /'
			FAILED=$((FAILED + 1))
		fi
	done
}

# start_order: the tests' indices, the longest first by the times of the
# last run on this CACHE, else by tests/check.times (a fresh clone's
# first run: in the files' order the longest, shellcheck, would start late
# and end last); tests timed by neither first of all.
start_order() {
	local i
	for ((i = 0; i < ${#FILES[@]}; i++)); do printf '%s %s\n' "${NAMES[i]}" "$i"; done |
		awk -v seed="$TESTS_DIR/check.times" -v times="$TIMES" 'BEGIN {
				while ((getline l < seed) > 0) if (split(l, w, " ") == 2) t[w[1]] = w[2]
				while ((getline l < times) > 0) if (split(l, w, " ") == 2) t[w[1]] = w[2]
			}
			{ print ($1 in t ? t[$1] : 1e12), $2 }' |
		sort -s -k1,1gr | cut -d' ' -f2
}

# run_all: every test, CHECK_JOBS at once, printed as they end in order.
run_all() {
	local i
	for i in $(start_order); do
		if [[ -n ${SKIPS[i]} || -z ${DESCS[i]} ]]; then
			echo skip >"$LOGS/$i.rc"
			continue
		fi
		while (($(jobs -rp | wc -l) >= CHECK_JOBS)); do
			wait -n || true
			print_ready
		done
		run_one "$i" &
	done
	while (($(jobs -rp | wc -l) > 0)); do
		wait -n || true
		print_ready
	done
	wait
	print_ready
}

# save_times: this run's times in TIMES, with the last run's of the tests
# not run this time.
save_times() {
	[[ -f $TIMES.new ]] || return 0
	touch "$TIMES"
	awk 'NR == FNR { new[$1] = 1; print; next } !($1 in new)' "$TIMES.new" "$TIMES" >"$TIMES.tmp"
	mv "$TIMES.tmp" "$TIMES"
	rm -f "$TIMES.new"
}

main() {
	local list=0 f i t0
	help_answer "$0" "$@"
	[[ ${1:-} != -l ]] || { list=1; shift; }
	[[ ${1:-} != -* ]] || help_usage "$0"
	test_files "$@"
	NAMES=()
	for f in "${FILES[@]}"; do
		f=${f##*/}
		NAMES+=("${f%.sh}")
	done
	if [[ $list == 1 ]]; then
		declarations 0
		for i in "${!FILES[@]}"; do printf '%s\t%s\n' "${NAMES[i]}" "${DESCS[i]}"; done
		return 0
	fi
	export CACHE=${CACHE:-$REPO_DIR/.cache}
	CHECK_JOBS=${CHECK_JOBS:-$(nproc)}
	[[ $CHECK_JOBS =~ ^[1-9][0-9]*$ ]] ||
		{ echo "check: CHECK_JOBS='$CHECK_JOBS': want a whole number from 1" >&2; exit "$STATUS_BAD_INPUT"; }
	declarations 1
	mkdir -p "$CACHE/check/logs"
	KEEP=$CACHE/check/logs
	TIMES=$CACHE/check/times
	LOGS=$(mktemp -d)
	# shellcheck disable=SC2064 # LOGS is set now, once
	trap "rm -rf '$LOGS'" EXIT
	rm -f "$TIMES.new"
	# benchstat, which many tests run, made once before they share it.
	# The guest's base image, which make test needs next, is made while
	# the tests run, in one of their CHECK_JOBS places (run_all counts
	# every background job): exit-status.sh, which boots it (a fake QEMU), copies
	# it when it is there and makes its own when not (its hash file is
	# written last); where it cannot be made (packages missing), the test
	# that needs it says so.  run_all returns once every background job,
	# this one too, has ended (its wait -n may be the one that reaps it).
	make -s -C "$REPO_DIR/bench/stats" OUT="$CACHE/tools" "$CACHE/tools/benchstat"
	[[ ! -x $REPO_DIR/bench/vm/image.sh ]] || "$REPO_DIR/bench/vm/image.sh" base >/dev/null 2>&1 &
	PASSED=0 FAILED=0 SKIPPED=0 NEXT=0 CPU_TOTAL=0
	t0=$SECONDS
	printf '1..%d\n' "${#FILES[@]}"
	run_all
	save_times
	printf '# host checks: %d s, %d s of CPU, %d at once\n' "$((SECONDS - t0))" "$CPU_TOTAL" "$CHECK_JOBS"
	if ((SKIPPED > 0)); then
		printf '%d passed, %d failed, %d skipped\n' "$PASSED" "$FAILED" "$SKIPPED"
	else
		printf '%d passed, %d failed\n' "$PASSED" "$FAILED"
	fi
	((FAILED == 0))
}

main "$@"
