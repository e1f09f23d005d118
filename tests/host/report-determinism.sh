#!/usr/bin/env bash
# Report generation is deterministic, and committed reports are what
# today's code makes of their runs: each committed run with a report.md is
# copied to a scratch directory (at results/<run> below it, the path a
# user names) and its figures (plots/make-plots.sh, and
# make-view-plots.sh where the run has a view's figure) and report
# (bench/report/report.sh, or bench/run/per-patch.sh report) are made once,
# with a gawk hash function other than the one the committed files were
# made with (gawk's own): gst and fnv1a by turns among the runs of a kind,
# so that output in the order of awk's "for (k in a)" would differ.  Each
# file made is compared with the committed one, a line each: the same
# bytes pass (per-patch's line naming the commit that made its tables
# again is compared without that commit).  A file that differs is made a
# second time with the other hash (its figures or its report, not both
# when one will do): the two must be the same bytes, and the file is
# listed as "drift" (made again, differs from the committed one: figures
# drawn before a change to the plotting code; not a failure, as the
# committed file is made again by the same command).  Nothing is written
# into results/.  Before, every run was made three times over (200 s).
#
#   tests/host/report-determinism.sh [RUN...]    RUN: results/<run>
#   (the host's cores' worth of runs at once)
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="every committed report and figure made again under another awk hash: the committed bytes, or the same twice"
# shellcheck source=bench/lib/help.sh
. "$(dirname "$0")/../../bench/lib/help.sh"
help_answer "$0" "$@"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
scratch_init

# committed_runs: results/<run> of every run with a committed report.md
committed_runs() {
	git -C "$REPO_DIR" ls-files 'results/*/report.md' | sed 's,/report\.md$,,' | sort
}

# view_figures RUN: the run has a committed figure of make-view-plots.sh
view_figures() {
	git -C "$REPO_DIR" ls-files "$1/plots" | grep -Ec '/(mq|polled|layout|latency-percentiles)\.svg$' >/dev/null
}

# make_figures RUN: the run's figures made again in the copy
# SCRATCH/copy/RUN, named as a user names it (relative, from SCRATCH/copy).
make_figures() {
	local run=$1
	cd "$SCRATCH/copy"
	[[ -n $(git -C "$REPO_DIR" ls-files "$run/plots") ]] || return 0
	rm -rf "$run/plots"
	"$REPO_DIR/plots/make-plots.sh" "$run"
	! view_figures "$run" || "$REPO_DIR/plots/make-view-plots.sh" "$run"
}

# make_report RUN: the run's report made again in the copy, as above.
make_report() {
	local run=$1
	cd "$SCRATCH/copy"
	if [[ -f $run/per-patch.csv ]]; then
		# RESULTS=DIR, which the shared plan does not hold: per-patch.sh
		# resolves its plan again, the shared one its parent
		BENCH_COMMAND="bench/run/per-patch.sh report $run" "$REPO_DIR/bench/run/per-patch.sh" report "$run"
	else
		"$REPO_DIR/bench/report/report.sh" "$run"
	fi
}

# outputs RUN: the committed files that make_figures and make_report make again
outputs() {
	git -C "$REPO_DIR" ls-files "$1/report.md" "$1/report.txt" "$1/plots"
}

# comparable FILE: FILE as compared: per-patch's line on the tables made
# again names the commit of the code that made them, which moves on.
comparable() {
	# shellcheck disable=SC2016 # Markdown backquotes, not a command
	sed -E 's/^(- tables made again by `[^`]*` at )[0-9a-f]{7,40}$/\1COMMIT/' "$1"
}

# same A B: the files are the same bytes, as compared (comparable); cmp
# alone first: the same bytes need no sed (two processes a file, 171 files)
same() {
	cmp -s "$1" "$2" || cmp -s <(comparable "$1") <(comparable "$2")
}

# made HASH STEP RUN: STEP (make_figures or make_report) of RUN with
# AWK_HASH=HASH; a failure is a "not ok" line with the log's tail.
made() {
	if ! (AWK_HASH=$1 "$2" "$3") >"$SCRATCH/${3##*/}.$2.log" 2>&1; then
		fail "$3: ${2#make_} made again with AWK_HASH=$1"
		tail -n 5 "$SCRATCH/${3##*/}.$2.log" | sed 's/^/      /'
		return 1
	fi
}

# check_run RUN HASH OTHER: RUN made again with AWK_HASH=HASH, each of its
# committed outputs compared with its file; those that differ made again
# with OTHER and compared with the first; "ok"/"not ok"/"drift" lines.
check_run() {
	local run=$1 hash=$2 other=$3 f first=$SCRATCH/first/${1##*/} figures=0 report=0
	local -a drift=()
	mkdir -p "$SCRATCH/copy" "$first"
	git -C "$REPO_DIR" ls-files -z "$run" | tar -C "$REPO_DIR" --null -T - -cf - | tar -C "$SCRATCH/copy" -xf -
	made "$hash" make_figures "$run" && made "$hash" make_report "$run" || return 0
	while read -r f; do
		if [[ ! -f $SCRATCH/copy/$f ]]; then
			fail "$f: made again with AWK_HASH=$hash (not made)"
		elif same "$REPO_DIR/$f" "$SCRATCH/copy/$f"; then
			pass "$f: made again with AWK_HASH=$hash: the committed bytes"
		else
			drift+=("$f")
			mkdir -p "$(dirname "$first/$f")"
			cp "$SCRATCH/copy/$f" "$first/$f"
			[[ $f == */plots/* ]] && figures=1 || report=1
		fi
	done < <(outputs "$run")
	[[ ${#drift[@]} -gt 0 ]] || return 0
	((figures == 0)) || made "$other" make_figures "$run" || return 0
	((report == 0)) || made "$other" make_report "$run" || return 0
	for f in "${drift[@]}"; do
		if same "$first/$f" "$SCRATCH/copy/$f"; then
			pass "$f: made again with AWK_HASH=$hash and $other: the same bytes"
			printf 'drift %s\n' "$f"
		else
			fail "$f: made again with AWK_HASH=$hash and $other: the same bytes"
			diff <(comparable "$first/$f") <(comparable "$SCRATCH/copy/$f") | sed -n '1,8s/^/      /p' || :
		fi
	done
}

# kind RUN: the kind of run, its name without the date and time
kind() {
	local n=${1##*/}
	printf '%s\n' "${n#*-*-}"
}

main() {
	local runs run k
	local -A seen=()
	local -a hashes=(gst fnv1a)
	if [[ $# -gt 0 ]]; then runs=("${@%/}"); else mapfile -t runs < <(committed_runs); fi
	[[ ${#runs[@]} -gt 0 ]] || { echo "no committed run with a report.md" >&2; exit 2; }
	export BENCH_T0=''
	# benchstat built once, before the workers share it
	export CACHE=${CACHE:-$REPO_DIR/.cache}
	mkdir -p "$CACHE/tools"
	make -s -C "$REPO_DIR/bench/stats" OUT="$CACHE/tools" "$CACHE/tools/benchstat"
	# One plan for every figure and report (the settings they read, CACHE
	# and THRESHOLD, are the same for every run), handed on as a driver
	# hands its plan to the tools it runs: not a resolver run for each of
	# the runs' hundred-odd commands.
	test_plan report 'CACHE THRESHOLD'
	# the runs the host's cores' worth at a time (bg_slot), each made once,
	# the hash by turns in its kind
	for run in "${runs[@]}"; do
		k=$(kind "$run")
		seen[$k]=$((${seen[$k]:-0} + 1))
		bg_slot
		check_run "$run" "${hashes[(${seen[$k]} - 1) % 2]}" "${hashes[${seen[$k]} % 2]}" \
			>"$SCRATCH/${run##*/}.out" 2>&1 &
	done
	wait
	for run in "${runs[@]}"; do cat "$SCRATCH/${run##*/}.out"; done >"$SCRATCH/all"
	grep -v '^drift ' "$SCRATCH/all" || :
	if grep -q '^drift ' "$SCRATCH/all"; then
		printf 'drift (made again, differs from the committed file; not a failure):\n'
		sed -n 's/^drift /      /p' "$SCRATCH/all"
	fi
	passed=$(grep -c '^ok - ' "$SCRATCH/all" || :)
	failed=$(grep -c '^not ok - ' "$SCRATCH/all" || :)
	check "there were committed files to compare" test "$passed" -gt 0
	finish
}

main "$@"
