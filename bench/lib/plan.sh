# shellcheck shell=bash
# Reading a plan, the file bench/plan/resolve writes: KEY=VALUE a line,
# "#" comments.  A value runs to the end of its line and is taken as it
# is: the plan is never sourced or evaluated, so nothing in a value (a
# quote, a $, a glob) can run or expand.
#
# Sourcing this file defines functions and nothing else.
#   plan_load FILE        every KEY into the associative array PLAN; 2 on
#                         a file that is not a plan
#   plan_get FILE KEY     one value on stdout; 1 when KEY is not there
#   plan_export FILE [set]  every setting of the plan into the environment,
#                         for the scripts that read their settings there;
#                         with "set", only those not at the table's default
#                         (the scripts' defaults are the same), so that a
#                         driver another one calls is not handed settings
#                         nobody gave
#   plan_for DRIVER...    BIB_PLAN (bench/plan/run's) is a plan of one of
#                         these drivers, not of a command that called this
#                         one with settings of its own (per-patch, a test)
#   plan_given FILE       NAME=VALUE (shell-quoted) of each setting a user
#                         gave (not a default, not a job file), one a line

plan_load() {
	local file=$1 line key n=0
	declare -gA PLAN=()
	if [[ ! -f $file || ! -r $file ]]; then
		printf 'error: plan %s: no such file (bench/plan/resolve writes one)\n' "$file" >&2
		return 2
	fi
	while IFS= read -r line || [[ -n $line ]]; do
		n=$((n + 1))
		[[ -n $line && $line != \#* ]] || continue
		key=${line%%=*}
		if [[ $line != *=* || ! $key =~ ^[A-Z][A-Z0-9_]*$ ]]; then
			printf 'error: plan %s:%d: not KEY=VALUE: %s\n' "$file" "$n" "$line" >&2
			return 2
		fi
		PLAN[$key]=${line#*=}
	done <"$file"
	# the format this reader knows; bench/lib/settings.sh writes it
	if [[ ${PLAN[PLAN_VERSION]:-} != 1 ]]; then
		printf 'error: plan %s: PLAN_VERSION is %s, want 1 (resolve it again)\n' "$file" "${PLAN[PLAN_VERSION]:-missing}" >&2
		return 2
	fi
}

plan_get() {
	awk -v k="$2" '
		index($0, k "=") == 1 { v = substr($0, length(k) + 2); f = 1 }
		END { if (f) print v; exit !f }' "$1"
}

# plan_export FILE: the plan's settings as exported variables, replacing
# what the environment held.  An empty value or "auto" unsets the name
# (the scripts read both as "choose"), except the lists where empty means
# none and ACCEL, whose auto the runner resolves.  What the resolver
# derived (DRIVER, TOOLCHAIN, a view's recipe) and kbuild's own names
# (the user's, passed on as they were) are left alone.
plan_export() {
	local key
	local -A default=()
	plan_load "$1" || return
	if [[ ${2:-} == set ]]; then
		while read -r key; do default[$key]=1; done < <(sed -n 's/^#   \([A-Z][A-Z0-9_]*\): the default$/\1/p' "$1")
	fi
	for key in "${!PLAN[@]}"; do
		[[ -z ${default[$key]:-} ]] || continue
		case $key in
		PLAN_VERSION | DRIVER | REPO_DIR | KSRC_KIND | TOOLCHAIN | ACCEL_USED | VIEW_*_*) continue ;;
		CC | LLVM | O | ARCH | CROSS_COMPILE | KBUILD_OUTPUT) continue ;;
		esac
		if [[ $key == WORKLOADS || $key == SOFTIRQ_WORKLOADS || -n ${PLAN[$key]} && (${PLAN[$key]} != auto || $key == ACCEL) ]]; then
			export "$key=${PLAN[$key]}"
		else
			unset "$key"
		fi
	done
}

# plan_given FILE: the settings whose value came from the environment,
# make's command line or an argument (the plan's "#   NAME: WHERE" lines).
plan_given() {
	local name where
	plan_load "$1" || return
	while IFS=: read -r name where; do
		name=${name#'#   '}
		case $where in
		" the environment" | " make's command line" | " the command line")
			[[ -z ${PLAN[$name]+set} ]] || printf '%s=%q\n' "$name" "${PLAN[$name]}" ;;
		esac
	done < <(grep '^#   [A-Z][A-Z0-9_]*: ' "$1")
}

plan_for() {
	local driver
	[[ -n ${BIB_PLAN:-} ]] || return 1
	driver=$(plan_get "$BIB_PLAN" DRIVER) || return 1
	[[ " $* " == *" $driver "* ]]
}
