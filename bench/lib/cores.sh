# shellcheck shell=bash
# The host's cores as nproc counts them, without a process: every command
# resolves its settings, and nproc was two of the resolver's processes.
#
# Sourcing this file defines functions and nothing else.

# host_cores VAR: the CPUs this process may run on (its affinity, what
# nproc prints) into VAR, from /proc/self/status read by the shell itself.
# nproc itself where OMP_NUM_THREADS or OMP_THREAD_LIMIT, which nproc
# obeys, are set, or where the file has no Cpus_allowed_list.
host_cores() {
	local -n host_cores_var=$1
	local line list range n=0
	if [[ -z ${OMP_NUM_THREADS:-}${OMP_THREAD_LIMIT:-} && -r /proc/self/status ]]; then
		while IFS= read -r line; do
			[[ $line == Cpus_allowed_list:* ]] || continue
			list=${line#*:}
			list=${list//[[:space:]]/},
			while [[ $list =~ ^([0-9]+)(-([0-9]+))?,(.*)$ ]]; do
				range=${BASH_REMATCH[3]:-${BASH_REMATCH[1]}}
				n=$((n + 10#$range - 10#${BASH_REMATCH[1]} + 1))
				list=${BASH_REMATCH[4]}
			done
			[[ -z $list ]] || n=0
			break
		done </proc/self/status
	fi
	# shellcheck disable=SC2034 # the caller's variable, by name
	if ((n > 0)); then host_cores_var=$n; else host_cores_var=$(nproc); fi
}
