#!/usr/bin/env bash
# The parsers of bench/collect against the committed runs (issue 23): each
# parser, given the raw output a committed run keeps (raw.tar.xz or raw/),
# prints byte for byte the rows that run's runs.csv holds for it; every
# metric of every committed runs.csv is one `benchstat metrics` knows; a
# malformed input, an unknown metric or a metric benchstat does not list
# stops a parser with exit 2 and a message naming it; and a broken parser
# (a copy of bench/collect with one change) fails the golden comparison.
#
#   tests/host/parsers.sh      (builds benchstat into $CACHE/tools)
#
# Cases, one per parser and kind of raw output seen (fio 3.33 throughout;
# the runs: golden_runs below):
#   fio, plugin (between marks)  bench.sh's runs (per-config boots:
#                                raw/SEQ-CONFIG-rREPEAT; old per-state ones:
#                                raw/SEQ-CONFIG-STATE-rREPEAT), peers' too
#   fio, plugin (marks, punts),  the views runs (raw/SEQ-VIEW-CONFIG-STATE-
#   churn, switch, clockio,      NCPUcpu-rREPEAT): tcg-icount and tcg
#   plugin (whole boot, lines)
#   plugin (whole boot), perf    perf.sh's runs (raw/perf-SEQ-CONFIG-STATE-
#                                ACCEL-rREPEAT), the main run's and peers'
# Rows a parser does not make are left out of the comparison: failed rows
# (the driver's), footprint's text_bytes, func_bytes and jump_sites (read
# from the build's vmlinux, which no run keeps).
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="one parser per tool: committed raw output gives the committed rows; bad input exits 2"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"

STATIC_SET=" text_bytes func_bytes jump_sites "

# load_parsers DIR: the parsers of DIR/bench/collect, sourced.
load_parsers() {
	local t
	for t in fio plugin perf switch clockio churn footprint; do
		# shellcheck source=/dev/null # bench/collect/*.sh, the checkout's or a broken copy
		. "$1/bench/collect/$t.sh"
	done
}

# run_meta RUN KEY: a value of the run's meta.json, or of its old meta.env.
run_meta() {
	if [[ -f $1/meta.json ]]; then
		jq -r --arg k "$2" '.[$k] // empty' "$1/meta.json"
	else
		sed -n "s/^$2=//p" "$1/meta.env" | tr -d "'"
	fi
}

# raw_of RUN: the run's raw output, unpacked into the scratch area if need be.
raw_of() {
	local name=${1##*/}
	if [[ -d $1/raw ]]; then
		printf '%s\n' "$1/raw"
		return
	fi
	if [[ ! -d $SCRATCH/raw-$name ]]; then
		mkdir -p "$SCRATCH/raw-$name"
		tar -C "$SCRATCH/raw-$name" -xJf "$1/raw.tar.xz"
	fi
	printf '%s\n' "$SCRATCH/raw-$name/raw"
}

# prefixes RUN PATTERN: the ok rows' prefixes (seq..status) of RUN whose
# workload matches PATTERN, in runs.csv order.
prefixes() {
	awk -F, -v pat="$2" 'NR > 1 && $6 == "ok" && $4 ~ pat { p = $1 "," $2 "," $3 "," $4 "," $5 "," $6; if (!s[p]++) print p }' "$1/runs.csv"
}

# hot_funcs ARRAY PLUGIN_TXT: the functions the run counted, into ARRAY:
# HOT_FUNCS in its metadata, else (runs from before it was recorded) those
# of the plugin's output, in its order.  Into a named array, not printed
# into a subshell's capture: one subshell fewer a row.
hot_funcs() {
	local -n hot_funcs_into=$1
	local h=$RUN_HOT_FUNCS
	[[ -n $h ]] || h=$(awk '$2 ~ /^entries=/ && !s[$1]++ { printf "%s ", $1 }' "$2")
	# shellcheck disable=SC2034 # the caller's array, by name
	read -r -a hot_funcs_into <<<"$h"
}

# bench_rows RUN RAW PREFIX: bench.sh's rows of one prefix, by the parsers.
bench_rows() {
	local run=$1 p=$3 seq cfg state w rep dir ios f
	local -a funcs
	IFS=, read -r seq cfg state w rep _ <<<"$p"
	printf -v seq '%03d' "$seq"
	# per-config boots (fio-STATE-WORKLOAD), or the old per-state ones
	# (SEQ-CONFIG-STATE-rREPEAT/fio-WORKLOAD)
	dir=$2/$seq-$cfg-r$rep
	f=$dir/fio-$state-$w
	if [[ ! -d $dir ]]; then
		dir=$2/$seq-$cfg-$state-r$rep
		f=$dir/fio-$w
	fi
	if [[ $w == count-randread-qd1 ]]; then
		ios=$(fio_ios "$dir/fio-$state-$w")
		hot_funcs funcs "$dir/plugin.txt"
		collect_plugin_marks "$p" "$dir" "$state" "$ios" "${funcs[@]}"
	else
		collect_fio "$p" "$f" "$RUN_ACCEL"
	fi
}

# views_rows RUN RAW PREFIX: views.sh's rows of one prefix (its footprint
# view's static rows aside), by the parsers.
views_rows() {
	local p=$3 seq w dir reads first last
	IFS=, read -r seq _ _ w _ _ <<<"$p"
	printf -v seq '%03d' "$seq"
	printf -v dir '%s\n' "$2/$seq"-*
	dir=${dir%$'\n'}
	case $w in
	switch-*) collect_switch "$p" "$dir/switch" ;;
	pread-qd1) collect_clockio "$p" "$dir/clockio" ;;
	*)
		if [[ $dir == *-footprint-* ]]; then
			collect_plugin "$p" "$dir/plugin.txt" "$(fio_ios "$dir/fio-$w")" 1 '' '' submit_bio_noacct_nocheck
			collect_hot_lines "$p" "$dir/plugin.txt"
			return
		fi
		w=${w#layout-}
		collect_fio "$p" "$dir/fio-$w" "$RUN_ACCEL"
		[[ ! -f $dir/churn-$w ]] || collect_churn "$p" "$dir/churn-$w"
		[[ -f $dir/plugin.txt && -s $dir/count-$w ]] || return 0
		read -r reads first last <"$dir/count-$w"
		collect_plugin "$p" "$dir/plugin.txt" "$reads" 1 "$first" "$last" submit_bio_noacct_nocheck
		collect_punts "$p" "$dir/plugin.txt" "$reads" "$first" "$last"
		;;
	esac
}

# perf_rows RUN RAW PREFIX: perf.sh's rows of one prefix, by the parsers.
perf_rows() {
	local p=$3 seq cfg state rep dir ios
	local -a funcs
	IFS=, read -r seq cfg state _ rep _ <<<"$p"
	printf -v seq '%03d' "$seq"
	dir=$2/perf-$seq-$cfg-$state-tcg-icount-r$rep
	ios=$(fio_ios "$dir/fio-count-randread-qd1")
	hot_funcs funcs "$dir/plugin.txt"
	collect_plugin "$p" "$dir/plugin.txt" "$ios" 2 '' '' "${funcs[@]}"
	collect_perf "$p" "$dir/perf-stat" "$dir/perf-report" "$ios"
}

# golden KIND RUN PATTERN: KIND_rows of every ok prefix of RUN whose
# workload matches PATTERN against the run's own rows; prints "N rows", or
# the first differences and exit 1.
golden() {
	local kind=$1 run=$2 raw p rc=0
	raw=$(raw_of "$run")
	RUN_ACCEL=$(run_meta "$run" ACCEL) RUN_HOT_FUNCS=$(run_meta "$run" HOT_FUNCS)
	prefixes "$run" "$3" >"$SCRATCH/prefixes"
	while read -r p; do
		("${kind}_rows" "$run" "$raw" "$p") || { rc=$?; break; }
	done <"$SCRATCH/prefixes" >"$SCRATCH/got" 2>"$SCRATCH/err"
	awk -F, -v skip="$STATIC_SET" 'NR == FNR { want[$0] = 1; next }
		($1 "," $2 "," $3 "," $4 "," $5 "," $6) in want && !index(skip, " " $7 " ")' \
		"$SCRATCH/prefixes" "$run/runs.csv" >"$SCRATCH/want"
	# a run from before a metric was added (the clat percentiles and
	# insns_per_io came after 20261203-071403) is compared on its own ones
	awk -F, 'NR == FNR { if (FNR > 1) has[$7] = 1; next } $7 in has' "$run/runs.csv" "$SCRATCH/got" >"$SCRATCH/got.kept"
	mv "$SCRATCH/got.kept" "$SCRATCH/got"
	if [[ $rc != 0 ]]; then
		printf 'a parser stopped (exit %s) at %s: %s\n' "$rc" "$p" "$(cat "$SCRATCH/err")"
		return 1
	fi
	if ! cmp -s "$SCRATCH/got" "$SCRATCH/want"; then
		diff "$SCRATCH/want" "$SCRATCH/got" | sed -n '1,8s/^/    /p'
		return 1
	fi
	printf '%s rows\n' "$(wc -l <"$SCRATCH/want")"
	[[ -s $SCRATCH/want ]]
}

# check_golden NAME KIND RUN PATTERN
check_golden() {
	local out rc=0
	out=$(golden "${@:2}") || rc=$?
	check "$1: $(tail -n 1 <<<"$out") byte-equal to ${3#"$REPO_DIR"/}/runs.csv" test "$rc" = 0
	[[ $rc == 0 ]] || sed -n '1,12p' <<<"$out"
}

# bad_input NAME PATTERN CMD...: CMD exits 2 with PATTERN in its message.
bad_input() {
	local name=$1 pat=$2 rc=0
	shift 2
	("$@") >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
	check "$name: exit 2 (got $rc)" test "$rc" = 2
	check "$name: says '$pat'" grep -q -- "$pat" "$SCRATCH/err"
	check "$name: prints no row" test ! -s "$SCRATCH/out"
}

# broken_copy: bench/collect, bench/lib/metrics.sh, accel.sh and its
# cores.sh copied into the scratch area with fio's p99 reading p50's field
# (a parser bug).
broken_copy() {
	mkdir -p "$SCRATCH/broken/bench/lib"
	cp -r "$REPO_DIR/bench/collect" "$SCRATCH/broken/bench/"
	cp "$REPO_DIR/bench/lib/metrics.sh" "$REPO_DIR/bench/lib/accel.sh" "$REPO_DIR/bench/lib/cores.sh" \
		"$SCRATCH/broken/bench/lib/"
	# shellcheck disable=SC2016 # jq's $pc, not the shell's
	sed -i 's/\$pc\["99.000000"\]/$pc["50.000000"]/' "$SCRATCH/broken/bench/collect/fio-rows.jq"
	! cmp -s "$REPO_DIR/bench/collect/fio-rows.jq" "$SCRATCH/broken/bench/collect/fio-rows.jq"
}

# golden_runs: the committed runs the goldens come from, one for each
# layout of raw output and each parser's path through it (the other main
# runs, 20261203-210846 with all 7 states among them, hold the same files
# as 20261204-224607; 20261203-071403-peers the same as 20261203-070343):
#   20261204-224607-tcg-icount   bench.sh per-config boots, the quick matrix
#   20261204-152531-peers        the peers' states and workloads
#   20261203-070343-tcg-icount   old per-state boots, and perf.sh's runs
#   20261203-173800-tcg-icount-views   every view (fio, marks, punts,
#                                churn, switch, clockio, footprint's counts)
#   20261203-174349-tcg-icount-views-poll64   the polled view's punts
#   20261203-174418-tcg-views-layout   plain tcg: no insns_per_io, no plugin
golden_runs() {
	printf '%s\n' 20261204-224607-tcg-icount 20261204-152531-peers \
		20261203-070343-tcg-icount 20261203-173800-tcg-icount-views \
		20261203-174349-tcg-icount-views-poll64 20261203-174418-tcg-views-layout
}

# footprint_image: SCRATCH/vmlinux (a host ELF with a function named as the
# gate), a fake jump-sites tool naming two sites, collect_footprint's rows
# (footprint.got) and the ones expected (footprint.want); FUNC_SIZE.
footprint_image() {
	local p=1,on,key-off,count-randread-qd1,1,ok
	printf 'int submit_bio_noacct_nocheck(int x) { return x * 3 + 1; }\nint main(void) { return submit_bio_noacct_nocheck(2) != 7; }\n' >"$SCRATCH/gate.c"
	gcc -O1 -o "$SCRATCH/vmlinux" "$SCRATCH/gate.c"
	printf '#!/bin/sh\necho site-a\necho site-b\n' >"$SCRATCH/jump-sites"
	chmod +x "$SCRATCH/jump-sites"
	FUNC_SIZE=$(readelf -sW "$SCRATCH/vmlinux" | awk '$8 == "submit_bio_noacct_nocheck" && !n++ { print $3 }')
	(collect_footprint "$p" on "$SCRATCH/vmlinux" "$SCRATCH/jump-sites" /dev/null "$SCRATCH/listing") \
		>"$SCRATCH/footprint.got" || true
	printf '%s,text_bytes,%s\n%s,func_bytes,%s\n%s,jump_sites,2\n' "$p" \
		"$(sed -n 's/^[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,ok,text_bytes,\([0-9]*\)$/\1/p' "$SCRATCH/footprint.got")" \
		"$p" "$FUNC_SIZE" "$p" >"$SCRATCH/footprint.want"
}

# churn_old_benchstat PREFIX: the churn parser under a benchstat that does
# not list rule_changes.
churn_old_benchstat() {
	metrics_load "$SCRATCH/benchstat-old"
	collect_churn "$1" "$SCRATCH/churn"
}

# broken_fails RUN: the broken copy's fio rows of RUN differ from its own.
broken_fails() {
	! (load_parsers "$SCRATCH/broken" && golden bench "$1" "^randread" >/dev/null)
}

main() {
	local run benchstat m unknown='' p
	export CACHE=${CACHE:-$REPO_DIR/.cache}
	mkdir -p "$CACHE/tools"
	make -s -C "$REPO_DIR/bench/stats" OUT="$CACHE/tools" "$CACHE/tools/benchstat"
	benchstat=$CACHE/tools/benchstat
	load_parsers "$REPO_DIR"
	metrics_load "$benchstat"

	# golden rows: the committed runs, one a kind of raw output
	for run in $(golden_runs); do
		run=$REPO_DIR/results/$run
		check "${run##*/} is committed" test -f "$run/runs.csv"
		[[ -f $run/runs.csv ]] || continue
		: >"$SCRATCH/list"
		[[ ! -f $run/raw.tar.xz ]] || tar -tJf "$run/raw.tar.xz" >"$SCRATCH/list"
		if grep -qE '^raw/[0-9]{3}-[^/]*-r[0-9]+/$' "$SCRATCH/list"; then
			check_golden "fio ${run##*/}" bench "$run" '^randread'
			! grep -q "^[^,]*,[^,]*,[^,]*,count-randread-qd1,[^,]*,ok," "$run/runs.csv" ||
				check_golden "plugin between marks ${run##*/}" bench "$run" '^count-randread-qd1$'
		fi
		if grep -q '^raw/perf-' "$SCRATCH/list"; then
			check_golden "plugin whole boot + perf ${run##*/}" perf "$run" '^perf-'
		fi
		if [[ -d $run/raw ]]; then
			check_golden "views (fio, plugin, churn, switch, clockio) ${run##*/}" views "$run" '.'
		fi
	done

	# every metric of every committed runs.csv is one benchstat knows
	for m in $(tail -q -n +2 "$REPO_DIR"/results/*/runs.csv | cut -d, -f7 | sort -u); do
		metric_known "$m" || unknown+=" $m"
	done
	check "every committed runs.csv metric is in benchstat metrics${unknown:+ (not:$unknown)}" test -z "$unknown"

	# bad input: exit 2, naming the file or metric, no row
	p=1,on,key-off,randread-qd1,1,ok
	printf 'fio: not JSON\n' >"$SCRATCH/fio-text"
	bad_input "fio: text, not JSON" "fio-text: not fio JSON output" collect_fio "$p" "$SCRATCH/fio-text" tcg-icount
	printf '{"jobs": [{"read": {"iops": 5, "clat_ns": {"mean": 2}}, "total_err": 0}]}\n' >"$SCRATCH/fio-nopct"
	bad_input "fio: JSON without percentiles" "without lat_p50_ns" collect_fio "$p" "$SCRATCH/fio-nopct" kvm
	printf 'mark 1\nsubmit_bio_noacct_nocheck entries=2 insns=84\nsubmit_bio_noacct_nocheck calls=2\n' >"$SCRATCH/plugin-bad"
	bad_input "plugin: a line not the plugin's" "line 3: submit_bio_noacct_nocheck calls=2" \
		collect_plugin "$p" "$SCRATCH/plugin-bad" 10 1 '' '' submit_bio_noacct_nocheck
	printf '260.66;msec;task-clock\n' >"$SCRATCH/perf-stat-bad"
	: >"$SCRATCH/perf-report"
	bad_input "perf: stat output not -x," "perf-stat-bad: not perf stat -x, output" \
		collect_perf "$p" "$SCRATCH/perf-stat-bad" "$SCRATCH/perf-report" 10
	printf 'enable 6504\nadd five\n' >"$SCRATCH/switch-bad"
	bad_input "switch: a time not a number" "line 2: add five" collect_switch "$p" "$SCRATCH/switch-bad"
	printf 'clockio: pread: Input/output error\n' >"$SCRATCH/clockio-bad"
	bad_input "clockio: no summary line" "clockio-bad: no clockio summary line" collect_clockio "$p" "$SCRATCH/clockio-bad"
	printf 'many\n' >"$SCRATCH/churn-bad"
	bad_input "churn: not a count" "churn-bad: not a count of rule changes" collect_churn "$p" "$SCRATCH/churn-bad"
	bad_input "a row of an unknown metric" "unknown metric 'lat_p42_ns'" collect_row "$p" lat_p42_ns 1
	bad_input "failed rows of an unknown metric" "unknown metric 'iopz'" collect_failed "$p" iops iopz
	# a metric benchstat does not list (this fake lists all but rule_changes)
	printf '#!/bin/sh\n%s metrics | grep -v "^rule_changes\t"\n' "$benchstat" >"$SCRATCH/benchstat-old"
	chmod +x "$SCRATCH/benchstat-old"
	printf '18\n' >"$SCRATCH/churn"
	bad_input "churn: rule_changes unknown to this benchstat" "unknown metric 'rule_changes'" \
		churn_old_benchstat "$p"

	# footprint: a small ELF with the gate's name for the kernel image
	footprint_image
	check "footprint: text_bytes, func_bytes (readelf's size), jump_sites" \
		cmp -s "$SCRATCH/footprint.want" "$SCRATCH/footprint.got"
	check "footprint: the listing names the function and its size" \
		grep -q "^# submit_bio_noacct_nocheck in config on: $FUNC_SIZE bytes; .text [0-9]* bytes; 2 jump-label" "$SCRATCH/listing"
	bad_input "footprint: not an ELF image" "jump-sites: nm cannot read it" \
		collect_footprint "$p" on "$SCRATCH/jump-sites" "$SCRATCH/jump-sites" /dev/null "$SCRATCH/listing2"
	printf 'int main(void) { return 0; }\n' >"$SCRATCH/nogate.c"
	gcc -o "$SCRATCH/nogate" "$SCRATCH/nogate.c"
	bad_input "footprint: an image without the gate function" "no submit_bio_noacct_nocheck in its symbols" \
		collect_footprint "$p" on "$SCRATCH/nogate" "$SCRATCH/jump-sites" /dev/null "$SCRATCH/listing2"

	# the test can fail: a broken fio parser differs from the golden rows
	check "a broken copy of the fio parser is made" broken_copy
	run=$REPO_DIR/results/20261204-224607-tcg-icount
	check "the broken fio parser fails the golden rows of ${run##*/}" \
		broken_fails "$run"
	finish
}

main "$@"
