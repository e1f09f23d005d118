# shellcheck shell=bash
# Job files (bench/plan/jobs/NAME.job): the benchmark matrix as one declarative
# file, "NAME = VALUE" a line, read by bench/run/bench.sh, bench/run/all.sh and (for the
# configs, states and baseline) every script that sources results.sh.
# JOB_FILE names one (a name in bench/plan/jobs or a path; default: default).
# Layers, the first that sets a value wins: the environment, JOB_FILE,
# bench/plan/jobs/default.job.  An empty variable counts as unset, except
# WORKLOADS and SOFTIRQ_WORKLOADS, where empty means none.  Needs lib.sh.

# The settings a job file may hold (bench.sh -h describes each).
JOB_KEYS="CONFIGS STATES BASELINE WORKLOADS SOFTIRQ_WORKLOADS REPEATS BOOTS ACCEL FIO_RUNTIME FIO_RAMP FIO_IOS PLUGIN PERF_RECORD SEED RUN_TIMEOUT"

all_job_files() {
	local f
	for f in "$BENCH_DIR"/plan/jobs/*.job; do basename "$f" .job; done
}

# job_file_path NAME|PATH: the job file JOB_FILE names.
job_file_path() {
	if [[ -f $BENCH_DIR/plan/jobs/$1.job ]]; then
		printf '%s\n' "$BENCH_DIR/plan/jobs/$1.job"
	elif [[ $1 == *.job && -f $1 ]]; then
		printf '%s\n' "$1"
	else
		die_bad_input "unknown job file '$1' (valid: $(all_job_files | one_line), or the path of a .job file)"
	fi
}

# job_settings FILE: "KEY<tab>VALUE" for each setting of FILE, blanks
# squeezed; dies naming the line of a malformed, unknown or repeated one.
job_settings() {
	local out
	out=$(awk -v keys=" $JOB_KEYS " -v file="$1" '
		/^[ \t]*(#|$)/ { next }
		{
			if (!match($0, /^[ \t]*[A-Z_][A-Z0-9_]*[ \t]*=/)) {
				printf "ERROR\t%s:%d: expected NAME = VALUE, got \"%s\"\n", file, NR, $0; exit 1
			}
			key = substr($0, 1, RLENGTH - 1); gsub(/[ \t]/, "", key)
			val = substr($0, RLENGTH + 1); gsub(/[ \t]+/, " ", val); sub(/^ /, "", val); sub(/ $/, "", val)
			if (index(keys, " " key " ") == 0) {
				printf "ERROR\t%s:%d: unknown setting %s (valid:%s)\n", file, NR, key, substr(keys, 1, length(keys) - 1); exit 1
			}
			if (key in seen) { printf "ERROR\t%s:%d: %s set twice\n", file, NR, key; exit 1 }
			seen[key] = 1
			printf "%s\t%s\n", key, val
		}' "$1") || true
	[[ $out != *ERROR$'\t'* ]] || die_bad_input "${out##*ERROR$'\t'}"
	printf '%s\n' "$out"
}

# job_load [KEY...]: set each KEY (default: all) that the environment does
# not set from the job file.  "auto" (REPEATS, BOOTS, FIO_RUNTIME,
# FIO_RAMP) stays unset: the driver chooses by accelerator.
job_load() {
	local keys=${*:-$JOB_KEYS} job file settings k v
	local -A value=()
	job=$(job_file_path "${JOB_FILE:-default}")
	for file in "$job" "$BENCH_DIR/plan/jobs/default.job"; do
		settings=$(job_settings "$file")
		while IFS=$'\t' read -r k v; do
			[[ -z $k || -n ${value[$k]+set} ]] || value[$k]=$v
		done <<<"$settings"
	done
	for k in $keys; do
		if [[ $k == WORKLOADS || $k == SOFTIRQ_WORKLOADS ]]; then
			[[ -z ${!k+set} ]] || continue
		else
			[[ -z ${!k:-} ]] || continue
		fi
		[[ -n ${value[$k]+set} ]] || continue
		v=${value[$k]}
		if [[ $v == auto && $k != ACCEL ]]; then
			unset "$k"
		else
			printf -v "$k" '%s' "$v"
		fi
	done
}

# plan_jobs BOOTS: plan lines ("SEQ CONFIG REPEAT STATES") on stdin with
# each boot's job ID in front: CONFIG.rREPEAT for a boot that measures
# every state of the config (per-config), CONFIG.STATE.rREPEAT for one
# state (per-state).  The ID names the work, not its place in the plan.
plan_jobs() {
	awk -v boots="$1" '{
		id = boots == "per-config" ? $2 ".r" $3 : $2 "." $4 ".r" $3
		print id, $0
	}'
}
