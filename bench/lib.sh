# shellcheck shell=bash
# Shared helpers for the bench scripts: cache layout, progress lines, errors.

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
	local f=$BENCH_DIR/configs/$1.config
	[[ -f $f ]] || die "unknown config '$1' (have: $(all_configs | tr '\n' ' '))"
	printf '%s\n' "$f"
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
