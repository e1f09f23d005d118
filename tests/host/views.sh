#!/usr/bin/env bash
# The views run from their recipes (bench/plan/views/NAME.job): on a copy
# of the repository, a view added as one recipe and nothing else (its
# guest script an existing one) is planned by bench/run/views.sh --list as
# the recipe says (its configs, states and vCPUs), its recipe is in the
# plan, and a run of it gets a report section titled by its DESCRIPTION
# with the table of its rows.  And today's views plan the boots they
# always did (the list below was made by the views.sh whose case
# statements the recipes replaced).  No build, no boot.
#
#   tests/host/views.sh     "ok"/"not ok" a line; exit 1 on a failure
# shellcheck disable=SC2034 # read by the runner, as blktests reads it
DESCRIPTION="a view is its recipe: one added as a recipe alone is planned, resolved and reported"
set -euo pipefail
shopt -s inherit_errexit

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"
export CACHE=$SCRATCH/cache RESULTS_ROOT=$SCRATCH/results BENCH_T0=''
COPY=$SCRATCH/repo

# The boots of every view over CONFIGS='off on', "VIEW CONFIG STATE CPUS".
BOOTS='errcost off off 1
errcost on key-off 1
errcost on fail-all 1
footprint off off 1
footprint on key-off 1
latency off off 1
latency on key-off 1
latency on key-on-other 1
latency on rules-1 1
layout off off 1
layout off-layout off 1
mq off off 2
mq on key-off 2
mq on key-on-other 2
mq on rules-1 2
mq on rule-churn 2
polled off off 1
polled on key-off 1
polled on key-on-other 1
polled on rules-1 1
switch on key-off 1
switch on key-off 2'

# copy_repo: the tracked files but the committed runs, at COPY
copy_repo() {
	mkdir -p "$COPY"
	git -C "$REPO_DIR" ls-files -z | grep -zv '^results/' | tar -C "$REPO_DIR" --null -T - -cf - | tar -C "$COPY" -xf -
}

# a_view: the recipe of a view that boots on 1 and 3 vCPUs, in two states,
# over every config but the layout one, with the latency view's script
a_view() {
	cat >"$COPY/bench/plan/views/demo.job" <<'EOF'
# A view added by tests/host/views.sh: nothing but this recipe.
DESCRIPTION = latency on one and three vCPUs
GUEST       = view-latency
CPUS        = 1 3
STATES      = key-off rules-1
WORKLOADS   = randread-qd1
COUNT       = marks
PARSERS     = fio plugin
EOF
}

# a_run DIR: a run of the demo view as views.sh records it (meta.json,
# summary.csv of two rows), for the report
a_run() {
	local dir=$1
	mkdir -p "$dir"
	printf 'seq,config,state,workload,repeat,status,metric,value\n' >"$dir/runs.csv"
	printf '%s\n' '1,off,off,randread-qd1-1cpu,1,ok,iops,100000' '2,off,off,randread-qd1-3cpu,1,ok,iops,99000' >>"$dir/runs.csv"
	jq -n '{RUN_ID: "demo", ACCEL: "tcg-icount", CONFIGS: "off", STATES: "key-off rules-1", BASELINE: "off off",
		VIEWS: "demo", VIEW_DEMO_DESCRIPTION: "latency on one and three vCPUs",
		VIEW_DEMO_ROWS: "randread-qd1-1cpu randread-qd1-3cpu", VIEW_SECONDS_demo: "61",
		SMP_WORKLOADS: "randread-qd1-3cpu", COMMAND: "bench/run/views.sh demo"}' >"$dir/meta.json"
}

main() {
	local out rc
	rc=0
	out=$(cd "$REPO_DIR" && bench/run/views.sh --list all 2>"$SCRATCH/err") || rc=$?
	check "views.sh --list all: exit 0 (got $rc)" test "$rc" = 0
	check "  ... today's views plan the boots they always did" test "$out" == "$BOOTS"
	[[ $out == "$BOOTS" ]] || { diff <(echo "$BOOTS") <(echo "$out") || :; } | sed "s/^/      /"

	copy_repo
	a_view
	rc=0
	out=$(cd "$COPY" && bench/run/views.sh --list demo 2>"$SCRATCH/err") || rc=$?
	check "a view added as a recipe alone: views.sh --list demo exits 0 (got $rc)" test "$rc" = 0
	[[ $rc == 0 ]] || sed -n 1,3p "$SCRATCH/err" | sed 's/^/      /'
	check "  ... its boots: each config, each state, on 1 and 3 vCPUs" test "$out" == "demo off off 1
demo off off 3
demo on key-off 1
demo on key-off 3
demo on rules-1 1
demo on rules-1 3"
	out=$(cd "$COPY" && bench/plan/resolve views VIEWS=demo 2>&1) || true
	check "  ... its recipe is in the plan" grep -qx 'VIEW_DEMO_GUEST=view-latency' <<<"$out"
	check "  ... make views builds its configs" grep -qx 'VIEWS_CONFIGS=off on' <<<"$out"

	a_run "$SCRATCH/run"
	rc=0
	(cd "$COPY" && bench/stats/summarise.sh "$SCRATCH/run" && bench/report/report.sh "$SCRATCH/run") >"$SCRATCH/out" 2>&1 || rc=$?
	check "  ... a run of it is summarised and reported (exit $rc)" test "$rc" = 0
	[[ $rc == 0 ]] || tail -n 3 "$SCRATCH/out" | sed 's/^/      /'
	check "  ... its report section is titled by its DESCRIPTION" grep -qx '### Latency on one and three vCPUs (1m01s)' "$SCRATCH/run/report.md"
	check "  ... with its rows" grep -q '^| off | off | randread-qd1-3cpu |' "$SCRATCH/run/report.md"
	finish
}

main "$@"
