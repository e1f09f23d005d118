#!/usr/bin/env bash
# run-guest -K BZIMAGE -M ARCHIVE boots a kernel built elsewhere with the
# modules from the archive: the cached build of on, its modules_install
# tree packed as a lab would (tar of lib/modules), plus a marker file
# that only this archive holds, so modules taken from the cache's own
# image would fail the test.  One boot.
#
#   tests/prebuilt-kernel.sh      needs the config on built; exit 1 on a failure
set -euo pipefail
shopt -s inherit_errexit

# shellcheck source=bench/lib/lib.sh
. "$(dirname "$0")/../bench/lib/lib.sh"
tool_start test 'CACHE KSRC SERIES' -- "$0" "$@"
# After tool_start, not before: test_init drops the plan it inherits, and
# tool_start, finding none, runs this script again through the resolver,
# which gave the new run a plan that test_init dropped: the test ran itself
# again and again and never booted.
# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/lib/assert.sh"
test_init "$0" "$@"
OUT=$SCRATCH

main() {
	local build release marker cpio
	build=$(kernel_build_dir on)
	release=$(cat "$build/include/config/kernel.release")
	marker=archive-$$-$(date +%s%N)
	mkdir -p "$OUT/tree/lib"
	cp -a "$build/modroot/lib/modules" "$OUT/tree/lib/"
	printf '%s\n' "$marker" >"$OUT/tree/lib/modules/$release/marker"
	tar -C "$OUT/tree" -czf "$OUT/modules.tar.gz" lib
	cat >"$OUT/script" <<'SCRIPT'
echo "release $(uname -r)"
echo "marker $(cat "/lib/modules/$(uname -r)/marker")"
modprobe null_blk nr_devices=1 && [ -b /dev/nullb0 ] && echo "null_blk loaded"
SCRIPT
	cp "$build/arch/x86/boot/bzImage" "$OUT/bzImage"
	"$BENCH_DIR/vm/run-guest" -c on -K "$OUT/bzImage" -M "$OUT/modules.tar.gz" -o "$OUT/boot" "$OUT/script" >/dev/null
	check "the guest runs the -K kernel ($release)" grep -qx "release $release" "$OUT/boot/result.log"
	check "its modules come from the -M archive" grep -qx "marker $marker" "$OUT/boot/result.log"
	check "modprobe null_blk works" grep -qx "null_blk loaded" "$OUT/boot/result.log"
	check "meta names the kernel booted" grep -qx "kernel=$OUT/bzImage" "$OUT/boot/meta"
	# the archive's image piece is the cache's only trace of the test
	cpio=$CACHE/images/modules-archive-$(sha256sum <"$OUT/modules.tar.gz" | cut -c1-16).cpio
	check "the image took the archive's modules ($cpio)" test -f "$cpio"
	rm -f "$cpio"
	finish
}

main "$@"
