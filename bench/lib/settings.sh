# shellcheck shell=bash
# The settings resolver.  The job files, the environment and make's
# variables go through here once; every value is checked, and what comes
# out is one plan that every stage reads.  What each setting may hold,
# its default and the commands that read it are bench/plan/settings.table;
# a driver's own defaults (and the settings it does not let a user change)
# are bench/plan/drivers/DRIVER.job.
#
# Every problem is collected and printed, each naming the valid values,
# and the command exits 2 having done nothing: no directory made, no file
# written, nothing extracted, built or booted; 4 (setup) when the only
# problem is what the machine lacks (ACCEL=kvm where KVM runs no guest).
#
# Sourcing this file defines functions (its own, bench/lib/catalog.sh's,
# bench/lib/toolchain.sh's and bench/lib/accel.sh's) and nothing else.
# Entry points:
#   settings_resolve [-p PARENT] [-n NAMES] DRIVER [NAME=VALUE...]
#                                              0, or 2 (4) after printing the problems
#   settings_write_plan FILE                   the plan, KEY=VALUE a line
#   settings_print                             NAME=VALUE  (from WHERE) a line
#   settings_drivers                           the drivers, one a line
#   settings_recipe VIEW KEY                   a key of a view's recipe
#
# Layers, later ones win: the table's default; for the drivers of the
# matrix bench/plan/jobs/default.job, then the job file JOB_FILE names; the
# driver's own file; the environment (where make puts VAR=... of its
# command line), or, for a driver another one runs, that one's plan (-p
# PARENT: each value it did not take from the table; the environment is
# not read); NAME=VALUE arguments.  An empty value is an error except for
# a list that may be empty (WORKLOADS=: none).  With -n, only those of the
# driver's settings (a tool's: bench/lib/plan.sh plan_need).

# shellcheck source=bench/lib/catalog.sh
. "${BASH_SOURCE[0]%/*}/catalog.sh"
# shellcheck source=bench/lib/toolchain.sh
. "${BASH_SOURCE[0]%/*}/toolchain.sh"
# shellcheck source=bench/lib/accel.sh
. "${BASH_SOURCE[0]%/*}/accel.sh"

# --- the registry: bench/plan/settings.table ------------------------------

# st_init DRIVER: empty state, the registry loaded, the driver known.
st_init() {
	declare -g ST_REPO ST_DRIVER=$1 ST_OUT='' CATALOG_REPO='' ST_PARENT=${2:-} ST_PARENT_ACCEL='' ST_PARENT_USED=''
	declare -ga ST_NAMES=() ST_ERRORS=() ST_SETUP=() ST_DERIVED=() ST_MINE=()
	declare -gA ST_SCOPE=() ST_TYPE=() ST_DEFAULT=() ST_DRIVERS=() ST_WHAT=() ST_OLDOF=()
	declare -gA ST_GROUP=() ST_VAL=() ST_FROM=() ST_FIXED=() ST_ORIGIN=() ST_UVAL=() ST_ALSO=() ST_VIEW=() ST_ONLY=()
	catalog_dir ST_REPO repo
	CATALOG_REPO=$ST_REPO
	st_load_registry
}

# st_driver_known: some setting is read by ST_DRIVER.
st_driver_known() {
	local n
	[[ $ST_DRIVER =~ ^[a-z-]+$ ]] || return 1
	for n in "${ST_NAMES[@]}"; do
		[[ ${ST_DRIVERS[$n]} != *" $ST_DRIVER "* ]] || return 0
	done
	return 1
}

# st_load_registry: the table into ST_NAMES and the ST_ arrays by name.
# A field is its words: blanks around and between them count as one
# space.  Split by the shell's own word splitting, which is linear (the
# patterns that trimmed each field were half of what a resolver run did
# once it matched bytes), into the positional parameters (an array
# assignment costs more than set).
# shellcheck disable=SC2086 # split on purpose, with globbing off
st_load_registry() {
	local - IFS
	set -f
	local table line nr=0 n name scope type def drivers old what w
	local -a lines f
	catalog_dir table table
	mapfile -t lines <"$table"
	for line in ${lines[@]+"${lines[@]}"}; do
		nr=$((nr + 1))
		IFS=$' \t'
		set -- $line
		[[ $# -gt 0 && $1 != '#'* ]] || continue
		if [[ $1 == group ]]; then
			IFS='='
			# shellcheck disable=SC2206 # as above
			f=($line)
			IFS=$' \t'
			set -- ${f[0]}
			shift
			name=$*
			set -- ${f[1]:-}
			ST_GROUP[$name]=$*
			continue
		fi
		IFS='|'
		# shellcheck disable=SC2206 # as above
		f=($line)
		n=${#f[@]}
		# a last field left empty is no word of the splitting's
		[[ ${line: -1} != '|' ]] || n=$((n + 1))
		if ((n != 7)); then
			printf 'bad line %d of the settings table: %s\n' "$nr" "$line" >&2
			return 1
		fi
		IFS=$' \t'
		set -- ${f[0]} && name=$*
		set -- ${f[1]} && scope=$*
		set -- ${f[2]} && type=$*
		set -- ${f[3]} && def=$*
		set -- ${f[4]} && drivers=$*
		set -- ${f[5]} && old=$*
		set -- ${f[6]:-} && what=$*
		ST_NAMES+=("$name")
		ST_SCOPE[$name]=$scope ST_TYPE[$name]=$type ST_DEFAULT[$name]=$def ST_WHAT[$name]=$what
		ST_DRIVERS[$name]=''
		for w in $drivers; do
			if [[ $w == @* ]]; then
				ST_DRIVERS[$name]+=" ${ST_GROUP[${w#@}]}"
			else
				ST_DRIVERS[$name]+=" $w"
			fi
		done
		ST_DRIVERS[$name]+=' '
		for w in $old; do ST_OLDOF[$w]=$name; done
	done
}

# settings_drivers: every driver some setting names.
settings_drivers() {
	[[ -n ${ST_REPO:-} ]] || st_init ''
	local n
	for n in "${ST_NAMES[@]}"; do printf '%s\n' "${ST_DRIVERS[$n]}"; done | tr ' ' '\n' | grep . | sort -u
}

# st_reads NAME: the driver reads NAME from a job file or the environment,
# or its own file fixes it.
st_reads() {
	[[ -n ${ST_SCOPE[$1]:-} && ${ST_SCOPE[$1]} != recipe &&
		(${ST_DRIVERS[$1]} == *" $ST_DRIVER "* || -n ${ST_ALSO[$1]:-}) ]] &&
		{ ((${#ST_ONLY[@]} == 0)) || [[ -n ${ST_ONLY[$1]:-} ]]; }
}

# st_driver_names ARRAY: the settings the driver reads, in the table's
# order, into ARRAY (ST_MINE once its own file has been read).
st_driver_names() {
	local -n st_names_into=$1
	local n
	local -a names=()
	if ((${#ST_MINE[@]} > 0)); then
		names=("${ST_MINE[@]}")
	else
		for n in "${ST_NAMES[@]}"; do
			if st_reads "$n"; then names+=("$n"); fi
		done
	fi
	# shellcheck disable=SC2034 # the caller's array, by name
	st_names_into=(${names[@]+"${names[@]}"})
}

# --- problems ---------------------------------------------------------------

st_err() {
	ST_ERRORS+=("$*")
}

# st_bad NAME PROBLEM: NAME's value (and where it came from) is wrong.
st_bad() {
	local n=$1
	shift
	if [[ -z ${ST_VAL[$n]:-} ]]; then
		st_err "$n is empty (${ST_FROM[$n]:-the default}): $*"
	else
		st_err "$n='${ST_VAL[$n]}' (${ST_FROM[$n]:-the default}): $*"
	fi
}

# --- names that look like ours ----------------------------------------------

# st_edits A B: the edit distance of two short words.
st_edits() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = length(a); m = length(b)
		for (i = 0; i <= n; i++) d[i, 0] = i
		for (j = 0; j <= m; j++) d[0, j] = j
		for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) {
			c = substr(a, i, 1) != substr(b, j, 1)
			v = d[i - 1, j] + 1; if (d[i, j - 1] + 1 < v) v = d[i, j - 1] + 1
			if (d[i - 1, j - 1] + c < v) v = d[i - 1, j - 1] + c
			d[i, j] = v
		}
		print d[n, m] }'
}

# st_lookalike NAME NEAR CANDIDATE...: the candidate NAME is a slip of,
# into ST_LIKE (set, not printed: it runs for every name in the
# environment, and a subshell each made the resolver's start slow):
# another case, the singular or plural, underscores dropped and, with
# NEAR=1, one or two letters off.  Names of fewer than 3 letters match
# only by case.
st_lookalike() {
	local n=$1 near=$2 c up
	shift 2
	ST_LIKE=''
	up=${n^^}
	for c in "$@"; do
		[[ $c != "$n" ]] || continue
		if [[ $up == "$c" ]] ||
			{ ((${#c} >= 3)) && [[ ${up}S == "$c" || $up == "${c}S" || ${up//_/} == "${c//_/}" ]]; } ||
			{ [[ $near == 1 ]] && ((${#c} >= 4)) && (($(st_edits "$up" "$c") <= 2)); }; then
			ST_LIKE=$c
			return 0
		fi
	done
	return 1
}

# st_env_names ARRAY: the names of the environment (compgen -e's: the
# shell's exported variables) into ARRAY, without the subshell that
# reading compgen's output takes: the shell's names by their first
# character, those with the export attribute kept.
st_env_names() {
	local -n st_env_into=$1
	local st_env_first st_env_name
	local -a st_env_all
	st_env_into=()
	for st_env_first in {A..Z} {a..z} _; do
		eval "st_env_all=(\${!$st_env_first@})"
		for st_env_name in ${st_env_all[@]+"${st_env_all[@]}"}; do
			# (its own locals are listed too, unset as yet)
			[[ ! -v $st_env_name || ${!st_env_name@a} != *x* ]] || st_env_into+=("$st_env_name")
		done
	done
}

# st_user_names: the names a user gave, with where: NAME=VALUE arguments
# (ST_ORIGIN "the command line"), make's command line (MAKEFLAGS after
# "--"), the environment; or instead of the last two the plan of the
# command that runs this driver (st_parent_names).
st_user_names() {
	local kv n
	local -a words
	for kv in "$@"; do
		[[ $kv =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || { st_err "'$kv': want NAME=VALUE"; continue; }
		ST_ORIGIN[${BASH_REMATCH[1]}]="the command line"
		ST_UVAL[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
	done
	if [[ -n $ST_PARENT ]]; then
		st_parent_names
		return
	fi
	st_env_names words
	for n in ${words[@]+"${words[@]}"}; do
		[[ -z ${ST_ORIGIN[$n]:-} ]] || continue
		ST_ORIGIN[$n]="the environment"
		ST_UVAL[$n]=${!n}
	done
	[[ -n ${MAKELEVEL:-} && ${MAKEFLAGS:-} == *" -- "* ]] || return 0
	read -r -a words <<<"${MAKEFLAGS#* -- }"
	for kv in "${words[@]}"; do
		[[ $kv =~ ^([A-Za-z_][A-Za-z0-9_]*)= && ${ST_ORIGIN[${BASH_REMATCH[1]}]:-} == "the environment" ]] &&
			ST_ORIGIN[${BASH_REMATCH[1]}]="make's command line"
	done
}

# st_parent_names: the values of the parent plan (-p) that did not come
# from the table's defaults or from another setting, as given by "the plan
# of DRIVER"; its ACCEL
# and the accelerator it came to (the probe is not made again).
st_parent_names() {
	local line name pdriver='?'
	local -A from=()
	if [[ ! -f $ST_PARENT || ! -r $ST_PARENT ]]; then
		st_err "-p $ST_PARENT: no such plan"
		return
	fi
	while IFS= read -r line; do
		case $line in
		'#   '*': '*)
			name=${line#'#   '}
			from[${name%%: *}]=${name#*: }
			;;
		\#* | '') ;;
		DRIVER=*) pdriver=${line#*=} ;;
		ACCEL_USED=*) ST_PARENT_USED=${line#*=} ;;
		[A-Z]*=*)
			name=${line%%=*}
			[[ $name != ACCEL ]] || ST_PARENT_ACCEL=${line#*=}
			[[ -n ${ST_SCOPE[$name]:-} && ${ST_SCOPE[$name]} != recipe ]] || continue
			[[ ${from[$name]:-the default} != "the default" && -z ${ST_ORIGIN[$name]:-} ]] || continue
			# one derived from another setting (BASE_KSRC from KSRC) is
			# derived here again: an empty one taken as given was refused
			[[ ! ${from[$name]} =~ ^[A-Z][A-Z0-9_]*$ ]] || continue
			ST_ORIGIN[$name]="the plan of $pdriver"
			ST_UVAL[$name]=${line#*=}
			;;
		esac
	done <"$ST_PARENT"
}

# st_shape NAME: NAME in upper case without underscores and trailing S's,
# after a "=" (never empty: a key), into ST_SHAPE: two names st_lookalike
# matches without NEAR have one shape.
st_shape() {
	ST_SHAPE=${1^^}
	ST_SHAPE=${ST_SHAPE//_/}
	while [[ $ST_SHAPE == *S ]]; do ST_SHAPE=${ST_SHAPE%S}; done
	ST_SHAPE="=$ST_SHAPE"
}

# st_check_names: a name a user gave that is not one of the driver's
# settings but looks like one, an old name, or (given to this command on
# its own or make's command line) another command's setting, is an error.
# Other names in the environment are left alone.
st_check_names() {
	local n origin like
	local -a mine=("${ST_MINE[@]}") names=()
	local -A problem=() shapes=()
	# the environment's every name is compared with the driver's: by shape
	# first, since st_lookalike on each pair was a third of the resolver
	for n in "${mine[@]}"; do
		st_shape "$n"
		shapes[$ST_SHAPE]=1
	done
	for n in "${!ST_ORIGIN[@]}"; do
		origin=${ST_ORIGIN[$n]}
		# the calling command's settings that this one does not read
		[[ -n $n && $origin != "the plan of "* ]] || continue
		! st_reads "$n" || continue
		if [[ -n ${ST_OLDOF[$n]:-} ]] && st_reads "${ST_OLDOF[$n]}"; then
			problem[$n]="$n ($origin) is now ${ST_OLDOF[$n]}: one name for one thing everywhere"
		elif [[ $origin != "the environment" ]]; then
			st_lookalike "$n" 1 "${mine[@]}" || true
			like=$ST_LIKE
			if [[ -n ${ST_SCOPE[$n]:-} && ${ST_SCOPE[$n]} != recipe ]]; then
				problem[$n]="$n ($origin) is not read by $ST_DRIVER (it is a setting of:${ST_DRIVERS[$n]% })${like:+; did you mean $like?}"
			elif [[ -n $like ]]; then
				problem[$n]="$n ($origin) is not a setting of $ST_DRIVER: did you mean $like?"
			else
				problem[$n]="$n ($origin) is not a setting of $ST_DRIVER (its settings: ${mine[*]})"
			fi
		elif st_shape "$n" && [[ -n ${shapes[$ST_SHAPE]:-} ]] && st_lookalike "$n" 0 "${mine[@]}"; then
			like=$ST_LIKE
			problem[$n]="$n ($origin) is not a setting of $ST_DRIVER: did you mean $like?"
		fi
	done
	# in name order, so that the same input gives the same messages (a
	# sort only when there are two: it is two processes)
	names=("${!problem[@]}")
	((${#names[@]} < 2)) || mapfile -t names < <(printf '%s\n' "${names[@]}" | LC_ALL=C sort)
	for n in ${names[@]+"${names[@]}"}; do st_err "${problem[$n]}"; done
}

# --- job files ----------------------------------------------------------------

# st_job_keys ARRAY KIND: the names a job file of KIND may set, into
# ARRAY.  matrix: the job-scope settings; driver: any setting, and FIXED;
# view: its recipe keys and its own CONFIGS, STATES and WORKLOADS.
st_job_keys() {
	local -n st_keys_into=$1
	local n
	st_keys_into=()
	for n in "${ST_NAMES[@]}"; do
		case $2:${ST_SCOPE[$n]} in
		matrix:job | driver:job | driver:env | view:recipe) st_keys_into+=("$n") ;;
		esac
	done
	case $2 in
	driver) st_keys_into+=(FIXED) ;;
	view) st_keys_into+=(CONFIGS STATES WORKLOADS) ;;
	esac
}

# st_read_job FILE KIND ARRAY: the settings of FILE into the associative
# array ARRAY (KEY -> VALUE, blanks squeezed, and "KEY@" -> FILE:LINE); a
# line that is not NAME = VALUE, a name set twice or a name KIND may not
# set is a problem.  Read by the shell from the file (an awk through a
# pipe was a process and a syscall a byte on every command's start).
st_read_job() {
	local file=$1 kind=$2 key val line rel like nr=0
	local -n st_into=$3
	local -a keys
	local -A seen=()
	st_job_keys keys "$kind"
	rel=${file#"$ST_REPO"/}
	while IFS= read -r line || [[ -n $line ]]; do
		nr=$((nr + 1))
		[[ ! $line =~ ^[[:blank:]]*(#|$) ]] || continue
		if [[ ! $line =~ ^[[:blank:]]*([A-Za-z_][A-Za-z0-9_]*)[[:blank:]]*=(.*)$ ]]; then
			st_err "$rel:$nr: expected NAME = VALUE, got \"$line\""
			continue
		fi
		key=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
		val=${val//$'\t'/ }
		while [[ $val == *'  '* ]]; do val=${val//'  '/ }; done
		val=${val# } val=${val% }
		if [[ -n ${seen[$key]:-} ]]; then
			st_err "$rel:$nr: $key set twice (first on line ${seen[$key]})"
			continue
		fi
		seen[$key]=$nr
		if [[ " ${keys[*]} " != *" $key "* ]]; then
			st_lookalike "$key" 1 "${keys[@]}" || true
			like=$ST_LIKE
			st_err "$rel:$nr: unknown setting $key${like:+ (did you mean $like?)} (valid: ${keys[*]})"
		else
			st_into["$key"]=$val
			# shellcheck disable=SC2034 # the caller's array, by name
			st_into["$key@"]=$rel:$nr
		fi
	done <"$file"
}

# st_apply ARRAY: the values of a job file read by st_read_job for the
# settings the driver reads.
st_apply() {
	local key
	local -n st_from=$1
	for key in "${!st_from[@]}"; do
		# JOB_FILE is read before the job files, and checked there
		if [[ $key == *@ || $key == FIXED || $key == JOB_FILE ]] || ! st_reads "$key"; then continue; fi
		ST_VAL[$key]=${st_from[$key]}
		ST_FROM[$key]=${st_from[$key@]}
	done
}

# st_layers: every layer in order (see the top of this file).
st_layers() {
	local n drv job jobs
	# shellcheck disable=SC2034 # filled by st_read_job, by name
	local -A st_drv=() st_default=() st_job=()
	catalog_dir drv drivers
	drv+=/$ST_DRIVER.job
	[[ ! -f $drv ]] || st_read_job "$drv" driver st_drv
	for n in ${st_drv[FIXED]:-}; do
		ST_FIXED[$n]=${st_drv[$n]-}
		ST_ALSO[$n]=1
	done
	st_driver_names ST_MINE
	for n in "${ST_MINE[@]}"; do
		ST_VAL[$n]=${ST_DEFAULT[$n]}
		ST_FROM[$n]="the default"
	done
	if st_reads JOB_FILE; then
		[[ -z ${st_drv[JOB_FILE]:-} ]] || { ST_VAL[JOB_FILE]=${st_drv[JOB_FILE]}; ST_FROM[JOB_FILE]=${st_drv[JOB_FILE@]}; }
		st_user_value JOB_FILE
		if st_check JOB_FILE; then
			catalog_dir jobs jobs
			st_read_job "$jobs/default.job" matrix st_default
			st_apply st_default
			job=${ST_VAL[JOB_FILE]}
			if [[ $job != "$jobs/default.job" ]]; then
				st_read_job "$job" matrix st_job
				st_apply st_job
			fi
		fi
	fi
	st_apply st_drv
	[[ $ST_DRIVER != views ]] || st_read_views
	for n in "${ST_MINE[@]}"; do
		[[ $n == JOB_FILE ]] || st_user_value "$n"
	done
}

# st_user_value NAME: the user's value of NAME, if given, wins; a setting
# the driver fixes may only be given its fixed value.
st_user_value() {
	local n=$1 want got
	[[ -n ${ST_ORIGIN[$n]:-} ]] || return 0
	if [[ -n ${ST_FIXED[$n]+set} ]]; then
		read -r -a want <<<"${ST_FIXED[$n]}"
		read -r -a got <<<"${ST_UVAL[$n]}"
		[[ ${want[*]} == "${got[*]}" ]] ||
			st_err "$n='${ST_UVAL[$n]}' (${ST_ORIGIN[$n]}): $ST_DRIVER always runs with $n='${ST_FIXED[$n]}' (bench/plan/drivers/$ST_DRIVER.job)"
		return 0
	fi
	ST_VAL[$n]=${ST_UVAL[$n]}
	ST_FROM[$n]=${ST_ORIGIN[$n]}
}

# --- the checks of each type --------------------------------------------------

# st_check NAME: check ST_VAL[NAME] by its type; on success the value is
# replaced by its canonical form (lists on one line, paths absolute).
st_check() {
	local n=$1 type args fn before=${#ST_ERRORS[@]}
	local -a argv=()
	type=${ST_TYPE[$n]%%:*}
	args=${ST_TYPE[$n]#"$type"}
	args=${args#:}
	ST_OUT=${ST_VAL[$n]}
	# a value is one line: nothing downstream could read a second one
	if [[ ${ST_VAL[$n]} == *$'\n'* || ${ST_VAL[$n]} == *$'\r'* ]]; then
		st_bad "$n" "a value is one line"
		return 1
	fi
	if [[ -z ${ST_VAL[$n]//[[:space:]]/} ]]; then
		case $type in
		configs0 | workloads0 | view-states0 | tests0 | words | dir-or-new | toolchain) ST_VAL[$n]=''; return 0 ;;
		esac
		st_bad "$n" "$(st_want "$n")"
		return 1
	fi
	fn=st_check_${type//-/_}
	[[ -z $args ]] || IFS=: read -r -a argv <<<"$args"
	"$fn" "$n" "${ST_VAL[$n]}" "${argv[@]}"
	((${#ST_ERRORS[@]} == before)) || return 1
	ST_VAL[$n]=$ST_OUT
}

# st_want NAME: what NAME may hold, for the message about an empty value.
st_want() {
	local type=${ST_TYPE[$1]} lo hi
	case $type in
	int:* | int-auto:*)
		IFS=: read -r _ lo hi <<<"$type"
		printf 'want a whole number from %s to %s%s\n' "$lo" "$hi" "$([[ $type == int-auto:* ]] && echo ', or auto')" ;;
	enum:*) printf 'want one of: %s\n' "$(tr , ' ' <<<"${type#enum:}")" ;;
	accel) printf 'want one of: %s\n' "$(accel_valid)" ;;
	bool) echo 'want 0 or 1' ;;
	configs | config) printf 'want config names (valid: %s)\n' "$(catalog_configs | one_line)" ;;
	states) printf 'want states (valid: %s)\n' "$(catalog_states_help | one_line)" ;;
	views) printf 'want views (valid: %s, or all)\n' "$(catalog_views | one_line)" ;;
	*) printf 'want %s\n' "${ST_WHAT[$1]}" ;;
	esac
}

# st_int NAME VALUE MIN MAX [auto]: a whole decimal number in range.
# Leading zeros are dropped; more than 18 digits is out of range before
# bash's arithmetic could overflow.
st_int() {
	local n=$1 v=$2 lo=$3 hi=$4 auto=${5:-} d
	local range="from $lo to $hi${auto:+, or auto}"
	if [[ -n $auto && $v == auto ]]; then
		ST_OUT=auto
		return
	fi
	if [[ ! $v =~ ^[+-]?[0-9]+$ ]]; then
		st_bad "$n" "not a whole number: want one $range"
		return
	fi
	st_decimal d "${v#[+-]}"
	if [[ $v == -* && $d != 0 ]]; then
		st_bad "$n" "negative: want a whole number $range"
	elif ((${#d} > 18)) || ((10#$d > hi || 10#$d < lo)); then
		st_bad "$n" "out of range: want a whole number $range"
	else
		ST_OUT=$((10#$d))
	fi
}

# st_decimal VAR DIGITS: DIGITS without leading zeros (0 stays) into VAR.
st_decimal() {
	local -n st_dec=$1
	st_dec=$2
	while [[ $st_dec == 0?* ]]; do st_dec=${st_dec#0}; done
}

# st_decimal_cmp VAR A B: -1, 0 or 1 into VAR as the decimals A and B
# (digits, then a point and digits or not) compare: exact, and no awk
# process on every command's start.
st_decimal_cmp() {
	local -n st_cmp=$1
	local ai bi af='' bf=''
	st_decimal ai "${2%%.*}"
	st_decimal bi "${3%%.*}"
	[[ $2 != *.* ]] || af=${2#*.}
	[[ $3 != *.* ]] || bf=${3#*.}
	while ((${#af} < ${#bf})); do af+=0; done
	while ((${#bf} < ${#af})); do bf+=0; done
	# shellcheck disable=SC2034 # the caller's variable, by name
	if ((${#ai} != ${#bi})); then
		st_cmp=$(((${#ai} > ${#bi}) * 2 - 1))
	elif [[ $ai$af == "$bi$bf" ]]; then
		st_cmp=0
	elif [[ $ai$af < "$bi$bf" ]]; then
		st_cmp=-1
	else
		st_cmp=1
	fi
}

st_check_int() { st_int "$1" "$2" "$3" "$4"; }
st_check_int_auto() { st_int "$1" "$2" "$3" "$4" auto; }

st_check_bool() {
	[[ $2 == [01] ]] || st_bad "$1" "want 0 or 1"
}

st_check_accel() {
	accel_known "$2" || st_bad "$1" "unknown value (valid: $(accel_valid))"
}

st_check_enum() {
	local valid=${3//,/ }
	[[ " $valid " == *" $2 "* ]] || st_bad "$1" "unknown value (valid: $valid)"
}

# st_check_pct: a percentage above 0 and at most 100.
st_check_pct() {
	local above0 to100
	if [[ ! $2 =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
		st_bad "$1" "not a number: want a percentage above 0, at most 100 (e.g. 1 or 0.5)"
		return
	fi
	st_decimal_cmp above0 "$2" 0
	st_decimal_cmp to100 "$2" 100
	((above0 > 0 && to100 <= 0)) || st_bad "$1" "out of range: want a percentage above 0, at most 100"
}

# st_check_threshold: the gate's THRESHOLD, a percentage above 0 and below
# 50, as benchstat --threshold takes it: at 50% a halved IOPS passes, and
# from 100% on nothing higher-is-better can be slower at all.
st_check_threshold() {
	local above0 to50
	if [[ ! $2 =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
		st_bad "$1" "not a number: want a percentage above 0 and below 50 (e.g. 1 or 0.5)"
		return
	fi
	st_decimal_cmp above0 "$2" 0
	st_decimal_cmp to50 "$2" 50
	((above0 > 0 && to50 < 0)) ||
		st_bad "$1" "out of range: want a percentage above 0 and below 50 (at 50% a halved IOPS passes)"
}

# st_check_ramp: fio's ramp_time: whole seconds, or a whole number with ms
# or s (fio refuses 0.2); at most an hour.
st_check_ramp() {
	local n=$1 v=$2 ms
	[[ $v != auto ]] || return 0
	if [[ ! $v =~ ^([0-9]+)(ms|s)?$ ]]; then
		st_bad "$n" "want whole seconds, or a whole number with ms or s (e.g. 200ms), or auto"
		return
	fi
	st_decimal ms "${BASH_REMATCH[1]}"
	[[ ${BASH_REMATCH[2]} == ms || $ms == 0 ]] || ms=${ms}000
	if ((${#ms} > 12)) || ((10#$ms > 3600000)); then
		st_bad "$n" "out of range: at most 3600s"
	fi
}

# st_list NAME VALUE KIND IS_FN LIST_FN: a list of distinct words, each
# accepted by IS_FN WORD; LIST_FN lists the valid ones for the message.
st_list() {
	local n=$1 v=$2 kind=$3 fn=$4 list=$5 w
	local -A seen=()
	local -a out=()
	for w in $v; do
		if [[ -n ${seen[$w]:-} ]]; then
			st_bad "$n" "'$w' is listed twice"
			continue
		fi
		seen[$w]=1
		if ! "$fn" "$w"; then
			st_bad "$n" "'$w' is not a $kind (valid: $("$list" | one_line))"
			continue
		fi
		out+=("$w")
	done
	ST_OUT=${out[*]}
}

# --- lists of names ------------------------------------------------------------

st_is_cfunc() {
	[[ $1 =~ ^[A-Za-z_][A-Za-z0-9_.]*$ ]]
}

st_cfuncs_help() {
	echo 'C identifiers, e.g. submit_bio_noacct_nocheck'
}

st_views_help() {
	printf '%s, or all\n' "$(catalog_views | one_line)"
}

st_check_configs() { st_list "$1" "$2" config catalog_is_config catalog_configs; }
st_check_configs0() { st_check_configs "$@"; }
st_check_states() { st_list "$1" "$2" state catalog_is_state catalog_states_help; }
st_check_workloads0() { st_list "$1" "$2" workload catalog_is_workload catalog_workloads; }
st_check_tests0() { st_list "$1" "$2" test catalog_is_test catalog_tests; }
st_check_cfuncs() { st_list "$1" "$2" 'function name' st_is_cfunc st_cfuncs_help; }

st_check_config() {
	[[ $2 != *' '* ]] || { st_bad "$1" "one config, not a list (valid: $(catalog_configs | one_line))"; return; }
	catalog_is_config "$2" || st_bad "$1" "not a config (valid: $(catalog_configs | one_line))"
}

# st_check_views: "all" stands for every view.
st_check_views() {
	local w
	local -a v=()
	for w in $2; do
		if [[ $w == all ]]; then mapfile -t -O "${#v[@]}" v < <(catalog_views); else v+=("$w"); fi
	done
	st_list "$1" "${v[*]}" view catalog_is_view st_views_help
}

# st_check_view_states0: each a state of one of the views VIEWS names.
st_check_view_states0() {
	local n=$1 s all
	local -A seen=()
	local -a out=()
	all=$(st_view_states_all)
	for s in $2; do
		[[ -z ${seen[$s]:-} ]] || { st_bad "$n" "'$s' is listed twice"; continue; }
		seen[$s]=1
		out+=("$s")
		[[ " $all " == *" $s "* ]] ||
			st_bad "$n" "'$s' is no state of the views $(st_view_list) (valid: $all)"
	done
	ST_OUT=${out[*]}
}

# st_view_list: the views VIEWS names, once checked (all of them otherwise).
st_view_list() {
	local views
	if [[ -n ${ST_VAL[VIEWS]:-} && ${ST_VAL[VIEWS]} != all ]]; then
		words_once views "${ST_VAL[VIEWS]}"
		printf '%s' "$views"
	else
		catalog_views | one_line
	fi
}

# st_read_views: every view's job file into ST_VIEW, VIEW:KEY -> VALUE.
st_read_views() {
	local v k dir
	catalog_dir dir views
	for v in $(catalog_views); do
		# shellcheck disable=SC2034 # filled by st_read_job, by name
		local -A st_view=()
		st_read_job "$dir/$v.job" view st_view
		for k in "${!st_view[@]}"; do ST_VIEW[$v:$k]=${st_view[$k]}; done
		unset st_view
	done
}

st_view_states_all() {
	local v states=''
	for v in $(st_view_list); do states+=" ${ST_VIEW[$v:STATES]:-}"; done
	words_once states "$states"
	printf '%s' "$states"
}

# st_check_jobfile: a name in bench/plan/jobs or the path of a .job file; the
# canonical value is the file's absolute path.
st_check_jobfile() {
	local n=$1 v=$2 dir
	catalog_dir dir jobs
	if catalog_file jobs "$v" .job; then
		ST_OUT=$dir/$v.job
	elif [[ $v == *.job && -f $v && -r $v ]]; then
		ST_OUT=$(cd "$(dirname "$v")" && pwd -P)/$(basename "$v")
	else
		st_bad "$n" "unknown job file (valid: $(catalog_job_files | one_line), or the path of a readable .job file)"
	fi
}

# st_check_runid: one directory name, never a path.
st_check_runid() {
	[[ $2 == auto ]] && return
	if [[ $2 == . || $2 == .. || ! $2 =~ ^[A-Za-z0-9._+-]{1,100}$ || $2 == -* ]]; then
		st_bad "$1" "a run's name, not a path: letters, digits and . _ + - (no /), at most 100, not . or .."
	fi
}

# st_abs VAR PATH: PATH made absolute (relative to the current
# directory) into VAR, without resolving what does not exist yet.
st_abs() {
	local -n st_abs_var=$1
	# shellcheck disable=SC2034 # the caller's variable, by name
	if [[ $2 == /* ]]; then st_abs_var=$2; else st_abs_var=$PWD/$2; fi
}

# st_writable DIR: a file can be made in DIR now (access(2) says yes to
# root on /proc, so make one and remove it at once).  Made by the shell's
# own redirection, named by this shell and a random number (noclobber: a
# name taken is a failure, never another's file truncated), so that the
# probe is one process, rm: it runs on every command.
st_writable() {
	local probe=$1/.bib-probe.$BASHPID.$SRANDOM made=0
	[[ -d $1 && -w $1 && -x $1 ]] || return 1
	set -o noclobber
	{ : >"$probe"; } 2>/dev/null && made=1
	set +o noclobber
	((made)) || return 1
	rm -f "$probe"
}

# st_check_root: a directory the suite may write: it exists and is
# writable, or its nearest existing parent is.  Defaults are relative to
# the repository.
st_check_root() {
	local n=$1 v=$2 p
	[[ ${ST_FROM[$n]} != "the default" ]] || v=$ST_REPO/$v
	st_abs v "$v"
	if [[ -e $v && ! -d $v ]]; then
		st_bad "$n" "exists and is not a directory"
		return
	fi
	p=$v
	while [[ ! -e $p ]]; do p=${p%/*}; p=${p:-/}; done
	if [[ ! -d $p ]]; then
		st_bad "$n" "$p is not a directory"
	elif ! st_writable "$p"; then
		st_bad "$n" "not writable ($p refuses new files)"
	fi
	ST_OUT=$v
}

# st_committed DIR: DIR holds files tracked by git (a committed run).
st_committed() {
	[[ -n $(git -C "$ST_REPO" ls-files -- "$1" 2>/dev/null | head -n 1) ]]
}

# st_check_run_dir: an existing results directory (runs.csv and
# meta.json).  run-dir-local: also not a committed one, which make never
# writes into.
st_check_run_dir() {
	local n=$1 v
	st_abs v "$2"
	v=${v%/}
	if [[ ! -d $v ]]; then
		st_bad "$n" "no such directory (want a results directory, e.g. results/<run>)"
	elif [[ ! -f $v/runs.csv || ! (-f $v/meta.json || -f $v/meta.env) ]]; then
		st_bad "$n" "not a results directory (it has no runs.csv and meta.json)"
	fi
	ST_OUT=$v
}

st_check_run_dir_local() {
	st_check_run_dir "$@"
	if [[ -d $ST_OUT ]] && st_committed "$ST_OUT"; then
		st_bad "$1" "a committed run, which make never writes into: copy it (cp -r $2 /tmp/run) and name the copy, or a run made on this machine"
	fi
}

# st_check_ksrc: a git checkout (its top), an extracted tree or a tarball.
st_check_ksrc() {
	local n=$1 v top
	st_abs v "$2"
	if [[ -d $v ]]; then
		top=$(git -C "$v" rev-parse --show-toplevel 2>/dev/null || true)
		if [[ -n $top && $top == "$(cd "$v" && pwd -P)" ]]; then
			ST_DERIVED+=("${n}_KIND=git")
		elif [[ -f $v/Makefile && -f $v/Kconfig ]]; then
			ST_DERIVED+=("${n}_KIND=dir")
		else
			st_bad "$n" "not a kernel source: give a git checkout (its top directory), an extracted tree (Makefile and Kconfig at its top) or a tarball"
		fi
	elif [[ -f $v ]]; then
		case $v in
		*.tar | *.tar.gz | *.tgz | *.tar.xz | *.txz | *.tar.bz2 | *.tar.zst) ST_DERIVED+=("${n}_KIND=tar") ;;
		*) st_bad "$n" "a file must be a tarball (.tar, .tar.gz, .tar.xz, .tar.bz2, .tar.zst); or give a git checkout or an extracted tree" ;;
		esac
	else
		st_bad "$n" "no such file or directory (give a git checkout, an extracted tree or a tarball; unset it for $(catalog_path source))"
	fi
	ST_OUT=$v
}

# st_check_series: none, or a directory whose series file (LF line ends,
# as quilt and build.sh read it) lists at least one patch, each once, each
# there and each a diff.
st_check_series() {
	local n=$1 v p cr
	local -A seen=()
	local -a listed=()
	[[ $2 != none ]] || return 0
	st_abs v "$2"
	v=${v%/}
	if [[ ! -d $v || ! -f $v/series ]]; then
		st_bad "$n" "no series file: give a directory with a 'series' file listing its patches in order (like patches/), or none for a tree that already has the change"
		return
	fi
	cr=$(grep -n -m1 $'\r' "$v/series" | cut -d: -f1 || true)
	if [[ -n $cr ]]; then
		st_bad "$n" "its series file has CRLF line ends (a carriage return, \\r, on line $cr): the series file is read a line per LF; convert it with sed -i 's/\\r\$//' $v/series"
		return
	fi
	mapfile -t listed < <(sed -e 's/#.*//' -e 's/[[:space:]].*//' "$v/series" | grep -v '^$')
	((${#listed[@]} > 0)) || st_bad "$n" "its series file lists no patches"
	for p in "${listed[@]}"; do
		[[ -z ${seen[$p]:-} ]] || st_bad "$n" "its series file lists $p twice"
		seen[$p]=1
		if [[ ! -f $v/$p ]]; then
			st_bad "$n" "$p is listed in its series file but missing"
		elif ! st_is_diff "$v/$p"; then
			st_bad "$n" "$p is not a patch: no diff in it (want a unified diff, as git format-patch writes)"
		fi
	done
	path_abs ST_OUT "$v" -P
}

# st_is_diff FILE: FILE holds a diff: a git header, or a unified diff's
# "+++" line with a hunk after it.
st_is_diff() {
	awk '/^diff --git / { ok = 1; exit } /^\+\+\+ / { plus = 1 } plus && /^@@ -[0-9]/ { ok = 1; exit }
		END { exit !ok }' "$1"
}

# st_check_baseline: "CONFIG STATE"; whether it is a row is checked with
# the matrix (st_cross).
st_check_baseline() {
	local -a w
	read -r -a w <<<"$2"
	((${#w[@]} == 2)) || { st_bad "$1" "want two words, CONFIG STATE (e.g. 'off off')"; return; }
	ST_OUT="${w[0]} ${w[1]}"
}

st_check_program() {
	command -v "$2" >/dev/null || st_bad "$1" "no such program (not a path to an executable, not on PATH)"
}

st_check_words() { :; }

# st_check_dir_or_new: a directory, or a path that does not exist yet,
# where a command writes its output: never a committed run.
st_check_dir_or_new() {
	local v
	st_abs v "$2"
	v=${v%/}
	if [[ -e $v && ! -d $v ]]; then
		st_bad "$1" "exists and is not a directory"
	elif [[ -d $v ]] && st_committed "$v"; then
		st_bad "$1" "a committed run, which no command writes into: name a new directory (or a copy: cp -r $2 /tmp/run)"
	fi
	ST_OUT=$v
}

st_check_origin() {
	[[ $2 =~ ^[a-z0-9_]+$ ]] || st_bad "$1" "KCIDB origins are [a-z0-9_]+"
}

# st_check_toolchain: kbuild's own variables (CC, LLVM, O, ARCH, ...):
# the policy is bench/lib/toolchain.sh's, which build.sh check-vars asks too.
st_check_toolchain() {
	local why
	if why=$(toolchain_refusal "$1" "$2"); then st_bad "$1" "$why"; fi
}

# --- checks across settings -------------------------------------------------

# st_rows VAR: the matrix's rows into VAR, "CONFIG STATE" a line: a
# config without the feature has one row, off.
st_rows() {
	local -n st_rows_into=$1
	local c s
	st_rows_into=''
	for c in ${ST_VAL[CONFIGS]}; do
		if ! catalog_has_feature "$c"; then
			st_rows_into+="$c off"$'\n'
			continue
		fi
		for s in ${ST_VAL[STATES]}; do st_rows_into+="$c $s"$'\n'; done
	done
	st_rows_into=${st_rows_into%$'\n'}
}

# st_view_rows: the rows of the views VIEWS names, each view over its own
# configs (layout) or CONFIGS, in its states that VIEW_STATES keeps.
st_view_rows() {
	local v c s cfgs states keep=${ST_VAL[VIEW_STATES]:-}
	for v in $(st_view_list); do
		cfgs=${ST_VIEW[$v:CONFIGS]:-}
		states=${ST_VIEW[$v:STATES]:-}
		for c in ${cfgs:-${ST_VAL[CONFIGS]}}; do
			if ! catalog_has_feature "$c"; then
				[[ ${ST_VIEW[$v:NEEDS]:-} == feature ]] || printf '%s off\n' "$c"
				continue
			fi
			for s in $states; do
				[[ -z $keep || " $keep " == *" $s "* ]] && printf '%s %s\n' "$c" "$s"
			done
		done
	done | awk '!s[$0]++'
}

# st_baseline ROWS WHAT: BASELINE, when nothing set it, is "off off" if
# that is a row, else the first row; either way it must be a row.
st_baseline() {
	local rows=$1
	if [[ -z ${ST_VAL[BASELINE]} ]]; then
		if [[ $'\n'$rows$'\n' == *$'\n''off off'$'\n'* ]]; then ST_VAL[BASELINE]='off off'; else ST_VAL[BASELINE]=${rows%%$'\n'*}; fi
		ST_FROM[BASELINE]="the first row"
	fi
	[[ $'\n'$rows$'\n' == *$'\n'"${ST_VAL[BASELINE]}"$'\n'* ]] ||
		st_bad BASELINE "not a row of $2: set BASELINE to one of its rows, CONFIG STATE: $(awk -v q="'" '{ printf "%s%s%s%s", (NR > 1 ? ", " : ""), q, $0, q }' <<<"$rows")"
}

st_cross_views() {
	st_baseline "$(st_view_rows)" "the views (CONFIGS from ${ST_FROM[CONFIGS]})"
}

st_cross_matrix() {
	local c s sym rows
	st_rows rows
	st_baseline "$rows" "the matrix (CONFIGS from ${ST_FROM[CONFIGS]}, STATES from ${ST_FROM[STATES]})"
	for s in ${ST_VAL[STATES]}; do
		catalog_state_needs sym "$s"
		[[ -n $sym ]] || continue
		for c in ${ST_VAL[CONFIGS]}; do
			catalog_has_feature "$c" || continue
			catalog_config_has "$c" "$sym" ||
				st_bad STATES "state $s needs $sym, which config $c lacks (configs with it: $(catalog_configs_with "$sym" | one_line))"
		done
	done
}

# st_cross_series NAME_KSRC NAME_SERIES: a tree without the feature cannot
# build a config that asks for it; known before extracting it when the
# source is Debian's (which lacks it) or a directory (its Kconfig says).
st_cross_series() {
	local k=$1 s=$2 ksrc series c need=''
	series=${ST_VAL[$s]:-}
	[[ $series == none ]] || return 0
	ksrc=${ST_VAL[$k]:-}
	for c in ${ST_VAL[CONFIGS]:-} ${ST_VAL[CONFIG]:-} ${ST_VAL[TEST_CONFIGS]:-}; do
		catalog_has_feature "$c" && need+=" $c"
	done
	[[ -n $need ]] || return 0
	if [[ -z $ksrc ]] || { [[ -d $ksrc ]] && ! grep -rqsE '^config BLK_ERROR_INJECTION' "$ksrc/block"; }; then
		[[ -n $ksrc ]] || ksrc="Debian's linux-source-6.12"
		st_bad "$s" "$ksrc has no BLK_ERROR_INJECTION, which config(s)$need need: give a series that adds it, or a KSRC with the change"
	fi
}

# st_cross_run_id: the run's directory must not exist yet.
st_cross_run_id() {
	local id=${ST_VAL[RUN_ID]:-auto} root=${ST_VAL[RESULTS_ROOT]:-}
	[[ $id != auto && -n $root ]] || return 0
	[[ ! -e $root/$id ]] || st_bad RUN_ID "$root/$id exists already"
}

# st_cross_toolchain: the one toolchain the kernels are built with.
st_cross_toolchain() {
	ST_DERIVED+=("TOOLCHAIN=gcc")
}

# st_cross_accel: the accelerator the boots will use, known before any
# work (bench/lib/accel.sh accel_choose: ACCEL=kvm and auto probe, once,
# whether KVM runs a guest here); ACCEL=kvm where it does not is the
# machine's problem (exit 4).  BOOTS=per-config needs exact counts;
# something to measure.
st_cross_accel() {
	local accel=${ST_VAL[ACCEL]:-auto} used qemu=${ST_VAL[QEMU]:-${ST_DEFAULT[QEMU]}}
	local limit=${ST_VAL[KVM_PROBE_TIMEOUT]:-${ST_DEFAULT[KVM_PROBE_TIMEOUT]}}
	if [[ $ST_DRIVER == job ]]; then
		# its boots run on a lab's devices (bench/lab/lava-jobs.sh): their
		# accelerator is the device type's, not this machine's
		used=$accel
		[[ $used != auto ]] || used=$(accel_counter)
	elif [[ -n $ST_PARENT_USED && $accel == "$ST_PARENT_ACCEL" ]]; then
		# the command that runs this one probed it
		used=$ST_PARENT_USED
	elif ! accel_choose used "$accel" "$qemu" "$limit"; then
		ST_SETUP+=("ACCEL='$accel' (${ST_FROM[ACCEL]:-the default}): $used")
		return
	fi
	ST_DERIVED+=("ACCEL_USED=$used")
	[[ ${ST_VAL[BOOTS]:-auto} != per-config ]] || accel_exact "$used" ||
		st_bad BOOTS "per-config needs exact counts, which $used does not give (a boot's history moves its numbers); valid here: per-state, auto"
	if st_reads WORKLOADS && st_reads FIO_IOS && [[ -z ${ST_VAL[WORKLOADS]} ]]; then
		if ! accel_counts "$used"; then
			st_bad WORKLOADS "nothing to measure under $used: the counted job (FIO_IOS) runs where counts are exact only (tcg-icount)"
		elif [[ ${ST_VAL[FIO_IOS]} == 0 ]]; then
			st_bad WORKLOADS "nothing to measure: WORKLOADS is empty and FIO_IOS=0"
		fi
	fi
}

# st_cross_results: the default RESULTS is the newest run made on this
# machine (listed in CACHE/runs-made by the runs themselves).
st_cross_results() {
	local d last=''
	[[ -z ${ST_VAL[RESULTS]} ]] || return 0
	if [[ -f ${ST_VAL[CACHE]}/runs-made ]]; then
		while read -r d; do
			[[ -d $d && -f $d/runs.csv ]] && ! st_committed "$d" && last=$d
		done <"${ST_VAL[CACHE]}/runs-made"
	fi
	if [[ -z $last ]]; then
		st_err "RESULTS is not set and no run was made on this machine yet (CACHE=${ST_VAL[CACHE]}): name one, RESULTS=results/<run> (committed runs are read-only: copy one first)"
		return
	fi
	ST_VAL[RESULTS]=$last
	ST_FROM[RESULTS]="the newest run made on this machine"
}

st_cross() {
	if st_reads STATES && st_reads CONFIGS; then
		st_cross_matrix
	elif [[ $ST_DRIVER == views ]] && st_reads VIEWS; then
		st_cross_views
	fi
	st_reads KSRC && st_cross_series KSRC SERIES
	if [[ $ST_DRIVER == compare-series ]] && st_reads BASE_SERIES; then
		st_cross_series BASE_KSRC BASE_SERIES
		st_cross_series NEW_KSRC NEW_SERIES
	fi
	[[ $ST_DRIVER != per-patch ]] || ! st_reads SERIES || [[ ${ST_VAL[SERIES]} != none ]] ||
		st_bad SERIES "per-patch needs a series: none has no patches to attribute"
	! st_reads MUTANT_SERIES || [[ ${ST_VAL[MUTANT_SERIES]} != none ]] ||
		st_bad MUTANT_SERIES "the mutants need a series to apply on (e.g. patches, patches/next)"
	if [[ $ST_DRIVER == compare ]] && st_reads BASE; then
		[[ -n ${ST_VAL[BASE]} && -n ${ST_VAL[NEW]} ]] || st_err "usage: make compare BASE=results/A NEW=results/B (both runs are needed)"
		[[ -z ${ST_VAL[BASE]} || ${ST_VAL[BASE]} != "${ST_VAL[NEW]}" ]] ||
			st_err "BASE and NEW are the same run (${ST_VAL[BASE]}): compare two runs"
	fi
	# perf's one workload is the counted job: it needs its reads
	[[ $ST_DRIVER != perf ]] || ! st_reads FIO_IOS || [[ ${ST_VAL[FIO_IOS]} != 0 ]] ||
		st_bad FIO_IOS "out of range: perf runs the counted fio job, want a whole number from 1 to 1000000000"
	[[ $ST_DRIVER != fuzz ]] || ! st_reads CONFIG || catalog_is_feature_config "${ST_VAL[CONFIG]}" ||
		st_bad CONFIG "has no error injection to fuzz (configs with it: $(catalog_feature_configs | one_line))"
	st_reads RUN_ID && st_cross_run_id
	st_reads CC && st_cross_toolchain
	st_reads ACCEL && st_cross_accel
	st_reads RESULTS && [[ -n ${ST_VAL[CACHE]:-} ]] && st_cross_results
	return 0
}

# st_fill_defaults: values that follow from others: CCACHE_DIR in CACHE,
# the build's JOBS, the two sides (compare-series, static), the sources
# not given.
st_fill_defaults() {
	local side name
	if st_reads CCACHE_DIR && [[ ${ST_FROM[CCACHE_DIR]} == "the default" ]]; then
		ST_VAL[CCACHE_DIR]="${ST_VAL[CACHE]}/ccache"
		ST_FROM[CCACHE_DIR]="CACHE"
	fi
	if st_reads JOBS && [[ ${ST_VAL[JOBS]} == auto ]]; then
		host_cores 'ST_VAL[JOBS]'
		ST_FROM[JOBS]="auto: the host's cores"
	fi
	for name in SERIES MUTANT_SERIES; do
		if st_reads "$name" && [[ ${ST_FROM[$name]} == "the default" ]]; then
			catalog_dir "ST_VAL[$name]" series
		fi
	done
	if st_reads KSRC && [[ -z ${ST_VAL[KSRC]} ]]; then
		ST_DERIVED+=(KSRC_KIND=debian)
	fi
	st_reads BASE_KSRC || return 0
	for side in BASE NEW; do
		if [[ ${ST_FROM[${side}_KSRC]} == "the default" ]]; then
			ST_VAL[${side}_KSRC]=${ST_VAL[KSRC]} ST_FROM[${side}_KSRC]="KSRC"
		fi
		if [[ ${ST_FROM[${side}_SERIES]} == "the default" ]]; then
			ST_VAL[${side}_SERIES]=${ST_VAL[SERIES]} ST_FROM[${side}_SERIES]="SERIES"
		fi
	done
}

# --- entry points -------------------------------------------------------------

# st_needs_check NAME: a value to check.  JOB_FILE is checked while the
# layers are read; a path or run left unset, and a default that names a
# program, wait for what follows from the others (st_fill_defaults,
# st_cross) or for the stage that uses it.
st_needs_check() {
	[[ $1 != JOB_FILE ]] || return 1
	[[ ${ST_FROM[$1]} == "the default" ]] || return 0
	# a job file that could not be read leaves defaults that it would
	# have replaced: no more errors about those
	((${#ST_ERRORS[@]} == 0)) || return 1
	case ${ST_TYPE[$1]} in
	ksrc | series | run-dir | run-dir-local | baseline | program) return 1 ;;
	root) [[ -n ${ST_VAL[$1]} ]] ;;
	esac
}

# settings_resolve DRIVER [NAME=VALUE...]: the driver's settings resolved
# and checked; 0, or 2 after printing every problem on stderr (4 when
# every problem is the machine's).
#
# The entry points match bytes (LC_ALL=C, theirs alone): in a UTF-8 locale
# bash turns a string into wide characters at every pattern it matches,
# and that was a third of a resolver run.  What they match is ASCII by
# the table's design (names, numbers, "|" and blanks); a byte of a UTF-8
# value is never one of those, so the answers are the same.
settings_resolve() {
	local LC_ALL=C
	local n e parent='' only=''
	while [[ ${1:-} == -[pn] ]]; do
		if [[ $1 == -p ]]; then parent=$2; else only=$2; fi
		shift 2
	done
	st_init "${1:-}" "$parent"
	shift || true
	if ! st_driver_known; then
		printf 'error: unknown driver %s (valid: %s)\n' "'$ST_DRIVER'" "$(settings_drivers | one_line)" >&2
		return 2
	fi
	for n in $only; do
		if ! st_reads "$n"; then
			printf 'error: %s is not a setting of %s (bench/plan/settings.table)\n' "$n" "$ST_DRIVER" >&2
			return 2
		fi
	done
	for n in $only; do ST_ONLY[$n]=1; done
	st_user_names "$@"
	st_layers
	st_check_names
	for n in "${ST_MINE[@]}"; do
		if st_needs_check "$n"; then st_check "$n" || true; fi
	done
	((${#ST_ERRORS[@]} > 0)) || st_fill_defaults
	((${#ST_ERRORS[@]} > 0)) || st_cross
	if ((${#ST_ERRORS[@]} > 0)); then
		for e in "${ST_ERRORS[@]}"; do printf 'error: %s\n' "$e" >&2; done
		printf '%s: %d problem(s) with the settings; nothing was done\n' "$ST_DRIVER" "${#ST_ERRORS[@]}" >&2
		return 2
	fi
	((${#ST_SETUP[@]} > 0)) || return 0
	for e in "${ST_SETUP[@]}"; do printf 'error: %s\n' "$e" >&2; done
	printf '%s: %d problem(s) with the machine; nothing was done\n' "$ST_DRIVER" "${#ST_SETUP[@]}" >&2
	return 4
}

# st_plan_lines: the plan's KEY=VALUE lines: the driver's settings in the
# table's order, "auto" replaced where the accelerator is known, then what
# follows from them.
st_plan_lines() {
	local n
	local -A auto=()
	st_auto auto
	printf 'PLAN_VERSION=1\nDRIVER=%s\nREPO_DIR=%s\n' "$ST_DRIVER" "$ST_REPO"
	for n in "${ST_MINE[@]}"; do
		if [[ ${ST_VAL[$n]} == auto && -n ${auto[$n]:-} ]]; then
			printf '%s=%s\n' "$n" "${auto[$n]}"
		else
			printf '%s=%s\n' "$n" "${ST_VAL[$n]}"
		fi
	done
	printf '%s\n' "${ST_DERIVED[@]}"
	[[ $ST_DRIVER != views ]] || st_plan_views
}

# st_plan_views: the recipe of each view VIEWS names, VIEW_NAME_KEY=VALUE,
# so that the plan alone says how each view's boots run; and VIEWS_CONFIGS,
# every config they boot (a view's own, else CONFIGS), which make views
# builds.
st_plan_views() {
	local v k up configs=''
	for v in ${ST_VAL[VIEWS]}; do
		up=${v^^}
		for k in DESCRIPTION GUEST CPUS CONFIGS STATES WORKLOADS ROW_PREFIX COUNT PARSERS NEEDS; do
			printf 'VIEW_%s_%s=%s\n' "${up//-/_}" "$k" "${ST_VIEW[$v:$k]:-${ST_DEFAULT[$k]:-}}"
		done
		configs+=" ${ST_VIEW[$v:CONFIGS]:-${ST_VAL[CONFIGS]}}"
	done
	words_once configs "$configs"
	printf 'VIEWS_CONFIGS=%s\n' "$configs"
}

# settings_recipe VIEW KEY: KEY of VIEW's recipe (bench/plan/views/
# VIEW.job, read as the resolver reads it), the table's default where the
# recipe has none: what a run's report needs of a view that it did not
# record.
settings_recipe() {
	local dir
	# shellcheck disable=SC2034 # filled by st_read_job, by name
	local -A st_view=()
	st_init views
	catalog_dir dir views
	st_read_job "$dir/$1.job" view st_view
	printf '%s\n' "${st_view[$2]:-${ST_DEFAULT[$2]:-}}"
}

# settings_write_plan FILE [new]: the plan, written whole or not at all.
# Never sourced by its readers: a value runs to the end of its line.  With
# "new", FILE is a name of the caller's own that nothing reads before this
# returns (bench/plan/run's): written in place, no rename.
settings_write_plan() {
	local LC_ALL=C
	local file=$1 tmp n dir=.
	[[ $file != */* ]] || dir=${file%/*}
	# named by this shell and a random number, made with noclobber (a name
	# taken is a failure): mktemp would be a process on every command
	tmp=$dir/.plan.$BASHPID.$SRANDOM
	[[ ${2:-} != new ]] || tmp=$file
	set -o noclobber
	{
		printf '# The plan of %s, by bench/lib/settings.sh: KEY=VALUE a line, read\n' "$ST_DRIVER"
		printf '# by every stage (bench/lib/plan.sh), never sourced.  Where each came from:\n'
		for n in "${ST_MINE[@]}"; do printf '#   %s: %s\n' "$n" "${ST_FROM[$n]}"; done
		st_plan_lines
	} >"$tmp"
	set +o noclobber
	[[ $tmp == "$file" ]] || mv "$tmp" "$file"
}

# st_used VAR: the accelerator the settings came to (ACCEL_USED) into
# VAR, empty when not known.
st_used() {
	local -n st_used_into=$1
	local kv
	st_used_into=''
	# shellcheck disable=SC2034 # the caller's variable, by name
	for kv in "${ST_DERIVED[@]}"; do [[ $kv != ACCEL_USED=* ]] || st_used_into=${kv#*=}; done
}

# st_auto ARRAY: what auto stands for under st_used, NAME -> VALUE into
# the associative ARRAY (nothing when it is not known).
st_auto() {
	# shellcheck disable=SC2034 # handed on by name
	local -n st_auto_into=$1
	local used
	st_used used
	[[ -n $used ]] || return 0
	accel_defaults st_auto_into "$used" "$ST_DRIVER"
}

# settings_print: each setting and where it came from, for a reader; an
# auto the accelerator settles, with what it stands for.
settings_print() {
	local LC_ALL=C
	local n used
	local -A auto=()
	st_auto auto
	st_used used
	for n in "${ST_MINE[@]}"; do
		if [[ ${ST_VAL[$n]} == auto && -n ${auto[$n]:-} ]]; then
			printf '%s=%s\t(%s: auto, under %s)\n' "$n" "${auto[$n]}" "${ST_FROM[$n]}" "$used"
		else
			printf '%s=%s\t(%s)\n' "$n" "${ST_VAL[$n]}" "${ST_FROM[$n]}"
		fi
	done
	[[ -z $used ]] || printf 'ACCEL_USED=%s\t(ACCEL=%s on this machine)\n' "$used" "${ST_VAL[ACCEL]:-auto}"
}
