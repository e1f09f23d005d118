#!/usr/bin/env bash
# Join the pieces of results that "bench.sh --job ID" wrote, on one host or
# many, into the results directory one bench.sh run of the same matrix
# writes: runs.csv (rows in plan order), plan.txt, summary.csv,
# summary.json, meta.json, raw.tar.xz, annotate/, failures.txt.
#
#   merge.sh [-o DIR] PIECE...
#     -o DIR   the merged directory (default RESULTS_ROOT/RUN_ID, RUN_ID
#              <date>-<accel>-merged); it must not exist
#
# The pieces must come from the same matrix (the settings in their
# meta.json and their plan.txt agree), the same commit and QEMU (under
# kvm and tcg also the same host CPU), measure the same build of each
# config, and together hold every job of the plan exactly once.  meta.json
# is the first piece's, with the matrix's CONFIGS, every config's build,
# host keys that differ between pieces joined with " | ", and PIECES: each
# piece's job, run, date, host and command.  Exit status 1 when a piece's
# boot failed (after writing everything), 2 for pieces that do not fit.
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lab/lava.sh
. "$HERE/lava.sh"
lab_start merge 'CACHE RESULTS_ROOT RUN_ID' "$0" "$@"

# What makes two pieces parts of one matrix run: the settings, the code
# that measured (this project's commit, QEMU), and under kvm and tcg,
# where the host's speed is in every number, the host's CPU.
MATRIX_KEYS="ACCEL CONFIGS STATES BASELINE REPEATS SEED BOOTS WORKLOADS SOFTIRQ_WORKLOADS FIO_RUNTIME FIO_RAMP FIO_IOS PLUGIN KERNEL_SOURCE SERIES_SHA256 GIT_COMMIT QEMU"

# check_piece DIR: a piece of "bench.sh --job", or die saying what it lacks.
check_piece() {
	local f
	for f in meta.json runs.csv plan.txt; do
		[[ -f $1/$f ]] || die "$1 is not a piece of bench.sh --job (no $f)"
	done
	[[ -n $(meta_get "$1" JOB_ID) ]] || die "$1 is not a piece of bench.sh --job (meta.json has no JOB_ID; a whole run needs no merge)"
}

# check_same PIECE...: the pieces agree on the matrix and its plan.
check_same() {
	local first=$1 p k a b keys=$MATRIX_KEYS
	# the host is in every number where guest time is the host's
	! accel_host_time "$(meta_get "$first" ACCEL)" || keys+=" HOST_CPU HOST_NPROC"
	for p in "$@"; do
		for k in $keys; do
			a=$(meta_get "$first" "$k") b=$(meta_get "$p" "$k")
			[[ $a == "$b" ]] || die "$first and $p are not one matrix: $k is '$a' and '$b'"
		done
		cmp -s "$first/plan.txt" "$p/plan.txt" || die "$first and $p have different plans (plan.txt)"
	done
}

# check_jobs PIECE...: every job of the plan once.
check_jobs() {
	local first=$1 boots ids missing
	boots=$(meta_get "$first" BOOTS)
	ids=$(for p in "$@"; do meta_get "$p" JOB_ID; done | sort)
	[[ -z $(uniq -d <<<"$ids") ]] || die "job $(uniq -d <<<"$ids" | one_line) is in more than one piece"
	missing=$(plan_jobs "$boots" <"$first/plan.txt" | cut -d' ' -f1 | sort | comm -23 - <(printf '%s\n' "$ids"))
	[[ -z $missing ]] || die "no piece holds job $(one_line <<<"$missing") (run bench.sh --job ID for it)"
}

# merged_meta OUT PIECE...: meta.json of the merged run (see the top).
merged_meta() {
	local out=$1
	shift
	local metas=()
	for p in "$@"; do metas+=("$p/meta.json"); done
	jq -s --arg run_id "$(basename "$out")" --arg command "$BENCH_COMMAND" '
		def joined(k): [.[] | .[k] // empty | tostring] | unique | join(" | ");
		. as $all |
		(reduce $all[].BUILDS as $b ({}; . + $b)) as $builds |
		$all[0] + {
			RUN_ID: $run_id, DATE: ([$all[].DATE] | min), COMMAND: $command, BUILDS: $builds,
			PIECES: [$all[] | {JOB_ID, RUN_ID, DATE, HOST_CPU, HOST_NPROC, HOST_KERNEL, QEMU, GIT_COMMIT, COMMAND}]
		} + (reduce ("HOST_CPU", "HOST_KERNEL", "QEMU", "GCC", "FIO", "PERF", "GIT_COMMIT", "KERNEL_RELEASE") as $k
			({}; . + {($k): ($all | joined($k))})) +
		# the workloads on more than one vCPU (bench/run/views.sh) of every piece
		(if any($all[]; has("SMP_WORKLOADS")) then
			{SMP_WORKLOADS: ([$all[].SMP_WORKLOADS // "" | splits("[ \t]+")] |
				map(select(length > 0)) | unique | join(" "))} else {} end) |
		del(.JOB_ID)' "${metas[@]}" >"$out/meta.json"
}

# check_builds PIECE...: one build per config across the pieces.
check_builds() {
	local clash
	clash=$(for p in "$@"; do
		jq -r --arg p "$p" '.BUILDS | to_entries[] | "\(.key) \(.value.build_id) \($p)"' "$p/meta.json"
	done | sort | awk '!found && $1 == c && $2 != b { print $1 ": build " b " in " p ", " $2 " in " $3; found = 1 }
		{ c = $1; b = $2; p = $3 }')
	[[ -z $clash ]] || die "the pieces measured different kernels of config $clash; run every job of a config on one build"
}

main() {
	local out='' p tmp failed=0
	help_option "$0" -o out "$@"
	shift $((OPTIND - 1))
	[[ $# -ge 1 ]] || help_usage "$0"
	for p in "$@"; do check_piece "$p"; done
	check_same "$@"
	check_jobs "$@"
	check_builds "$@"
	[[ $RUN_ID != auto ]] || RUN_ID=$(date -u +%Y%m%d-%H%M%S)-$(meta_get "$1" ACCEL)-merged
	[[ -n $out ]] || out=$(results_root)/$RUN_ID
	[[ ! -e $out ]] || die "$out exists already"
	mkdir -p "$out"
	cp "$1/plan.txt" "$out/plan.txt"
	# The rows in plan order, as one run appends them: by seq, each
	# boot's rows in their own order.
	{
		head -1 "$1/runs.csv"
		for p in "$@"; do tail -n +2 "$p/runs.csv"; done | sort -t, -k1,1n -s
	} >"$out/runs.csv"
	for p in "$@"; do [[ ! -f $p/failures.txt ]] || cat "$p/failures.txt"; done | sort -k1,1n >"$out/failures.txt"
	[[ -s $out/failures.txt ]] || rm -f "$out/failures.txt"
	tmp=$(mktemp -d)
	mkdir "$tmp/raw"
	for p in "$@"; do
		[[ ! -f $p/raw.tar.xz ]] || tar -C "$tmp" -xJf "$p/raw.tar.xz"
		[[ ! -d $p/annotate ]] || { mkdir -p "$out/annotate"; cp "$p"/annotate/* "$out/annotate/"; }
	done
	tar -C "$tmp" -cJf "$out/raw.tar.xz" raw
	rm -rf "$tmp"
	merged_meta "$out" "$@"
	record_run "$out"
	summarise "$out"
	log "merge: $# pieces into $out/summary.csv"
	printf '%s\n' "$out"
	[[ ! -f $out/failures.txt ]] || failed=$(wc -l <"$out/failures.txt")
	((failed == 0)) || DIE_STATUS=$STATUS_FAILED die "$failed boots failed (see $out/failures.txt); their rows are marked failed"
}

main "$@"
