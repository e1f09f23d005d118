#!/usr/bin/env bash
# What each patch of a series costs: build the source without the series
# (the pristine config) and with every prefix of it (the on fragment; a
# prefix whose tree has no CONFIG_BLK_ERROR_INJECTION yet builds without it,
# with the off fragment), boot each once under tcg-icount and count,
# in key-off and key-on-other (n/a before the interface exists), the
# instructions per call of HOT_FUNCS and per I/O.  Under icount these are
# exact, so the difference between prefix k and k-1 is what patch k adds.
# The series' full build in off (feature compiled out) is measured too, for
# the comparison of off and on against pristine.
#
#   per-patch.sh [-h]
# Settings (environment): KSRC, SERIES (default patches/), HOT_FUNCS, as for
# bench/kernel/build.sh and bench/run/bench.sh; WORKLOADS FIO_RUNTIME FIO_RAMP
# FIO_IOS (bench/plan/drivers/per-patch.job and the table); RESULTS_ROOT;
# RUN_ID (default <date>-per-patch); STATES (default key-off
# key-on-other): the states of the rows with the feature, e.g. rules-1
# rules-1000 for the rule walk's cost; PER_PATCH_FROM=K (default 1): only
# patches K and on, each against the prefix before it, whose row p(K-1) is
# the run's first (the series in patches/ when that prefix is it: its
# shared build); no pristine and no off row then.  For a follow-up:
# SERIES=patches/next PER_PATCH_FROM=6.  Each build and boot runs on a
# plan made from this one's (plan_call).
# Output: RESULTS_ROOT/RUN_ID/ with runs.csv and summary.csv (configs p0
# (pristine), p1..pN (prefixes), off), prefixes.txt (what each pN is),
# per-patch.csv, report.md and report.txt (the tables); printed on stdout.
#   per-patch.sh report DIR   the summary and tables again from DIR's runs.csv,
#                             into DIR: a run made on this machine (a
#                             committed run is refused: copy it first)
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
# The resolver checks the settings of a build (SERIES=none, a series file
# that lists no patches, ...); "report" checks DIR as make report checks
# RESULTS: a run, made on this machine, never a committed one.
if [[ ${1:-} == report ]]; then
	help_answer "$0" "${@:2}"
	[[ $# == 2 && -n $2 && $2 != -* ]] ||
		die_bad_input "usage: per-patch.sh report DIR (a per-patch run made on this machine, e.g. results/<date>-per-patch)"
	# the report names the command that made its tables again: this one
	bench_command "$@"
	driver_start report RESULTS="$2" -- "$0" "$@"
else
	driver_start per-patch -- "$0" "$@"
	no_arguments "$0" "$@"
fi
# shellcheck source=bench/stats/round.sh
. "$BENCH_DIR/stats/round.sh"

FEATURE_SYMBOL=CONFIG_BLK_ERROR_INJECTION
STEP_SEQ=0

# prefix_series K: a series directory with the first K patches of
# SERIES_DIR (links to them), so each prefix is a SERIES of its own.
prefix_series() {
	local k=$1 dir p i=0
	dir=$CACHE/per-patch/$SERIES_ID/prefix-$k
	mkdir -p "$dir"
	: >"$dir/series.new"
	while read -r p && ((i < k)); do
		i=$((i + 1))
		ln -sfn "$p" "$dir/$(basename "$p")"
		basename "$p" >>"$dir/series.new"
	done < <(series_patches "$SERIES_DIR")
	mv "$dir/series.new" "$dir/series"
	printf '%s\n' "$dir"
}

# base_or_prefix K: prefix_series K, or patches/ itself when the first K
# patches are the series there (its build is the shared one).
base_or_prefix() {
	local k=$1 dir
	dir=$(prefix_series "$k")
	if [[ "$(series_patches "$dir" | xargs -r -d '\n' realpath)" == \
		"$(series_patches "$REPO_DIR/patches" | xargs -r -d '\n' realpath)" ]]; then
		printf '%s\n' "$REPO_DIR/patches"
	else
		printf '%s\n' "$dir"
	fi
}

# row_config SERIES: "CONFIG STATES" of a row of SERIES: on in the feature's
# states where its tree has the feature, else off in key-off.
row_config() {
	if plan_call kernels SERIES="$1" -- "$BENCH_DIR/kernel/build.sh" defines main "$FEATURE_SYMBOL"; then
		printf 'on %s\n' "$FEATURE_STATES"
	else
		# The off fragment asks only that the feature be unset: on
		# such a tree it is the on fragment minus the feature.
		printf 'off key-off\n'
	fi
}

# step LABEL SERIES CONFIG STATES: build and measure one row of the table
# into $OUT/rows/LABEL; the config label in runs.csv becomes LABEL.
step() {
	local label=$1 series=$2 cfg=$3 states=$4 run base=off
	local -a side=()
	log "per-patch: $label: $cfg (SERIES=$series) in $states"
	# the default series is SERIES unset (bench.sh's resolver refuses an
	# empty value); the baseline is a row of the step's matrix
	side=("SERIES=$series")
	! has_feature "$cfg" || base=${states%% *}
	plan_call kernels "${side[@]}" CONFIGS="$cfg" -- "$BENCH_DIR/kernel/build.sh" build "$cfg" >&2
	# A boot that fails (a kernel report, say: a prefix can carry a bug a
	# later patch fixes) leaves its rows failed and the table n/a there.
	run=$OUT/rows/$label
	plan_call bench "${side[@]}" CONFIGS="$cfg" STATES="$states" BASELINE="$cfg $base" \
		RESULTS_ROOT="$OUT/rows" RUN_ID="$label" -- "$BENCH_DIR/run/bench.sh" >/dev/null ||
		printf '%s %s\n' "$label" "$(cat "$run/failures.txt" 2>/dev/null || echo "bench.sh failed")" >>"$OUT/failures.txt"
	[[ -f $run/runs.csv ]] || die "$label: bench.sh wrote no runs.csv"
	STEP_SEQ=$((STEP_SEQ + 1))
	# bench.sh names the no-rule state of a config called off "off": here
	# it is the key-off of that row.
	awk -F, -v OFS=, -v l="$label" -v s="$STEP_SEQ" 'NR > 1 { $1 = s; $2 = l; if ($3 == "off") $3 = "key-off"; print }' \
		"$run/runs.csv" >>"$OUT/runs.csv"
	jq --arg l "$label" --arg c "$cfg" '{($l): .BUILDS[$c]}' "$run/meta.json" >"$run/build.json"
	printf '%s %s\n' "$label" "$(jq -r '.HOT_FUNCS_ABSENT' "$run/meta.json")" | sed 's/ *$//' >>"$OUT/absent.txt"
}

# VALUES["LABEL STATE METRIC"]: the run's value, the first ok row of
# runs.csv; ABSENT[LABEL]: its line of absent.txt.  Read once, when every
# row is in (values_load): the tables look up hundreds of them.
declare -A VALUES=() ABSENT=()

# values_load: runs.csv and absent.txt into VALUES and ABSENT.
values_load() {
	local -a f
	local line
	VALUES=() ABSENT=()
	while IFS=, read -r -a f; do
		[[ ${f[5]:-} == ok && -z ${VALUES["${f[1]} ${f[2]} ${f[6]}"]+set} ]] || continue
		VALUES["${f[1]} ${f[2]} ${f[6]}"]=${f[7]:-}
	done <"$OUT/runs.csv"
	[[ -f $OUT/absent.txt ]] || return 0
	while read -r line; do
		ABSENT[${line%% *}]+=${ABSENT[${line%% *}]:+$'\n'}$line
	done <"$OUT/absent.txt"
}

# value LABEL STATE METRIC: the run's value ("" when absent).
value() {
	printf '%s\n' "${VALUES["$1 $2 $3"]:-}"
}

# uncounted LABEL FUNC: why FUNC has no count in LABEL's row.
uncounted() {
	if [[ " ${ABSENT[$1]:-} " == *":$2 "* ]]; then echo absent; else echo 'not called'; fi
}

main() {
	local n k series cfg states patches p label labels=() before=() t0 load0
	t0=$EPOCHSECONDS
	load0=$(load_average)
	series_list patches "$SERIES_DIR"
	n=${#patches[@]}
	((PER_PATCH_FROM <= n)) ||
		die_bad_input "PER_PATCH_FROM=$PER_PATCH_FROM: the first patch to measure, 1 to $n (the patches of SERIES)"
	# every function to count is one of the whole series' tree, before a build
	"$BENCH_DIR/kernel/build.sh" functions main "${HOT_FUNC_LIST[@]}" >/dev/null
	[[ $RUN_ID != auto ]] || RUN_ID=$(date -u +%Y%m%d-%H%M%S)-per-patch
	OUT=$(results_root)/$RUN_ID
	[[ ! -e $OUT ]] || die_bad_input "$OUT exists already"
	mkdir -p "$OUT/rows"
	printf 'seq,config,state,workload,repeat,status,metric,value\n' >"$OUT/runs.csv"
	if ((PER_PATCH_FROM == 1)); then
		printf 'p0 pristine (no patches; config pristine)\n' >"$OUT/prefixes.txt"
		step p0 "$SERIES" pristine key-off
		before=(p0 "$SERIES" pristine)
		labels+=(p0)
	else
		# The first row is the prefix before patch PER_PATCH_FROM.
		k=$((PER_PATCH_FROM - 1))
		series=$(base_or_prefix "$k")
		read -r cfg states <<<"$(row_config "$series")"
		printf 'p%d the first %d patches, the base of this run: %s (config %s)\n' "$k" "$k" \
			"$(if [[ $series == "$REPO_DIR/patches" ]]; then echo "the series in patches/"; else basename "${patches[k - 1]}"; fi)" \
			"$cfg" >"$OUT/prefixes.txt"
		step "p$k" "$series" "$cfg" "$states"
		before=("p$k" "$series" "$cfg")
		labels+=("p$k")
	fi
	for ((k = PER_PATCH_FROM; k <= n; k++)); do
		p=$(basename "${patches[k - 1]}")
		# The whole series is SERIES itself: on the default pair that is
		# the shared on build.
		if ((k == n)); then series=$SERIES; else series=$(base_or_prefix "$k"); fi
		read -r cfg states <<<"$(row_config "$series")"
		label=p$k
		printf '%s %s (config %s)\n' "$label" "$p" "$cfg" >>"$OUT/prefixes.txt"
		step "$label" "$series" "$cfg" "$states"
		# The code beside the counts: this row against the one before.
		BASE_LABEL=${before[0]} NEW_LABEL=$label static_into "$OUT" "$label" "${before[2]}" "$cfg" \
			BASE_SERIES="${before[1]}" NEW_SERIES="$series"
		before=("$label" "$series" "$cfg")
		labels+=("$label")
	done
	if ((PER_PATCH_FROM == 1)); then
		printf 'off the whole series, feature compiled out (config off)\n' >>"$OUT/prefixes.txt"
		step off "$SERIES" off key-off
		BASE_LABEL=p0 NEW_LABEL=off static_into "$OUT" off pristine off
		labels+=(off)
	fi
	jq -s 'add' "$OUT"/rows/*/build.json >"$OUT/builds.json"
	jq --arg c "${labels[*]}" --arg cmd "$BENCH_COMMAND" --arg id "$RUN_ID" --slurpfile b "$OUT/builds.json" \
		--arg s "$FEATURE_STATES" --arg base "${labels[0]} key-off" \
		'.CONFIGS = $c | .STATES = $s | .BASELINE = $base
		 | .COMMAND = $cmd | .BUILDS = $b[0] | .RUN_ID = $id' "$OUT/rows/p$n/meta.json" >"$OUT/meta.json"
	meta_set "$OUT" WALL_SECONDS "$((EPOCHSECONDS - t0))"
	meta_set "$OUT" LOAD_START "$load0"
	meta_set "$OUT" LOAD_END "$(load_average)"
	record_run "$OUT"
	tar -C "$OUT" -cJf "$OUT/rows.tar.xz" rows
	rm -rf "$OUT/rows" "$OUT/builds.json"
	tables
}

# tables: summary.csv, per-patch.csv, report.md and report.txt of $OUT.
tables() {
	local labels
	read -r -a labels <<<"$(meta_get "$OUT" CONFIGS)"
	read -r -a STATE_LIST <<<"$(meta_get "$OUT" STATES)"
	FIRST_LABEL=${labels[0]}
	summarise "$OUT"
	values_load
	per_patch_table "${labels[@]}" >"$OUT/per-patch.csv"
	write_report
	cat "$OUT/report.txt" >&2
	printf '%s\n' "$OUT"
}

# report DIR: the tables again from DIR's runs.csv (older runs: the state
# "off" renamed, absent.txt made from the rows' meta.json).
cmd_report() {
	local tmp m
	OUT=$1
	[[ -f $OUT/runs.csv && -f $OUT/prefixes.txt && -f $OUT/meta.json ]] || die_bad_input "$OUT is not a per-patch run"
	meta_load "$OUT"
	sed -i 's/^\([^,]*,[^,]*\),off,/\1,key-off,/' "$OUT/runs.csv"
	if [[ ! -f $OUT/absent.txt ]]; then
		tmp=$(mktemp -d)
		tar -C "$tmp" -xJf "$OUT/rows.tar.xz"
		for m in "$tmp"/rows/*/meta.json; do
			printf '%s %s\n' "$(basename "$(dirname "$m")")" "$(jq -r '.HOT_FUNCS_ABSENT' "$m")"
		done | sed 's/ *$//' >"$OUT/absent.txt"
		rm -rf "$tmp"
	fi
	HOT_FUNCS=$(meta_get "$OUT" HOT_FUNCS)
	read -r -a HOT_FUNC_LIST <<<"$HOT_FUNCS"
	tables
}

# per_patch_table LABEL...: one CSV line per label and state: the hot
# functions' instructions per call, the gate's instructions per I/O
# (submit_bio_noacct_nocheck per call x calls per I/O, exact), the
# instructions per I/O of the whole read (1e9 / IOPS, guest time) and the
# change of each from the previous label (the patch's cost).  Before the
# interface exists no rule can be set anywhere, so a key-on-other row is
# n/a there and the first one with the interface is compared with the
# previous label's key-off.
per_patch_table() {
	local label state f v gate counts iops
	local -A prev=() koff=()
	local -a metric=() out
	printf 'label,state'
	for f in "${HOT_FUNC_LIST[@]}"; do
		printf ',%s' "$f"
		metric+=("$(plugin_metric "$f")")
	done
	printf ',gate_insns_per_io,insns_per_io,iops,d_%s,d_gate_insns_per_io,d_insns_per_io\n' "${HOT_FUNC_LIST[0]}"
	for state in "${STATE_LIST[@]}"; do
		for label in "$@"; do
			[[ $label != off ]] || continue
			local -a row=("$label" "$state") cur=()
			if [[ -z ${VALUES["$label $state iops"]:-} ]]; then
				v=n/a
				! grep -q "^$label " "$OUT/failures.txt" 2>/dev/null || v='boot failed'
				for f in "${HOT_FUNC_LIST[@]}" gate insns iops; do row+=("$v"); done
				(IFS=,; printf '%s,,,\n' "${row[*]}")
				# After a failed row the next is compared with the last
				# measured one (the delta then covers both patches).
				[[ $v == 'boot failed' ]] || prev[$state]=${koff[$label]:-}
				continue
			fi
			# each count, or why there is none ("#why")
			counts=''
			for f in "${!HOT_FUNC_LIST[@]}"; do
				v=${VALUES["$label $state ${metric[$f]}"]:-}
				[[ -n $v ]] || v=#$(uncounted "$label" "${HOT_FUNC_LIST[$f]}")
				counts+=${counts:+|}$v
			done
			cur=("${VALUES["$label $state insns_per_call"]:-}" "${VALUES["$label $state calls_per_io"]:-}"
				"${VALUES["$label $state insns_per_io"]:-}" "${VALUES["$label $state iops"]:-}")
			# One awk for the row's numbers (a process each was most of a
			# report's time): the counts and the instructions per I/O with
			# %.10g (as data: per-patch.csv keeps full precision, the
			# reports round), the gate and the changes from the previous row.
			mapfile -t out < <(awk -v f="$counts" -v a="${cur[0]}" -v b="${cur[1]}" -v i="${cur[2]}" \
				-v p="${prev[$state]:-}" 'BEGIN {
					n = split(f, t, "|")
					for (k = 1; k <= n; k++) s = s (t[k] ~ /^#/ ? substr(t[k], 2) : sprintf("%.10g", t[k])) ","
					if (a != "" && b != "") g = sprintf("%g", a * b)
					print g
					printf "%s%s,%.10g\n", s, g, i
					if (p == "") print ",,"
					else { split(p, q, " "); printf "%+g,%+g,%+.10g\n", a - q[1], g - q[2], i - q[3] }
				}')
			gate=${out[0]}
			printf -v iops '%.0f' "${cur[3]}"
			printf '%s,%s,%s,%s,%s\n' "$label" "$state" "${out[1]}" "$iops" "${out[2]}"
			prev[$state]="${cur[0]:-0} ${gate:-0} ${cur[2]}"
			[[ $state != key-off ]] || koff[$label]=${prev[$state]}
		done
	done
}

# load_average: the host's 1, 5 and 15 minute load averages and its CPUs:
# counts under tcg-icount do not depend on it, the run's wall time does.
load_average() {
	local one five fifteen
	read -r one five fifteen _ </proc/loadavg
	printf '%s %s %s on %s CPUs\n' "$one" "$five" "$fifteen" "$(nproc)"
}

# write_report N: report.md (tables) and report.txt (plain) from
# per-patch.csv, prefixes.txt and runs.csv.
write_report() {
	local state label desc
	{
		printf '# Per-patch cost\n\n'
		# shellcheck disable=SC2016 # Markdown backquotes
		printf -- '- command: `%s`\n' "$(meta_get "$OUT" COMMAND)"
		# shellcheck disable=SC2016 # Markdown backquotes
		[[ $(meta_get "$OUT" COMMAND) == "$BENCH_COMMAND" ]] ||
			printf -- '- tables made again by `%s` at %s\n' "$BENCH_COMMAND" \
				"$(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)"
		printf -- '- date: %s, commit %s, accelerator %s, wall %s s\n' "$(meta_get "$OUT" DATE)" \
			"$(meta_get "$OUT" GIT_COMMIT)" "$(meta_get "$OUT" ACCEL)" "$(meta_get "$OUT" WALL_SECONDS)"
		[[ -z $(meta_get "$OUT" LOAD_START) ]] ||
			printf -- '- host load average (1, 5, 15 min): %s at the start, %s at the end\n' \
				"$(meta_get "$OUT" LOAD_START)" "$(meta_get "$OUT" LOAD_END)"
		# the series the run measured (meta.json), not the one checked out now
		printf -- '- kernel source: %s; series: %s\n' "$(meta_get "$OUT" KERNEL_SOURCE)" \
			"$(v=$(meta_get "$OUT" SERIES); printf '%s' "${v:-$(series_name)}")"
		printf -- '- counted: %s (%s reads of 4 KiB at qd1 per state); IOPS from fio %s (runtime %s, ramp %s), one boot per row\n\n' \
			"$HOT_FUNCS" "$(meta_get "$OUT" FIO_IOS)" "$(meta_get "$OUT" WORKLOADS)" \
			"$(meta_get "$OUT" FIO_RUNTIME)" "$(meta_get "$OUT" FIO_RAMP)"
		# shellcheck disable=SC2016 # Markdown backquotes
		printf 'Under tcg-icount guest time advances 1 ns per instruction: the counts per call are exact; the gate per I/O is `submit_bio_noacct_nocheck` instructions per call times its calls per I/O (exact); "per I/O" is 1e9 / IOPS of the timed fio job (guest time: it moved by up to 0.1%% between boots, about 6 instructions). Each row'"'"'s change (Δ) is what its patch adds to the previous row. "absent": the function is not in that kernel; "not called": it is, but the state never calls it; n/a: the state needs the interface, which that prefix does not have.\n\n'
		printf '| row | what |\n|---|---|\n'
		while read -r label desc; do printf '| %s | %s |\n' "$label" "$desc"; done <"$OUT/prefixes.txt"
		for state in "${STATE_LIST[@]}"; do
			printf '\n## %s\n\n' "$state"
			awk -F, -v s="$state" "$ROUND_AWK"'
				function r(x) { return x ~ /^[-+]/ ? rnd_signed(x, "deterministic") : x ~ /^[0-9.]+$/ ? rnd(x, "deterministic") : x }
				NR == 1 { n = NF; printf "| row |"; for (i = 3; i <= NF; i++) printf " %s |", $i; printf "\n|"
					for (i = 2; i <= NF; i++) printf "---|"; printf "\n"; next }
				$2 == s { printf "| %s |", $1; for (i = 3; i <= n; i++) printf " %s |", r($i); printf "\n" }' "$OUT/per-patch.csv"
		done
		if [[ -s $OUT/failures.txt ]]; then
			printf '\n## Failed boots\n\nThe row after a failed one is compared with the last measured row.\n\n'
			sed 's/^/    /' "$OUT/failures.txt"
		fi
		printf '\n## Against pristine (p0 in key-off; off: the series with the feature compiled out)\n\n'
		pristine_table
		printf '\n## The static answer beside the counts\n\n'
		# shellcheck disable=SC2016 # Markdown backquotes
		printf 'Each row'"'"'s objects against the previous row'"'"'s (off: against p0), instruction by instruction in `static/ROW.txt` (perf-scripts/static.sh): the idle path of `%s` (sites, registers renamed, other instructions; added minus removed) beside the change per call the plugin counted in key-off.\n\n' "${HOT_FUNC_LIST[0]}"
		if [[ -f $OUT/static.csv ]]; then
			static_rows | awk -F'\t' 'NR == 1 { printf "| row | static answer; counted change per call |\n|---|---|\n" }
				{ printf "| %s | %s |\n", $1, $2 }'
		else
			printf 'None in this run.\n'
		fi
	} >"$OUT/report.md"
	{
		printf 'Per-patch cost: %s, %s, %s reads at qd1 (exact counts)\n' \
			"$(meta_get "$OUT" ACCEL)" "$(meta_get "$OUT" GIT_COMMIT)" "$(meta_get "$OUT" FIO_IOS)"
		printf '\nRows: each patch applied on the one before\n'
		while read -r label desc; do printf '  %s %s\n' "$label" "$desc"; done <"$OUT/prefixes.txt"
		for state in "${STATE_LIST[@]}"; do
			printf '\n%s: instructions patch k adds: submit_bio_noacct_nocheck per call,\n' "$state"
			printf 'the gate per I/O, per I/O from IOPS\n'
			while read -r label desc; do
				[[ $label != off && $label != "$FIRST_LABEL" ]] || continue
				awk -F, -v l="$label" -v s="$state" "$ROUND_AWK"'
					function r(x) { return x == "" ? "-" : rnd_signed(x, "deterministic") }
					$1 == l && $2 == s { if ($3 == "n/a") printf "  %-4s n/a (no interface yet)\n", l
						else if ($3 == "boot failed") printf "  %-4s boot failed (see below)\n", l
						else printf "  %-4s %6s/call %6s/I/O %6s/I/O\n", l, r($(NF-2)), r($(NF-1)), r($NF) }' \
					"$OUT/per-patch.csv"
			done <"$OUT/prefixes.txt"
		done
		[[ ! -s $OUT/failures.txt ]] || {
			printf '\nFailed boots (the next row is compared with the last measured one):\n'
			sed 's/^/  /' "$OUT/failures.txt"
		}
		printf '\nAgainst pristine (p0, key-off): per call, vs pristine, per I/O, vs pristine\n'
		if [[ -n $(value p0 key-off insns_per_call) ]]; then
			pristine_table | sed -n '3,$p' | awk -F' *[|] *' '{ printf "  %-4s %-13s %4s %4s %6s %s\n", $2, $3, $4, $5, $6, $7 }'
		else
			printf '  not measured: the run starts at %s (PER_PATCH_FROM)\n' "$FIRST_LABEL"
		fi
		printf '\nStatic answer, each row against the one before (off: against p0): the idle\n'
		printf 'path of %s beside its change per call counted in key-off\n' "${HOT_FUNC_LIST[0]}"
		if [[ -f $OUT/static.csv ]]; then
			static_rows | awk -F'\t' '{ printf "  %-4s %s\n", $1, $2 }'
		else
			printf '  none in this run\n'
		fi
	} | wrap_at 80 "      " >"$OUT/report.txt"
}

# static_rows: "LABEL<TAB>ANSWER" for each row: its static answer against
# the row before it (off: against p0) beside the change per call counted
# in key-off (bench/lib/results.sh static_beside).  A row after one that was
# not counted has its count against the last one counted (per_patch_table):
# the static answers since then are added up to match.
static_rows() {
	local f=${HOT_FUNC_LIST[0]} label base desc c d counted=$FIRST_LABEL span=0
	base=$FIRST_LABEL
	while read -r label desc; do
		[[ $label != "$FIRST_LABEL" ]] || continue
		if [[ $label == off ]]; then
			base=p0 counted=p0 span=0
			c=$(awk -v a="$(value off key-off "$(plugin_metric "$f")")" -v b="$(value p0 key-off "$(plugin_metric "$f")")" \
				'BEGIN { if (a != "" && b != "") printf "%+g", a - b }')
		else
			c=$(awk -F, -v l="$label" '$1 == l && $2 == "key-off" && $3 != "n/a" && $3 != "boot failed" { print $(NF-2) }' "$OUT/per-patch.csv")
		fi
		d=$(static_delta "$OUT/static.csv" "$base" "$label" "$f")
		span=$((span + ${d:-0}))
		if [[ -n $c && $counted != "$base" ]]; then
			printf '%s\t%s\n' "$label" "$(static_beside "$OUT/static.csv" "$base" "$label" "$f" "$c" "$counted" "$span")"
		else
			printf '%s\t%s\n' "$label" "$(static_beside "$OUT/static.csv" "$base" "$label" "$f" "$c")"
		fi
		[[ -z $c ]] || counted=$label span=0
		base=$label
	done <"$OUT/prefixes.txt"
}

# pristine_table: pristine, off, and the whole series in key-off and
# key-on-other, each against pristine/key-off.
pristine_table() {
	local n0 i0 label state c i
	n0=$(value p0 key-off insns_per_call)
	i0=$(value p0 key-off insns_per_io)
	if [[ -z $n0 ]]; then
		printf 'Not measured: this run starts at %s (PER_PATCH_FROM), without the pristine and off rows.\n' "$FIRST_LABEL"
		return
	fi
	printf '| row | state | submit_bio_noacct_nocheck per call | vs pristine | instructions per I/O | vs pristine |\n|---|---|---|---|---|---|\n'
	for label in p0 off "p$(($(wc -l <"$OUT/prefixes.txt") - 2))"; do
		for state in key-off key-on-other; do
			c=$(value "$label" "$state" insns_per_call)
			i=$(value "$label" "$state" insns_per_io)
			[[ -n $i ]] || continue
			awk -v l="$label" -v s="$state" -v c="$c" -v i="$i" -v c0="$n0" -v i0="$i0" "$ROUND_AWK"'BEGIN {
				d = "deterministic"
				printf "| %s | %s | %s | %s | %s | %s (%s) |\n", l, s, rnd(c, d), rnd_signed(c - c0, d),
					rnd(i, d), rnd_signed(i - i0, d), rnd_pct(100 * (i - i0) / i0) }'
		done
	done
}

if [[ ${1:-} == report ]]; then
	cmd_report "$2"
else
	plan_read WORKLOADS FIO_RUNTIME FIO_RAMP FIO_IOS SERIES RUN_ID RESULTS_ROOT STATES PER_PATCH_FROM
	FEATURE_STATES=$STATES
	hot_funcs_read
	main
fi
