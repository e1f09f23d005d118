#!/usr/bin/env bash
# A benchmark, not a test: how long benchstat takes, and how much memory,
# on large inputs.  Prints one line per case: wall seconds, peak RSS in MB,
# and benchstat's exit status and summary line.
#
#   bash bench/stats/scale-bench.sh [RUNS_A_SIDE [GROUPS]]   (10000, 20000)
#   BENCHSTAT=/path/to/benchstat bash bench/stats/scale-bench.sh   (another build)
#
# Cases: one group of RUNS_A_SIDE runs a side (the normal approximation,
# its pairwise differences selected, never stored), compared and
# summarised; GROUPS groups of 5 runs a side (the hash table), compared
# and summarised.  Values are seeded normal noise of 1% around 1e5, NEW's
# 2% lower.  Needs GNU time (/usr/bin/time, Debian's package time).
# shellcheck disable=SC2016  # awk programs in single quotes
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/help.sh
. "$HERE/../lib/help.sh"
help_answer "$0" "$@"

here=$(cd "$HERE" && pwd)
# shellcheck source=bench/lib/status.sh
. "$here/../lib/status.sh"
runs=${1:-10000}
groups=${2:-20000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[[ -x /usr/bin/time ]] || { echo "scale-bench: needs /usr/bin/time (apt-get install time)" >&2; exit "$STATUS_SETUP"; }
[[ $runs =~ ^[1-9][0-9]*$ && $groups =~ ^[1-9][0-9]*$ ]] || { echo "usage: scale-bench.sh [RUNS_A_SIDE [GROUPS]]" >&2; exit "$STATUS_BAD_INPUT"; }
bs=${BENCHSTAT:-$tmp/benchstat}
[[ -n ${BENCHSTAT:-} ]] || env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$here" OUT="$tmp" >&2

# gen FILE GROUPS N LEVEL SEED: GROUPS groups of N runs around LEVEL
gen() {
	awk -v groups="$2" -v n="$3" -v level="$4" -v seed="$5" 'BEGIN {
		srand(seed)
		print "seq,config,state,workload,repeat,status,metric,value"
		for (g = 1; g <= groups; g++)
			for (i = 1; i <= n; i++) {
				z = sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand())
				printf "%d,on,s%d,w,%d,ok,iops,%.3f\n", ++seq, g, i, level * (1 + 0.01 * z)
			}
	}' >"$1"
}

# measure NAME CMD...: one line of figures for CMD
measure() {
	local name=$1 rc=0
	shift
	/usr/bin/time -f '%e %U %M' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	read -r wall user kb < <(tail -n 1 "$tmp/time")
	printf '%-40s %6.2f s wall %6.2f s user %6.1f MB  exit %d  %s\n' "$name" "$wall" "$user" \
		"$(awk -v k="$kb" 'BEGIN { print k / 1024 }')" \
		"$rc" "$(grep -E ' compared, |^on,s2,' "$tmp/out" | sed -n 1p | cut -c1-60)"
}

gen "$tmp/base1.csv" 1 "$runs" 100000 1
gen "$tmp/new1.csv" 1 "$runs" 98000 2
gen "$tmp/baseg.csv" "$groups" 5 100000 3
gen "$tmp/newg.csv" "$groups" 5 98000 4
measure "compare: 1 group, $runs runs a side" "$bs" compare --accel kvm "$tmp/base1.csv" "$tmp/new1.csv"
measure "summary: 1 group, $runs runs" "$bs" summary --accel kvm --baseline-config on --baseline-state s1 "$tmp/base1.csv"
measure "compare: $groups groups, 5 runs a side" "$bs" compare --accel kvm "$tmp/baseg.csv" "$tmp/newg.csv"
measure "summary: $groups groups, 5 runs" "$bs" summary --accel kvm --baseline-config on --baseline-state s1 "$tmp/baseg.csv"
