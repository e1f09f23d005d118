# shellcheck shell=bash
# Progress: a line with the job's elapsed time, and the whole job's steps
# with an ETA.  Part of bench/lib/lib.sh, which sources it; sourcing it
# defines functions and nothing else (log_init sets the job's start).

# log_init: the job's start BENCH_T0 (a driver's, inherited by the
# scripts it runs) and STEP_TIMES in the cache; after cache_init.
log_init() {
	BENCH_T0=${BENCH_T0:-$EPOCHSECONDS}
	export BENCH_T0
	STEP_TIMES=$CACHE/step-times
}

# Print a progress line prefixed with the elapsed time of this job.
log() {
	local now
	now=$EPOCHSECONDS
	printf '[%4ds] %s\n' $((now - BENCH_T0)) "$*" >&2
}

# The whole job's progress: one line per step with the job's elapsed time
# and an ETA over every step left, builds and boots alike.  The driver that
# knows the job (bench/run/all.sh) writes the plan, "KEY ESTIMATE_S" a line,
# into JOB_PLAN; the scripts it runs announce their steps by KEY.  A script
# run on its own plans its own steps.  Estimates are the last measured
# duration of the same step (STEP_TIMES, kept in the cache: log_init) or a
# default.

# step_estimate KEY DEFAULT_S: the last measured duration of KEY, or DEFAULT_S.
step_estimate() {
	local v=''
	[[ ! -f $STEP_TIMES ]] || v=$(awk -v k="$1" '$1 == k { v = $2 } END { print v }' "$STEP_TIMES")
	printf '%s\n' "${v:-$2}"
}

# job_plan_start FILE: make FILE (lines "KEY ESTIMATE") the job's plan,
# unless an enclosing job already has one.
job_plan_start() {
	[[ -z ${JOB_PLAN:-} ]] || return 0
	JOB_PLAN=$1
	export JOB_PLAN
	: >"$JOB_PLAN.done"
}

# job_plan_replace KEY: the plan's line KEY becomes the lines on stdin (a
# driver's placeholder for steps only a later script can list); a plan
# still empty (the script runs on its own) becomes those lines.
job_plan_replace() {
	local lines
	[[ -n ${JOB_PLAN:-} ]] || return 0
	lines=$(cat)
	if [[ ! -s $JOB_PLAN ]]; then
		[[ -z $lines ]] || printf '%s\n' "$lines" >"$JOB_PLAN"
		return 0
	fi
	awk -v key="$1" -v lines="$lines" '$1 == key { if (lines != "") print lines; next } { print }' "$JOB_PLAN" >"$JOB_PLAN.new"
	mv "$JOB_PLAN.new" "$JOB_PLAN"
}

# job_step KEY LABEL: the previous step of this job is done, KEY starts.
job_step() {
	local key=$1 label=$2 now elapsed k n left_est eta
	now=$EPOCHSECONDS
	job_step_end "$now"
	elapsed=$((now - BENCH_T0))
	if [[ -z ${JOB_PLAN:-} || ! -f $JOB_PLAN ]]; then
		log "$label"
		return
	fi
	printf '%s %s\n' "$key" "$now" >"$JOB_PLAN.current"
	read -r k n left_est < <(awk -v key="$key" '
		FILENAME == ARGV[1] { done[$1] = 1; next }
		{ n++; if ($1 == key && !k) k = n
		  if (!($1 in done)) l += $2 }
		END { printf "%d %d %d\n", k, n, l }' "$JOB_PLAN.done" "$JOB_PLAN")
	# The estimates of the steps left, this one included: each is the
	# last measured duration of its kind (a default the first time).
	eta=$left_est
	printf '[%4ds] [step %d/%d, ETA %s] %s\n' "$elapsed" "$k" "$n" "$(fmt_eta "$eta")" "$label" >&2
}

# job_step_end [NOW]: the running step is done; remember how long it took.
job_step_end() {
	local now=${1:-$EPOCHSECONDS} key t
	[[ -n ${JOB_PLAN:-} && -f $JOB_PLAN.current ]] || return 0
	read -r key t <"$JOB_PLAN.current"
	rm -f "$JOB_PLAN.current"
	printf '%s\n' "$key" >>"$JOB_PLAN.done"
	# KEY#N: the N-th step of its kind; the kind is what is remembered.
	printf '%s %d\n' "${key%%#*}" $((now - t)) >>"$STEP_TIMES"
}

fmt_eta() {
	if (($1 >= 60)); then printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); else printf '%ds' "$1"; fi
}
