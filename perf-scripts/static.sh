#!/usr/bin/env bash
# The static answer: what a change did to the code of the hot functions
# (HOT_FUNCS), read from their objects alone: no vmlinux, no boot.
#
#   static.sh [-h] [-o DIR] [BASE_CONFIG NEW_CONFIG]     default: off on
#   static.sh --listing OBJECT FUNCTION    the listing static-diff compares
#   static.sh --listing-inputs OBJECT FUNCTION DIR   what the listing is
#                 made of (symbols, sites, disassembly), for test fixtures
#
# Each side is configured as a build is (tinyconfig + fragments) and
# prepared, and only the objects that define HOT_FUNCS are compiled
# (bench/kernel/build.sh objects; a finished build of the same tree and fragments
# is used as it is).  Then, per function, the difference instruction by
# instruction (perf-scripts/static-diff.c): relocations as symbol names,
# jump-label sites named from __jump_table and shown as what they are
# while their key is off (a NOP, or a taken jump when the entry's branch
# bit is set), registers renamed, code copied or moved out of line; and a
# verdict on the idle path, the code that runs with every static key off.
# Settings (environment, resolved and checked: bench/plan/settings.table):
#   BASE_CONFIG NEW_CONFIG  the sides' configs when not given as arguments
#   BASE_SERIES NEW_SERIES  BASE_KSRC NEW_KSRC   each side's series and
#                 source (default SERIES and KSRC, as for bench/kernel/build.sh)
#   HOT_FUNCS     the functions
#   STATIC_CONTEXT   unchanged lines around each change ("all": every line)
# and, not settings, BASE_LABEL NEW_LABEL: the sides' names (default: the
# configs, with the series when the series differ).
# Output on stdout; with -o DIR also DIR/static.txt and DIR/static.csv
# (one row per function).  Exit 0 with an answer, 1 when a build step
# failed, 2 on bad input.
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../bench/lib/lib.sh"
tool_start static 'CACHE KSRC SERIES BASE_KSRC NEW_KSRC BASE_SERIES NEW_SERIES HOT_FUNCS STATIC_CONTEXT BASE_CONFIG NEW_CONFIG' -- "$0" "$@"

DIE_STATUS=$STATUS_BAD_INPUT
OUT_DIR=''
if [[ ${1:-} == --listing ]]; then
	[[ $# == 3 && -f $2 ]] || die "usage: static.sh --listing OBJECT FUNCTION"
	MODE=listing
elif [[ ${1:-} == --listing-inputs ]]; then
	[[ $# == 4 && -f $2 && -d $4 ]] || die "usage: static.sh --listing-inputs OBJECT FUNCTION DIR"
	MODE=listing-inputs
elif [[ ${1:-} == -o ]]; then
	[[ $# -ge 2 ]] || die "-o needs a directory"
	OUT_DIR=$2
	shift 2
fi
[[ $# == 0 || $# == 2 || -n ${MODE:-} ]] || die "usage: static.sh [-o DIR] [BASE_CONFIG NEW_CONFIG] (see -h)"
[[ $# != 2 ]] || BASE_CONFIG=$1 NEW_CONFIG=$2
read -r -a FUNCS <<<"$HOT_FUNCS"
CONTEXT=$STATIC_CONTEXT
[[ $CONTEXT == all ]] && CONTEXT=-1
[[ $CONTEXT =~ ^-?[0-9]+$ ]] || die "STATIC_CONTEXT=$CONTEXT: a number of lines, or all"
LISTING_AWK=$REPO_DIR/perf-scripts/static-listing.awk
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# What resolve_variant decides for a side, resolved once per side
# (resolve_side) and given to each command of that side, whose own
# resolve_variant then has nothing to do; and the side's plan, this one's
# with the side's KSRC and SERIES, where build.sh reads them.
VARIANT_VARS=(KSRC SERIES KSRC_KIND KSRC_ID SERIES_DIR SERIES_ID VARIANT_ROOT VARIANT_NOSERIES_ROOT VARIANT_FOR BIB_PLAN)
declare -A SIDE_ENV=()

# resolve_side NAME: resolve NAME's KSRC and SERIES (BASE_ or NEW_: the
# plan's, KSRC and SERIES unless given); exit 2 when either is not a
# source or a series.
resolve_side() {
	local name=$1 ksrc series
	local -a src=()
	if [[ $name == base ]]; then
		ksrc=$BASE_KSRC series=$BASE_SERIES
	else
		ksrc=$NEW_KSRC series=$NEW_SERIES
	fi
	src=("SERIES=$series")
	[[ -z $ksrc ]] || src+=("KSRC=$ksrc")
	plan_make "$WORK/$name.plan" kernels "${src[@]}" || exit "$STATUS_BAD_INPUT"
	SIDE_ENV[$name]=$(
		KSRC=$ksrc SERIES=$series VARIANT_FOR='' BIB_PLAN=$WORK/$name.plan
		resolve_variant
		for v in "${VARIANT_VARS[@]}"; do printf '%s=%s\n' "$v" "${!v}"; done
	) || exit "$STATUS_BAD_INPUT"
}

# side NAME COMMAND...: run COMMAND with NAME's source and series.
side() {
	local name=$1 kv
	shift
	(
		while IFS= read -r kv; do export "${kv?}"; done <<<"${SIDE_ENV[$name]}"
		"$@"
	)
}

# value NAME: the value of variable NAME (for side ... value VARIANT_ROOT).
value() { printf '%s\n' "${!1}"; }

# sources CONFIG: "FUNC FILE" for each HOT_FUNC, FILE a C file of the
# config's tree with a line that starts its definition (the type, the name,
# the parameters, no ';'), "FUNC -" when none has.  Kept beside the build
# while the tree is the same.
sources() {
	local src out cache f
	src=$(tree_dir "$(config_tree "$1")")
	out=$(kernel_build_dir "$1")
	cache=$out/.blkinject-sources
	if [[ -f $cache && $(head -n 1 "$cache") == "$(cat "$src/.blkinject-patches") $HOT_FUNCS" ]]; then
		tail -n +2 "$cache"
		return
	fi
	mkdir -p "$out"
	{
		printf '%s %s\n' "$(cat "$src/.blkinject-patches")" "$HOT_FUNCS"
		for f in "${FUNCS[@]}"; do
			printf '%s %s\n' "$f" "$(tree_function_files "$src" "$f")"
		done
	} >"$cache.new"
	mv "$cache.new" "$cache"
	tail -n +2 "$cache"
}

# prepare_side NAME CONFIG: the objects of CONFIG that define HOT_FUNCS,
# compiled; writes $WORK/NAME.objects, "FUNC OBJECT_PATH" a line ("FUNC -"
# when this config does not build it).
prepare_side() {
	local name=$1 cfg=$2 f files file objs=() built=() o
	while read -r f files; do
		for file in $files; do
			[[ $file == - ]] || objs+=("${file%.c}.o")
		done
	done < <(sources "$cfg")
	[[ ${#objs[@]} == 0 ]] || mapfile -t objs < <(printf '%s\n' "${objs[@]}" | sort -u)
	# Only the objects the .config builds come back, compiled.
	"$BENCH_DIR/kernel/build.sh" objects "$cfg" "${objs[@]}" >"$WORK/$name.built"
	mapfile -t built <"$WORK/$name.built"
	: >"$WORK/$name.objects"
	for f in "${FUNCS[@]}"; do
		file=-
		for o in "${built[@]}"; do
			# The object that defines it (a static function of the same
			# name elsewhere would not be ours to count).
			if nm "$o" 2>/dev/null | awk -v f="$f" '$3 == f && $2 ~ /^[Tt]$/ { found = 1 } END { exit !found }'; then
				file=$o
				break
			fi
		done
		printf '%s %s\n' "$f" "$file" >>"$WORK/$name.objects"
	done
}

# listing_inputs OBJECT FUNC DIR: what static-listing.awk reads, into DIR:
# symbols (objdump -t), sites (jump-sites) and disassembly (the "#part"
# lines, then objdump -dr of the function and of each of its .cold parts).
listing_inputs() {
	local obj=$1 func=$2 dir=$3 i=0 name sec start size
	objdump -t "$obj" >"$dir/symbols"
	"$JUMP_SITES" "$obj" >"$dir/sites" || [[ $? == 1 ]]
	awk -F'\t' -v f="$func" '
		{ n = split($1, a, " "); split($2, b, " ") }
		b[2] == f || b[2] ~ ("^" f "\\.cold(\\.[0-9]+)?$") { print (b[2] == f ? 0 : 1), b[2], a[n], a[1], b[1] }' \
		"$dir/symbols" | sort -k1,1n -k2,2 | cut -d' ' -f2- >"$dir/parts"
	[[ -s $dir/parts ]] || return 1
	while read -r name sec start size; do
		printf '#part %d %s %s %s %s\n' "$i" "$name" "$sec" "$start" "$size"
		i=$((i + 1))
	done <"$dir/parts" >"$dir/disassembly"
	while read -r name sec start size; do
		objdump -dr --no-show-raw-insn -j "$sec" --start-address=$((0x$start)) \
			--stop-address=$((0x$start + 0x$size)) "$obj" >>"$dir/disassembly"
	done <"$dir/parts"
	rm -f "$dir/parts"
}

# listing OBJECT FUNC OUT: the function and its .cold parts as a listing.
listing() {
	local dir=$WORK/inputs
	mkdir -p "$dir"
	listing_inputs "$1" "$2" "$dir" || return 1
	awk -f "$LISTING_AWK" "$dir/symbols" "$dir/sites" "$dir/disassembly" >"$3"
}

# label NAME CONFIG: how the output names a side.
label() {
	local var=${1^^}_LABEL series
	if [[ -n ${!var:-} ]]; then
		printf '%s\n' "${!var}"
		return
	fi
	if [[ $(side base value VARIANT_ROOT) == "$(side new value VARIANT_ROOT)" ]]; then
		printf '%s\n' "$2"
	else
		series=$(side "$1" value SERIES_DIR)
		printf '%s(%s)\n' "$2" "$(basename "$series")"
	fi
}

# field NAME SUMMARY: a field of a static-diff summary.
field() { sed -n "s/^$1=//p" "$2"; }

# csv_row FUNC STATUS [SUMMARY]: one row of static.csv.
csv_row() {
	local k row="$BASE_LABEL,$NEW_LABEL,$1,$2"
	for k in sites_added sites_removed sites_taken sites_flipped renamed other_added other_removed \
		other_changed key_added key_removed cold_added cold_removed moved copied idle_delta \
		sites_flipped_taken; do
		row+=,$([[ -n ${3:-} ]] && field "$k" "$3" || echo 0)
	done
	printf '%s\n' "$row"
}

# compare_function FUNC: the answer for one function.
compare_function() {
	local f=$1 ob on n calls
	ob=$(object_of base "$f")
	on=$(object_of new "$f")
	printf '\n== %s\n' "$f"
	if [[ $ob == - && $on == - ]]; then
		printf 'in neither side (not built in %s nor in %s)\n' "$BASE_CONFIG" "$NEW_CONFIG"
		csv_row "$f" absent >>"$WORK/csv"
		return
	fi
	if [[ $ob == - || $on == - ]]; then
		local only=$NEW_LABEL obj=$on other=$BASE_LABEL
		[[ $on != - ]] || only=$BASE_LABEL obj=$ob other=$NEW_LABEL
		listing "$obj" "$f" "$WORK/one.lst"
		n=$(grep -vc '^#' "$WORK/one.lst")
		printf 'only in %s: %s instructions (%s);\n%s does not build it\n' "$only" "$n" \
			"$(object_name "$obj")" "$other"
		calls=$(cat "$WORK"/*.sum 2>/dev/null | sed -n 's/^idle_calls=//p' | tr ' ' '\n' | grep -cx "$f" || true)
		if [[ $calls == 0 ]]; then
			printf 'not on the idle path: no idle path of the other functions calls it\n'
		else
			printf 'ON THE IDLE PATH as far as the code shows: the idle path of another\n'
			printf 'function calls it\n'
		fi
		csv_row "$f" "only-$([[ $only == "$NEW_LABEL" ]] && echo new || echo base)" >>"$WORK/csv"
		return
	fi
	if [[ $(object_name "$ob") == "$(object_name "$on")" ]]; then
		printf 'object: %s\n' "$(object_name "$on")"
	else
		printf '%s: %s\n%s: %s\n' "$BASE_LABEL" "$(object_name "$ob")" "$NEW_LABEL" "$(object_name "$on")"
	fi
	listing "$ob" "$f" "$WORK/base.lst"
	listing "$on" "$f" "$WORK/new.lst"
	"$STATIC_DIFF" -c "$CONTEXT" -s "$WORK/$f.sum" "$BASE_LABEL" "$WORK/base.lst" \
		"$NEW_LABEL" "$WORK/new.lst"
	csv_row "$f" compared "$WORK/$f.sum" >>"$WORK/csv"
}

# object_of SIDE FUNC: the object of FUNC on SIDE, "-" when not built.
object_of() { awk -v f="$2" '$1 == f { print $2 }' "$WORK/$1.objects"; }

# object_name PATH: the object's path inside its build directory.
object_name() {
	local p=$1
	printf '%s\n' "${p#*/build/*/}"
}

main() {
	local s t0 f pid pids failed=0 sums=()
	t0=$(date +%s)
	check_configs "$BASE_CONFIG" "$NEW_CONFIG"
	for s in base new; do resolve_side "$s"; done
	DIE_STATUS=$STATUS_FAILED
	JUMP_SITES=$(host_tool jump-sites) STATIC_DIFF=$(host_tool static-diff)
	BASE_LABEL=$(label base "$BASE_CONFIG") NEW_LABEL=$(label new "$NEW_CONFIG")
	[[ $BASE_LABEL != "$NEW_LABEL" ]] || BASE_LABEL="$BASE_LABEL(base)" NEW_LABEL="$NEW_LABEL(new)"
	# Trees first, one at a time (two syncs of one tree would clobber it);
	# then both sides' configure, prepare and objects at once.
	side base "$BENCH_DIR/kernel/build.sh" tree "$(config_tree "$BASE_CONFIG")"
	side new "$BENCH_DIR/kernel/build.sh" tree "$(config_tree "$NEW_CONFIG")"
	log "static: $BASE_LABEL and $NEW_LABEL: configure, make prepare, the objects of $HOT_FUNCS"
	side base prepare_side base "$BASE_CONFIG" 2>"$WORK/base.log" &
	pids=($!)
	# One build directory for both (a config against itself): one at a time.
	if [[ $(side base kernel_build_dir "$BASE_CONFIG") == "$(side new kernel_build_dir "$NEW_CONFIG")" ]]; then
		wait "${pids[0]}" || { cat "$WORK/base.log" >&2; exit "$STATUS_FAILED"; }
		pids=()
	fi
	side new prepare_side new "$NEW_CONFIG" 2>"$WORK/new.log" &
	pids+=($!)
	for pid in "${pids[@]}"; do
		wait "$pid" || failed=1
	done
	cat "$WORK/base.log" "$WORK/new.log" >&2
	((failed == 0)) || exit "$STATUS_FAILED"
	{
		printf 'Static answer: %s -> %s, of %s, by perf-scripts/static.sh at %s, from the objects alone (objdump -dr), in control-flow order.\n' \
			"$BASE_LABEL" "$NEW_LABEL" "$HOT_FUNCS" \
			"$(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)" | fold -s -w 80 | sed 's/ *$//'
		printf 'Marks: + added, - removed, r registers renamed, ~ changed, c copy, m moved;\n'
		printf 'idle: reachable with every static key off (a jump-label site follows its\n'
		printf 'branch bit; a key read as a plain load, without jump labels, counts both\n'
		printf 'ways), key: only with a key on, cold: a .cold part.\n'
		# Functions both sides have first: the idle calls they make
		# decide whether a function one side lacks is on the idle path.
		: >"$WORK/csv"
		for f in "${FUNCS[@]}"; do
			if [[ $(object_of base "$f") != - && $(object_of new "$f") != - ]]; then
				compare_function "$f"
				sums+=("$WORK/$f.sum")
			fi
		done
		for f in "${FUNCS[@]}"; do
			[[ $(object_of base "$f") != - && $(object_of new "$f") != - ]] || compare_function "$f"
		done
		printf '\n'
		if [[ ${#sums[@]} -gt 0 ]]; then
			"$STATIC_DIFF" -v -t "Verdict ($BASE_LABEL -> $NEW_LABEL)" "${sums[@]}"
		else
			printf 'Verdict: no function in both sides to compare\n'
		fi
	} | tee "$WORK/static.txt"
	if [[ -n $OUT_DIR ]]; then
		mkdir -p "$OUT_DIR"
		cp "$WORK/static.txt" "$OUT_DIR/static.txt"
		{
			printf 'base,new,function,status,sites_added,sites_removed,sites_taken,sites_flipped,renamed,'
			printf 'other_added,other_removed,other_changed,key_added,key_removed,cold_added,'
			printf 'cold_removed,moved,copied,idle_delta,sites_flipped_taken\n'
			cat "$WORK/csv"
		} >"$OUT_DIR/static.csv"
	fi
	log "static: answered in $(($(date +%s) - t0))s"
}

if [[ ${MODE:-} == listing ]]; then
	JUMP_SITES=$(host_tool jump-sites)
	listing "$2" "$3" /dev/stdout || die "$2 has no function $3"
elif [[ ${MODE:-} == listing-inputs ]]; then
	JUMP_SITES=$(host_tool jump-sites)
	listing_inputs "$2" "$3" "$4" || die "$2 has no function $3"
else
	main
fi
