# shellcheck shell=bash
# A directory's absolute path found by the shell itself: $(cd DIR && pwd)
# is a subshell, 3 to 5 ms of CPU on this project's VM, and every command's
# start made several (issue 34).  Part of help.sh, which sources it;
# sourcing it defines one function and nothing else.

# path_abs VAR DIR [-P]: DIR's absolute path into VAR, as "cd DIR && pwd"
# prints it in a subshell (-P: with every symbolic link resolved, as
# "pwd -P"); cd's message and status 1, VAR untouched, when DIR cannot be
# entered.  The shell goes to DIR and back: PWD and OLDPWD are as before.
path_abs() {
	local -n path_abs_into=$1
	local path_abs_here=$PWD path_abs_old=${OLDPWD-} path_abs_at
	CDPATH='' builtin cd ${3:+"$3"} -- "$2" || return 1
	path_abs_at=$PWD
	CDPATH='' builtin cd -- "$path_abs_here" || return 1
	OLDPWD=$path_abs_old
	# shellcheck disable=SC2034 # the caller's variable, by name
	path_abs_into=$path_abs_at
}
