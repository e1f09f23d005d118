#!/usr/bin/env bash
# Pack what bench.sh and run-guest need of a built config, so a lab can
# build on one host and run jobs on others:
#
#   pack-build.sh CONFIG ARCHIVE          on the build host (a tar file)
#   tar -C "$CACHE" -xf ARCHIVE           on each test host, then
#   bench/run/bench.sh --job ID               as with a build of its own
#
# The archive holds, under build/CONFIG/ (for another KSRC or SERIES than
# the default, under its variant's variants/ID/build/CONFIG/, where a test
# host's job with the same settings looks), the bzImage, the modules
# tree, vmlinux (the gate's address, the build ID), System.map (the
# plugin's ranges), .config, the kernel release and the build's stamp,
# and the kernel source's version (src/pristine/.blkinject-version) that
# meta.json records.
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
tool_start pack 'CACHE KSRC SERIES' -- "$0" "$@"

# What of build/CONFIG a run reads.
BUILD_FILES=(.blkinject-stamp .config arch/x86/boot/bzImage include/config/kernel.release modroot System.map vmlinux)

main() {
	local cfg=${1:-} archive=${2:-} f dir rel
	local -a files=()
	[[ $# -eq 2 && -n $cfg && -n $archive ]] || die_bad_input "usage: pack-build.sh CONFIG ARCHIVE"
	check_built "$cfg"
	# the build of this KSRC and SERIES, at the path below CACHE where a
	# test host's job with the same settings looks for it (build/CONFIG
	# for Debian's source and patches/, under variants/ for any other)
	dir=$(kernel_build_dir "$cfg")
	rel=${dir#"$CACHE"/}
	[[ $rel != "$dir" ]] || die_setup "$dir is not below CACHE=$CACHE"
	for f in "${BUILD_FILES[@]}"; do
		[[ -e $dir/$f ]] || die_setup "$dir/$f missing: rebuild with bench/kernel/build.sh build $cfg"
		files+=("$rel/$f")
	done
	[[ ! -f $CACHE/src/pristine/.blkinject-version ]] || files+=(src/pristine/.blkinject-version)
	# build/ and src/ may be links to a shared cache, so links are
	# followed, except the modules tree's links back to the source tree.
	tar -C "$CACHE" --dereference --exclude="$rel/modroot/lib/modules/*/build" \
		--exclude="$rel/modroot/lib/modules/*/source" -cf "$archive" "${files[@]}"
	log "pack-build: $cfg into $archive ($(du -h "$archive" | cut -f1))"
}

main "$@"
