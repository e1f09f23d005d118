#!/usr/bin/env bash
# bench/lab/lava-results.sh on LAVA logs of the shard on.r1 (config on in
# key-off and rules-1, under tcg-icount): real lava-run logs of a job that
# passed, one whose kernel URL was broken and one whose guest panicked
# (tests/fixtures/lava/, made by tests/lava-run.sh's jobs), the passed
# job's log as a lava-server serves it ("- " a line) and its results in
# the shape a lava-server exports, and malformed variants of them.
#   - the passed job gives the rows of good.runs.csv (they matched the
#     same shard run by bench.sh --job: exact counts identical, guest time
#     within 0.1%), and its piece goes through merge.sh;
#   - a failed job exits 1 naming why, and writes nothing;
#   - malformed input exits 2, and writes nothing.
#
#   tests/host/lava-results.sh      host only (no boot); exit 1 on a failure
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="LAVA logs and results into rows; failed and malformed ones"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"
BENCH_DIR=$REPO_DIR/bench
FIX=$REPO_DIR/tests/fixtures/lava
OUT=$SCRATCH

# convert NAME LOG: the converter on LOG into OUT/NAME; STATUS and OUT/NAME.err.
convert() {
	STATUS=0
	"$BENCH_DIR/lab/lava-results.sh" -o "$OUT/$1" "$FIX/job" "$2" >/dev/null 2>"$OUT/$1.err" || STATUS=$?
}

# expect NAME LOG STATUS TEXT: the converter exits STATUS saying TEXT and
# writes no piece.
expect() {
	local name=$1 log=$2 want=$3 text=$4
	convert "$name" "$log"
	if [[ $STATUS == "$want" ]] && grep -qF -- "$text" "$OUT/$name.err" && [[ ! -e $OUT/$name ]]; then
		pass "$name: exit $want, \"$text\", no rows"
	else
		fail "$name: exit $STATUS (want $want and \"$text\"): $(tail -n 3 "$OUT/$name.err" | tr '\n' ' ')"
	fi
}

# same_values A B: runs.csv A and B have the same rows, values equal to
# 1e-9 (a server keeps 10 decimals).
same_values() {
	cmp -s <(cut -d, -f1-7 "$1") <(cut -d, -f1-7 "$2") &&
		paste -d, <(cut -d, -f8 "$1") <(cut -d, -f8 "$2") |
		awk -F, 'NR > 1 { d = $1 - $2; if (d < 0) d = -d; m = $2 < 0 ? -$2 : $2; if (d > 1e-9 * m + 1e-12) bad = 1 } END { exit bad }'
}

# quiet COMMAND...: COMMAND's status only.
quiet() {
	"$@" >/dev/null 2>&1
}

# variant NAME SED_SCRIPT [FILE]: a copy of good.log (or FILE) edited by sed.
variant() {
	sed -e "$2" "${3:-$FIX/good.log}" >"$OUT/$1.log"
	printf '%s\n' "$OUT/$1.log"
}

good_log() {
	convert good "$FIX/good.log"
	check "a passed job's log: exit 0 (got $STATUS)" test "$STATUS" == 0
	check "its rows are good.runs.csv" cmp "$OUT/good/runs.csv" "$FIX/good.runs.csv"
	check "19 rows: 2 x 7 fio rows, 5 exact counts" test "$(tail -n +2 "$OUT/good/runs.csv" | wc -l)" == 19
	check "the piece: plan.txt, meta.json (JOB_ID on.r1, RUN_BY LAVA), raw.tar.xz with the log" \
		quiet jq -e '.JOB_ID == "on.r1" and (.RUN_BY | startswith("LAVA"))' "$OUT/good/meta.json"
	check "raw.tar.xz holds the plugin's snapshots rebuilt and the log" \
		test "$(tar -tJf "$OUT/good/raw.tar.xz" | grep -c -e 'raw/001-on-r1/plugin.txt' -e 'raw/001-on-r1/lava-good.log')" == 2
	check "merge.sh takes the piece (a summary with rows)" \
		quiet "$BENCH_DIR/lab/merge.sh" -o "$OUT/merged" "$OUT/good"
	check "... its summary has the 19 groups" test "$(tail -n +2 "$OUT/merged/summary.csv" | wc -l)" == 19
	sed 's/^{/- {/' "$FIX/good.log" >"$OUT/server.log"
	convert server-log "$OUT/server.log"
	check "the same log as a server serves it: the same rows" cmp "$OUT/server-log/runs.csv" "$FIX/good.runs.csv"
	convert server-results "$FIX/good.results.yaml"
	check "its results as a server exports them: exit 0 (got $STATUS)" test "$STATUS" == 0
	check "... the same rows, values to 1e-9" same_values "$OUT/server-results/runs.csv" "$FIX/good.runs.csv"
	check "... exact counts identical" cmp <(grep -E 'per_call|per_io,' "$OUT/server-results/runs.csv" | grep -v insns_per_io) \
		<(grep -E 'per_call|per_io,' "$FIX/good.runs.csv" | grep -v insns_per_io)
}

failed_jobs() {
	expect broken-url "$FIX/broken-url.log" 1 "does not exist or is not readable"
	expect panic "$FIX/panic.log" 1 "kernel panic: [    0.517668] Kernel panic - not syncing: Attempted to kill init!"
	expect guest-rc "$(variant guest-rc 's|\("test_case_id": "guest/rc"}, "level": "3.1", "measurement": \)! "0.0"|\1! "1.0"|')" \
		1 "the guest script failed with rc=1"
	expect guest-reports "$(variant guest-reports 's|\("test_case_id": "guest/kernel_reports"}, "level": "3.1", "measurement": \)! "0.0"|\1! "2.0"|')" \
		1 "2 kernel report lines in the guest's dmesg"
	expect no-counts "$(variant no-counts '/"lvl": "results".*"test_case_id": "m[0-9]*\./d')" \
		1 "no insncount counts in the log"
	expect no-io "$(variant no-io 's|\("test_case_id": "rules-1/randread-qd1/total_ios"}, "level": "3.1", "measurement": \)! "[0-9.]*"|\1! "0.0"|')" \
		1 "fio did no I/O in rules-1 randread-qd1"
}

malformed() {
	printf '{ not: [ yaml\n' >"$OUT/not-yaml.log"
	expect not-yaml "$OUT/not-yaml.log" 2 "not YAML"
	: >"$OUT/empty.log"
	expect empty "$OUT/empty.log" 2 "not a list of log lines or test cases"
	printf 'job: 1\nresult: pass\n' >"$OUT/mapping.log"
	expect mapping "$OUT/mapping.log" 2 "not a list of log lines or test cases"
	printf -- '- {a: 1}\n' >"$OUT/list.log"
	expect other-list "$OUT/list.log" 2 "neither a LAVA job log"
	expect no-job-result "$(variant no-job-result '/"case": "job", "definition": "lava"/d')" 2 "no result for the whole job (lava/job)"
	expect not-a-number "$(variant not-a-number 's|\("test_case_id": "key-off/randread-qd1/iops"}, "level": "3.1", "measurement": \)! "[0-9.]*"|\1"fast"|')" \
		2 'case key-off/randread-qd1/iops: measurement "fast" is not a number'
	expect twice "$(variant twice '/"test_case_id": "key-off\/randread-qd1\/lat_ns"/{p;}')" 2 "case key-off/randread-qd1/lat_ns is there 2 times"
	expect missing "$(variant missing '/"lvl": "results".*"test_case_id": "key-off\/randread-qd1\/lat_ns"/d')" 2 "no case key-off/randread-qd1/lat_ns"
	expect unknown "$(variant unknown 's|"test_case_id": "key-off/randread-qd1/io_errors"|"test_case_id": "key-off/randread-qd1/io_faults"|')" \
		2 "no case key-off/randread-qd1/io_errors"
	expect extra "$(variant extra '/"test_case_id": "guest\/rc"/{p;s|guest/rc|bogus/case|}')" 2 "unknown case bogus/case"
	expect no-id "$(variant no-id 's|"extra": {"test_case_id": "key-off/randread-qd1/iops"}, ||')" 2 "a case without a valid test_case_id: key_off_randread_qd1_iops"
	expect results-no-number "$(variant results-no-number '/^- name: key_off_randread_qd1_iops$/,/^  measurement:/s/^  measurement: .*/  measurement: None/' "$FIX/good.results.yaml")" \
		2 'case key-off/randread-qd1/iops: measurement "None" is not a number'
}

main() {
	good_log
	failed_jobs
	malformed
	finish
}

main "$@"
