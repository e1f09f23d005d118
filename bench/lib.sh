# shellcheck shell=bash
# Shared helpers for the bench scripts: cache layout, progress lines, errors,
# and the names a user may give (configs, states, workloads, accelerators).

# A failure inside $(...) stops the script, as it would outside.
shopt -s inherit_errexit

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$BENCH_DIR/.." && pwd)
CACHE=${CACHE:-$REPO_DIR/.cache}
# The physical path, so that compiler paths match ccache's base directory.
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd -P)
BENCH_T0=${BENCH_T0:-$(date +%s)}
export CACHE BENCH_T0

# Print a progress line prefixed with the elapsed time of this job.
log() {
	local now
	now=$(date +%s)
	printf '[%4ds] %s\n' $((now - BENCH_T0)) "$*" >&2
}

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
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
	exit 1
}

# Configs of the matrix, in build order.
all_configs() {
	local f
	for f in "$BENCH_DIR"/configs/*.config; do
		case $(basename "$f") in
		common.config) ;;
		*) basename "$f" .config ;;
		esac
	done
}

config_fragment() {
	check_configs "$1"
	printf '%s\n' "$BENCH_DIR/configs/$1.config"
}

# one_line: words on stdin, space-separated on one line.
one_line() {
	tr '\n' ' ' | sed 's/ *$//'
}

# check_configs NAME...: die naming the valid configs unless every NAME is one.
check_configs() {
	local c
	for c in "$@"; do
		[[ -n $c && -f $BENCH_DIR/configs/$c.config && $c != common ]] ||
			die "unknown config '$c' (valid: $(all_configs | one_line))"
	done
}

# Injection states bench/guest/state.sh knows; rules-N takes any N >= 1.
VALID_STATES="off key-off key-on-other rules-N match-chance ei-idle ei-rule fmr-p0 dm-linear dm-error-unused dm-flakey-up dm-dust"

check_states() {
	local s
	for s in "$@"; do
		[[ $s =~ ^rules-[1-9][0-9]*$ || " $VALID_STATES " == *" $s "* && $s != rules-N ]] ||
			die "unknown state '$s' (valid: $VALID_STATES)"
	done
}

# fio jobs in bench/fio.
all_workloads() {
	local f
	for f in "$BENCH_DIR"/fio/*.fio; do basename "$f" .fio; done
}

check_workloads() {
	local w
	for w in "$@"; do
		[[ -n $w && -f $BENCH_DIR/fio/$w.fio ]] ||
			die "unknown workload '$w' (valid: $(all_workloads | one_line))"
	done
}

VALID_ACCELS="auto kvm tcg tcg-icount"

check_accel() {
	[[ " $VALID_ACCELS " == *" $1 "* && -n $1 ]] ||
		die "unknown accelerator '$1' (valid: $VALID_ACCELS)"
}

# The source tree a config is built from ("# tree: NAME" in its fragment).
config_tree() {
	local tree
	tree=$(sed -n 's/^# tree: *//p' "$(config_fragment "$1")")
	printf '%s\n' "${tree:-main}"
}

kernel_build_dir() {
	printf '%s/build/%s\n' "$CACHE" "$1"
}

# gate_site BUILD_DIR: address of the blk_error_injection_enabled jump-label
# site in submit_bio_noacct_nocheck, from the build's vmlinux (empty and
# non-zero status when the config has none).  Builds the host tool
# perf-scripts/jump-sites.c into the cache when its source changed.
gate_site() {
	local tool=$CACHE/tools/jump-sites src=$REPO_DIR/perf-scripts/jump-sites.c
	if [[ ! -x $tool || $src -nt $tool ]]; then
		mkdir -p "$CACHE/tools"
		gcc -std=c11 -Wall -Wextra -Werror -O2 -o "$tool" "$src" || return 1
	fi
	"$tool" "$1/vmlinux" blk_error_injection_enabled 2>/dev/null |
		awk 'index($2, "submit_bio_noacct_nocheck+") == 1 { print $1; exit }'
}
