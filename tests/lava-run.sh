#!/usr/bin/env bash
# One shard of the matrix end to end through Debian's lava-dispatcher,
# without a server: bench/lab/lava-jobs.sh writes the shard's LAVA job,
# lava-run runs it on our device (bench/lab/qemu-tcg-icount.yaml): it
# deploys on's bzImage, the guest's initramfs and on's modules from
# file:// URLs to tmpfs and boots them with the qemu method under
# tcg-icount with the insncount plugin; bench/lab/lava-results.sh turns
# the job's log into the shard's piece.  That piece must match the same
# shard run by bench.sh --job: the same rows, every exact count (the
# plugin's) identical, every guest-time row within icount's repeatability
# (0.5%, benchstat's ICOUNT_SPREAD_PCT); percentile and random rows are
# compared by name only.  The piece goes through merge.sh and the KCIDB
# export.  Jobs whose kernel URL is broken, or whose guest panics
# (rdinit=/bin/false), end with a clear error and no rows.  The shard: on
# in key-off and rules-1, fio's randread-qd1 and 2000 counted reads; 3
# boots (2 by LAVA, 1 by bench.sh).
#
#   tests/lava-run.sh      needs on built, root and lava-dispatcher (make
#                          deps); exit 1 on a failure
set -euo pipefail
shopt -s inherit_errexit

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/lib/assert.sh"
# shellcheck source=bench/lab/lava.sh
. "$(dirname "$0")/../bench/lab/lava.sh"
tool_start test 'CACHE KSRC SERIES' -- "$0" "$@"
DEVICE=$BENCH_DIR/lab/qemu-tcg-icount.yaml
# A LAVA job ID names the dispatcher's scratch directory: one of its own
# for each run, as other runs of the test may share the host.
JOB_TAG=bib-test-$$
mkdir -p "$CACHE/test-runs"
OUT=$(mktemp -d "$CACHE/test-runs/lava.XXXXXX")
trap 'rm -rf "$OUT"' EXIT

export ACCEL=tcg-icount CONFIGS=on STATES='key-off rules-1' BASELINE='on key-off' REPEATS=1
export WORKLOADS=randread-qd1 SOFTIRQ_WORKLOADS='' FIO_IOS=2000 PERF_RECORD=0 SEED=1 PLUGIN=1

quiet() {
	"$@" >/dev/null 2>&1
}

# lava_run NAME JOB: lava-run JOB on our device; its log in OUT/NAME.log.
lava_run() {
	local status=0 t0=$SECONDS
	lava-run --job-id "$JOB_TAG-$1" --output-dir "$OUT/lava-$1" --device "$DEVICE" "$2" \
		>/dev/null 2>"$OUT/$1.log" || status=$?
	log "lava-run $1: exit $status in $((SECONDS - t0))s"
	return "$status"
}

# convert NAME: the job's log into the piece OUT/piece-NAME; STATUS.
convert() {
	STATUS=0
	"$BENCH_DIR/lab/lava-results.sh" -o "$OUT/piece-$1" "$OUT/lab/jobs/on.r1" "$OUT/$1.log" \
		>/dev/null 2>"$OUT/$1.err" || STATUS=$?
}

# job_variant NAME SED_SCRIPT: the shard's job, edited.
job_variant() {
	sed -e "$2" "$OUT/lab/jobs/on.r1/job.yaml" >"$OUT/$1.yaml"
	printf '%s\n' "$OUT/$1.yaml"
}

# compare_rows LOCAL LAVA: one line per row that breaks its class's rule
# (none: the rows agree), then "N exact, N guest-time" compared.
compare_rows() {
	"$(benchstat_bin)" metrics | awk -F'\t' 'NR > 1 { print $1 "," $3 }' >"$OUT/kinds"
	awk -F, -v tol=0.5 '
		FILENAME == ARGV[1] { kind[$1] = $2; next }
		FNR == 1 { next }
		FILENAME == ARGV[2] { v[$1 FS $2 FS $3 FS $4 FS $5 FS $7] = $8; next }
		{
			k = $1 FS $2 FS $3 FS $4 FS $5 FS $7
			if (!(k in v)) { print "only in the LAVA piece: " k; next }
			if (kind[$7] == "exact") { n_exact++; if ($8 != v[k]) print "exact " $3 " " $4 " " $7 ": " v[k] " here, " $8 " by LAVA" }
			else if (kind[$7] == "guest-time") {
				n_time++; d = 100 * ($8 / v[k] - 1)
				if (d > tol || d < -tol) printf "guest-time %s %s %s: %s here, %s by LAVA (%+.3f%%)\n", $3, $4, $7, v[k], $8, d
			}
		}
		END { printf "%d exact, %d guest-time\n", n_exact, n_time }' "$OUT/kinds" "$1" "$2"
}

# failed_no_rows NAME: the conversion of job NAME exited 1 and wrote nothing.
failed_no_rows() {
	[[ $STATUS == 1 && ! -e $OUT/piece-$1 ]]
}

# lava_fails NAME JOB: lava-run runs JOB and reports it failed.
lava_fails() {
	! lava_run "$1" "$2"
}

# device_options_are_run_guests PIECE: every QEMU option of our device but
# its serial ports is one run-guest passed in the piece's boot.
device_options_are_run_guests() {
	local args opt
	args=" $(tar -xJOf "$1/raw.tar.xz" --wildcards 'raw/*/boot-meta' | sed -n 's/^qemu_args=//p') "
	while IFS= read -r opt; do
		[[ $opt == -serial* || $args == *" $opt "* ]] || { echo "not run-guest's: $opt"; return 1; }
	done < <("$LAVA_PYTHON" -c 'import sys, yaml
print("\n".join(yaml.safe_load(open(sys.argv[1]))["actions"]["boot"]["methods"]["qemu"]["parameters"]["options"]))' "$DEVICE")
}

valid_job() {
	"$LAVA_PYTHON" -c 'import sys, yaml
from lava_common.schemas import validate
validate(yaml.safe_load(open(sys.argv[1])), strict=True)' "$1"
}

shard_through_lava() {
	local diffs line
	"$BENCH_DIR/lab/lava-jobs.sh" "$OUT/lab" >/dev/null 2>"$OUT/lava-jobs.err"
	check "lava-jobs.sh: one job, on.r1 (the plan's only boot)" test "$(ls "$OUT/lab/jobs")" == on.r1
	check "the job passes lava-common's strict job schema" valid_job "$OUT/lab/jobs/on.r1/job.yaml"
	check "lava-run runs the job to the end (exit 0)" lava_run good "$OUT/lab/jobs/on.r1/job.yaml"
	convert good
	check "lava-results.sh makes its piece (exit $STATUS)" test "$STATUS" == 0
	[[ $STATUS == 0 ]] || sed 's/^/    /' "$OUT/good.err"
	RESULTS_ROOT=$OUT RUN_ID=local "$BENCH_DIR/run/bench.sh" --job on.r1 >/dev/null 2>"$OUT/local.err"
	check "the same rows as bench.sh --job on.r1, in its order" \
		cmp <(cut -d, -f1-7 "$OUT/local/runs.csv") <(cut -d, -f1-7 "$OUT/piece-good/runs.csv" 2>/dev/null)
	diffs=$(compare_rows "$OUT/local/runs.csv" "$OUT/piece-good/runs.csv" 2>&1 || true)
	check "exact counts identical, guest time within 0.5% ($(tail -n 1 <<<"$diffs"))" test "$(wc -l <<<"$diffs")" == 1
	[[ $(wc -l <<<"$diffs") == 1 ]] || while IFS= read -r line; do printf '    %s\n' "$line"; done <<<"$diffs"
	check "both kinds were compared (5 exact, 6 guest-time rows)" test "$(tail -n 1 <<<"$diffs")" == "5 exact, 6 guest-time"
	check "the device's QEMU options are run-guest's" device_options_are_run_guests "$OUT/local"
	check "merge.sh and the KCIDB export take the LAVA piece" \
		quiet "$BENCH_DIR/lab/merge.sh" -o "$OUT/merged" "$OUT/piece-good"
	check "... one KCIDB test per summary row" test \
		"$("$BENCH_DIR/lab/export-kcidb.sh" "$OUT/merged" | jq '.tests | length')" == "$(($(wc -l <"$OUT/merged/summary.csv") - 1))"
}

failing_jobs() {
	local job
	job=$(job_variant broken-url 's|^\(        url: .*\)/bzImage$|\1/no-such-bzImage|')
	check "a broken kernel URL: lava-run fails" lava_fails broken-url "$job"
	convert broken-url
	check "... lava-results.sh exits 1, no rows ($(head -1 "$OUT/broken-url.err" | cut -c1-100))" failed_no_rows broken-url
	check "... naming the missing image" grep -q "no-such-bzImage' does not exist" "$OUT/broken-url.err"
	job=$(job_variant panic 's|oops=panic"|oops=panic rdinit=/bin/false"|')
	check "a guest that panics: lava-run fails" lava_fails panic "$job"
	convert panic
	check "... lava-results.sh exits 1, no rows" failed_no_rows panic
	check "... naming the panic" grep -q 'kernel panic: .*Kernel panic - not syncing' "$OUT/panic.err"
}

main() {
	local t0=$SECONDS
	shard_through_lava
	failing_jobs
	log "lava-run test: $((SECONDS - t0))s"
	finish
}

main "$@"
