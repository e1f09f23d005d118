# shellcheck shell=bash
# The cache's layout: where the kernel source and series are (KSRC,
# SERIES, their identities and the variant root they get), each tree and
# each config's build and modules image.  Part of bench/lib/lib.sh, which
# sources it; sourcing it defines functions and constants and nothing
# else: cache_init makes the cache.

# cache_init: CACHE (the plan's) made, marked as ours and made physical,
# and, for a script that read KSRC and SERIES (one that finds builds), their
# variant resolved; exported for the scripts this one runs.
cache_init() {
	# The physical path, so that compiler paths match ccache's base directory.
	[[ -d $CACHE ]] || mkdir -p "$CACHE"
	# the mark that make clean-cache looks for before it removes anything
	[[ -e $CACHE/.blkinject-cache ]] || : >"$CACHE/.blkinject-cache"
	CACHE=$(cd "$CACHE" && pwd -P)
	[[ -z ${SERIES+set} ]] || resolve_variant
}

# check_built CONFIG...: die unless every CONFIG is a config with a finished
# build in the cache, naming the ones that are built.
check_built() {
	local c stamp built=''
	check_configs "$@"
	for c in "$@"; do
		[[ ! -f $(kernel_build_dir "$c")/.blkinject-stamp ]] || continue
		# the configs built for the same source and series
		for stamp in "$(dirname "$(kernel_build_dir "$c")")"/*/.blkinject-stamp; do
			[[ ! -f $stamp ]] || built+=" $(basename "$(dirname "$stamp")")"
		done
		die_setup "config $c is not built: run 'make kernels' (or bench/kernel/build.sh build $c); built:${built:- none}"
	done
}

# The source tree a config is built from ("# tree: NAME" in its fragment).
config_tree() {
	local tree
	tree=$(sed -n 's/^# tree: *//p' "$(config_fragment "$1")")
	printf '%s\n' "${tree:-main}"
}

# tree_has_series TREE: false for a tree marked no-series in
# bench/kernel/configs/trees (the source alone).
tree_has_series() {
	! awk -v n="$1" '$1 == n { for (i = 2; i <= NF; i++) if ($i == "no-series") f = 1 } END { exit !f }' \
		"$BENCH_DIR/kernel/configs/trees"
}

# tree_variant TREE: the variant root (resolve_variant, below) whose
# configs use TREE: VARIANT_ROOT, or for a tree without the series the
# SERIES=none root of the same KSRC.  A config's build directory is
# build/CONFIG there.
tree_variant() {
	if tree_has_series "$1"; then
		printf '%s\n' "$VARIANT_ROOT"
	else
		printf '%s\n' "$VARIANT_NOSERIES_ROOT"
	fi
}

# tree_root TREE: the root TREE lives in, as src/tree-main beside the
# build/CONFIG directories of its configs: main's (and a no-series tree's)
# is its variant root, another tree's TREES/NAME inside it.  Compile
# commands, made relative by CCACHE_BASEDIR, are then the same in every
# tree wherever the sources agree, so ccache shares the objects the trees
# have in common (a cold nokey build after on is mostly cache hits).
tree_root() {
	local variant
	variant=$(tree_variant "$1")
	if [[ $1 == main ]] || ! tree_has_series "$1"; then
		printf '%s\n' "$variant"
	else
		printf '%s/trees/%s\n' "$variant" "$1"
	fi
}

tree_dir() { printf '%s/src/tree-main\n' "$(tree_root "$1")"; }

# kernel_build_dir CONFIG: where every script finds CONFIG's build (a link
# to the tree root's build/CONFIG for a tree other than main).
kernel_build_dir() {
	printf '%s/build/%s\n' "$(tree_variant "$(config_tree "$1")")" "$1"
}

# modules_image CONFIG: the initramfs piece with CONFIG's modules.
modules_image() {
	printf '%s/images/modules-%s.cpio\n' "$(tree_variant "$(config_tree "$1")")" "$1"
}

# The kernel source and the series applied to it.  KSRC: a git checkout
# (its HEAD commit), an extracted tree or a tarball; default Debian's
# linux-source-6.12 tarball.  SERIES: a directory with a "series" file
# (default patches/) or "none" for a tree that already has the change.
# The default pair keeps today's layout under $CACHE (src/pristine,
# src/tree-NAME, build/CONFIG); any other pair gets its own VARIANT_ROOT,
# $CACHE/variants/KSRC_ID+SERIES_ID, with the same layout inside, so the
# trees and builds of different sources and series never mix (and the
# compiler sees the same relative paths, which ccache needs to share
# objects).  The pristine config (a tree marked no-series) builds in the
# root of KSRC with SERIES=none.  A non-default KSRC is copied once to
# $CACHE/ksrc/KSRC_ID.
SOURCE_PKG=linux-source-6.12
SOURCE_TARBALL=/usr/src/linux-source-6.12.tar.xz

# ksrc_identity: "KIND ID" of KSRC (kind: debian, git, dir, tar).
ksrc_identity() {
	local top newest
	if [[ -z ${KSRC:-} || $KSRC == "$SOURCE_TARBALL" ]]; then
		printf 'debian debian-%s\n' "$(dpkg-query -W -f='${Version}' "$SOURCE_PKG" 2>/dev/null || echo none)"
	elif [[ -d $KSRC ]]; then
		top=$(git -C "$KSRC" rev-parse --show-toplevel 2>/dev/null || true)
		if [[ -n $top && $top == "$(cd "$KSRC" && pwd -P)" ]]; then
			printf 'git git-%s\n' "$(git -C "$KSRC" rev-parse --short=12 HEAD)"
		elif [[ -f $KSRC/Makefile && -f $KSRC/Kconfig ]]; then
			newest=$(find "$KSRC" -type f -printf '%T@\n' | sort -n | tail -n 1)
			printf 'dir dir-%s\n' "$(printf '%s %s' "$(cd "$KSRC" && pwd -P)" "$newest" | sha256sum | cut -c1-12)"
		else
			die_bad_input "KSRC=$KSRC is not a kernel source: give a git checkout (its top directory), an extracted tree (Makefile and Kconfig at its top) or a tarball (.tar, .tar.gz, .tar.xz, .tar.bz2, .tar.zst)"
		fi
	elif [[ -f $KSRC ]]; then
		case $KSRC in
		*.tar | *.tar.gz | *.tgz | *.tar.xz | *.txz | *.tar.bz2 | *.tar.zst) ;;
		*) die_bad_input "KSRC=$KSRC is not a kernel source: a file must be a tarball (.tar, .tar.gz, .tar.xz, .tar.bz2, .tar.zst); or give a git checkout or an extracted tree" ;;
		esac
		printf 'tar tar-%s\n' "$(sha256sum "$KSRC" | cut -c1-12)"
	else
		die_bad_input "KSRC=$KSRC: no such file or directory (give a git checkout, an extracted tree or a tarball; unset for $SOURCE_TARBALL)"
	fi
}

# series_patches DIR: the patch files DIR/series lists, one a line, in order.
series_patches() {
	local p
	while read -r p; do
		[[ -z $p || $p == \#* ]] && continue
		printf '%s/%s\n' "$1" "${p%% *}"
	done <"$1/series"
}

# series_plus FROM DIR PATCH [NAME]: DIR made afresh a series directory of
# copies of FROM's patches and PATCH last (as NAME, default its own name);
# prints DIR.  A mutant's series: the series under test plus the mutant.
series_plus() {
	local from=$1 dir=$2 extra=$3 name=${4:-${3##*/}} p
	rm -rf "$dir"
	mkdir -p "$dir"
	: >"$dir/series"
	while read -r p; do
		cp "$p" "$dir/"
		basename "$p" >>"$dir/series"
	done < <(series_patches "$from")
	cp "$extra" "$dir/$name"
	printf '%s\n' "$name" >>"$dir/series"
	printf '%s\n' "$dir"
}

# series_identity: SERIES_DIR and its ID (a hash over the listed patches).
series_identity() {
	local s=$SERIES p patches sum
	if [[ $s == none ]]; then
		printf '%s none\n' "$s"
		return
	fi
	[[ -d $s && -f $s/series ]] ||
		die_bad_input "SERIES=$s has no series file: give a directory with a 'series' file listing its patches in order (like patches/), or SERIES=none for a tree that already has the change"
	s=$(cd "$s" && pwd -P)
	mapfile -t patches < <(series_patches "$s")
	for p in ${patches[@]+"${patches[@]}"}; do
		[[ -f $p ]] || die_bad_input "SERIES=$s: ${p##*/} is listed in its series file but missing"
	done
	sum=$(cat "$s/series" "${patches[@]}" | sha256sum)
	printf '%s %s\n' "$s" "${sum:0:12}"
}

# Resolve KSRC and SERIES once per job (the children inherit the answer).
resolve_variant() {
	local kind id sdir sid
	[[ ${VARIANT_FOR:-} != "${KSRC:-}|${SERIES:-}|$CACHE" || -z ${VARIANT_ROOT:-} ]] || return 0
	# Nothing read: ksrc_identity or series_identity said why (their die
	# ends only the process substitution, and read's status would be 1).
	read -r kind id < <(ksrc_identity) || exit "$STATUS_BAD_INPUT"
	[[ -n ${id:-} ]] || exit "$STATUS_BAD_INPUT"
	read -r sdir sid < <(series_identity) || exit "$STATUS_BAD_INPUT"
	[[ -n ${sid:-} ]] || exit "$STATUS_BAD_INPUT"
	KSRC_KIND=$kind KSRC_ID=$id SERIES_DIR=$sdir SERIES_ID=$sid
	if [[ $kind == debian && $sdir == "$(cd "$REPO_DIR/patches" && pwd -P)" ]]; then
		VARIANT_ROOT=$CACHE
	else
		VARIANT_ROOT=$CACHE/variants/$id+$([[ $sid == none ]] && echo none || echo "series-$sid")
	fi
	VARIANT_NOSERIES_ROOT=$CACHE/variants/$id+none
	VARIANT_FOR="${KSRC:-}|${SERIES:-}|$CACHE"
	export KSRC_KIND KSRC_ID SERIES_DIR SERIES_ID VARIANT_ROOT VARIANT_NOSERIES_ROOT VARIANT_FOR
}
