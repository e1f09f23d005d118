#!/bin/sh
# The gcov counts of a kernel built with CONFIG_GCOV_KERNEL (the gcov config),
# in the guest image as /usr/bin/gcov-counts.  Does nothing on other kernels,
# so every guest script can call it.
#
#   gcov-counts reset   zero the counts (the boot's own I/O is not the test's)
#   gcov-counts dump    print a "=== gcov-counts ===" block: a tar of every
#                       .gcda file under /sys/kernel/debug/gcov, in base64,
#                       with the paths the kernel gives them (the build
#                       directory on the host)
set -u
GCOV_ROOT=/sys/kernel/debug/gcov
[ -d "$GCOV_ROOT" ] || exit 0
case ${1:-} in
reset)
	echo 1 >"$GCOV_ROOT/reset"
	;;
dump)
	# debugfs reports a size of 0 for these files, so tar would store
	# them empty: copy the bytes out first.
	stage=/tmp/gcov-counts
	rm -rf "$stage"
	(cd "$GCOV_ROOT" && find . -name '*.gcda') | while read -r f; do
		mkdir -p "$stage/${f%/*}"
		cat "$GCOV_ROOT/$f" >"$stage/$f"
	done
	echo "=== gcov-counts ==="
	tar -C "$stage" -cf - . | base64
	echo "=== end ==="
	rm -rf "$stage"
	;;
*)
	echo "usage: gcov-counts reset|dump" >&2
	exit 2
	;;
esac
