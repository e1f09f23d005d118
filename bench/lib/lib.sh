# shellcheck shell=bash
# Shared helpers for the bench scripts: cache layout, progress lines, errors,
# and the names a user may give (configs, states, workloads, accelerators).
#
# Sourcing this file defines functions and constants and nothing else: no
# directory made, nothing printed, nothing exported.  A script that uses
# the cache, the progress lines or the kernel variant calls lib_init once,
# after its -h answer and its own settings.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPO_DIR=$(cd "$BENCH_DIR/.." && pwd)

# lib_init [ARG...]: what a script that works in the cache needs first:
# CACHE (default REPO_DIR/.cache) made, marked as ours and made physical;
# the job's start BENCH_T0; STEP_TIMES; KSRC and SERIES resolved
# (resolve_variant); BENCH_COMMAND from the settings and ARGs, the
# script's arguments (bench_command).  Exported for the scripts it runs.
lib_init() {
	CACHE=${CACHE:-$REPO_DIR/.cache}
	# The physical path, so that compiler paths match ccache's base directory.
	mkdir -p "$CACHE"
	# the mark that make clean-cache looks for before it removes anything
	[[ -e $CACHE/.blkinject-cache ]] || : >"$CACHE/.blkinject-cache"
	CACHE=$(cd "$CACHE" && pwd -P)
	BENCH_T0=${BENCH_T0:-$(date +%s)}
	export CACHE BENCH_T0
	STEP_TIMES=$CACHE/step-times
	resolve_variant
	bench_command "$@"
}

# Print a progress line prefixed with the elapsed time of this job.
log() {
	local now
	now=$(date +%s)
	printf '[%4ds] %s\n' $((now - BENCH_T0)) "$*" >&2
}

# die MESSAGE: stop with MESSAGE and status DIE_STATUS (default 1; a
# script whose interface documents another status for bad input sets it).
die() {
	printf 'error: %s\n' "$*" >&2
	exit "${DIE_STATUS:-1}"
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
	for f in "$BENCH_DIR"/kernel/configs/*.config; do
		case $(basename "$f") in
		common.config) ;;
		*) basename "$f" .config ;;
		esac
	done
}

config_fragment() {
	check_configs "$1"
	printf '%s\n' "$BENCH_DIR/kernel/configs/$1.config"
}

# has_feature CONFIG: the config builds error injection in (its fragment
# says so); one without it is measured in state "off" only.
has_feature() {
	grep -q '^CONFIG_BLK_ERROR_INJECTION=y' "$(config_fragment "$1")"
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

# one_line: words on stdin, space-separated on one line.
one_line() {
	tr '\n' ' ' | sed 's/ *$//'
}

# check_configs NAME...: die naming the valid configs unless every NAME is one.
check_configs() {
	local c
	for c in "$@"; do
		[[ -n $c && -f $BENCH_DIR/kernel/configs/$c.config && $c != common ]] ||
			die "unknown config '$c' (valid: $(all_configs | one_line))"
	done
}

# check_built CONFIG...: die unless every CONFIG is a config with a finished
# build in the cache, naming the ones that are built.
check_built() {
	local c stamp built=''
	check_configs "$@"
	for c in "$@"; do
		[[ ! -f $(kernel_build_dir "$c")/.blkinject-stamp ]] || continue
		for stamp in "$CACHE"/build/*/.blkinject-stamp; do
			[[ ! -f $stamp ]] || built+=" $(basename "$(dirname "$stamp")")"
		done
		die "config $c is not built: run 'make kernels' (or bench/kernel/build.sh build $c); built:${built:- none}"
	done
}

# Injection states bench/guest/state.sh knows; rules-N takes any N >= 1.
VALID_STATES="off key-off key-on-other rules-N match-chance ei-idle ei-rule fmr-p0 dm-linear dm-error-unused dm-flakey-up dm-dust bpf-detached bpf-idle bpf-rule"

check_states() {
	local s
	for s in "$@"; do
		[[ $s =~ ^rules-[1-9][0-9]*$ || " $VALID_STATES " == *" $s "* && $s != rules-N ]] ||
			die "unknown state '$s' (valid: $VALID_STATES)"
	done
}

# fio jobs in bench/guest/fio.
all_workloads() {
	local f
	for f in "$BENCH_DIR"/guest/fio/*.fio; do basename "$f" .fio; done
}

check_workloads() {
	local w
	for w in "$@"; do
		[[ -n $w && -f $BENCH_DIR/guest/fio/$w.fio ]] ||
			die "unknown workload '$w' (valid: $(all_workloads | one_line))"
	done
}

VALID_ACCELS="auto kvm tcg tcg-icount"

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

# tree_has_series TREE: false for a tree marked no-series in
# bench/kernel/configs/trees (the source alone).
tree_has_series() {
	! awk -v n="$1" '$1 == n { for (i = 2; i <= NF; i++) if ($i == "no-series") f = 1 } END { exit !f }' \
		"$BENCH_DIR/kernel/configs/trees"
}

# tree_variant TREE: the variant root (lib.sh's resolve_variant) whose
# configs use TREE: VARIANT_ROOT, or for a tree without the series the
# SERIES=none root of the same KSRC.  A config's build directory is
# build/CONFIG there.
tree_variant() {
	if tree_has_series "$1"; then
		printf '%s\n' "$VARIANT_ROOT"
	else
		printf '%s\n' "$VARIANT_NOSERIES_ROOT"
	fi
}

# tree_root TREE: the root TREE lives in, as src/tree-main beside the
# build/CONFIG directories of its configs: main's (and a no-series tree's)
# is its variant root, another tree's TREES/NAME inside it.  Compile
# commands, made relative by CCACHE_BASEDIR, are then the same in every
# tree wherever the sources agree, so ccache shares the objects the trees
# have in common (a cold nokey build after on is mostly cache hits).
tree_root() {
	local variant
	variant=$(tree_variant "$1")
	if [[ $1 == main ]] || ! tree_has_series "$1"; then
		printf '%s\n' "$variant"
	else
		printf '%s/trees/%s\n' "$variant" "$1"
	fi
}

tree_dir() { printf '%s/src/tree-main\n' "$(tree_root "$1")"; }

# kernel_build_dir CONFIG: where every script finds CONFIG's build (a link
# to the tree root's build/CONFIG for a tree other than main).
kernel_build_dir() {
	printf '%s/build/%s\n' "$(tree_variant "$(config_tree "$1")")" "$1"
}

# modules_image CONFIG: the initramfs piece with CONFIG's modules.
modules_image() {
	printf '%s/images/modules-%s.cpio\n' "$(tree_variant "$(config_tree "$1")")" "$1"
}

# The kernel source and the series applied to it.  KSRC: a git checkout
# (its HEAD commit), an extracted tree or a tarball; default Debian's
# linux-source-6.12 tarball.  SERIES: a directory with a "series" file
# (default patches/) or "none" for a tree that already has the change.
# The default pair keeps today's layout under $CACHE (src/pristine,
# src/tree-NAME, build/CONFIG); any other pair gets its own VARIANT_ROOT,
# $CACHE/variants/KSRC_ID+SERIES_ID, with the same layout inside, so the
# trees and builds of different sources and series never mix (and the
# compiler sees the same relative paths, which ccache needs to share
# objects).  The pristine config (a tree marked no-series) builds in the
# root of KSRC with SERIES=none.  A non-default KSRC is copied once to
# $CACHE/ksrc/KSRC_ID.
SOURCE_PKG=linux-source-6.12
SOURCE_TARBALL=/usr/src/linux-source-6.12.tar.xz

# ksrc_identity: "KIND ID" of KSRC (kind: debian, git, dir, tar).
ksrc_identity() {
	local top newest
	if [[ -z ${KSRC:-} || $KSRC == "$SOURCE_TARBALL" ]]; then
		printf 'debian debian-%s\n' "$(dpkg-query -W -f='${Version}' "$SOURCE_PKG" 2>/dev/null || echo none)"
	elif [[ -d $KSRC ]]; then
		top=$(git -C "$KSRC" rev-parse --show-toplevel 2>/dev/null || true)
		if [[ -n $top && $top == "$(cd "$KSRC" && pwd -P)" ]]; then
			printf 'git git-%s\n' "$(git -C "$KSRC" rev-parse --short=12 HEAD)"
		elif [[ -f $KSRC/Makefile && -f $KSRC/Kconfig ]]; then
			newest=$(find "$KSRC" -type f -printf '%T@\n' | sort -n | tail -n 1)
			printf 'dir dir-%s\n' "$(printf '%s %s' "$(cd "$KSRC" && pwd -P)" "$newest" | sha256sum | cut -c1-12)"
		else
			die "KSRC=$KSRC is not a kernel source: give a git checkout (its top directory), an extracted tree (Makefile and Kconfig at its top) or a tarball (.tar, .tar.gz, .tar.xz, .tar.bz2, .tar.zst)"
		fi
	elif [[ -f $KSRC ]]; then
		case $KSRC in
		*.tar | *.tar.gz | *.tgz | *.tar.xz | *.txz | *.tar.bz2 | *.tar.zst) ;;
		*) die "KSRC=$KSRC is not a kernel source: a file must be a tarball (.tar, .tar.gz, .tar.xz, .tar.bz2, .tar.zst); or give a git checkout or an extracted tree" ;;
		esac
		printf 'tar tar-%s\n' "$(sha256sum "$KSRC" | cut -c1-12)"
	else
		die "KSRC=$KSRC: no such file or directory (give a git checkout, an extracted tree or a tarball; unset for $SOURCE_TARBALL)"
	fi
}

# series_patches DIR: the patch files DIR/series lists, one a line, in order.
series_patches() {
	local p
	while read -r p; do
		[[ -z $p || $p == \#* ]] && continue
		printf '%s/%s\n' "$1" "${p%% *}"
	done <"$1/series"
}

# series_identity: SERIES_DIR and its ID (a hash over the listed patches).
series_identity() {
	local s=${SERIES:-$REPO_DIR/patches} p patches
	if [[ $s == none ]]; then
		printf '%s none\n' "$s"
		return
	fi
	[[ -d $s && -f $s/series ]] ||
		die "SERIES=$s has no series file: give a directory with a 'series' file listing its patches in order (like patches/), or SERIES=none for a tree that already has the change"
	s=$(cd "$s" && pwd -P)
	while read -r p; do
		[[ -f $p ]] || die "SERIES=$s: $(basename "$p") is listed in its series file but missing"
	done < <(series_patches "$s")
	mapfile -t patches < <(series_patches "$s")
	printf '%s %s\n' "$s" "$(cat "$s/series" "${patches[@]}" | sha256sum | cut -c1-12)"
}

# Resolve KSRC and SERIES once per job (the children inherit the answer).
resolve_variant() {
	local kind id sdir sid
	[[ ${VARIANT_FOR:-} != "${KSRC:-}|${SERIES:-}|$CACHE" || -z ${VARIANT_ROOT:-} ]] || return 0
	read -r kind id < <(ksrc_identity)
	[[ -n ${id:-} ]] || exit 1
	read -r sdir sid < <(series_identity)
	[[ -n ${sid:-} ]] || exit 1
	KSRC_KIND=$kind KSRC_ID=$id SERIES_DIR=$sdir SERIES_ID=$sid
	if [[ $kind == debian && $sdir == "$(cd "$REPO_DIR/patches" && pwd -P)" ]]; then
		VARIANT_ROOT=$CACHE
	else
		VARIANT_ROOT=$CACHE/variants/$id+$([[ $sid == none ]] && echo none || echo "series-$sid")
	fi
	VARIANT_NOSERIES_ROOT=$CACHE/variants/$id+none
	VARIANT_FOR="${KSRC:-}|${SERIES:-}|$CACHE"
	export KSRC_KIND KSRC_ID SERIES_DIR SERIES_ID VARIANT_ROOT VARIANT_NOSERIES_ROOT VARIANT_FOR
}

# host_tool NAME: the host tool perf-scripts/NAME.c, built into the cache
# under the hash of its source (checkouts of other commits may share the
# cache); prints its path.
host_tool() {
	local src=$REPO_DIR/perf-scripts/$1.c tool
	tool=$CACHE/tools/$1-$(sha256sum <"$src" | cut -c1-12)
	if [[ ! -x $tool ]]; then
		mkdir -p "$CACHE/tools"
		gcc -std=c11 -Wall -Wextra -Werror -O2 -o "$tool.$$" "$src" || return 1
		mv -f "$tool.$$" "$tool"
	fi
	printf '%s\n' "$tool"
}

# gate_entry BUILD_DIR: "ADDRESS BRANCH" of the blk_error_injection_enabled
# jump-label site in submit_bio_noacct_nocheck, from the build's vmlinux
# (perf-scripts/jump-sites.c); empty and non-zero status when the config
# has none.  BRANCH is the entry's branch bit: 0, the site is a NOP while
# the key is off; 1, a jump.
gate_entry() {
	local tool
	tool=$(host_tool jump-sites) || return 1
	"$tool" "$1/vmlinux" blk_error_injection_enabled 2>/dev/null |
		awk '!f && index($2, "submit_bio_noacct_nocheck+") == 1 { sub(/^branch=/, "", $3); print $1, $3; f = 1 }
			END { exit !f }'
}

# gate_site BUILD_DIR: the site's address (gate_entry).
gate_site() {
	local entry
	entry=$(gate_entry "$1") || return 1
	printf '%s\n' "${entry%% *}"
}

# gate_branch BUILD_DIR: the site's branch bit, 0 when there is no site.
gate_branch() {
	local entry
	entry=$(gate_entry "$1" || true)
	if [[ -n $entry ]]; then printf '%s\n' "${entry#* }"; else printf '0\n'; fi
}

# The whole job's progress: one line per step with the job's elapsed time
# and an ETA over every step left, builds and boots alike.  The driver that
# knows the job (bench/run/all.sh) writes the plan, "KEY ESTIMATE_S" a line,
# into JOB_PLAN; the scripts it runs announce their steps by KEY.  A script
# run on its own plans its own steps.  Estimates are the last measured
# duration of the same step (STEP_TIMES, kept in the cache: lib_init) or a
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
# driver's placeholder for steps only a later script can list).
job_plan_replace() {
	local lines
	[[ -n ${JOB_PLAN:-} && -f $JOB_PLAN ]] || return 0
	lines=$(cat)
	awk -v key="$1" -v lines="$lines" '$1 == key { if (lines != "") print lines; next } { print }' "$JOB_PLAN" >"$JOB_PLAN.new"
	mv "$JOB_PLAN.new" "$JOB_PLAN"
}

# job_step KEY LABEL: the previous step of this job is done, KEY starts.
job_step() {
	local key=$1 label=$2 now elapsed k n left_est eta
	now=$(date +%s)
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
	local now=${1:-$(date +%s)} key t
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

# The command line that started this job, for meta.env: BENCH_COMMAND when
# make (or another driver) says what was run, else the settings given in
# the environment and the script.
SETTINGS_VARS="CONFIGS STATES WORKLOADS SOFTIRQ_WORKLOADS REPEATS PLAN_NOISE THRESHOLD BOOTS PLUGIN PERF_RECORD FIO_IOS FIO_RUNTIME FIO_RAMP ACCEL SEED BASELINE PERF_REPEATS RUN_ID RUN_TIMEOUT RESULTS_ROOT RESULTS_DIR"

# bench_command [ARG...]: BENCH_COMMAND, unless already set, from the
# settings in the environment, the script ($0) and ARGs.
bench_command() {
	[[ -z ${BENCH_COMMAND:-} ]] || return 0
	BENCH_COMMAND=$(
		for v in $SETTINGS_VARS; do
			[[ -z ${!v+set} ]] || printf '%s=%q ' "$v" "${!v}"
		done
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
