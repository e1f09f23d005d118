#!/usr/bin/env bash
# bench/lab/export-kcidb.sh on a committed results directory: valid JSON in
# the shape of KCIDB's schema v5.3 (version, IDs with the origin, paths
# and statuses as the schema allows them), one test per summary.csv row
# with its median as the number, one build per config, each test on a
# build and each build on the checkout, FAIL exactly where a gating
# metric's verdict is slower.  And a committed per-patch run, whose rows
# were built from different prefixes of the series: a checkout each.
#
#   tests/host/export-kcidb.sh [RESULTS_DIR]      exit 1 on a failure
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="KCIDB export of a committed run"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"

# the make quick run at 2bc5007: off and on, three states, verdicts of every kind
RUN=${1:-$REPO_DIR/results/20261203-155806-tcg-icount}
OUT=$SCRATCH/out

# summary_col NAME: a column of summary.csv by its header name.
summary_col() {
	awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "$RUN/summary.csv"
}

jq_true() {
	jq -e "$1" "$OUT" >/dev/null
}

main() {
	local rows fails
	"$REPO_DIR/bench/lab/export-kcidb.sh" "$RUN" >"$OUT"
	check "valid JSON, an object" jq_true 'type == "object"'
	check "schema version 5.3" jq_true '.version == {major: 5, minor: 3}'
	rows=$(($(wc -l <"$RUN/summary.csv") - 1))
	check "one test per summary.csv row ($rows)" jq_true "(.tests | length) == $rows"
	check "one build per config" jq_true "(.builds | map(.config_name)) == $(summary_col config | sort -u | jq -R . | jq -sc .)"
	check "the medians are the tests' numbers, in order" \
		test "$(jq -r '.tests[] | .number.value' "$OUT" | jq -s -c .)" == "$(summary_col median | jq -s -c .)"
	check "one checkout; every build on it, every test on a build" jq_true '
		(.checkouts | length) == 1 and ([.builds[].checkout_id] | unique) == [.checkouts[0].id] and
		([.tests[].build_id] - [.builds[].id]) == []'
	# shellcheck disable=SC2016 # jq variables
	check "IDs: origin, colon; origins [a-z0-9_]+; IDs unique" jq_true '
		[.checkouts[], .builds[], .tests[]] | all(.origin | test("^[a-z0-9_]+$")) and
		all(.origin as $o | .id | startswith($o + ":")) and
		(map(.id) | length) == (map(.id) | unique | length)'
	check "paths: blkinject.STATE.WORKLOAD.METRIC, KCIDB path syntax" jq_true '
		all(.tests[]; .path | test("^blkinject(\\.[a-zA-Z0-9_-]+){3}$"))'
	check "statuses from KCIDB's list" jq_true '
		all(.tests[], .builds[]; .status | IN("FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"))'
	check "no null anywhere (KCIDB allows none)" jq_true '[.. | select(. == null)] | length == 0'
	fails=$(paste -d, <(summary_col gates) <(summary_col verdict) | grep -c '^yes,slower$' || true)
	check "FAIL exactly for gating rows judged slower ($fails)" jq_true "([.tests[] | select(.status == \"FAIL\")] | length) == $fails"
	check "units: IOPS, ns, insn/call" jq_true '
		[.tests[] | select(.misc.metric == "iops" or .misc.metric == "lat_ns" or .misc.metric == "insns_per_call") |
			.number.unit] | unique == ["IOPS", "insn/call", "ns"]'
	[[ $# -gt 0 ]] || per_patch
	finish
}

# per_patch: the committed run of the five-patch series: p0 (the source
# alone), p1..p5 (its first K patches) and off (the whole series, the
# feature compiled out).
per_patch() {
	local run=$REPO_DIR/results/20261204-210738-per-patch
	"$REPO_DIR/bench/lab/export-kcidb.sh" "$run" >"$OUT"
	# shellcheck disable=SC2016 # jq variables
	check "per-patch: a checkout for each prefix (p0..p5), none labelled with a series it was not built from" jq_true '
		(.checkouts | length) == 6 and ([.builds[].checkout_id] | unique | length) == 6'
	# shellcheck disable=SC2016 # jq variables
	check "per-patch: each build on its own prefix's checkout; off on the whole series'" jq_true '
		(.builds | map({(.config_name): .checkout_id}) | add) as $b |
		(.checkouts | map({(.id): .misc}) | add) as $c |
		$c[$b.p0].series_sha256 == "none" and ($c[$b.p0].patches // "") == "" and
		($c[$b.p1].patches | split(" ") | length) == 1 and ($c[$b.p4].patches | split(" ") | length) == 4 and
		($c[$b.p5].patches | split(" ") | length) == 5 and $b.off == $b.p5'
	check "per-patch: every build on a checkout, every test on a build" jq_true '
		([.builds[].checkout_id] - [.checkouts[].id]) == [] and ([.tests[].build_id] - [.builds[].id]) == []'
}

main "$@"
