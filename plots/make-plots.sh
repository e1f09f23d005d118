#!/usr/bin/env bash
# plots/make-plots.sh: figures (PNG + SVG) from one benchmark results
# directory.
#
#   plots/make-plots.sh RESULTS_DIR [OUT_DIR]
#
# Reads RESULTS_DIR/summary.csv (bench/stats/benchstat summary output) and
# RESULTS_DIR/meta.json (or, for older runs, RESULTS_DIR/meta.env: KEY=VALUE lines: RUN_ID, DATE, ACCEL, HOST_CPU,
# KERNEL_RELEASE), writes into OUT_DIR (default RESULTS_DIR/plots):
#
#   iops            IOPS median per config x state, CI of the median
#   relative        IOPS change vs the baseline (%), its interval, +-threshold band
#   insns-per-call  instructions per call of submit_bio_noacct_nocheck
#   rules-scaling   insns_per_call and IOPS vs number of rules (rules-N states)
#   cycles          cycles_per_io (only when the run has it: KVM with a vPMU)
#
# each as NAME.png and NAME.svg.  A figure whose metric is not in the data
# is skipped with a "plots: ..., skipping NAME.png" line; one line is
# printed per figure written.  Settings: THRESHOLD (percent, the shaded
# band of relative.png; resolved and checked, bench/plan/settings.table),
# and in the environment
# PLOT_TITLE_PREFIX (put before every figure's title), PLOTS_RANGES (a file: each
# panel's drawn y range is appended to it as "figure|panel|metric|ymin|ymax",
# for tests).
#
# Exit status: 0 if at least one figure was written, 1 if none could be,
# 2 on usage or input errors, 4 without gnuplot (gnuplot-nox) or its terminals.
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/help.sh
. "$HERE/../bench/lib/help.sh"
help_answer "$0" "$@"
# shellcheck source=bench/lib/accel.sh
. "$HERE/../bench/lib/accel.sh"
# shellcheck source=bench/lib/plan.sh
. "$HERE/../bench/lib/plan.sh"
plan_need plots THRESHOLD -- "$0" "$@"

here=$(cd "$HERE" && pwd)

die() {
	echo "make-plots.sh: $*" >&2
	exit "${DIE_STATUS:-$STATUS_BAD_INPUT}"
}

[[ $# -ge 1 && $# -le 2 && $1 != -* ]] || help_usage "$0"
results=$1
outdir=${2:-$results/plots}
summary=$results/summary.csv
metafile=$results/meta.env
# shellcheck disable=SC2153 # read from the plan
threshold=$THRESHOLD
clip=${PLOT_REL_CLIP:-}

[[ -d $results ]] || die "$results: not a directory"
[[ -r $summary ]] || die "$summary: not found or not readable"
if [[ -z $clip ]]; then
	clip=$(awk -v t="$threshold" 'BEGIN { print (5 * t > 5 ? 5 * t : 5) }')
fi
[[ $clip =~ ^[0-9]+([.][0-9]+)?$ ]] || die "PLOT_REL_CLIP=$clip: not a non-negative number"
command -v gnuplot >/dev/null || DIE_STATUS=$STATUS_SETUP die "gnuplot not found (apt-get install -y gnuplot-nox)"
command -v awk >/dev/null || die "awk not found"

# ------------------------------------------------------------ meta.env
# Parsed, not sourced: KEY=VALUE lines, optional "export ", the value one
# shell word as bench/lib/results.sh writes it with printf %q (backslash
# escapes, '...', "...", $'...'); nothing in it is expanded or executed.

# unquote WORD VAR: the string a shell word stands for, into VAR (no
# subshell: a run's meta.env is read a key at a time)
unquote() {
	local s=$1 out='' c seg i=0 n=${#1}
	while ((i < n)); do
		c=${s:i:1}
		if [[ $c == "\\" ]]; then
			out+=${s:i+1:1}
			i=$((i + 2))
		elif [[ $c == "'" ]]; then
			seg=${s:i+1}
			seg=${seg%%"'"*}
			out+=$seg
			i=$((i + ${#seg} + 2))
		elif [[ $c == '"' ]]; then
			i=$((i + 1))
			while ((i < n)) && [[ ${s:i:1} != '"' ]]; do
				if [[ ${s:i:1} == "\\" && ${s:i+1:1} == [\\\"\$\`] ]]; then
					out+=${s:i+1:1}
					i=$((i + 2))
				else
					out+=${s:i:1}
					i=$((i + 1))
				fi
			done
			i=$((i + 1))
		elif [[ $c == '$' && ${s:i+1:1} == "'" ]]; then
			# $'...': up to the first unescaped quote, then the C escapes
			seg=''
			i=$((i + 2))
			while ((i < n)) && [[ ${s:i:1} != "'" ]]; do
				if [[ ${s:i:1} == "\\" ]]; then
					seg+=${s:i:2}
					i=$((i + 2))
				else
					seg+=${s:i:1}
					i=$((i + 1))
				fi
			done
			i=$((i + 1))
			seg=${seg//"\'"/"'"}
			printf -v seg '%b' "$seg"
			out+=$seg
		else
			out+=$c
			i=$((i + 1))
		fi
	done
	# control characters (a tab or newline in $'...') would break a title
	printf -v "$2" '%s' "${out//[[:cntrl:]]/ }"
}

# The run's meta.json (bench/lib/results.sh write_meta) in one read: its
# flat keys, then the configs' legends as the run recorded them with its
# builds (not as bench/kernel/configs/ says today), as config names and
# double-quoted legends for gnuplot's legendconf and keylegend (common.gp).
declare -A meta=()
legendconf='' keylegend=''
if [[ -r $results/meta.json ]]; then
	while IFS=$'\t' read -r kind key value; do
		if [[ $kind == meta ]]; then
			meta[$key]=$value
			continue
		fi
		legendconf+="${legendconf:+ }$key"
		keylegend+="${keylegend:+ }\"${value//\"/}\""
	done < <(jq -r '(to_entries[] | select(.value | type != "object")
			| ["meta", .key, (.value | tostring | gsub("[[:cntrl:]]"; " "))]),
		(.BUILDS // {} | to_entries[] | select((.value.legend // "") != "")
			| ["legend", .key, (.value.legend | gsub("[[:cntrl:]]"; " "))])
		| @tsv' "$results/meta.json")
elif [[ -r $metafile ]]; then
	while IFS= read -r line || [[ -n $line ]]; do
		line=${line%$'\r'}
		[[ $line =~ ^[[:space:]]*(export[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || continue
		unquote "${BASH_REMATCH[3]}" value
		meta[${BASH_REMATCH[2]}]=$value
	done <"$metafile"
else
	echo "make-plots.sh: warning: $metafile not found; run id etc. unknown" >&2
fi
run_id=${meta[RUN_ID]:-$(basename "$(cd "$results" && pwd)")}
date=${meta[DATE]:-unknown date}
accel=${meta[ACCEL]:-unknown}
host_cpu=${meta[HOST_CPU]:-unknown}
kernel=${meta[KERNEL_RELEASE]:-unknown}

# ------------------------------------------------------------ terminals
terms=$(gnuplot -e 'set terminal' 2>&1 </dev/null || true)
if grep -qw pngcairo <<<"$terms"; then
	pngterm=pngcairo
elif grep -qw png <<<"$terms"; then
	pngterm=png
	echo "make-plots.sh: warning: gnuplot has no pngcairo terminal, using png (libgd)" >&2
else
	DIE_STATUS=$STATUS_SETUP die "gnuplot has neither the pngcairo nor the png terminal"
fi
grep -qw svg <<<"$terms" || DIE_STATUS=$STATUS_SETUP die "gnuplot has no svg terminal"

tmp=$(mktemp -d)
if [[ -n ${PLOTS_KEEP_TMP:-} ]]; then
	echo "make-plots.sh: keeping the data files in $tmp" >&2
else
	trap 'rm -rf "$tmp"' EXIT
fi
mkdir -p "$outdir"

# gq STRING: STRING as a gnuplot single-quoted string literal
gq() {
	local s=${1//\'/\'\'}
	printf "'%s'" "$s"
}

# gvar NAME VALUE: "; NAME='VALUE'" (VALUE as gq quotes it) appended to
# the caller's vars, in the shell: a figure sets a dozen strings, and a
# command substitution is a process
gvar() {
	local s=${2//\'/\'\'}
	vars+="; $1='$s'"
}

# load_info FILE: the KEY=VALUE lines of a reshape.awk .info file into $info
declare -A info=()
load_info() {
	info=()
	local k v
	while IFS='=' read -r k v; do
		info[$k]=$v
	done <"$1"
}

# range VAR LIST: into VAR, "a" for one value, "a–b" for the min and max
# of a sorted list
range() {
	local -a w
	read -ra w <<<"$2"
	case ${#w[@]} in
	0) printf -v "$1" '' ;;
	1) printf -v "$1" '%s' "${w[0]}" ;;
	*) printf -v "$1" '%s' "${w[0]}–${w[${#w[@]} - 1]}" ;;
	esac
}

# reshape NAME ARGS...: run reshape.awk into $tmp/NAME.*, load its info
reshape() {
	local name=$1
	shift
	awk -f "$here/reshape.awk" "$@" -v clip="$clip" -v randomwl="$randomwl" -v prefix="$tmp/$name" "$summary" ||
		die "$summary: cannot be read as a benchstat summary"
	load_info "$tmp/$name.info"
}

produced=0
# SUB_WIDTH: the characters a subtitle line holds on the 1000-pixel canvas
SUB_WIDTH=110
# Under tcg-icount the workloads that ran on more than one vCPU have random
# guest time: it depends on how QEMU interleaves the vCPUs, not only on the
# code (the views run: mq "no rules" +5.2% IOPS at qd1, +0.02% at qd32, for
# the same +1 instruction per call).  Drawn as random, with the exact change
# of the instructions per call beside them in relative.  Which workloads:
# the run's SMP_WORKLOADS (meta.json, bench/run/views.sh; benchstat has
# already classed their rows random), else, for runs made before the key,
# the multi-queue view's mq-* (2 vCPUs).
randomwl='' mqnote=''
if accel_exact "$accel" && [[ -v meta[SMP_WORKLOADS] ]]; then
	# the listed workloads that have IOPS here, as an ERE of exact names
	smpiops=$(awk -F, -v list="${meta[SMP_WORKLOADS]}" '
		BEGIN { n = split(list, w, /[ \t]+/); for (i = 1; i <= n; i++) if (w[i] != "") l[w[i]] = 1 }
		NR > 1 && $4 == "iops" && ($3 in l) && !seen[$3]++ { printf "%s%s", sep, $3; sep = " " }' "$summary")
	if [[ -n $smpiops ]]; then
		randomwl="^($(sed 's/[.+*?(){}$]/[&]/g; s/ /|/g' <<<"$smpiops"))\$"
		mqnote="$smpiops: more than one vCPU under $accel: IOPS depend on how the vCPUs interleave"
		((${#mqnote} <= SUB_WIDTH)) ||
			mqnote="SMP_WORKLOADS: more than one vCPU under $accel: IOPS depend on how the vCPUs interleave"
	fi
elif accel_exact "$accel" && grep -q '^[^,]*,[^,]*,mq-' "$summary"; then
	randomwl='^mq-'
	mqnote="mq-*: 2 vCPUs under $accel: IOPS depend on how the vCPUs interleave, not only on the code"
fi
# subtitle lines 1 and 2 of every figure (line 1: run id, accel, date)
sub1="run $run_id, accel $accel, $date"
sub2="host: $host_cpu; kernel: $kernel"
# gnuplot's insn_time: the run's time axis counts instructions
insn_time=0
! accel_exact "$accel" || insn_time=1

# gvar_fit NAME LINE: gvar NAME with LINE cut to SUB_WIDTH characters
# (the width of a figure)
gvar_fit() {
	if ((${#2} > SUB_WIDTH)); then gvar "$1" "${2:0:SUB_WIDTH-1}…"; else gvar "$1" "$2"; fi
}

# split_clauses TEXT: TEXT's "; " clauses on as many lines as they need,
# each filled up to SUB_WIDTH characters, one line a line of output
split_clauses() {
	local s=$1 line='' seg
	while [[ -n $s ]]; do
		if [[ $s == *'; '* ]]; then
			seg=${s%%; *}
			s=${s#*; }
		else
			seg=$s
			s=''
		fi
		if [[ -z $line || $((${#line} + 2 + ${#seg})) -le $SUB_WIDTH ]]; then
			line+=${line:+; }$seg
		else
			printf '%s\n' "$line"
			line=$seg
		fi
	done
	printf '%s\n' "$line"
}

# render NAME SCRIPT TITLE SUB [VAR=VALUE...]: the PNG and SVG of a figure.
# SUB (the figure's own subtitle) is wrapped between "; " clauses on lines
# of up to SUB_WIDTH characters (a centred line wider than the canvas is
# cut at both edges); a SUB of "NOTE\nTEXT" gives NOTE a line of its own
# above TEXT's.  Up to four lines (sub3..sub6).
render() {
	local name=$1 script=$2 title=${PLOT_TITLE_PREFIX:-}$3 sub=$4 note=''
	shift 4
	local vars t ext f i
	local -a lines=() args=()
	if [[ $sub == *$'\n'* ]]; then
		note=${sub%%$'\n'*}
		sub=${sub#*$'\n'}
	fi
	[[ -z $note ]] || lines+=("$note")
	mapfile -t -O "${#lines[@]}" lines < <(split_clauses "$sub")
	vars="npanels=${info[npanels]}"
	gvar plotdir "$here"
	gvar prefix "$tmp/$name"
	gvar keyconf "${info[keyconf]:-}"
	gvar keycidx "${info[keycidx]:-}"
	gvar legendconf "$legendconf"
	gvar keylegend "$keylegend"
	gvar_fit title "$title"
	gvar_fit sub1 "$sub1"
	gvar_fit sub2 "$sub2"
	for i in 0 1 2 3; do
		gvar_fit "sub$((i + 3))" "${lines[i]:-}"
	done
	vars+="; insn_time=$insn_time"
	for f in "$@"; do vars+="; $f"; done
	gvar figname "$name"
	for t in "$pngterm" svg; do
		ext=${t/pngcairo/png}
		# the y ranges are logged once, from the PNG
		if [[ $t == svg ]]; then gvar rangelog ''; else gvar rangelog "${PLOTS_RANGES:-}"; fi
		gvar term "$t"
		gvar out "$outdir/$name.$ext"
		# both terminals in one gnuplot (its start is most of a figure's
		# cost), the second from a clean state
		args+=(-e "reset session" -e "$vars" "$here/$script")
	done
	if ! gnuplot "${args[@]}"; then
		rm -f "$outdir/$name.png" "$outdir/$name.svg"
		die "gnuplot failed on $script for $name (PNG and SVG)"
	fi
	echo "plots: wrote $outdir/$name.png and $outdir/$name.svg"
	produced=$((produced + 1))
}

# ciwords: CIWORDS, the "n=..., CI of median (coverage ...)" part of a
# subtitle
ciwords() {
	local lv n
	range lv "${info[levels]:-}"
	range n "${info[nvals]:-}"
	if [[ -n $lv ]]; then
		CIWORDS="median of n=$n runs; error bars: CI of median (order statistics), coverage $lv"
	else
		CIWORDS="median of n=$n runs; no CI (n<2)"
	fi
}

# ------------------------------------------------------------ 1. iops
reshape iops -v mode=cat -v metric=iops -v val=median
have_iops=${info[npanels]}
if ((have_iops > 0)); then
	ciwords
	s2="$CIWORDS; y axis from 0"
	((info[nrandom] == 0)) || s2="$mqnote"$'\n'"$s2; open symbols: random, no interval"
	render iops iops.gp "IOPS per config and state" "$s2"
else
	echo "plots: no iops in this run, skipping iops.png"
fi

# ------------------------------------------------------------ 2. relative
reshape relative -v mode=cat -v metric=iops -v val=rel -v ticnote="${randomwl:+insns_per_call}"
if ((info[npanels] > 0)); then
	base=${info[baseline]:-baseline}
	if ((info[nrandom] == info[nsel])); then
		# random class: no interval, no verdict (open symbols)
		s2="open symbols: change of the median IOPS (random: no interval, no verdict)"
	else
		# the bars are benchstat's interval: the repeats' range, the
		# Hodges-Lehmann CI, or, with one run a side under icount, a
		# repeatability margin (no CI: say so, not "CI")
		if ((info[nbars] == 0)); then
			bars="no error bars (each change's interval is one point or none)"
		elif ((info[nsingle] == info[nbars])); then
			bars="bars: ±${info[singlehw]}% icount repeatability (one run a side: no CI)"
		elif ((info[nsingle] > 0)); then
			bars="bars: the change's interval (repeats' range, Hodges-Lehmann CI, or ±${info[singlehw]}% icount repeatability with one run a side)"
		else
			bars="bars: the change's interval (repeats' range or Hodges-Lehmann CI)"
		fi
		s2="change of the median, < 0 = fewer IOPS; $bars"
		((info[nrandom] == 0)) || s2+="; open symbols: random, no interval"
	fi
	s2+="; shaded: ±$threshold% threshold"
	((info[nnote] == 0)) || s2+="; bottom numbers: change of instructions per call (exact)"
	((info[nrandom] == 0)) || [[ -z $mqnote ]] || s2="$mqnote"$'\n'"$s2"
	# only panels with values on both sides of the cut are cut (reshape.awk)
	((info[ncut] == 0)) || s2+="; y axis cut at ±$clip%: ▼/▲ beyond it, value printed"
	title="IOPS change vs $base"
	[[ -z ${info[baselabel]:-} || ${info[baselabel]} == "${base#*/}" ]] || title+=" (${info[baselabel]})"
	render relative relative.gp "$title" "$s2" \
		"threshold=$threshold" "clip=$clip" "baseline=$(gq "$base")" \
		"vmin=${info[vmin]}" "vmax=${info[vmax]}"
elif ((have_iops > 0)); then
	echo "plots: no rel_change_pct for iops in this run (no baseline group?), skipping relative.png"
else
	echo "plots: no iops in this run, skipping relative.png"
fi

# ------------------------------------------------------------ 3. insns-per-call
reshape insns-per-call -v mode=cat -v metric=insns_per_call -v val=median
if ((info[npanels] > 0)); then
	s2="median over the runs, counted by the QEMU plugin"
	if ((info[ndet] == info[nsel])); then
		s2+="; all deterministic (identical repeats): no error bars"
	elif [[ -z ${info[levels]:-} ]]; then
		range n "${info[nvals]:-}"
		s2+="; n=$n: no CI, no error bars"
	elif ((info[ndet] > 0)); then
		s2+="; ${info[ndet]} of ${info[nsel]} deterministic; error bars: CI of median"
	else
		s2+="; error bars: CI of median"
	fi
	if awk -v a="${info[ymin]}" -v b="${info[ymax]}" 'BEGIN { exit !(a > 0 && b / a > 30) }'; then
		s2+="; log y axis"
	fi
	render insns-per-call insns-per-call.gp "Instructions per call of submit_bio_noacct_nocheck" "$s2" \
		"ymin=${info[ymin]}" "ymax=${info[ymax]}"
else
	echo "plots: no insns_per_call in this run (needs the TCG instruction-count plugin), skipping insns-per-call.png"
fi

# ------------------------------------------------------------ 4. rules-scaling
# The cost that grows with N is inside __blk_error_inject: plot that when
# the run counted it, else the gate function's own count.
rules_insns=insns_per_call
grep -q ',rules-[0-9]*,[^,]*,blk_error_inject_insns_per_call,' "$summary" &&
	rules_insns=blk_error_inject_insns_per_call
reshape rules-scaling -v mode=rules -v metrics="$rules_insns iops"
if ((info[npanels] > 0)); then
	# error bars only where a rules-N row has a CI of its median (n >= 2)
	bars="error bars: CI of median"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$2 ~ /^rules-[0-9]+$/ && $c["ci_lo"] != "" { found = 1 } END { exit !found }' "$summary" ||
		bars="n=1: no CI, no error bars"
	render rules-scaling rules-scaling.gp "Cost vs number of rules on the target disk" \
		"x: N of state rules-N (log), configs side by side at each N; 0: key-off (no rules); $bars" \
		"nrows=${info[nrows]}" "ncols=${info[ncols]}"
else
	echo "plots: no rules-N states with insns_per_call or iops in this run, skipping rules-scaling.png"
fi

# ------------------------------------------------------------ 5. cycles
reshape cycles -v mode=cat -v metric=cycles_per_io -v val=median
if ((info[npanels] > 0)); then
	ciwords
	render cycles cycles.gp "Cycles per I/O per config and state" "$CIWORDS; y axis from 0"
else
	echo "plots: no cycles_per_io in this run (no PMU: not KVM with vPMU), skipping cycles.png"
fi

if ((produced == 0)); then
	echo "plots: no figures produced from $summary" >&2
	exit "$STATUS_FAILED"
fi
