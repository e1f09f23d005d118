#!/usr/bin/env bash
# Report generation is deterministic: every committed run that has a
# report.md is copied to a scratch directory and its report (bench/report/report.sh,
# or per-patch.sh report for a per-patch run) and figures (plots/
# make-plots.sh, make-view-plots.sh where the run has a view's figure) are
# made again, ROUNDS times (default 3) from a fresh copy at the same path,
# each round with another hash function in gawk.  Every round must give the
# same bytes.  A regenerated file that differs
# from the committed one is listed as "drift" (not a failure: report.sh
# changes with the code; the committed file is made again by the same
# command).  Nothing is written into results/.
#
#   tests/host/report-determinism.sh [RUN...]    RUN: results/<run>
#   ROUNDS=3 (nproc runs are checked at once)
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/lib/help.sh
. "$(dirname "$0")/../../bench/lib/help.sh"
help_answer "$0" "$@"

REPO_DIR=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${ROUNDS:-3}
WORKERS=$(nproc)
# gawk's hash function, one per round, so that output in the order of
# awk's "for (k in a)" shows as a difference (gawk 5.2 reads AWK_HASH)
HASHES=('' gst fnv1a)
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

# committed_runs: results/<run> of every run with a committed report.md
committed_runs() {
	git -C "$REPO_DIR" ls-files 'results/*/report.md' | sed 's,/report\.md$,,' | sort
}

# view_figures RUN: the run has a committed figure of make-view-plots.sh
view_figures() {
	git -C "$REPO_DIR" ls-files "$1/plots" | grep -Ec '/(mq|polled|layout|latency-percentiles)\.svg$' >/dev/null
}

# regenerate RUN DIR: the run's figures and report made again in DIR
regenerate() {
	local run=$1 dir=$2
	if [[ -n $(git -C "$REPO_DIR" ls-files "$run/plots") ]]; then
		rm -rf "$dir/plots"
		"$REPO_DIR/plots/make-plots.sh" "$dir"
		! view_figures "$run" || "$REPO_DIR/plots/make-view-plots.sh" "$dir"
	fi
	if [[ -f $dir/per-patch.csv ]]; then
		"$REPO_DIR/bench/run/per-patch.sh" report "$dir"
	else
		"$REPO_DIR/bench/report/report.sh" "$dir"
	fi
}

# outputs RUN: the committed files that regenerate makes again
outputs() {
	git -C "$REPO_DIR" ls-files "$1/report.md" "$1/report.txt" "$1/plots" | sed "s,^$1/,,"
}

# round N RUN: a fresh copy of RUN's tracked files (at the same path every
# round: per-patch's report names it), regenerated; the outputs kept in
# SCRATCH/round-N/<run>.  Fails when the regeneration fails.
round() {
	local n=$1 run=$2 dir=$SCRATCH/copy/$2 keep=$SCRATCH/round-$1/${2##*/} f
	rm -rf "$dir"
	mkdir -p "$SCRATCH/copy" "$keep"
	git -C "$REPO_DIR" ls-files -z "$run" | tar -C "$REPO_DIR" --null -T - -cf - | tar -C "$SCRATCH/copy" -xf -
	if ! AWK_HASH=${HASHES[(n - 1) % 3]} regenerate "$run" "$dir" >"$keep.log" 2>&1; then
		printf 'FAIL  %s: round %s: regeneration failed\n' "$run" "$n"
		tail -n 5 "$keep.log" | sed 's/^/      /'
		return 1
	fi
	while read -r f; do
		mkdir -p "$(dirname "$keep/$f")"
		cp "$dir/$f" "$keep/$f" 2>/dev/null || : >"$keep/$f.missing"
	done < <(outputs "$run")
}

# check_run RUN: ROUNDS regenerations of RUN compared; "ok"/"FAIL" lines,
# and "drift" lines for the committed files that differ from round 1
check_run() {
	local run=$1 name=${1##*/} n f
	for ((n = 1; n <= ROUNDS; n++)); do round "$n" "$run" || return 0; done
	for ((n = 2; n <= ROUNDS; n++)); do
		if diff -r "$SCRATCH/round-1/$name" "$SCRATCH/round-$n/$name" >"$SCRATCH/$name.diff" 2>&1; then
			printf 'ok    %s: round %s is byte-identical to round 1\n' "$run" "$n"
		else
			printf 'FAIL  %s: round %s differs from round 1\n' "$run" "$n"
			sed -n 1,10p "$SCRATCH/$name.diff" | sed 's/^/      /'
		fi
	done
	while read -r f; do
		cmp -s "$REPO_DIR/$run/$f" "$SCRATCH/round-1/$name/$f" || printf 'drift %s/%s\n' "$run" "$f"
	done < <(outputs "$run")
}

main() {
	local runs run out passed failed
	if [[ $# -gt 0 ]]; then runs=("${@%/}"); else mapfile -t runs < <(committed_runs); fi
	[[ ${#runs[@]} -gt 0 ]] || { echo "no committed run with a report.md" >&2; exit 2; }
	export BENCH_T0=''
	# benchstat built once, before the workers share it
	export CACHE=${CACHE:-$REPO_DIR/.cache}
	mkdir -p "$CACHE/tools"
	make -s -C "$REPO_DIR/bench/stats" OUT="$CACHE/tools" "$CACHE/tools/benchstat"
	# the runs WORKERS at a time (each run's rounds in order, at one path)
	for run in "${runs[@]}"; do
		while [[ $(jobs -pr | wc -l) -ge $WORKERS ]]; do wait -n || :; done
		check_run "$run" >"$SCRATCH/${run##*/}.out" 2>&1 &
	done
	wait
	out=$(for run in "${runs[@]}"; do cat "$SCRATCH/${run##*/}.out"; done)
	printf '%s\n' "$out" | grep -v '^drift ' || :
	if [[ $out == *$'\n'drift* || $out == drift* ]]; then
		printf 'drift (made again, differs from the committed file; not a failure):\n'
		printf '%s\n' "$out" | sed -n 's/^drift /      /p'
	fi
	passed=$(printf '%s\n' "$out" | grep -c '^ok ' || :)
	failed=$(printf '%s\n' "$out" | grep -c '^FAIL ' || :)
	printf '%d passed, %d failed\n' "$passed" "$failed"
	[[ $failed == 0 && $passed -gt 0 ]]
}

main "$@"
