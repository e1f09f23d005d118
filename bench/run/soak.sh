#!/usr/bin/env bash
# Boot one config many times, a few at a time, and count boots whose
# console has any kernel report: the check that a boot-time flake is gone.
#
#   soak.sh [-c CONFIG] [-n BOOTS] [-j PARALLEL] [-a ACCEL]
#
# The options are the settings CONFIG, SOAK_BOOTS, GUEST_JOBS and ACCEL,
# resolved and checked as make boot-soak's (their defaults: debug and 2
# from bench/plan/drivers/soak.job, 30 and auto from the table; auto is
# the accelerator make test uses).  Every boot runs a trivial script
# that prints the guest CPU's paging flags; the verdict of each boot is the
# runner's (bench/vm/run-guest).  Exit status 0 when every boot was clean.
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
help_answer "$0" "$@"

# settings ARG...: the options as the settings they give, NAME=VALUE a line.
settings() {
	local opt
	OPTIND=1
	while getopts 'c:n:j:a:' opt; do
		case $opt in
		c) echo "CONFIG=$OPTARG" ;;
		n) echo "SOAK_BOOTS=$OPTARG" ;;
		j) echo "GUEST_JOBS=$OPTARG" ;;
		a) echo "ACCEL=$OPTARG" ;;
		*) help_usage "$0" ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -eq 0 ]] || help_usage "$0"
}

SOAK_SETTINGS=$(settings "$@") || exit
mapfile -t SOAK_ARGS <<<"$SOAK_SETTINGS"
[[ -n $SOAK_SETTINGS ]] || SOAK_ARGS=()
driver_start soak ${SOAK_ARGS[@]+"${SOAK_ARGS[@]}"} -- "$0" "$@"
plan_read CONFIG SOAK_BOOTS GUEST_JOBS ACCEL_USED

# boot_once CONFIG ACCEL OUTDIR: one boot; its verdict (boot_verdict) in
# OUTDIR.verdict, so that the parallel boots' results are read after wait.
boot_once() {
	local cfg=$1 accel=$2 out=$3 script status=0
	script=$(mktemp)
	printf '%s\n' 'grep -m1 -o -w -e la57 /proc/cpuinfo || echo "no la57"' \
		'cut -d" " -f1 /proc/uptime' >"$script"
	boot_guest -q "$out" -c "$cfg" -a "$accel" -t 600 "$script" || status=$?
	rm -f "$script"
	boot_verdict "$out" "$status" >"$out.verdict"
}

main() {
	local cfg=$CONFIG n=$SOAK_BOOTS par=$GUEST_JOBS accel=$ACCEL_USED dir i k verdict console bad=0 first_bad=''
	dir=$CACHE/boot-soak/$cfg-$(date -u +%Y%m%d-%H%M%S)
	mkdir -p "$dir"
	# Build the images once, before parallel boots could race to.
	"$BENCH_DIR/vm/image.sh" base >/dev/null
	"$BENCH_DIR/vm/image.sh" modules "$cfg" >/dev/null
	log "boot-soak: $n boots of $cfg under $accel, $par at a time, into $dir"
	for ((i = 1; i <= n; i += par)); do
		for ((k = i; k < i + par && k <= n; k++)); do
			boot_once "$cfg" "$accel" "$dir/$k" &
		done
		wait
		for ((k = i; k < i + par && k <= n; k++)); do
			verdict=$(cat "$dir/$k.verdict")
			printf 'boot %3d  %-8s %s\n' "$k" "$(head -1 "$dir/$k/result.log" 2>/dev/null || true)" "$verdict"
			if [[ $verdict != ok ]]; then
				bad=$((bad + 1))
				[[ -n $first_bad ]] || first_bad=$k
			fi
		done
		log "boot-soak: $((k - 1))/$n booted, $bad with a problem"
	done
	printf '%s: %d boots of %s under %s, %d at a time: %d clean, %d with a problem\n' \
		"boot-soak" "$n" "$cfg" "$accel" "$par" $((n - bad)) "$bad"
	if [[ $bad -gt 0 ]]; then
		console=$dir/$first_bad/console.log
		[[ -f $console ]] || console="$dir/$first_bad.log (the runner's output; no console)"
		printf 'first problem: boot %s, console in %s\n' "$first_bad" "$console"
		return "$STATUS_FAILED"
	fi
}

main
