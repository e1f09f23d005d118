#!/usr/bin/env bash
# Write RESULTS_DIR/report.md and RESULTS_DIR/report.txt from what is in the
# directory (summary.csv, meta.json, plots/, annotate/, capability.txt,
# failures.txt), so that regenerating a report never loses a section:
# report.md has the metadata, what the numbers mean under the run's
# accelerator, the verdict tables, the capability table and the figures;
# report.txt is the verdict a reviewer quotes, plain text within 80 columns.
#
#   report.sh RESULTS_DIR
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
tool_start report 'CACHE THRESHOLD' -- "$0" "$@"
# shellcheck source=bench/report/views.sh
. "$BENCH_DIR/report/views.sh"
# shellcheck source=bench/lib/settings.sh
. "$BENCH_DIR/lib/settings.sh"
# shellcheck source=bench/stats/round.sh
. "$BENCH_DIR/stats/round.sh"
# shellcheck source=bench/report/headline.sh
. "$BENCH_DIR/report/headline.sh"

# TEXT_AWK: verdict_text() of the current summary row, its leading change
# rounded by the rule (bench/stats/round.sh): summaries written before the rule
# carry all of benchstat's digits; ciw() the width of the row's interval.
# shellcheck disable=SC2016 # awk, not shell
TEXT_AWK='
	function ciw() { return $c["ci_hi"] != "" && $c["ci_lo"] != "" ? $c["ci_hi"] - $c["ci_lo"] : "" }
	function verdict_text(   t, n) {
		t = $c["verdict_text"]
		if ($c["delta"] != "" && match(t, /^[-+][0-9.]+(e[-+]?[0-9]+)? /)) {
			n = rnd_signed($c["delta"], $c["class"], ciw())
			t = n substr(t, RLENGTH)
			if (n ~ /^[-+]1$/) sub(/^[-+]1 instructions /, n " instruction ", t)
		}
		return t
	}
	function median() { return $c["median"] == "" ? "" : rnd($c["median"], $c["class"], ciw()) }
'

# meta_value VAR KEY: into VAR, a value of the run's metadata; "not
# recorded" for a key an older run did not record (meta_var).
meta_value() {
	local -n meta_value_var=$1
	local meta_value_v
	meta_var meta_value_v "$DIR" "$2"
	# shellcheck disable=SC2034 # the caller's variable, by name
	meta_value_var=${meta_value_v:-not recorded}
}

# meta KEY: the same on stdout (views.sh's sections)
meta() {
	local meta_v
	meta_value meta_v "$1"
	printf '%s\n' "$meta_v"
}

# META_KEYS: the run's metadata this report prints; meta_fill reads each
# once into M (KEY -> value; "not recorded" for a key an older run did not
# record), so that the report's lines read them without a process each
META_KEYS='RUN_ID DATE ACCEL HOST_CPU HOST_NPROC HOST_KERNEL QEMU GCC FIO PERF
	KERNEL_RELEASE KERNEL_SOURCE SERIES_SHA256 GIT_COMMIT COMMAND BASELINE
	CONFIGS HOT_FUNCS'
declare -A M=()
meta_fill() {
	local k
	for k in $META_KEYS; do
		meta_value "M[$k]" "$k"
	done
	# the first words: the baseline config, the function the report is about
	read -r BASE_CONFIG _ <<<"${M[BASELINE]}"
	read -r FIRST_FUNC _ <<<"${M[HOT_FUNCS]}"
}

# hardware_time: the run measured the host's time (kvm, tcg), where the
# layout noise floor is printed beside the verdicts
hardware_time() {
	accel_host_time "${M[ACCEL]}"
}

# table REGEX: Markdown table of the summary rows whose workload,metric match
# (under kvm/tcg, a verdict on a workload that off and off-layout both ran
# has the layout noise floor beside it)
table() {
	printf '| config | state | workload | metric | n | median | verdict | change |\n'
	printf '|---|---|---|---|---|---|---|---|\n'
	awk -F, -v pat="$1" -v floors="$HW_FLOORS" -v kinds="$GUEST_TIME" \
		-v nop="$NOP_ROW" "$FLOOR_AWK$ROUND_AWK$TEXT_AWK"'
		BEGIN { if (floors != "") load_floors() }
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		($3 "," $4) ~ pat {
			f = ($3, $4) in fl && $c["rel_change_pct"] != "" ? " (layout floor " rnd_pct(fl[$3, $4]) ")" : ""
			v = $c["verdict"]
			if ($1 "/" $2 "/" $4 == nop && $c["delta"] == 1) v = "the jump-label NOP"
			printf "| %s | %s | %s | %s | %s | %s | **%s** | %s%s |\n", $1, $2, $3, $4, $c["n"], median(),
				v, verdict_text(), f
		}' "$DIR/summary.csv"
}

builds() {
	[[ -f $DIR/meta.json ]] && jq -e '.BUILDS' "$DIR/meta.json" >/dev/null 2>&1 || return 0
	printf '| config | vmlinux build-id | .config sha256 |\n|---|---|---|\n'
	jq -r '.BUILDS | to_entries[] | "| \(.key) | \(.value.build_id) | \(.value.config_sha256) |"' "$DIR/meta.json"
	echo
}

figures() {
	local f
	for f in iops relative insns-per-call rules-scaling cycles mq polled layout latency-percentiles; do
		[[ -f $DIR/plots/$f.png ]] && printf '![%s](plots/%s.png)\n\n' "$f" "$f"
	done
	return 0
}

# capability: the peers table from capability.txt (mechanism|capability|
# verdict|evidence lines, one per cell, as the guest test printed them)
capability() {
	local f=$DIR/capability.txt
	[[ -s $f ]] || return 0
	printf '## What each mechanism can do, as tried in the guest\n\n'
	awk -F'|' '
		!($1 in seen_m) { seen_m[$1] = 1; ms[++nm] = $1 }
		!($2 in seen_c) { seen_c[$2] = 1; cs[++nc] = $2 }
		{ v[$1, $2] = $3 }
		END {
			line = "| mechanism |"; sep = "|---|"
			for (j = 1; j <= nc; j++) { line = line " " cs[j] " |"; sep = sep "---|" }
			print line; print sep
			for (i = 1; i <= nm; i++) {
				line = "| " ms[i] " |"
				for (j = 1; j <= nc; j++)
					line = line " " ((ms[i], cs[j]) in v ? v[ms[i], cs[j]] : "untested") " |"
				print line
			}
		}' "$f"
	printf '\nEvidence, per cell (what user space saw):\n\n'
	sed 's/^\([^|]*\)|\([^|]*\)|\([^|]*\)|\(.*\)$/- \1, \2: **\3**: \4/' "$f"
	echo
}

# cost_per_call: what each state adds to the baseline per I/O (fio's qd1
# instructions per I/O) and per bio submitted (that, divided by the calls
# of submit_bio_noacct_nocheck per I/O, one per bio): the inclusive cost
# of a hook whose work the plugin's self counts do not see, such as a BPF
# program run from a kprobe (its trampoline and JIT code have no symbol).
# For peers runs (capability.txt), whose states are hooks of that kind.
# shellcheck disable=SC2016 # backticks in the text are Markdown
cost_per_call() {
	[[ -s $DIR/capability.txt ]] || return 0
	grep -q ',randread-qd1,insns_per_io,' "$DIR/summary.csv" && grep -q ',calls_per_io,' "$DIR/summary.csv" ||
		return 0
	printf '## Cost per I/O and per bio against the baseline (qd1)

'
	printf 'Instructions per I/O are 1e9 / IOPS of randread-qd1 under icount; per bio is the change divided by the calls of `submit_bio_noacct_nocheck` per I/O (one per bio submitted), which counts everything the state adds on the way, callees and BPF code included.

'
	printf '| config | state | instructions per I/O | change | bios per I/O | change per bio |
|---|---|---|---|---|---|
'
	awk -F, "$ROUND_AWK"'
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$3 == "randread-qd1" && $4 == "insns_per_io" {
			k = $1 " | " $2; if (!(k in io)) o[++n] = k; io[k] = $c["median"]
			if ($c["verdict"] == "baseline") base = $c["median"]
		}
		$4 == "calls_per_io" { calls[$1 " | " $2] = $c["median"] }
		END {
			for (i = 1; i <= n; i++) {
				k = o[i]; d = io[k] - base
				per = (k in calls) && calls[k] > 0 ? sprintf("%+.0f", d / calls[k]) : ""
				printf "| %s | %.0f | %+.0f | %s | %s |\n", k, io[k], d, (k in calls) ? rnd(calls[k], "deterministic") : "", per
			}
		}' "$DIR/summary.csv"
	echo
}

# shellcheck disable=SC2016 # backticks in the text are Markdown
report_md() {
	printf '# blkinject-bench report: %s\n\n' "${M[RUN_ID]}"
	headline_lines "$DIR" | sed 's/^/- /'
	echo
	printf '| | |\n|---|---|\n'
	printf '| date | %s |\n| accelerator | %s |\n| host | %s, %s CPUs, %s |\n' \
		"${M[DATE]}" "${M[ACCEL]}" "${M[HOST_CPU]}" "${M[HOST_NPROC]}" "${M[HOST_KERNEL]}"
	printf '| QEMU | %s |\n| gcc | %s |\n| fio | %s |\n| perf | %s |\n' \
		"${M[QEMU]}" "${M[GCC]}" "${M[FIO]}" "${M[PERF]}"
	printf '| kernel | %s (%s) |\n| patch series sha256 | %s |\n| repository commit | %s |\n\n' \
		"${M[KERNEL_RELEASE]}" "${M[KERNEL_SOURCE]}" "${M[SERIES_SHA256]}" "${M[GIT_COMMIT]}"
	builds
	printf 'Command as recorded by the run:\n\n```\n%s\n```\n\n' "${M[COMMAND]}"
	printf '%s\n\n' "$(accel_about "${M[ACCEL]}")"
	printf 'Each row is compared with the baseline row `%s` on the same workload (bench/stats/README.md): deterministic metrics by their medians against the %s%% threshold (instructions per call by the instruction: any increase is slower), sampled ones by the exact Wilcoxon rank-sum test (Hodges-Lehmann shift, its confidence interval with the coverage achieved; Holm over the gating rows); random ones (perf sample shares, error counts under `chance`) are reported without a verdict.\n\n' \
		"${M[BASELINE]}" "$THRESHOLD"
	if grep -q ',iops,' "$DIR/summary.csv"; then
		printf '## IOPS\n\n'
		table ',iops$'
		echo
	fi
	if grep -q 'insns_per_call,' "$DIR/summary.csv"; then
		printf '## Instructions per call (exact, QEMU plugin under icount)\n\n'
		table 'insns_per_call$|calls_per_io$'
		echo
	fi
	if grep -q 'insns_per_io,\|task_clock_ns_per_io,' "$DIR/summary.csv"; then
		printf '## Per I/O\n\n'
		table ',(insns_per_io|task_clock_ns_per_io)$'
		echo
	fi
	cost_per_call
	if grep -q ',cycles_per_io,' "$DIR/summary.csv"; then
		printf '## Cycles per I/O (KVM vPMU)\n\n'
		table 'cycles_per_io$'
		echo
	else
		printf 'No cycles in this run: the guest had no PMU (cycles need KVM with a vPMU).\n\n'
	fi
	if grep -q ',perf_share_pct,' "$DIR/summary.csv"; then
		printf '## Random by nature (no verdicts)\n\n'
		table ',(perf_share_pct|io_errors)$'
		echo
	fi
	static_md
	if [[ -f $DIR/annotate/on-key-off.txt ]]; then
		printf '## perf annotate of the gate (on, key-off)\n\n```\n'
		grep -B3 -A6 -m1 -i 'nop\|xchg' "$DIR/annotate/on-key-off.txt" || head -30 "$DIR/annotate/on-key-off.txt"
		printf '```\n\n'
	fi
	if [[ -s $DIR/failures.txt ]]; then
		printf '## Failed runs (excluded from every statistic)\n\n```\n'
		cat "$DIR/failures.txt"
		printf '```\n\n'
	fi
	capability
	views_sections
	printf '## Figures\n\n'
	figures
}

# static_rows: "CONFIG COUNTED" for each config of the static answer, in
# the run's order: COUNTED, the change per call of the gate function in
# key-off that the plugin counted ("" when none).
static_rows() {
	local f c base
	f=$FIRST_FUNC
	[[ $f != not ]] || f=submit_bio_noacct_nocheck
	base=$BASE_CONFIG
	for c in ${M[CONFIGS]}; do
		[[ $c != "$base" ]] || continue
		awk -F, -v c="$c" -v m="$(plugin_metric "$f")" '
			NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
			$1 == c && $2 == "key-off" && $3 ~ /^(perf|count)/ && $4 == m { d = $k["delta"] }
			END { printf "%s %s\n", c, d }' "$DIR/summary.csv"
	done
}

# static_subject: the function the static answer is read for (the first of
# HOT_FUNCS) and the baseline config it was compared with.
static_subject() {
	local f
	f=$FIRST_FUNC
	[[ $f != not ]] || f=submit_bio_noacct_nocheck
	printf '%s %s\n' "$f" "$BASE_CONFIG"
}

# static_txt: the static answer beside the counts (static.csv of the run).
static_txt() {
	local f base c counted
	[[ -f $DIR/static.csv ]] || return 0
	read -r f base < <(static_subject)
	printf '\nstatic answer: the objects compared with %s (static/CONFIG.txt), the idle\n' "$base"
	printf 'path of %s beside its change per call counted in key-off:\n' "$f"
	while read -r c counted; do
		printf '  %-8s %s\n' "$c" "$(static_beside "$DIR/static.csv" "$base" "$c" "$f" "$counted")"
	done < <(static_rows)
}

# static_md: the same as a table.
static_md() {
	local f base c counted
	[[ -f $DIR/static.csv ]] || return 0
	read -r f base < <(static_subject)
	printf '## The static answer beside the counts\n\n'
	# shellcheck disable=SC2016 # Markdown backquotes
	printf 'perf-scripts/static.sh compared the objects of each config with %s, instruction by instruction (`static/CONFIG.txt`): the idle path of `%s` (the code reachable with every static key off; without jump labels a key is a plain load and counts both ways), its instructions added minus removed, and the change per call the plugin counted in key-off. The static answer counts code, the plugin counts what ran: they disagree when changed code is off the measured path or runs more than once a call.\n\n' "$base" "$f"
	printf '| config | static answer; counted change per call |\n|---|---|\n'
	while read -r c counted; do
		printf '| %s | %s |\n' "$c" "$(static_beside "$DIR/static.csv" "$base" "$c" "$f" "$counted")"
	done < <(static_rows)
	echo
}

# report_txt: the headline, then per config x state, instructions per call
# and per I/O with their changes, the IOPS change with its interval or
# "exact"; wrapped at 80.
report_txt() {
	headline_lines "$DIR" | wrap_at 80 "  "
	echo
	{
		printf 'blkinject-bench %s at %s\n' "${M[RUN_ID]}" "${M[GIT_COMMIT]}"
		printf 'accelerator %s, baseline %s\n' "${M[ACCEL]}" "${M[BASELINE]// //}"
		printf 'command: %s\n\n' "${M[COMMAND]}"
		awk -F, -v floors="$HW_FLOORS" -v kinds="$GUEST_TIME" \
			-v nop="$NOP_ROW" "$FLOOR_AWK$ROUND_AWK$TEXT_AWK"'
		BEGIN { if (floors != "") load_floors() }
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		function cell(   d, v) {
			if ($c["verdict"] == "baseline") return median() " (baseline)"
			if ($c["median"] == "") return $c["verdict"]
			d = $c["delta"] == "" ? "" : rnd_signed($c["delta"], $c["class"], ciw())
			v = $c["verdict"]
			if ($1 "/" $2 "/" $4 == nop && $c["delta"] == 1) v = "the jump-label NOP (static)"
			return sprintf("%s (%s) %s", median(), d, v)
		}
		{
			row = $1 "/" $2
			if (!(row in seen)) { seen[row] = 1; rows[++n] = row }
			if ($4 == "insns_per_call" && $3 ~ /^(perf|count)/) call[row] = cell()
			else if ($4 == "insns_per_io") {
				if (!((row, $3) in io)) wl[row, ++nw[row]] = $3
				io[row, $3] = cell()
			} else if ($4 == "iops" && $3 !~ /softirq/) {
				w = $3; sub(/^randread-/, "", w)
				t = $c["verdict"] == "baseline" ? median() : $c["verdict"] " " verdict_text()
				if ($c["verdict"] != "baseline" && (($3, $4) in fl)) t = t " (layout floor " rnd_pct(fl[$3, $4]) ")"
				iops[row] = iops[row] sprintf("\n    IOPS %s: %s", w, t)
			}
		}
		END {
			for (i = 1; i <= n; i++) {
				r = rows[i]
				printf "%s\n", r
				if (r in call) printf "    instructions per call: %s\n", call[r]
				for (j = 1; j <= nw[r]; j++)
					printf "    instructions per I/O (%s): %s\n", wl[r, j], io[r, wl[r, j]]
				if (r in iops) printf "%s\n", substr(iops[r], 2)
			}
		}' "$DIR/summary.csv"
		static_txt
	} | wrap_at 80 "      "
}

# nop_row: "CONFIG/key-off/insns_per_call" when the static answer shows
# CONFIG's idle path to be exactly one patched jump-label NOP against the
# baseline (an exact +1 per call there is that NOP, named so), else ""
nop_row() {
	local base g
	[[ -f $DIR/static.csv ]] || return 0
	base=$BASE_CONFIG
	awk -F, -v b="$base" -v f="$FIRST_FUNC" '
		NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		$k["base"] == b && $k["function"] == f && $k["status"] == "compared" && $k["sites_added"] == 1 &&
		$k["sites_taken"] == 0 && $k["sites_removed"] == 0 && $k["sites_flipped"] == 0 &&
		$k["other_added"] + $k["other_removed"] + $k["other_changed"] == 0 {
			print $k["new"] "/key-off/insns_per_call"; exit
		}' "$DIR/static.csv"
}

main() {
	DIR=${1:?usage: report.sh RESULTS_DIR}
	[[ -f $DIR/summary.csv ]] || die_bad_input "$DIR has no summary.csv"
	[[ -f $DIR/meta.json || -f $DIR/meta.env ]] || die_bad_input "$DIR has no meta.json"
	meta_load "$DIR"
	meta_fill
	FLOORS=$(mktemp)
	# shellcheck disable=SC2064 # the name is fixed now
	trap "rm -f '$FLOORS'" EXIT
	GUEST_TIME=$(guest_time_metrics)
	layout_floors "$DIR/summary.csv" "$GUEST_TIME" >"$FLOORS"
	# the floors file where the tables print floors (host time), once
	HW_FLOORS=''
	! hardware_time || HW_FLOORS=$FLOORS
	NOP_ROW=$(nop_row)
	report_md >"$DIR/report.md"
	report_txt >"$DIR/report.txt"
	log "report: $DIR/report.md, $DIR/report.txt"
}

main "$@"
