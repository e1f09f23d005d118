#!/usr/bin/env bash
# summarise reads the run's meta.json and nothing else: every committed
# run's summary.csv and summary.json are made again from its runs.csv and
# meta.json (meta.env for the oldest) by bench/stats/summarise.sh, byte for
# byte but for the verdict_text column (nine runs' summaries predate the
# rounding rule, bench/stats/round.sh: their texts carry more digits, which
# report.sh rounds when it reads them; benchstat writes them rounded now);
# globals a caller sets (CONFIGS, STATES, BASELINE, SMP_WORKLOADS)
# change nothing; a meta.json without ACCEL, CONFIGS, STATES or BASELINE,
# or none at all, is exit 2 naming what is missing; SMP_WORKLOADS, absent
# from every committed run, makes its workloads' guest time random.
# Everything runs on copies; nothing is written into results/.
#
#   tests/host/summaries.sh
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="summarise reads meta.json: every committed summary made again, same bytes"

REPO=$(cd "$(dirname "$0")/../.." && pwd)
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
export CACHE=$SCRATCH/cache BENCH_T0=''
# shellcheck source=tests/lib/assert.sh
. "$REPO/tests/lib/assert.sh"
help_answer "$0" "$@"

# copy RUN DIR: RUN's tracked runs.csv and meta files at DIR (no summary)
copy() {
	mkdir -p "$2"
	git -C "$REPO" ls-files "$1/runs.csv" "$1/meta.json" "$1/meta.env" |
		while read -r f; do cp "$REPO/$f" "$2/"; done
}

# summarise_rc WANT DIR: bench/stats/summarise.sh DIR exits WANT (stderr in
# SCRATCH/err, shown on a mismatch)
summarise_rc() {
	local got=0
	"$REPO/bench/stats/summarise.sh" "$2" >/dev/null 2>"$SCRATCH/err" || got=$?
	[[ $got == "$1" ]] || { sed -n 1,5p "$SCRATCH/err" | sed 's/^/      /'; return 1; }
}

says() {
	grep -qF -- "$1" "$SCRATCH/err" || { sed -n 1,5p "$SCRATCH/err" | sed 's/^/      /'; return 1; }
}

# same COMMITTED MADE: byte-identical, the first lines of the diff shown if not
same() {
	cmp -s "$1" "$2" || { diff "$1" "$2" | sed -n 1,6p | sed 's/^/      /'; return 1; }
}

# same_but_text COMMITTED MADE: summary.csv files, the same bytes once the
# verdict_text column (22) is emptied in both
same_but_text() {
	same <(awk -F, -v OFS=, '{ $22 = ""; print }' "$1") <(awk -F, -v OFS=, '{ $22 = ""; print }' "$2")
}

# same_json_but_text COMMITTED MADE: summary.json files, the same without
# each row's verdict_text
same_json_but_text() {
	same <(jq 'del(.summary[].verdict_text)' "$1") <(jq 'del(.summary[].verdict_text)' "$2")
}

# meta_edit DIR JQ: DIR/meta.json through the jq filter JQ
meta_edit() {
	jq "$2" "$1/meta.json" >"$1/meta.json.new"
	mv "$1/meta.json.new" "$1/meta.json"
}

# with_globals DIR: summarise DIR in a shell whose globals say otherwise
with_globals() {
	(
		# shellcheck source=bench/lib/lib.sh
		. "$REPO/bench/lib/lib.sh"
		test_plan
		lib_init
		# shellcheck disable=SC2034 # read by summarise before it read meta.json
		CONFIGS='nokey on' STATES='rules-1 key-off' BASELINE='on rules-1' SMP_WORKLOADS=randread-qd1
		summarise "$1"
	) 2>"$SCRATCH/err"
}

main() {
	local run name dir key base views
	local -a runs
	mapfile -t runs < <(git -C "$REPO" ls-files 'results/*/summary.csv' | sed 's,/summary\.csv$,,' | sort)
	[[ ${#runs[@]} -gt 0 ]] || { echo "no committed run with a summary.csv" >&2; exit 2; }
	for run in "${runs[@]}"; do
		name=${run#results/}
		dir=$SCRATCH/runs/$name
		copy "$run" "$dir"
		check "$name: summarise.sh exits 0" summarise_rc 0 "$dir"
		check "  ... summary.csv the committed one (verdict_text aside)" \
			same_but_text "$REPO/$run/summary.csv" "$dir/summary.csv"
		check "  ... summary.json too" same_json_but_text "$REPO/$run/summary.json" "$dir/summary.json"
	done

	# a main run with meta.json, and the views run (mq: 2 vCPUs)
	base=$(git -C "$REPO" ls-files 'results/*-tcg-icount/meta.json' | sed -n '$s,/meta\.json$,,p')
	views=results/20261203-173800-tcg-icount-views
	dir=$SCRATCH/globals
	copy "$base" "$dir"
	check "globals a caller sets are not read: ${base#results/} summarised in a shell with others" with_globals "$dir"
	check "  ... summary.csv byte-identical to the committed one" same "$REPO/$base/summary.csv" "$dir/summary.csv"

	for key in ACCEL CONFIGS STATES BASELINE; do
		dir=$SCRATCH/no-$key
		copy "$base" "$dir"
		meta_edit "$dir" "del(.$key)"
		check "meta.json without $key: exit 2" summarise_rc 2 "$dir"
		check "  ... it names $key" says "has no $key"
		check "  ... no summary made" test ! -e "$dir/summary.csv"
	done
	dir=$SCRATCH/old-name
	copy "$base" "$dir"
	meta_edit "$dir" '.BENCH_CONFIGS = .CONFIGS | del(.CONFIGS)'
	check "meta.json with the old name BENCH_CONFIGS: exit 0" summarise_rc 0 "$dir"
	check "  ... the same summary" same "$REPO/$base/summary.csv" "$dir/summary.csv"
	dir=$SCRATCH/no-meta
	copy "$base" "$dir"
	rm "$dir/meta.json"
	check "no meta.json: exit 2" summarise_rc 2 "$dir"
	check "  ... it says so" says "has no meta.json"
	dir=$SCRATCH/malformed
	copy "$base" "$dir"
	printf '{"ACCEL": "tcg-icount",\n' >"$dir/meta.json"
	check "a malformed meta.json: exit 2" summarise_rc 2 "$dir"
	check "  ... it says so" says "meta.json is malformed"
	dir=$SCRATCH/baseline
	copy "$base" "$dir"
	meta_edit "$dir" '.BASELINE = "off"'
	check "BASELINE without a state: exit 2" summarise_rc 2 "$dir"
	check "  ... it names it" says "BASELINE='off' is not \"CONFIG STATE\""

	dir=$SCRATCH/smp
	copy "$views" "$dir"
	meta_edit "$dir" '.SMP_WORKLOADS = "mq-randread-qd1 mq-randread-qd32 switch-2cpu"'
	check "views run with SMP_WORKLOADS: exit 0" summarise_rc 0 "$dir"
	check "  ... mq-randread-qd1 iops is random there (deterministic without)" \
		test "$(grep -c '^on,key-off,mq-randread-qd1,iops,random,' "$dir/summary.csv"),$(grep -c \
			'^on,key-off,mq-randread-qd1,iops,deterministic,' "$REPO/$views/summary.csv")" == 1,1
	check "  ... randread-qd1 iops is not" grep -q '^on,key-off,randread-qd1,iops,deterministic,' "$dir/summary.csv"
	meta_edit "$dir" '.SMP_WORKLOADS = "mq-randread-qd64"'
	check "SMP_WORKLOADS naming no workload of the run: exit 2" summarise_rc 2 "$dir"
	check "  ... it names it" says 'workload "mq-randread-qd64" is not in'
	finish
}

main "$@"
