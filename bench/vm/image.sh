#!/usr/bin/env bash
# Guest initramfs pieces, under $CACHE/images:
#
#   image.sh base            busybox, fio, perf, xfs_io, dmsetup, kmod, jq (with
#                            their shared-library closure), our static guest
#                            tools, gcov-counts and /init: base.cpio
#   image.sh modules CONFIG  the config's kernel modules, the tests' own
#                            (bench/guest/kmod) built for it, and for a config
#                            that can override should_fail_bio() the BPF
#                            tool failbio made for its build (bench/guest/bpf):
#                            modules-CONFIG.cpio
#   image.sh modules-archive ARCHIVE
#                            the modules of a prebuilt kernel (a tar of the
#                            modules_install tree, lib/modules/RELEASE):
#                            modules-archive-HASH.cpio, its path on stdout
# Exit status: 0 done, 2 bad usage or archive, 4 a binary missing or a
# guest tool that would not build (bench/lib/status.sh).
#
# The runner concatenates them with a per-run archive (the kernel accepts
# concatenated cpio archives).  Each piece is rebuilt only when an input
# changed.  Uncompressed on purpose: unpacking gzip under TCG costs seconds.
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
tool_start image 'CACHE KSRC SERIES' -- "$0" "$@"

IMAGE_DIR=$CACHE/images
GUEST_BINARIES=(/usr/bin/fio /usr/bin/perf /usr/sbin/xfs_io /usr/sbin/dmsetup /bin/kmod /usr/bin/jq)
GUEST_TOOLS=(blkio ewrite kpeek eifuzz clockio eistress eirace)

# Pack directory $1 into the newc cpio archive $2, owned by root.
pack_cpio() {
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --reproducible --quiet) >"$2.tmp"
	mv "$2.tmp" "$2"
}

# Shared libraries a binary needs, the dynamic loader included.
library_closure() {
	ldd "$@" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && NF == 2 { print $1 }' |
		sort -u
}

base_inputs_hash() {
	{
		ls -lL "${GUEST_BINARIES[@]}" /bin/busybox
		library_closure "${GUEST_BINARIES[@]}" | xargs ls -lL
		cat "$BENCH_DIR"/guest/init "$BENCH_DIR"/guest/kernel-report.ere "$BENCH_DIR"/guest/gcov-counts.sh \
			"$BENCH_DIR"/guest/tools/*.[ch] "$0"
	} | sha256sum | cut -c1-16
}

copy_with_parents() {
	local root=$1 f
	shift
	for f in "$@"; do
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f"
	done
}

build_guest_tools() {
	local out=$1 tool
	for tool in "${GUEST_TOOLS[@]}"; do
		gcc -std=c11 -Wall -Wextra -Werror -O2 -static \
			-o "$out/$tool" "$BENCH_DIR/guest/tools/$tool.c" ||
			die_setup "building guest tool $tool failed"
	done
}

cmd_base() {
	local out=$IMAGE_DIR/base.cpio hash root applet
	for b in "${GUEST_BINARIES[@]}" /bin/busybox; do
		[[ -x $b ]] || die_setup "$b missing: run 'make deps'"
	done
	hash=$(base_inputs_hash)
	if [[ -f $out && -f $out.hash && $(cat "$out.hash") == "$hash" ]]; then
		log "image: base up to date ($out)"
		return
	fi
	log "image: building base initramfs"
	mkdir -p "$IMAGE_DIR"
	root=$(mktemp -d "$IMAGE_DIR/root.XXXXXX")
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,bench,lib/modules,etc}
	mknod -m 600 "$root/dev/console" c 5 1
	cp /bin/busybox "$root/bin/busybox"
	for applet in $(/bin/busybox --list); do
		[[ -e $root/bin/$applet ]] || ln -s busybox "$root/bin/$applet"
	done
	copy_with_parents "$root" "${GUEST_BINARIES[@]}"
	# shellcheck disable=SC2046
	copy_with_parents "$root" $(library_closure "${GUEST_BINARIES[@]}")
	for applet in modprobe insmod rmmod lsmod depmod modinfo; do
		ln -sf /bin/kmod "$root/sbin/$applet"
	done
	build_guest_tools "$root/usr/bin"
	cp "$BENCH_DIR/guest/init" "$root/init"
	# What counts as a kernel report, for the guest scripts that check dmesg.
	cp "$BENCH_DIR/guest/kernel-report.ere" "$root/etc/kernel-report.ere"
	# The gcov config's counts, for make coverage (a no-op on other kernels).
	install -m 755 "$BENCH_DIR/guest/gcov-counts.sh" "$root/usr/bin/gcov-counts"
	chmod 755 "$root/init"
	printf 'root:x:0:0:root:/:/bin/sh\n' >"$root/etc/passwd"
	printf 'root:x:0:\n' >"$root/etc/group"
	pack_cpio "$root" "$out"
	rm -rf "$root"
	printf '%s\n' "$hash" >"$out.hash"
	log "image: base is $(du -h "$out" | cut -f1)"
}

# has_failbio BUILD_DIR: the build can run fail-bio.bpf.c.
has_failbio() {
	grep -q '^CONFIG_BPF_KPROBE_OVERRIDE=y' "$1/.config"
}

# build_test_modules BUILD_DIR ROOT: the guest tests' own kernel modules
# (bench/guest/kmod: zappend, which submits a zone append) built against
# BUILD_DIR, into ROOT/lib/modules/RELEASE/extra, and ROOT's modules.dep
# made again so that modprobe finds them.
build_test_modules() {
	local build=$1 root=$2 release tmp
	release=$(cat "$build/include/config/kernel.release")
	tmp=$(mktemp -d "$IMAGE_DIR/kmod.XXXXXX")
	cp "$BENCH_DIR"/guest/kmod/* "$tmp/"
	make -C "$build" M="$tmp" modules >"$tmp/build.log" 2>&1 ||
		die_with_log "building the test modules (bench/guest/kmod) against $build failed" "$tmp/build.log"
	install -D -m 644 "$tmp/zappend.ko" "$root/lib/modules/$release/extra/zappend.ko"
	depmod -b "$root" "$release"
	rm -rf "$tmp"
}

cmd_modules() {
	local cfg=$1 build out stamp root
	build=$(kernel_build_dir "$cfg")
	out=$(modules_image "$cfg")
	check_built "$cfg"
	stamp=$(cat "$build/.blkinject-stamp")
	[[ ! -f $build/Makefile ]] || stamp+=" kmod-$(cat "$BENCH_DIR"/guest/kmod/* | sha256sum | cut -c1-16)"
	if has_failbio "$build"; then
		stamp+=" failbio-$(cat "$BENCH_DIR"/guest/bpf/* | sha256sum | cut -c1-16)"
	fi
	if [[ -f $out && -f $out.hash && $(cat "$out.hash") == "$stamp" ]]; then
		log "image: modules-$cfg up to date"
		return
	fi
	log "image: packing modules of $cfg"
	mkdir -p "$(dirname "$out")"
	root=$(mktemp -d "$(dirname "$out")/mod.XXXXXX")
	cp -a "$build/modroot/lib" "$root/lib"
	find "$root/lib/modules" -maxdepth 2 \( -name build -o -name source \) -type l -delete
	if [[ -f $build/Makefile ]]; then
		build_test_modules "$build" "$root"
	else
		# a lab host's copy of a build (bench/lab) has no tree to build
		# against; its boots run the benchmark, which needs no test module
		log "image: $build is no build tree: the guest tests' modules (bench/guest/kmod) left out"
	fi
	if has_failbio "$build"; then
		log "image: building failbio for $cfg"
		"$BENCH_DIR/guest/bpf/build.sh" "$build" "$root/usr/bin/failbio"
	fi
	pack_cpio "$root" "$out"
	rm -rf "$root"
	printf '%s\n' "$stamp" >"$out.hash"
}

# cmd_modules_archive ARCHIVE: lib/modules of ARCHIVE (and nothing else
# in it) as a cpio piece, kept by the archive's hash.
cmd_modules_archive() {
	local archive=$1 hash out root tmp
	hash=$(sha256sum <"$archive" | cut -c1-16)
	out=$IMAGE_DIR/modules-archive-$hash.cpio
	if [[ ! -f $out ]]; then
		log "image: packing the modules of $archive"
		mkdir -p "$IMAGE_DIR"
		tmp=$(mktemp -d "$IMAGE_DIR/unpack.XXXXXX")
		tar -C "$tmp" -xf "$archive" --no-same-owner || die_bad_input "cannot unpack $archive"
		[[ -d $tmp/lib/modules ]] || die_bad_input "$archive has no lib/modules"
		root=$(mktemp -d "$IMAGE_DIR/mod.XXXXXX")
		mkdir "$root/lib"
		mv "$tmp/lib/modules" "$root/lib/modules"
		rm -rf "$tmp"
		find "$root/lib/modules" -maxdepth 2 \( -name build -o -name source \) -type l -delete
		pack_cpio "$root" "$out"
		rm -rf "$root"
	fi
	printf '%s\n' "$out"
}

main() {
	case ${1:-} in
	base) cmd_base ;;
	modules) [[ $# -eq 2 ]] || die_bad_input "usage: image.sh modules CONFIG"; check_configs "$2"; cmd_modules "$2" ;;
	modules-archive) [[ $# -eq 2 && -f $2 ]] || die_bad_input "usage: image.sh modules-archive ARCHIVE (a file)"; cmd_modules_archive "$2" ;;
	*) die_bad_input "usage: image.sh base | modules CONFIG | modules-archive ARCHIVE" ;;
	esac
}

main "$@"
