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
	# prefixed: a local of the caller's name would take the answer
	local hc_line hc_list hc_last hc_n=0
	if [[ -z ${OMP_NUM_THREADS:-}${OMP_THREAD_LIMIT:-} && -r /proc/self/status ]]; then
		while IFS= read -r hc_line; do
			[[ $hc_line == Cpus_allowed_list:* ]] || continue
			hc_list=${hc_line#*:}
			hc_list=${hc_list//[[:space:]]/},
			while [[ $hc_list =~ ^([0-9]+)(-([0-9]+))?,(.*)$ ]]; do
				hc_last=${BASH_REMATCH[3]:-${BASH_REMATCH[1]}}
				hc_n=$((hc_n + 10#$hc_last - 10#${BASH_REMATCH[1]} + 1))
				hc_list=${BASH_REMATCH[4]}
			done
			[[ -z $hc_list ]] || hc_n=0
			break
		done </proc/self/status
	fi
	# shellcheck disable=SC2034 # the caller's variable, by name
	if ((hc_n > 0)); then host_cores_var=$hc_n; else host_cores_var=$(nproc); fi
}
