#!/usr/bin/env bash
# The matrix run as two shards, each job (bench.sh --job ID) into a folder
# of its own, and joined by bench/lab/merge.sh gives the results of one
# bench.sh run: the same runs.csv and summary.csv, byte for byte.  A
# reduced matrix under tcg-icount: config on, key-off and rules-1, two
# repeats (the jobs on.r1 and on.r2), 4 boots in all.  It measures only
# the counted fio job (WORKLOADS empty): its values are exact instruction
# counts, the same in every boot, while a time-based fio job's IOPS can
# move by an I/O between two boots of the same kernel (measured), which
# would make two single runs differ too.  The second shard runs as a lab's
# test host would, in a cache of its own holding only the build that
# bench/lab/pack-build.sh packed here (and, to save time, the guest's base
# image and the plugin's header, which do not depend on the kernel).
# Merging pieces that do not make up the plan fails (exit 2).
#
#   tests/shard-merge.sh      needs the config on built; exit 1 on a failure
set -euo pipefail
shopt -s inherit_errexit

TESTS_DIR=$(cd "$(dirname "$0")" && pwd)
BENCH_DIR=$TESTS_DIR/../bench
# shellcheck source=tests/lib/assert.sh
. "$TESTS_DIR/lib/assert.sh"
test_init "$0" "$@"
OUT=$SCRATCH

export ACCEL=tcg-icount CONFIGS=on STATES='key-off rules-1' BASELINE='on key-off' REPEATS=2
export WORKLOADS='' SOFTIRQ_WORKLOADS='' FIO_IOS=2000 PERF_RECORD=0 SEED=1

# meta_true EXPR: EXPR holds for the merged meta.json.
meta_true() {
	jq -e "$1" "$OUT/merged/meta.json" >/dev/null
}

# same_summary A B: the summaries' rows agree, summary.json's included.
same_summary() {
	cmp "$1/summary.csv" "$2/summary.csv" &&
		[[ $(jq -c .summary "$1/summary.json") == "$(jq -c .summary "$2/summary.json")" ]]
}

# lab_host_cache DIR: a test host's cache with the packed build of on.
lab_host_cache() {
	mkdir -p "$1/images"
	"$BENCH_DIR/lab/pack-build.sh" on "$OUT/on-build.tar" 2>/dev/null
	tar -C "$1" -xf "$OUT/on-build.tar"
	cp -a "${CACHE:-$BENCH_DIR/../.cache}/qemu-plugin" "$1/"
	cp "${CACHE:-$BENCH_DIR/../.cache}"/images/base.cpio{,.hash} "$1/images/"
}

main() {
	local ids status
	RESULTS_ROOT=$OUT RUN_ID=single "$BENCH_DIR/run/bench.sh" >/dev/null
	ids=$("$BENCH_DIR/run/bench.sh" --list | cut -d' ' -f1 | tr '\n' ' ')
	check "--list: one job per boot, on.r1 on.r2 (got: $ids)" test "$ids" == "on.r1 on.r2 "
	RESULTS_ROOT=$OUT/shard-on.r1 RUN_ID=piece "$BENCH_DIR/run/bench.sh" --job on.r1 >/dev/null
	lab_host_cache "$OUT/lab-cache"
	CACHE=$OUT/lab-cache RESULTS_ROOT=$OUT/shard-on.r2 RUN_ID=piece "$BENCH_DIR/run/bench.sh" --job on.r2 >/dev/null
	"$BENCH_DIR/lab/merge.sh" -o "$OUT/merged" "$OUT"/shard-*/piece >/dev/null
	check "the lab host's piece measured the packed build" \
		test "$(jq -r .BUILDS.on.build_id "$OUT/shard-on.r2/piece/meta.json")" == "$(jq -r .BUILDS.on.build_id "$OUT/single/meta.json")"
	check "the pieces hold one job each" test "$(cut -d, -f1 "$OUT/shard-on.r2/piece/runs.csv" | sort -u | tr '\n' ' ')" == "2 seq "
	check "merged runs.csv is the single run's" cmp "$OUT/single/runs.csv" "$OUT/merged/runs.csv"
	check "merged summary is the single run's" same_summary "$OUT/single" "$OUT/merged"
	check "the summary has rows" test "$(wc -l <"$OUT/merged/summary.csv")" -gt 4
	check "merged plan.txt is the single run's" cmp "$OUT/single/plan.txt" "$OUT/merged/plan.txt"
	check "merged meta.json: both pieces, the matrix's configs, no JOB_ID" \
		meta_true '(.PIECES | length) == 2 and .CONFIGS == "on" and (has("JOB_ID") | not)'
	check "merged raw.tar.xz has both boots" test "$(tar -tJf "$OUT/merged/raw.tar.xz" | grep -c '^raw/00[12]-on-r[12]/$')" == 2
	status=0
	"$BENCH_DIR/lab/merge.sh" -o "$OUT/half" "$OUT/shard-on.r1/piece" 2>"$OUT/err" || status=$?
	check "a missing job stops the merge (exit 2)" grep -q 'no piece holds job on.r2' "$OUT/err"
	check "... with exit status 2 (got $status)" test "$status" == 2
	status=0
	"$BENCH_DIR/lab/merge.sh" -o "$OUT/twice" "$OUT"/shard-*/piece "$OUT/shard-on.r1/piece" 2>"$OUT/err" || status=$?
	check "a job in two pieces stops the merge (exit $status)" grep -q 'job on.r1 is in more than one piece' "$OUT/err"
	finish
}

main "$@"
