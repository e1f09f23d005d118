# shellcheck shell=bash
# The insncount plugin's output (perf-scripts/plugin: "mark N" and "end"
# lines, each followed by one "FUNC entries=E insns=I ..." line per counted
# range, and "total_guest_insns=N") ->
# runs.csv rows.  Functions only: nothing happens on source.
#
#   collect_plugin PREFIX FILE IOS RUNS FIRST LAST FUNC...
#       per FUNC with calls: its instructions per call (plugin_metric) and,
#       for submit_bio_noacct_nocheck, calls per I/O (calls / (RUNS * IOS));
#       counted between marks FIRST and LAST, or over the whole boot when
#       FIRST is empty.  Nothing when IOS is not above 0.
#   collect_plugin_marks PREFIX RAW STATE IOS FUNC...
#       collect_plugin between the marks RAW/marks gives STATE
#       ("STATE FIRST LAST" lines; bench/guest/bench.sh)
#   collect_punts PREFIX FILE IOS FIRST LAST
#       iowq_punts_per_io: io_wq_submit_work's entries per I/O, when the
#       gate counted calls there
#   collect_hot_lines PREFIX FILE
#       hot_lines: the "line-0x..." ranges that executed anything

# shellcheck source=bench/collect/rows.sh
. "${BASH_SOURCE[0]%/*}/rows.sh"

# plugin_check FILE: FILE is the plugin's output.
plugin_check() {
	local bad
	[[ -f $1 ]] || collect_bad "$1" "no plugin output"
	bad=$(awk '$1 == "mark" && NF == 2 && $2 ~ /^[0-9]+$/ { next } $1 == "end" && NF == 1 { next }
		NF == 1 && $1 ~ /^total_guest_insns=[0-9]+$/ { next }
		NF >= 3 && $2 ~ /^entries=[0-9]+$/ && $3 ~ /^insns=[0-9]+$/ { next }
		{ printf "line %d: %s", NR, $0; exit }' "$1")
	[[ -z $bad ]] || collect_bad "$1" "not the insncount plugin's output ($bad)"
}

# plugin_counts FILE FIRST LAST PER FUNC...: "FUNC ENTRIES INSNS/ENTRIES
# ENTRIES/PER" a line for each FUNC, in FUNC's order: its entries (- when
# the file has no count of it) and two ratios (%.4f, as collect_ratio; -
# without entries).  Counted between marks FIRST and LAST (each counter's
# growth), or, with FIRST empty, over the whole boot (the first count).
# One awk for every FUNC: a parser runs for each state of each boot, and
# an awk per count was most of its time.
plugin_counts() {
	local file=$1 first=$2 last=$3 per=$4
	shift 4
	awk -v a="$first" -v b="$last" -v per="$per" -v funcs="$*" '
		BEGIN { n = split(funcs, fl, " "); for (i = 1; i <= n; i++) want[fl[i]] = 1 }
		a != "" && $1 == "mark" { m = $2; next }
		a != "" && $1 == "end" { m = -1; next }
		$1 in want {
			for (i = 2; i <= NF; i++) {
				split($i, kv, "=")
				if (kv[1] != "entries" && kv[1] != "insns") continue
				if (a == "") { if (!(($1, kv[1]) in w)) w[$1, kv[1]] = kv[2] }
				else if (m == a || m == b) v[$1, kv[1], m] = kv[2]
			}
		}
		function count(f, k) {
			if (a == "") return ((f, k) in w) ? w[f, k] : ""
			return ((f, k, a) in v && (f, k, b) in v) ? v[f, k, b] - v[f, k, a] : ""
		}
		END {
			for (i = 1; i <= n; i++) {
				c = count(fl[i], "entries")
				if (c "" == "") print fl[i], "-", "-", "-"
				else if (c "" == "0") printf "%s 0 - %.4f\n", fl[i], 0
				else printf "%s %s %.4f %.4f\n", fl[i], c, count(fl[i], "insns") / c, c / per
			}
		}' "$file"
}

collect_plugin() {
	local prefix=$1 COLLECT_INPUT=$2 ios=$3 runs=$4 first=$5 last=$6 f calls per_call per_io metric
	shift 6
	plugin_check "$COLLECT_INPUT"
	[[ $ios =~ ^[0-9]+$ && $ios -gt 0 ]] || return 0
	while read -r f calls per_call per_io; do
		[[ $calls != - && $calls != 0 ]] || continue
		plugin_metric "$f" metric
		collect_row "$prefix" "$metric" "$per_call"
		[[ $f != submit_bio_noacct_nocheck ]] || collect_row "$prefix" calls_per_io "$per_io"
	done < <(plugin_counts "$COLLECT_INPUT" "$first" "$last" "$((runs * ios))" "$@")
}

collect_plugin_marks() {
	local prefix=$1 raw=$2 state=$3 ios=$4 first last
	shift 4
	read -r first last < <(awk -v s="$state" '$1 == s { print $2, $3 }' "$raw/marks")
	[[ -n $last ]] || return 0
	[[ $first =~ ^[0-9]+$ && $last =~ ^[0-9]+$ ]] || collect_bad "$raw/marks" "$state: marks '$first' '$last' are not numbers"
	collect_plugin "$prefix" "$raw/plugin.txt" "$ios" 1 "$first" "$last" "$@"
}

collect_punts() {
	local prefix=$1 COLLECT_INPUT=$2 ios=$3 first=$4 last=$5 f gate punts per_io
	plugin_check "$COLLECT_INPUT"
	[[ $ios =~ ^[0-9]+$ && $ios -gt 0 ]] || return 0
	{
		read -r f gate _ _
		read -r f punts _ per_io
	} < <(plugin_counts "$COLLECT_INPUT" "$first" "$last" "$ios" submit_bio_noacct_nocheck io_wq_submit_work)
	[[ $gate != - && $gate != 0 && $punts != - ]] || return 0
	collect_row "$prefix" iowq_punts_per_io "$per_io"
}

collect_hot_lines() {
	local COLLECT_INPUT=$2
	plugin_check "$2"
	collect_row "$1" hot_lines "$(awk '$1 ~ /^line-/ { split($3, kv, "="); if (kv[2] > 0) n++ } END { print n + 0 }' "$2")"
}
