# shellcheck shell=bash
# Reading a plan, the file bench/plan/resolve writes: KEY=VALUE a line,
# "#" comments.  A value runs to the end of its line and is taken as it
# is: the plan is never sourced or evaluated, so nothing in a value (a
# quote, a $, a glob) can run or expand.  This is how every script reads
# a setting: never from the environment, never with a default of its own
# (the defaults are bench/plan/settings.table's and the job files').
#
# Sourcing this file defines functions and nothing else.
#   plan_load FILE        every KEY into the associative array PLAN; 2 on
#                         a file that is not a plan
#   plan_get FILE KEY     one value on stdout; 1 when KEY is not there
#   plan_read NAME...     each NAME, a setting the plan BIB_PLAN holds, into
#                         the shell variable NAME (what a script reads)
#   plan_has NAME...      BIB_PLAN holds every NAME
#   plan_given FILE       PLAN_GIVEN: "NAME=VALUE " (VALUE shell-quoted)
#                         for each setting a user gave (not a default, not
#                         a job file)
#   plan_for DRIVER...    BIB_PLAN (bench/plan/run's) is a plan of one of
#                         these drivers, not of a command that called this
#                         one with settings of its own (a test)
#   plan_first DRIVER[,DRIVER...] [NAME=VALUE...] -- SCRIPT [ARG...]
#                         a driver's first act: when BIB_PLAN is not a plan
#                         of these drivers, run SCRIPT ARG... again through
#                         bench/plan/run as the first DRIVER (its settings
#                         resolved and checked, exit 2 on bad input, as
#                         under make); when it is one that holds each
#                         NAME=VALUE, return; one that holds others is
#                         resolved again with them (-p BIB_PLAN)
#   plan_need DRIVER 'NAME...' [NAME=VALUE...] -- SCRIPT [ARG...]
#                         a tool's first act: NAMEs are the settings it
#                         reads (DRIVER's); from BIB_PLAN when it holds
#                         them (a driver ran the tool), else SCRIPT runs
#                         again through bench/plan/run with only those
#                         resolved and checked; then plan_read NAME...
#   plan_make FILE DRIVER [NAME=VALUE...]
#                         FILE, a plan of DRIVER made from BIB_PLAN's and
#                         the NAME=VALUEs (for a script that switches plans
#                         itself: export BIB_PLAN=FILE)
#   plan_call DRIVER [NAME=VALUE...] -- COMMAND [ARG...]
#                         COMMAND (a driver or tool another one runs) with
#                         a plan of DRIVER made from this one's and the
#                         NAME=VALUEs: a driver hands the plan on, never
#                         the environment
#   plan_jobs BOOTS       the boots of bench.sh's plan with their job IDs

plan_load() {
	local file=$1 line key n=0
	declare -gA PLAN=()
	if [[ ! -f $file || ! -r $file ]]; then
		printf 'error: plan %s: no such file (bench/plan/resolve writes one)\n' "$file" >&2
		return 2
	fi
	while IFS= read -r line || [[ -n $line ]]; do
		n=$((n + 1))
		[[ -n $line && $line != \#* ]] || continue
		key=${line%%=*}
		if [[ $line != *=* || ! $key =~ ^[A-Z][A-Z0-9_]*$ ]]; then
			printf 'error: plan %s:%d: not KEY=VALUE: %s\n' "$file" "$n" "$line" >&2
			return 2
		fi
		PLAN[$key]=${line#*=}
	done <"$file"
	# the format this reader knows; bench/lib/settings.sh writes it
	if [[ ${PLAN[PLAN_VERSION]:-} != 1 ]]; then
		printf 'error: plan %s: PLAN_VERSION is %s, want 1 (resolve it again)\n' "$file" "${PLAN[PLAN_VERSION]:-missing}" >&2
		return 2
	fi
}

plan_get() {
	awk -v k="$2" '
		index($0, k "=") == 1 { v = substr($0, length(k) + 2); f = 1 }
		END { if (f) print v; exit !f }' "$1"
}

# plan_loaded: PLAN holds BIB_PLAN (loaded once a process).
plan_loaded() {
	if [[ -z ${BIB_PLAN:-} ]]; then
		printf 'error: %s: no plan (BIB_PLAN): a script takes its settings from bench/plan/run\n' "${0##*/}" >&2
		return 2
	fi
	[[ ${PLAN_FILE:-} != "$BIB_PLAN" ]] || return 0
	plan_load "$BIB_PLAN" || return
	PLAN_FILE=$BIB_PLAN
}

plan_read() {
	local name
	plan_loaded || exit
	for name in "$@"; do
		if [[ -z ${PLAN[$name]+set} ]]; then
			printf 'error: %s reads %s, which the plan of %s does not hold (bench/plan/settings.table says which commands read a setting; a driver hands another its plan with plan_call)\n' \
				"${0##*/}" "$name" "${PLAN[DRIVER]}" >&2
			exit 1
		fi
		printf -v "$name" '%s' "${PLAN[$name]}"
	done
}

plan_has() {
	local name
	[[ -n ${BIB_PLAN:-} && -f $BIB_PLAN ]] || return 1
	plan_loaded 2>/dev/null || return 1
	for name in "$@"; do
		[[ -n ${PLAN[$name]+set} ]] || return 1
	done
}

# plan_given FILE: the settings whose value came from the environment,
# make's command line or an argument (the plan's "#   NAME: WHERE" lines),
# read in the shell: every command's start asks.
plan_given() {
	local line name given
	PLAN_GIVEN=''
	plan_load "$1" || return
	while IFS= read -r line; do
		[[ $line =~ ^'#   '([A-Z][A-Z0-9_]*):' '(the environment|make\'s command line|the command line)$ ]] || continue
		name=${BASH_REMATCH[1]}
		[[ -n ${PLAN[$name]+set} ]] || continue
		printf -v given '%s=%q ' "$name" "${PLAN[$name]}"
		PLAN_GIVEN+=$given
	done <"$1"
}

plan_for() {
	[[ -n ${BIB_PLAN:-} ]] || return 1
	# read in the shell (plan_loaded): every driver's start asks
	plan_loaded 2>/dev/null || return 1
	[[ -n ${PLAN[DRIVER]:-} && " $* " == *" ${PLAN[DRIVER]} "* ]]
}

# plan_rerun_args [NAME=VALUE...] -- SCRIPT [ARG...]: the same words in
# PLAN_RERUN, SCRIPT with a directory: "bash bench.sh" in bench/run has
# $0 bench.sh, which bench/plan/run would look for on PATH.
plan_rerun_args() {
	PLAN_RERUN=()
	while [[ $# -gt 0 && $1 != -- ]]; do
		PLAN_RERUN+=("$1")
		shift
	done
	[[ $# -ge 2 ]] || return 0
	PLAN_RERUN+=(--)
	if [[ $2 == */* || ! -f $2 ]]; then PLAN_RERUN+=("$2"); else PLAN_RERUN+=("./$2"); fi
	shift 2
	PLAN_RERUN+=("$@")
}

plan_first() {
	local drivers=${1//,/ } arg
	local -a parent=()
	shift
	# shellcheck disable=SC2086 # a list of names
	if plan_for $drivers; then
		# the run again that this function started: its plan is made
		# from these words (compared as given, a value the resolver made
		# absolute would differ, and run it again for ever)
		if [[ ${BIB_PLAN_FIRST-} == "$drivers $*" ]]; then
			unset BIB_PLAN_FIRST
			return 0
		fi
		# a plan of this driver that says what the NAME=VALUEs say is the
		# plan; one that says otherwise is resolved again with them, with
		# it as the parent (its values stand where the environment would)
		for arg; do
			[[ $arg != -- ]] || return 0
			[[ -n ${PLAN[${arg%%=*}]+set} && ${PLAN[${arg%%=*}]} == "${arg#*=}" ]] || break
		done
		parent=(-p "$BIB_PLAN")
	fi
	export BIB_PLAN_FIRST="$drivers $*"
	plan_rerun_args "$@"
	exec "${BASH_SOURCE[0]%/*}/../plan/run" ${parent[@]+"${parent[@]}"} "${drivers%% *}" "${PLAN_RERUN[@]}"
}

plan_need() {
	local driver=$1 names=$2
	shift 2
	# shellcheck disable=SC2086 # a list of names
	if ! plan_has $names; then
		plan_rerun_args "$@"
		exec "${BASH_SOURCE[0]%/*}/../plan/run" -n "$names" "$driver" "${PLAN_RERUN[@]}"
	fi
	# shellcheck disable=SC2086
	plan_read $names
}

plan_make() {
	local file=$1 driver=$2
	shift 2
	plan_loaded || return
	"${BASH_SOURCE[0]%/*}/../plan/resolve" -p "$BIB_PLAN" -o "$file" "$driver" "$@"
}

plan_call() {
	local driver=$1
	shift
	plan_loaded || return
	"${BASH_SOURCE[0]%/*}/../plan/run" -p "$BIB_PLAN" "$driver" "$@"
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
