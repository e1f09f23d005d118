#!/bin/sh
# Guest side of the test runner: runs each test in /bench/block, in
# order, compares its output with the golden .out file, checks the kernel
# log for reports after each test, and prints one "TEST name RESULT" line
# per test (details indented below a failure).  A test whose requires()
# (tests/lib/rc) gives reasons is not run: "TEST name SKIP not run: REASONS".
# A failed test's output, kernel log and status go to the host before its
# line, each a block of base64 between "=== out.bad|dmesg|status name ==="
# and "=== end ===" (tests/run.sh writes them to tests/results/CONFIG/).
set -u
cd /bench/block || exit 1
# shellcheck source=tests/lib/rc
. ../lib/rc
# What counts as a kernel report: the runner's expression, in the image.
SPLAT="($(cat /etc/kernel-report.ere))"
mkdir -p /tmp/out
# On the gcov config: count the tests only, not the boot (no-op elsewhere).
gcov-counts reset

all_tests() {
	for f in [0-9]*; do
		case $f in *.out) ;; *) echo "$f" ;; esac
	done
}

# skip_reasons TEST: what TEST's requires() finds missing (empty: none),
# from its declarations alone, in a subshell: the test itself does not run.
skip_reasons() {
	(
		requires() { :; }
		SKIP_REASONS=
		eval "$(_declarations "$1")"
		requires
		echo "$SKIP_REASONS"
	)
}

# send NAME FILE: FILE to the host as a block of the result log.
send() {
	echo "=== $1 ==="
	base64 "$2"
	echo "=== end ==="
}

for t in ${TESTS:-$(all_tests)}; do
	[ -f "$t" ] || { echo "TEST $t FAIL no such test"; continue; }
	skip=$(skip_reasons "$t")
	if [ -n "$skip" ]; then
		echo "TEST $t SKIP not run: $skip"
		continue
	fi
	dmesg -c >/dev/null
	start=$(cut -d' ' -f1 /proc/uptime)
	sh "./$t" >"/tmp/out/$t" 2>&1
	rc=$?
	end=$(cut -d' ' -f1 /proc/uptime)
	dmesg >"/tmp/out/$t.dmesg"
	took=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1fs", b - a }')
	reason=""
	if grep -Eq "$SPLAT" "/tmp/out/$t.dmesg"; then
		reason="kernel report: $(grep -Em1 "$SPLAT" "/tmp/out/$t.dmesg" | cut -c1-100)"
	elif [ $rc -ne 0 ]; then
		reason="exit status $rc"
	elif [ -f "$t.out" ] && ! diff -u "$t.out" "/tmp/out/$t" >"/tmp/out/$t.diff"; then
		reason="output differs from $t.out"
	fi
	if [ -z "$reason" ]; then
		echo "TEST $t PASS $took"
	else
		printf 'verdict=FAIL\nreason=%s\nexit_status=%s\ntook=%s\n' "$reason" "$rc" "$took" >"/tmp/out/$t.status"
		send "out.bad $t" "/tmp/out/$t"
		send "dmesg $t" "/tmp/out/$t.dmesg"
		send "status $t" "/tmp/out/$t.status"
		echo "TEST $t FAIL $reason"
		if [ -s "/tmp/out/$t.diff" ]; then
			sed 's/^/    /' "/tmp/out/$t.diff"
		else
			tail -20 "/tmp/out/$t" | sed 's/^/    /'
		fi
		grep -E -A12 "$SPLAT" "/tmp/out/$t.dmesg" | head -30 | sed 's/^/    dmesg: /'
		# A mutation run needs only the first failure (tests/mutants/score.sh).
		[ -z "${STOP_AFTER_FAIL:-}" ] || break
	fi
done
gcov-counts dump
exit 0
