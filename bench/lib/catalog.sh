# shellcheck shell=bash
# The names a user may give, and where each list lives: configs (kernel
# config fragments), injection states, fio workloads, views, guest tests,
# job files.  Every list is read from the files it names, so a new fragment
# or fio job is a new valid name without a change here.  catalog_NAMES
# lists the valid ones, catalog_is_NAME checks one, printing nothing.
#
# Sourcing this file defines functions and nothing else (path.sh's too).

# shellcheck source=bench/lib/path.sh
. "${BASH_SOURCE[0]%/*}/path.sh"

# catalog_dir VAR WHAT: the path of WHAT into the variable VAR, without a
# subshell: the one place that knows where things are.  The repository is
# CATALOG_REPO when set (the resolver sets it once), else this file's,
# kept in CATALOG_REPO by the first call.
catalog_dir() {
	local -n catalog_var=$1
	[[ -n ${CATALOG_REPO:-} ]] || path_abs CATALOG_REPO "${BASH_SOURCE[0]%/*}/../.."
	local repo=$CATALOG_REPO
	# shellcheck disable=SC2034 # the caller's variable, by name
	case $2 in
	repo) catalog_var=$repo ;;
	table) catalog_var=$repo/bench/plan/settings.table ;;
	drivers) catalog_var=$repo/bench/plan/drivers ;;
	views) catalog_var=$repo/bench/plan/views ;;
	jobs) catalog_var=$repo/bench/plan/jobs ;;
	configs) catalog_var=$repo/bench/kernel/configs ;;
	fio) catalog_var=$repo/bench/guest/fio ;;
	tests) catalog_var=$repo/tests/block ;;
	series) catalog_var=$repo/patches ;;
	source) catalog_var=/usr/src/linux-source-6.12.tar.xz ;;
	*) return 1 ;;
	esac
}

# catalog_path WHAT: the same, printed.
catalog_path() {
	local p
	catalog_dir p "$1"
	printf '%s\n' "$p"
}

# catalog_names DIR SUFFIX [EXCEPT...]: the files DIR/*SUFFIX, by name,
# but the names EXCEPT.
catalog_names() {
	local dir=$1 suffix=$2 f
	shift 2
	for f in "$dir"/*"$suffix"; do
		[[ -f $f ]] || continue
		f=${f##*/}
		f=${f%"$suffix"}
		[[ " $* " == *" $f "* ]] || printf '%s\n' "$f"
	done
	return 0
}

# catalog_file WHAT NAME SUFFIX: NAME is a plain name (it becomes a file
# or directory name: no path in it) and WHAT holds NAME+SUFFIX.
catalog_file() {
	local dir
	[[ $2 =~ ^[a-z0-9][a-z0-9-]*$ ]] || return 1
	catalog_dir dir "$1"
	[[ -f $dir/$2$3 ]]
}

# Kernel configs: bench/kernel/configs/NAME.config, common.config being the base
# of all of them.
catalog_configs() {
	local dir
	catalog_dir dir configs
	# common left out by catalog_names, not a grep: this runs on most commands
	catalog_names "$dir" .config common
}

catalog_is_config() {
	[[ $1 != common ]] && catalog_file configs "$1" .config
}

# catalog_config_has CONFIG SYMBOL: the fragment sets SYMBOL=y.
catalog_config_has() {
	local dir line
	catalog_dir dir configs
	while IFS= read -r line; do
		[[ $line != "$2=y" ]] || return 0
	done <"$dir/$1.config"
	return 1
}

catalog_configs_with() {
	local c
	for c in $(catalog_configs); do
		if catalog_config_has "$c" "$1"; then printf '%s\n' "$c"; fi
	done
}

# catalog_has_feature CONFIG: it builds error injection in; a config
# without it is measured in state off only.
catalog_has_feature() {
	catalog_config_has "$1" CONFIG_BLK_ERROR_INJECTION
}

catalog_is_feature_config() {
	catalog_is_config "$1" && catalog_has_feature "$1"
}

catalog_feature_configs() {
	catalog_configs_with CONFIG_BLK_ERROR_INJECTION
}

# Injection states: bench/guest/state.sh's, rules-N from 1 to 10000.
catalog_states() {
	printf '%s\n' off key-off key-on-other match-chance ei-idle ei-rule fmr-p0 \
		dm-linear dm-error-unused dm-flakey-up dm-dust bpf-detached bpf-idle bpf-rule
}

# catalog_states_help: the states as a user may give them.
catalog_states_help() {
	catalog_states
	echo 'rules-N (N from 1 to 10000)'
}

catalog_is_state() {
	if [[ $1 =~ ^rules-([1-9][0-9]{0,4})$ ]] && ((BASH_REMATCH[1] <= 10000)); then return 0; fi
	case $1 in
	off | key-off | key-on-other | match-chance | ei-idle | ei-rule | fmr-p0) ;;
	dm-linear | dm-error-unused | dm-flakey-up | dm-dust) ;;
	bpf-detached | bpf-idle | bpf-rule) ;;
	*) return 1 ;;
	esac
}

# catalog_state_needs VAR STATE: the config symbol a state needs besides
# the feature itself into VAR (empty: none), without a subshell.
catalog_state_needs() {
	local -n catalog_needs=$1
	# shellcheck disable=SC2034 # the caller's variable, by name
	case $2 in
	fmr-p0) catalog_needs=CONFIG_FAIL_MAKE_REQUEST ;;
	*) catalog_needs='' ;;
	esac
}

# fio workloads: bench/guest/fio/NAME.fio.
catalog_workloads() {
	catalog_names "$(catalog_path fio)" .fio
}

catalog_is_workload() {
	catalog_file fio "$1" .fio
}

# Views: bench/plan/views/NAME.job.
catalog_views() {
	catalog_names "$(catalog_path views)" .job
}

catalog_is_view() {
	catalog_file views "$1" .job
}

# Guest tests: tests/block/NNN-NAME, each beside its golden NNN-NAME.out.
catalog_tests() {
	catalog_names "$(catalog_path tests)" '' | grep -E '^[0-9]' | grep -v '\.out'
}

catalog_is_test() {
	[[ $1 == [0-9]* && $1 != *.out ]] && catalog_file tests "$1" ''
}

# Job files of the matrix: bench/plan/jobs/NAME.job.
catalog_job_files() {
	catalog_names "$(catalog_path jobs)" .job
}

# --- lib.sh's checks: each dies naming the valid names (they need lib.sh's
# BENCH_DIR and die; the resolver's are the catalog_ functions above) ---

# Configs of the matrix, in build order.
all_configs() {
	local f
	for f in "$BENCH_DIR"/kernel/configs/*.config; do
		f=${f##*/}
		[[ $f == common.config ]] || printf '%s\n' "${f%.config}"
	done
}

config_fragment() {
	check_configs "$1"
	printf '%s\n' "$BENCH_DIR/kernel/configs/$1.config"
}

# config_legend CONFIG: the few words a figure's key gives CONFIG ("# legend:
# TEXT" in its fragment; bench/lib/results.sh records them with the build).
config_legend() {
	sed -n 's/^# legend: *//p' "$(config_fragment "$1")" | sed -n 1p
}

# has_feature CONFIG: the config builds error injection in (its fragment
# says so); one without it is measured in state "off" only.
has_feature() {
	grep -q '^CONFIG_BLK_ERROR_INJECTION=y' "$(config_fragment "$1")"
}

# one_line: words on stdin, space-separated on one line (no newline
# after it).  Read by the shell: it is in every refusal's message.
one_line() {
	local IFS=' ' line
	local -a words
	mapfile -t words
	line=${words[*]}
	printf '%s' "${line%"${line##*[! ]}"}"
}

# words_once VAR TEXT...: into VAR, the words of the TEXTs (split at
# blanks and newlines) in the order first seen, each once, joined by one
# space.  In the shell: tr | awk | one_line was three processes where
# every resolve and view asks.
words_once() {
	local -n words_once_var=$1
	local words_once_w words_once_joined=''
	local -a words_once_list=()
	local -A words_once_seen=()
	shift
	IFS=$' \t\n' read -rd '' -a words_once_list <<<"$*" || :
	for words_once_w in ${words_once_list[@]+"${words_once_list[@]}"}; do
		[[ -z ${words_once_seen[$words_once_w]+set} ]] || continue
		words_once_seen[$words_once_w]=1
		words_once_joined+=${words_once_joined:+ }$words_once_w
	done
	# shellcheck disable=SC2034 # the caller's variable, by name
	words_once_var=$words_once_joined
}

# check_configs NAME...: die naming the valid configs unless every NAME is one.
check_configs() {
	local c
	for c in "$@"; do
		[[ -n $c && -f $BENCH_DIR/kernel/configs/$c.config && $c != common ]] ||
			die_bad_input "unknown config '$c' (valid: $(all_configs | one_line))"
	done
}

# check_states NAME...: die naming the valid states unless every NAME is
# one: the injection states bench/guest/state.sh knows; rules-N takes any
# N >= 1.
check_states() {
	local s valid="off key-off key-on-other rules-N match-chance ei-idle ei-rule fmr-p0 dm-linear dm-error-unused dm-flakey-up dm-dust bpf-detached bpf-idle bpf-rule"
	for s in "$@"; do
		[[ $s =~ ^rules-[1-9][0-9]*$ || " $valid " == *" $s "* && $s != rules-N ]] ||
			die_bad_input "unknown state '$s' (valid: $valid)"
	done
}

# fio jobs in bench/guest/fio.
all_workloads() {
	local f
	for f in "$BENCH_DIR"/guest/fio/*.fio; do
		f=${f##*/}
		printf '%s\n' "${f%.fio}"
	done
}

check_workloads() {
	local w
	for w in "$@"; do
		[[ -n $w && -f $BENCH_DIR/guest/fio/$w.fio ]] ||
			die_bad_input "unknown workload '$w' (valid: $(all_workloads | one_line))"
	done
}
