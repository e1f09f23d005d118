# shellcheck shell=bash
# Shared by the benchmark and perf drivers: the matrix, result metadata,
# block splitting and summaries.  Needs bench/lib/lib.sh.  Sourcing it
# defines functions and nothing else.  The functions read the settings a
# driver read from its plan (plan_read): CONFIGS, STATES, BASELINE,
# WORKLOADS, SOFTIRQ_WORKLOADS, RUN_ID, RESULTS_ROOT, HOT_FUNCS.

# shellcheck source=bench/lib/metrics.sh
. "${BASH_SOURCE[0]%/*}/metrics.sh"

# hot_funcs_read: HOT_FUNCS from the plan, the kernel functions the
# insncount plugin counts (instructions and calls), so the same machinery
# measures another hook; and HOT_FUNC_LIST, one a word.  A function a
# kernel lacks while it has another of them is absent from that kernel's
# rows (hot_funcs_check logs it); a kernel with none of them is an error.
hot_funcs_read() {
	plan_read HOT_FUNCS
	read -r -a HOT_FUNC_LIST <<<"$HOT_FUNCS"
}

# hot_funcs_check CONFIG...: each CONFIG's System.map has at least one of
# HOT_FUNCS (the resolver checked they are C identifiers); log the ones a
# CONFIG lacks.
hot_funcs_check() {
	local f c map found absent=''
	for c in "$@"; do
		map=$(kernel_build_dir "$c")/System.map
		found=0
		for f in "${HOT_FUNC_LIST[@]}"; do
			if grep -q " $f$" "$map" 2>/dev/null; then found=1; else absent+=" $c:$f"; fi
		done
		[[ $found == 1 ]] || die_bad_input "HOT_FUNCS: none of $HOT_FUNCS is in the kernel of config $c ($map)"
	done
	[[ -z $absent ]] || log "HOT_FUNCS absent (not in the kernel, so no rows):$absent"
	HOT_FUNCS_ABSENT=${absent# }
}

# plugin_so: build the QEMU plugin into the cache if needed, print its path.
plugin_so() {
	make -s -C "$REPO_DIR/perf-scripts/plugin" CACHE="$CACHE" OUT="$CACHE/plugin" \
		HEADER_DIR="$CACHE/qemu-plugin" >&2
	printf '%s\n' "$CACHE/plugin/libinsncount.so"
}

# write_plugin_ranges CONFIG FILE: the plugin's ranges for the HOT_FUNCS
# this config's kernel has.
write_plugin_ranges() {
	local map f
	map=$(kernel_build_dir "$1")/System.map
	: >"$2"
	for f in "${HOT_FUNC_LIST[@]}"; do
		if grep -q " $f$" "$map"; then
			"$REPO_DIR/perf-scripts/plugin/ranges-from-systemmap.sh" "$map" "$f" >>"$2"
		fi
	done
}

# The fio job the plugin counts between two marks (COUNT_IOS reads).
# shellcheck disable=SC2034 # bench.sh and bench/lab/lava-results.sh
COUNTED=count-randread-qd1

# run_workloads_into ARRAY STATE: the fio jobs a boot runs in STATE, in
# row order, into ARRAY: WORKLOADS, then SOFTIRQ_WORKLOADS as
# NAME-softirq in off and key-off.
run_workloads_into() {
	local -n run_workloads_list=$1
	local w
	run_workloads_list=()
	for w in $WORKLOADS; do run_workloads_list+=("$w"); done
	if [[ $2 == off || $2 == key-off ]]; then
		for w in $SOFTIRQ_WORKLOADS; do run_workloads_list+=("$w-softirq"); done
	fi
}

# run_workloads STATE: run_workloads_into's list, one a line.
run_workloads() {
	local -a ws
	run_workloads_into ws "$1"
	((${#ws[@]} == 0)) || printf '%s\n' "${ws[@]}"
}

# plugin_mark CONFIG: the plugin's mark= address, ksys_sync: the guest
# scripts call sync(2) around each counted workload and nowhere else, so
# the plugin snapshots its counters there.
plugin_mark() {
	local map
	map=$(kernel_build_dir "$1")/System.map
	awk '$3 == "ksys_sync" { print "0x" $1; f = 1; exit } END { exit !f }' "$map" ||
		die "$map has no ksys_sync for the plugin's marks"
}

# static_into DIR NAME BASE_CONFIG CONFIG [NAME=VALUE...]: the static
# answer (perf-scripts/static.sh, handed this plan with the NAME=VALUEs:
# BASE_SERIES, NEW_SERIES; BASE_LABEL and NEW_LABEL from the environment)
# into DIR/static/NAME.txt, its rows added to DIR/static.csv.  One that
# fails is logged and left out: the counts stand without it.
static_into() {
	local dir=$1 name=$2
	mkdir -p "$dir/static"
	if plan_call static "${@:5}" -- "$REPO_DIR/perf-scripts/static.sh" -o "$dir/static/$name" "$3" "$4" >/dev/null \
		2>"$dir/static/$name.log"; then
		mv "$dir/static/$name/static.txt" "$dir/static/$name.txt"
		[[ -f $dir/static.csv ]] || head -n 1 "$dir/static/$name/static.csv" >"$dir/static.csv"
		tail -n +2 "$dir/static/$name/static.csv" >>"$dir/static.csv"
		rm -rf "${dir:?}/static/$name" "$dir/static/$name.log"
	else
		log "static answer $3 -> $4 failed (see $dir/static/$name.log)"
	fi
}

# static_answer DIR BASE_CONFIG CONFIG...: static_into for each CONFIG
# against BASE_CONFIG.
static_answer() {
	local dir=$1 base=$2 c
	shift 2
	rm -rf "$dir/static" "$dir/static.csv"
	for c in "$@"; do
		[[ $c == "$base" ]] || static_into "$dir" "$c" "$base" "$c"
	done
}

# static_delta CSV BASE NEW FUNC: the idle path's added minus removed for
# FUNC from BASE to NEW ("" when not compared).
static_delta() {
	[[ -f $1 ]] || return 0
	awk -F, -v b="$2" -v n="$3" -v f="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		$1 == b && $2 == n && $3 == f && $k["status"] == "compared" { print $k["idle_delta"] + 0 }' "$1"
}

# static_beside CSV BASE NEW FUNC COUNTED [SINCE SPAN]: the static answer
# for FUNC from BASE to NEW (a row of static.csv) in a few words, beside
# the change per call that was counted (COUNTED; "" when none), and whether
# they agree: the idle path's instructions added minus removed against the
# count.  A count that spans more than one step (since row SINCE, the rows
# between not counted) is compared with the static answers' sum, SPAN.
static_beside() {
	[[ -f $1 ]] || { echo "no static answer in this run"; return; }
	awk -F, -v b="$2" -v n="$3" -v f="$4" -v c="$5" -v since="${6:-}" -v span="${7:-}" '
		NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		$k["base"] == b && $k["new"] == n && $k["function"] == f { found = 1; exit }
		END {
			if (!found) { print "no static answer"; exit }
			if ($k["status"] == "only-new") { print "only in " n " (static)"; exit }
			if ($k["status"] == "only-base") { print "only in " b " (static)"; exit }
			if ($k["status"] != "compared") { print "in neither (static)"; exit }
			s = ""
			if ($k["sites_added"] > 0)
				s = "+" $k["sites_added"] ($k["sites_taken"] > 0 ? " TAKEN" : " NOP") " site"
			if ($k["sites_removed"] > 0)
				s = s (s == "" ? "" : ", ") "-" $k["sites_removed"] " site"
			if ($k["sites_flipped"] > 0)
				s = s (s == "" ? "" : ", ") $k["sites_flipped"] " flipped"
			if (s == "")
				s = "0 sites"
			o = $k["other_added"] + $k["other_removed"] + $k["other_changed"]
			d = $k["idle_delta"] + 0
			t = sprintf("%s, %d renamed, %d other: %+d", s, $k["renamed"], o, d)
			if (c == "")
				t = t ", not counted"
			else if (since != "")
				t = t sprintf("; counted %+g since %s, static %+d: %s", c, since, span,
					(c + 0 == span + 0) ? "agree" : "DISAGREE")
			else
				t = t sprintf("; counted %+g: %s", c, (c + 0 == d) ? "agree" : "DISAGREE")
			print t
		}' "$1"
}

# static_gate CSV TOLERANCE: the static answer as a gate, a line per
# function of CSV (rows of static.csv): what the idle path gained and, when
# it is slower, why; status 1 when a function's idle path is slower: it
# gains more than TOLERANCE instructions (EXACT_TOLERANCE, as the counts),
# or jumps at a jump-label site while its key is off (a site added TAKEN,
# or one of the other polarity).  A taken jump and a NOP are one
# instruction each, so the counts cannot tell them apart (the fixture
# tests/fixtures/series-likely-gate counted the same 43 per call).  A
# register renamed, a block moved or copied, code only with a key on or
# out of line, a function only one side builds: reported only.
static_gate() {
	awk -F, -v tol="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		function n(name) { return (name in k) ? $k[name] + 0 : 0 }
		{
			f = $k["function"]
			if ($k["status"] != "compared") { printf "%s: %s: reported only\n", f, $k["status"]; next }
			d = n("idle_delta"); t = n("sites_taken"); ft = n("sites_flipped_taken"); why = ""
			if (d > tol)
				why = sprintf("its idle path gains %d instruction%s", d, d == 1 ? "" : "s")
			if (t > 0)
				why = why (why == "" ? "" : ", ") sprintf("%d site%s added TAKEN while the key is off", t, t == 1 ? "" : "s")
			if (ft > 0)
				why = why (why == "" ? "" : ", ") sprintf("%d site%s of the other polarity (a TAKEN jump while the key is off, not a NOP)", ft, ft == 1 ? "" : "s")
			printf "%s: idle path %+d, %d renamed, %d moved, %d copied: %s\n", f, d, n("renamed"),
				n("moved"), n("copied"), why == "" ? "no cost while idle" : "SLOWER: " why
			slower = slower || why != ""
		}
		END { exit slower }' "$1"
}

# benchstat_bin: build benchstat into CACHE/tools if needed, print its path.
# make runs in that directory (OUT=.): a CACHE path with a space in it is
# no target make could name.
benchstat_bin() {
	mkdir -p "$CACHE/tools"
	make -s -C "$CACHE/tools" -f "$BENCH_DIR/stats/Makefile" OUT=. >&2
	printf '%s\n' "$CACHE/tools/benchstat"
}

# Rows of the matrix: "config state", the baseline first.
matrix_rows() {
	local cfg state
	for cfg in $CONFIGS; do
		if ! has_feature "$cfg"; then
			printf '%s off\n' "$cfg"
			continue
		fi
		for state in $STATES; do
			printf '%s %s\n' "$cfg" "$state"
		done
	done
}

# results_root: where a run's directory is made: RESULTS_ROOT, the plan's
# (the table's default is the repository's results/).
results_root() {
	printf '%s\n' "$RESULTS_ROOT"
}

# split_blocks LOG DIR: each "=== NAME ===" ... "=== end ===" block of LOG
# into DIR/NAME (spaces in NAME become dashes).
split_blocks() {
	awk -v dir="$2" '
		/^=== end ===$/ { if (file != "") close(file); file = ""; next }
		/^=== .* ===$/ {
			name = substr($0, 5, length($0) - 8); gsub(/ /, "-", name)
			file = dir "/" name; printf "" > file; next
		}
		file != "" { print >> file }
	' "$1"
}

# build_identity CONFIG: a JSON object naming the build measured: the
# vmlinux build-id (a hash the linker takes over the whole image, so on and
# nokey differ though their .config is the same), the .config's hash, and
# the legend the figures' keys give it (config_legend), so that a run's
# figures made again later describe its builds, not today's.
build_identity() {
	local build
	build=$(kernel_build_dir "$1")
	jq -n --arg build_id "$(readelf -n "$build/vmlinux" 2>/dev/null | sed -n 's/^ *Build ID: *//p' | sed -n 1p)" \
		--arg config_sha256 "$(sha256sum "$build/.config" 2>/dev/null | cut -c1-16)" \
		--arg release "$(cat "$build/include/config/kernel.release" 2>/dev/null)" \
		--arg legend "$(config_legend "$1")" \
		'{build_id: $build_id, config_sha256: $config_sha256, release: $release, legend: $legend}'
}

tool_version() {
	"$@" 2>/dev/null | sed -n 1p || true
}

# kernel_source_name, series_name: KSRC and SERIES as meta.json records them.
kernel_source_name() {
	if [[ $KSRC_KIND == debian ]]; then
		printf 'linux-source-6.12 %s\n' "$(cat "$CACHE/src/pristine/.blkinject-version" 2>/dev/null)"
	else
		printf '%s (%s)\n' "$KSRC" "$KSRC_ID"
	fi
}

series_name() {
	if [[ $SERIES_DIR == none ]]; then echo none; else printf '%s (%s)\n' "${SERIES_DIR#"$REPO_DIR"/}" "$SERIES_ID"; fi
}

# series_sha256: a hash of what was applied to the source: SERIES's series
# file and patches (nothing for SERIES=none) and the trees' own patches
# (ablation, instrumentation), so pieces of different series never merge.
series_sha256() {
	{
		if [[ $SERIES_DIR != none ]]; then
			cat "$SERIES_DIR/series"
			series_patches "$SERIES_DIR" | xargs -r -d '\n' cat
		fi
		cat "$REPO_DIR"/patches/ablation/*.patch "$REPO_DIR"/patches/instrument/*.patch 2>/dev/null || true
	} | sha256sum | cut -c1-16
}

# record_run DIR: DIR is a run made on this machine; make plots, report
# and disasm default to the newest one listed (bench/lib/settings.sh)
record_run() {
	mkdir -p "$CACHE"
	(cd "$1" && pwd -P) >>"$CACHE/runs-made"
}

# write_meta DIR ACCEL COMMAND [KEY=VALUE...]: DIR/meta.json, what is needed
# to reproduce the run: COMMAND exactly as run, every build's identity, the
# tools' versions.  Values go in with jq --arg, never through shell quoting.
write_meta() {
	local dir=$1 accel=$2 command=$3 cfg builds='{}' kv
	shift 3
	for cfg in $CONFIGS; do
		builds=$(jq --arg c "$cfg" --argjson b "$(build_identity "$cfg")" '.[$c] = $b' <<<"$builds")
	done
	jq -n --arg RUN_ID "$RUN_ID" --arg DATE "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg ACCEL "$accel" \
		--arg HOST_CPU "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')" \
		--argjson HOST_NPROC "$(nproc)" --arg HOST_KERNEL "$(uname -sr)" \
		--arg QEMU "$(tool_version qemu-system-x86_64 --version)" \
		--arg GCC "$(tool_version gcc --version)" --arg FIO "$(tool_version fio --version)" \
		--arg PERF "$(tool_version perf --version)" \
		--arg KERNEL_SOURCE "$(kernel_source_name)" --arg SERIES "$(series_name)" \
		--arg HOT_FUNCS "$HOT_FUNCS" --arg HOT_FUNCS_ABSENT "${HOT_FUNCS_ABSENT:-}" \
		--arg KERNEL_RELEASE "$(cat "$(kernel_build_dir on)/include/config/kernel.release" 2>/dev/null || echo unknown)" \
		--arg SERIES_SHA256 "$(series_sha256)" \
		--arg GIT_COMMIT "$(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo none)$(git -C "$REPO_DIR" diff --quiet HEAD 2>/dev/null || echo -dirty)" \
		--argjson BUILDS "$builds" \
		--arg CONFIGS "$CONFIGS" --arg STATES "$STATES" --arg BASELINE "$BASELINE" \
		--arg COMMAND "$command" '$ARGS.named' >"$dir/meta.json"
	record_run "$dir"
	for kv in "$@"; do
		meta_set "$dir" "${kv%%=*}" "${kv#*=}"
	done
}

# meta_set DIR KEY VALUE: add or replace one string in DIR/meta.json.
meta_set() {
	local tmp
	tmp=$(mktemp)
	jq --arg k "$2" --arg v "$3" '.[$k] = $v' "$1/meta.json" >"$tmp"
	mv "$tmp" "$1/meta.json"
	! meta_loaded "$1" || meta_load "$1"
}

# meta_load DIR...: each run's meta.json read once, so that meta_get and
# meta_has answer for DIR (named the same way) without a jq each: a report
# asks dozens of keys, and those jq runs were most of its time.
# META_VALUE: "DIR<US>KEY" -> what meta_get prints; META_LOADED: the DIRs,
# a line each (a string, so that a shell that loaded none can test it).
# A file jq cannot read as an object is not loaded: meta_get then reads it
# and fails as before.
meta_load() {
	local d i
	local -a kv
	declare -gA META_VALUE
	META_LOADED=${META_LOADED:-$'\n'}
	for d; do
		[[ -f $d/meta.json ]] || continue
		mapfile -d '' -t kv < <({ jq -j 'to_entries[] | .key, "\u0000",
			(.value // "" | tostring | sub("\n+$"; "")), "\u0000"' "$d/meta.json" 2>/dev/null &&
			printf 'ok\0'; } || printf 'failed\0')
		[[ ${kv[-1]} == ok ]] || continue
		for ((i = 0; i + 2 < ${#kv[@]}; i += 2)); do
			META_VALUE[$d$'\x1f'${kv[i]}]=${kv[i + 1]}
		done
		META_LOADED+=$d$'\n'
	done
}

# meta_loaded DIR: meta_load read DIR's meta.json.
meta_loaded() {
	[[ ${META_LOADED-} == *$'\n'"$1"$'\n'* ]]
}

# meta_get DIR KEY: a value of the run's metadata.  meta.json is read with
# jq (once, where meta_load read it); a run made before it existed
# (meta.env) is parsed by meta_env_value, never sourced: nothing from a run
# directory is executed.
meta_get() {
	local meta_get_v
	meta_var meta_get_v "$1" "$2"
	printf '%s\n' "$meta_get_v"
}

# meta_var VAR DIR KEY: meta_get's value into VAR, without a process
# where meta_load read DIR.
meta_var() {
	local -n meta_var_out=$1
	local v=''
	if meta_loaded "$2"; then
		v=${META_VALUE[$2$'\x1f'$3]-}
	elif [[ -f $2/meta.json ]]; then
		v=$(jq -r --arg k "$3" '.[$k] // empty | tostring' "$2/meta.json")
	fi
	[[ -n $v || ! -f $2/meta.env ]] || v=$(meta_env_value "$2/meta.env" "$3")
	# shellcheck disable=SC2034 # the caller's variable, by name
	meta_var_out=$v
}

# meta_env_value FILE KEY: KEY's value in an old run's meta.env, read as
# the printf %q it was written with and nothing more: KEY=WORD lines whose
# WORD is plain characters, backslash escapes and '...' strings (and lines
# of a # comment, and blank ones).  Anything
# else (an unescaped space, $, `, ;, a $'...' string, a line that is not
# KEY=WORD) is exit 2 naming the line: the file was sourced once, and a
# command written in it ran.
meta_env_value() {
	local v
	v=$(awk -v key="$2" '
		function refuse(why) { printf "%s:%d: %s: not read (nothing in a run directory is run)\n", FILENAME, NR, why > "/dev/stderr"; bad = 1; exit 2 }
		{ sub(/\r$/, "") }
		/^(#.*)?$/ { next }
		!/^[A-Za-z_][A-Za-z0-9_]*=/ { refuse("not a KEY=VALUE line of printf %q") }
		{
			k = substr($0, 1, index($0, "=") - 1); w = substr($0, index($0, "=") + 1); out = ""
			while (w != "") {
				c = substr(w, 1, 1)
				if (c == "\\") {
					if (length(w) < 2) refuse("a backslash at the end")
					out = out substr(w, 2, 1); w = substr(w, 3)
				} else if (c == "\047") {
					e = index(substr(w, 2), "\047")
					if (!e) refuse("an unterminated quote")
					out = out substr(w, 2, e - 1); w = substr(w, e + 2)
				} else if (c ~ /[A-Za-z0-9_.\/:@%+,=~^-]/) {
					out = out c; w = substr(w, 2)
				} else {
					refuse("\"" c "\" outside quotes")
				}
			}
			if (k == key) { val = out; found = 1 }
		}
		END { if (!bad && found) print val }' "$1") || die_bad_input "$1 cannot be read as a run's metadata (see above)"
	printf '%s\n' "$v"
}

# guest_time_metrics: the metrics of benchstat's guest-time kind, one line
guest_time_metrics() {
	"$(benchstat_bin)" metrics | awk -F'\t' '$3 == "guest-time" || $3 == "percentile" { print $1 }' | one_line
}

# layout_floors SUMMARY_CSV KINDS: "workload metric pct" for every metric
# of KINDS (guest_time_metrics' line) that off and off-layout (state off)
# both have on a workload: the
# summary's change of off-layout where off is that workload's baseline (the
# Hodges-Lehmann shift for sampled metrics, as in the verdicts), else
# 100 * (median(off-layout) / median(off) - 1).  The two builds differ only
# in code layout, so this is the floor under which a time difference between
# two separately built kernels means nothing (under tcg-icount it counts
# instructions, which layout does not change).
layout_floors() {
	awk -F, -v kinds=" $2 " '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$2 == "off" && index(kinds, " " $4 " ") && $c["median"] != "" {
			if ($1 == "off") { o[$3 SUBSEP $4] = $c["median"]; ob[$3 SUBSEP $4] = $c["verdict"] == "baseline" }
			else if ($1 == "off-layout") { l[$3 SUBSEP $4] = $c["median"]; rel[$3 SUBSEP $4] = $c["rel_change_pct"] }
		}
		END {
			for (k in l) if ((k in o) && o[k] != 0) {
				split(k, p, SUBSEP)
				printf "%s %s %.4f\n", p[1], p[2], ob[k] && rel[k] != "" ? rel[k] : 100 * (l[k] / o[k] - 1)
			}
		}' "$1" | sort
}

# meta_has DIR KEY: the run's metadata has KEY (meta.json, or an old
# run's meta.env), whatever its value, the empty string included.
meta_has() {
	if meta_loaded "$1"; then
		[[ -v META_VALUE[$1$'\x1f'$2] ]]
		return
	fi
	{ [[ -f $1/meta.json ]] && jq -e --arg k "$2" 'has($k)' "$1/meta.json" >/dev/null 2>&1; } ||
		{ [[ -f $1/meta.env ]] && grep -q "^$2=" "$1/meta.env"; }
}

# summarise DIR: summary.csv and summary.json from DIR/runs.csv, with the
# run's own settings from DIR/meta.json (an old run's meta.env) and none
# from the caller: ACCEL; CONFIGS and STATES, so that the rows come out in
# matrix order rather than in the shuffled run order; BASELINE ("CONFIG
# STATE").  A run without one of them is broken input (exit 2, naming the
# key), except for the names older runs used: BENCH_CONFIGS for CONFIGS.
# SMP_WORKLOADS (the workloads on more than one vCPU, bench/run/views.sh)
# go to benchstat --smp-workloads: under tcg-icount their guest time is
# random.  A run without it lists none, as every run made before views.sh
# recorded it was summarised (bench and perf boot one vCPU).
summarise() {
	local dir=$1 configs_key=CONFIGS key base_row sorted seq run_configs run_states accel smp
	local -a seq_words=()
	[[ -f $dir/meta.json || -f $dir/meta.env ]] ||
		DIE_STATUS=2 die "$dir has no meta.json: summarise takes the run's settings from it"
	[[ ! -f $dir/meta.json ]] || jq -e 'type == "object"' "$dir/meta.json" >/dev/null 2>&1 ||
		DIE_STATUS=2 die "$dir/meta.json is malformed (not a JSON object)"
	meta_load "$dir"
	meta_has "$dir" CONFIGS || ! meta_has "$dir" BENCH_CONFIGS || configs_key=BENCH_CONFIGS
	for key in ACCEL "$configs_key" STATES BASELINE; do
		meta_has "$dir" "$key" ||
			DIE_STATUS=2 die "$dir/meta.json has no $key: summarise takes the run's $key from it"
	done
	# the values by meta_var, from what meta_load read: no process each
	meta_var base_row "$dir" BASELINE
	meta_var run_configs "$dir" "$configs_key"
	meta_var run_states "$dir" STATES
	meta_var seq "$dir" SEQUENTIAL
	meta_var accel "$dir" ACCEL
	meta_var smp "$dir" SMP_WORKLOADS
	[[ $base_row =~ ^[^[:space:]]+\ [^[:space:]]+$ ]] ||
		DIE_STATUS=2 die "$dir/meta.json: BASELINE='$base_row' is not \"CONFIG STATE\""
	sorted=$(mktemp)
	awk -F, -v configs="$run_configs" -v states="off $run_states" '
		BEGIN { n = split(configs, c, " "); for (i = 1; i <= n; i++) co[c[i]] = i
			n = split(states, s, " "); for (i = 1; i <= n; i++) so[s[i]] = i }
		NR == 1 { print "0\t0\t0\t" $0; next }
		{ printf "%d\t%d\t%d\t%s\n", co[$2] + 0, so[$3] + 0, NR, $0 }
	' "$dir/runs.csv" | sort -t $'\t' -k1,1n -k2,2n -k3,3n | cut -f4- >"$sorted"
	# a run of the sequential gate (SEQUENTIAL "FIRST MAX") is judged by its rule
	[[ -z $seq || $seq =~ ^[1-9][0-9]*\ [1-9][0-9]*$ ]] ||
		DIE_STATUS=2 die "$dir/meta.json: SEQUENTIAL='$seq' is not \"FIRST MAX\""
	[[ -z $seq ]] || seq_words=(sequential --first "${seq% *}" --max "${seq#* }" --final)
	# a summary that benchstat refuses leaves the run's old one in place
	if ! "$(benchstat_bin)" ${seq_words[@]+"${seq_words[@]}"} summary --accel "$accel" --baseline-config "${base_row% *}" \
		--baseline-state "${base_row#* }" --smp-workloads "$smp" \
		"$sorted" >"$sorted.summary"; then
		rm -f "$sorted" "$sorted.summary"
		DIE_STATUS=2 die "benchstat summary refused $dir/runs.csv with its meta.json (its message above)"
	fi
	mv "$sorted.summary" "$dir/summary.csv"
	rm -f "$sorted"
	write_summary_json "$dir"
}

# summary.json: the metadata and the summary rows, for tools: numbers as
# numbers (null where empty), the verdict a fixed word, its text beside it.
write_summary_json() {
	local dir=$1 meta='{}'
	# keys a driver still appends to meta.env join those of meta.json
	[[ ! -f $dir/meta.env ]] || meta=$(meta_env_json "$dir")
	[[ ! -f $dir/meta.json ]] || meta=$(jq --argjson env "$meta" '$env + .' "$dir/meta.json")
	jq -R -s --argjson meta "$meta" '
		def typed: if . == "" then null elif test("^-?[0-9.]+([eE][-+]?[0-9]+)?$") then tonumber else . end;
		split("\n") | map(select(length > 0)) |
		(.[0] | split(",")) as $h |
		{meta: $meta, summary: (.[1:] | map(split(",") as $v |
			[$h, $v] | transpose |
			map({(.[0]): (if (.[0] | test("^(gates|deterministic)$")) then .[1] == "yes"
				elif (.[0] | test("^(config|state|workload|metric|class|verdict|verdict_text)$")) then .[1]
				else (.[1] | typed) end)}) | add))}
	' "$dir/summary.csv" >"$dir/summary.json"
}

# meta_env_json DIR: the keys of an old run's meta.env as a JSON object.
meta_env_json() {
	local k args=()
	while read -r k; do
		args+=(--arg "$k" "$(meta_get "$1" "$k")")
	done < <(sed -n 's/^\([A-Z_0-9]*\)=.*/\1/p' "$1/meta.env")
	jq -n "${args[@]}" '$ARGS.named'
}

fmt_duration() {
	printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}

