# shellcheck shell=bash
# How every script starts: its help (the leading comment block, printed
# whatever its length, so a header that grows is never cut by a line
# range) on -h or --help, the exit statuses by name (status.sh) and a
# directory's absolute path without a subshell (path.sh).
#
# Sourcing this file defines functions and constants and nothing else, so
# a script sources it before anything (its -h answer needs nothing more).

# shellcheck source=bench/lib/status.sh
. "${BASH_SOURCE[0]%/*}/status.sh"
# shellcheck source=bench/lib/path.sh
. "${BASH_SOURCE[0]%/*}/path.sh"

# help_header FILE: FILE's leading comment block, the comment lines after
# its shebang up to the first line that is not a comment, each with its
# "#" and one space after it stripped.
help_header() {
	sed -n -e '1{/^#!/d}' -e '/^#/!q' -e 's/^# \{0,1\}//p' "$1"
}

# help_answer SCRIPT [ARG...]: when the first ARG is -h or --help, print
# SCRIPT's help and exit 0, having done nothing else; else return.
help_answer() {
	case ${2:-} in -h | --help) help_header "$1"; exit "$STATUS_OK" ;; esac
}

# help_usage SCRIPT: SCRIPT's usage (the first indented line of its help
# that names it) on stderr, and exit 2: the answer to arguments it does
# not take.
help_usage() {
	help_header "$1" | awk -v name="${1##*/}" '
		/^[ \t]/ && index($0, name) { sub(/^[ \t]+/, ""); print "usage: " $0; exit }' >&2
	exit "$STATUS_BAD_INPUT"
}

# help_option SCRIPT FLAG VAR [ARG...]: getopts for a SCRIPT whose one
# option is FLAG VALUE (-o DIR, say), before its other arguments: VALUE
# into the variable VAR, OPTIND as getopts leaves it, so that
# "shift $((OPTIND - 1))" leaves the other arguments; another option, or
# FLAG without VALUE, is a usage error (help_usage).
help_option() {
	local script=$1 flag=$2 opt
	local -n help_option_var=$3
	shift 3
	OPTIND=1
	while getopts "${flag#-}:" opt; do
		[[ $opt != '?' ]] || help_usage "$script"
		# shellcheck disable=SC2034 # a nameref: sets the caller's VAR
		help_option_var=$OPTARG
	done
}

# help_option_setting SCRIPT FLAG NAME ARRAY [ARG...]: help_option for an
# option that stands for a setting: FLAG VALUE becomes NAME=VALUE in ARRAY
# (empty without FLAG), for the resolver to check with the other settings.
help_option_setting() {
	local script=$1 flag=$2 name=$3 value=''
	local -n help_setting_var=$4
	shift 4
	help_answer "$script" "$@"
	help_option "$script" "$flag" value "$@"
	help_setting_var=()
	# shellcheck disable=SC2034 # a nameref: sets the caller's ARRAY
	[[ -z $value ]] || help_setting_var=("$name=$value")
}
