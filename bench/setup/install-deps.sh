#!/usr/bin/env bash
# Install, with apt-get, the Debian packages the project needs.  Does
# nothing (and needs no network) when they are all installed already.
#
#   bench/setup/install-deps.sh [-h]
# Exit status: 0 all installed, 4 packages are missing and this is not root.
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/help.sh
. "$HERE/../lib/help.sh"
help_answer "$0" "$@"

PACKAGES=(
	linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
	patch ccache cpio xz-utils kmod
	qemu-system-x86 busybox-static fio xfsprogs dmsetup linux-perf
	gnuplot-nox jq shellcheck libgsl-dev lcov time
	lava-dispatcher
	clang libbpf-dev bpftool
)

missing_packages() {
	local p
	local -A installed=()
	# one dpkg-query for all (one a package took a second on every make)
	while read -r p; do installed[$p]=1; done < <(
		dpkg-query -W -f='${Package} ${Status}\n' "${PACKAGES[@]}" 2>/dev/null |
			awk '$2 == "install" && $3 == "ok" && $4 == "installed" { print $1 }' || :)
	for p in "${PACKAGES[@]}"; do
		[[ -n ${installed[$p]:-} ]] || printf '%s\n' "$p"
	done
}

main() {
	local missing
	mapfile -t missing < <(missing_packages)
	if [[ ${#missing[@]} -eq 0 ]]; then
		echo "deps: all ${#PACKAGES[@]} packages installed"
		return
	fi
	echo "deps: installing ${missing[*]}"
	[[ $(id -u) == 0 ]] || { echo "deps: need root for apt-get" >&2; exit "$STATUS_SETUP"; }
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null
	echo "deps: done"
}

main "$@"
