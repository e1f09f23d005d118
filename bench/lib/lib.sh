# shellcheck shell=bash
# Shared helpers for the bench scripts, one concern a file, all sourced
# here so that a script sources lib.sh alone: progress lines (log.sh), the
# cache's layout (cache.sh), the names a user may give (catalog.sh),
# questions to a kernel build (kernel-syms.sh), the accelerators
# (accel.sh), a script's help and exit statuses (help.sh), reading the
# resolved plan (plan.sh), the matrix and its results (results.sh), the
# boot-and-collect step of every driver (boot.sh); here a
# script's start, errors, a guest's boot and the job's command line.
#
# Sourcing this file defines functions and constants and nothing else: no
# directory made, nothing printed, nothing exported.  A script starts with
# one call: driver_start (a driver of bench/run: its plan, then the cache)
# or tool_start (any other script that reads a setting: those it reads,
# from a plan, then the cache).

# shellcheck source=bench/lib/help.sh
. "${BASH_SOURCE[0]%/*}/help.sh"

path_abs BENCH_DIR "${BASH_SOURCE[0]%/*}/.."
# its parent (BENCH_DIR is absolute, as cd made it)
REPO_DIR=${BENCH_DIR%/*}
REPO_DIR=${REPO_DIR:-/}

# shellcheck source=bench/lib/log.sh
. "$BENCH_DIR/lib/log.sh"
# shellcheck source=bench/lib/cache.sh
. "$BENCH_DIR/lib/cache.sh"
# shellcheck source=bench/lib/catalog.sh
. "$BENCH_DIR/lib/catalog.sh"
# shellcheck source=bench/lib/kernel-syms.sh
. "$BENCH_DIR/lib/kernel-syms.sh"
# shellcheck source=bench/lib/accel.sh
. "$BENCH_DIR/lib/accel.sh"
# shellcheck source=bench/lib/plan.sh
. "$BENCH_DIR/lib/plan.sh"
# shellcheck source=bench/lib/results.sh
. "$BENCH_DIR/lib/results.sh"
# shellcheck source=bench/lib/boot.sh
. "$BENCH_DIR/lib/boot.sh"

# lib_init [ARG...]: what a script that works in the cache needs first:
# CACHE, and KSRC and SERIES where its plan has them (a command that finds
# builds), from the plan; the cache made and the variant of KSRC and
# SERIES resolved (cache_init), the job's start (log_init), BENCH_COMMAND
# from the script and ARGs (bench_command).  Exported for the scripts it
# runs.
lib_init() {
	plan_read CACHE
	! plan_has KSRC SERIES || plan_read KSRC SERIES
	cache_init
	log_init
	bench_command "$@"
}

# driver_start DRIVER[,DRIVER...] [NAME=VALUE...] -- SCRIPT [ARG...]: a
# driver's start: its help on -h; then its settings, as under make: run
# on its own (or by a test) it goes again through the resolver, which
# exits 2 on bad input before anything is made (plan_first); another
# driver hands it a plan of its own (plan_call); then lib_init ARG...
# The driver reads each setting from the plan (plan_read).
driver_start() {
	local -a start=()
	split_at_dashes start "$@"
	set -- "${@:${#start[@]}+2}"
	help_answer "$@"
	plan_first "${start[@]}" -- "$@"
	shift
	lib_init "$@"
}

# split_at_dashes ARRAY WORD... -- REST...: the WORDs before "--" into
# ARRAY (the caller then drops them and the "--": ${@:${#ARRAY[@]}+2}).
split_at_dashes() {
	local -n split_into=$1
	shift
	split_into=()
	while [[ $# -gt 0 && $1 != -- ]]; do
		split_into+=("$1")
		shift
	done
}

# tool_start DRIVER 'NAME...' [NAME=VALUE...] -- SCRIPT [ARG...]: a tool's
# start: its help on -h; then NAMEs, the settings it reads (of DRIVER's),
# from the plan of the command that runs it or resolved for it alone
# (plan_need); then lib_init ARG...  NAMEs hold CACHE, and KSRC and
# SERIES where it finds a build.
tool_start() {
	local driver=$1 names=$2
	local -a tool_settings=()
	shift 2
	split_at_dashes tool_settings "$@"
	set -- "${@:${#tool_settings[@]}+2}"
	help_answer "$@"
	plan_need "$driver" "$names" ${tool_settings[@]+"${tool_settings[@]}"} -- "$@"
	shift
	lib_init "$@"
}

# no_arguments SCRIPT [ARG...]: SCRIPT (a driver) takes its settings from
# its plan (the environment, NAME=VALUE of make), so any ARG is bad input.
no_arguments() {
	local name=${1##*/}
	[[ $# -le 1 ]] || die_bad_input "unknown argument '$2' ($name takes settings from the environment; see $name -h)"
}

# die MESSAGE: stop with MESSAGE and status DIE_STATUS (default
# STATUS_FAILED; bench/lib/status.sh has the table).
die() {
	printf 'error: %s\n' "$*" >&2
	exit "${DIE_STATUS:-$STATUS_FAILED}"
}

# die_bad_input MESSAGE: stop with STATUS_BAD_INPUT (a usage, a name or a
# setting that is wrong; nothing was done).
die_bad_input() {
	DIE_STATUS=$STATUS_BAD_INPUT die "$@"
}

# die_setup MESSAGE: stop with STATUS_SETUP (the machine lacks something).
die_setup() {
	DIE_STATUS=$STATUS_SETUP die "$@"
}

# die_with_log MESSAGE LOGFILE [LINES]: fail showing the tail of a log.
die_with_log() {
	local msg=$1 logfile=$2 lines=${3:-40}
	{
		printf 'error: %s\n' "$msg"
		printf -- '--- last %d lines of %s ---\n' "$lines" "$logfile"
		tail -n "$lines" "$logfile"
		printf -- '--- end of %s ---\n' "$logfile"
	} >&2
	exit "$STATUS_FAILED"
}

# wrap_at WIDTH INDENT: stdin's lines longer than WIDTH broken at spaces,
# continued with INDENT; no trailing spaces (text a reviewer pastes)
wrap_at() {
	awk -v w="$1" -v ind="$2" '{
		line = $0
		while (length(line) > w) {
			cut = w
			while (cut > 20 && substr(line, cut + 1, 1) != " ") cut--
			if (cut <= 20) cut = w
			head = substr(line, 1, cut); sub(/ +$/, "", head)
			print head
			line = substr(line, cut + 1); sub(/^ +/, "", line)
			line = ind line
		}
		sub(/ +$/, "", line)
		print line
	}'
}

# What every boot of a guest shares, run-guest's and a lab's job's alike:
# the kernel's command line (nokaslr: System.map addresses hold for the
# plugin and the gate; panic=-1 with QEMU's -no-reboot ends a panicked
# guest at once) and the memory a config's guest gets.
# shellcheck disable=SC2034 # read by run-guest and bench/lab/lava-jobs.sh
GUEST_CMDLINE="console=ttyS0 loglevel=5 nokaslr panic=-1 oops=panic"

# guest_memory_mb CONFIG: debug's KASAN and lockdep need more.
guest_memory_mb() {
	if [[ $1 == debug ]]; then echo 2048; else echo 1024; fi
}

# guest_env CONFIG ACCEL RELEASE SMP SHELL [KEY=VALUE...]: the guest's
# /bench/env, which its init sources with "set -a" (bench/guest/init).
guest_env() {
	local kv
	printf 'BENCH_CONFIG=%s\nBENCH_ACCEL=%s\nBENCH_KERNEL=%s\nBENCH_SMP=%s\nBENCH_SHELL=%s\n' "$1" "$2" "$3" "$4" "$5"
	shift 5
	for kv in "$@"; do
		printf '%s=%q\n' "${kv%%=*}" "${kv#*=}"
	done
}

# bench_command [ARG...]: BENCH_COMMAND, the command line that started
# this job (meta.json's COMMAND), unless make or bench/plan/run said it
# (with the settings the user gave), from the script ($0) and ARGs.
bench_command() {
	[[ -z ${BENCH_COMMAND:-} ]] || return 0
	BENCH_COMMAND=$(
		printf '%s' "${0#"$REPO_DIR"/}"
		for a in "$@"; do printf ' %q' "$a"; done
	)
	export BENCH_COMMAND
}

# annotate_gate PERF_DATA_B64 CONFIG OUT: perf annotate of the gate from
# a base64 perf.data (made by the guest's perf record).
annotate_gate() {
	local b64=$1 cfg=$2 out=$3 build data
	build=$(kernel_build_dir "$cfg")
	data=$b64.perf.data
	base64 -d "$b64" >"$data" 2>/dev/null || { echo "no perf.data" >"$out"; return; }
	{
		printf '# perf annotate of submit_bio_noacct_nocheck, config %s (samples from cpu-clock)\n' "$cfg"
		perf annotate -i "$data" --vmlinux "$build/vmlinux" --stdio \
			submit_bio_noacct_nocheck 2>/dev/null | sed -n 1,60p ||
			echo "(perf annotate found no samples in submit_bio_noacct_nocheck)"
	} >"$out"
	rm -f "$data"
}
