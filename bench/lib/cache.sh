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
	path_abs CACHE "$CACHE" -P
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

# ksrc_identity: KSRC_KIND and KSRC_ID, what KSRC is (debian, git, dir,
# tar) and its ID; bad input when it is none of them.
ksrc_identity() {
	local top here newest
	if [[ -z ${KSRC:-} || $KSRC == "$SOURCE_TARBALL" ]]; then
		KSRC_KIND=debian
		KSRC_ID=debian-$(dpkg-query -W -f='${Version}' "$SOURCE_PKG" 2>/dev/null || echo none)
	elif [[ -d $KSRC ]]; then
		top=$(git -C "$KSRC" rev-parse --show-toplevel 2>/dev/null || true)
		path_abs here "$KSRC" -P
		if [[ -n $top && $top == "$here" ]]; then
			KSRC_KIND=git
			KSRC_ID=git-$(git -C "$KSRC" rev-parse --short=12 HEAD)
		elif [[ -f $KSRC/Makefile && -f $KSRC/Kconfig ]]; then
			newest=$(find "$KSRC" -type f -printf '%T@\n' | sort -n | tail -n 1)
			KSRC_KIND=dir
			KSRC_ID=dir-$(printf '%s %s' "$here" "$newest" | sha256sum | cut -c1-12)
		else
			die_bad_input "KSRC=$KSRC is not a kernel source: give a git checkout (its top directory), an extracted tree (Makefile and Kconfig at its top) or a tarball (.tar, .tar.gz, .tar.xz, .tar.bz2, .tar.zst)"
		fi
	elif [[ -f $KSRC ]]; then
		case $KSRC in
		*.tar | *.tar.gz | *.tgz | *.tar.xz | *.txz | *.tar.bz2 | *.tar.zst) ;;
		*) die_bad_input "KSRC=$KSRC is not a kernel source: a file must be a tarball (.tar, .tar.gz, .tar.xz, .tar.bz2, .tar.zst); or give a git checkout or an extracted tree" ;;
		esac
		KSRC_KIND=tar
		KSRC_ID=tar-$(sha256sum "$KSRC" | cut -c1-12)
	else
		die_bad_input "KSRC=$KSRC: no such file or directory (give a git checkout, an extracted tree or a tarball; unset for $SOURCE_TARBALL)"
	fi
}

# series_list ARRAY DIR: the patch files DIR/series lists, in order, into
# ARRAY, read by the shell.
series_list() {
	local -n series_list_into=$1
	local p
	series_list_into=()
	while read -r p; do
		[[ -z $p || $p == \#* ]] && continue
		series_list_into+=("$2/${p%% *}")
	done <"$2/series"
}

# series_patches DIR: the patch files DIR/series lists, one a line, in order.
series_patches() {
	local -a patches
	series_list patches "$1"
	[[ ${#patches[@]} == 0 ]] || printf '%s\n' "${patches[@]}"
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

# series_identity: SERIES_DIR, SERIES's physical path (none for none),
# and SERIES_ID, a hash over its series file and the patches it lists.
series_identity() {
	local s=$SERIES p sum
	local -a patches
	if [[ $s == none ]]; then
		SERIES_DIR=none SERIES_ID=none
		return
	fi
	[[ -d $s && -f $s/series ]] ||
		die_bad_input "SERIES=$s has no series file: give a directory with a 'series' file listing its patches in order (like patches/), or SERIES=none for a tree that already has the change"
	path_abs s "$s" -P
	series_list patches "$s"
	for p in ${patches[@]+"${patches[@]}"}; do
		[[ -f $p ]] || die_bad_input "SERIES=$s: ${p##*/} is listed in its series file but missing"
	done
	sum=$(cat "$s/series" "${patches[@]}" | sha256sum)
	SERIES_DIR=$s SERIES_ID=${sum:0:12}
}

# Resolve KSRC and SERIES once per job (the children inherit the answer);
# in this shell, so that a bad KSRC or SERIES ends the script with its
# reason.
resolve_variant() {
	local patches
	[[ ${VARIANT_FOR:-} != "${KSRC:-}|${SERIES:-}|$CACHE" || -z ${VARIANT_ROOT:-} ]] || return 0
	ksrc_identity
	series_identity
	path_abs patches "$REPO_DIR/patches" -P
	if [[ $KSRC_KIND == debian && $SERIES_DIR == "$patches" ]]; then
		VARIANT_ROOT=$CACHE
	elif [[ $SERIES_ID == none ]]; then
		VARIANT_ROOT=$CACHE/variants/$KSRC_ID+none
	else
		VARIANT_ROOT=$CACHE/variants/$KSRC_ID+series-$SERIES_ID
	fi
	VARIANT_NOSERIES_ROOT=$CACHE/variants/$KSRC_ID+none
	VARIANT_FOR="${KSRC:-}|${SERIES:-}|$CACHE"
	export KSRC_KIND KSRC_ID SERIES_DIR SERIES_ID VARIANT_ROOT VARIANT_NOSERIES_ROOT VARIANT_FOR
}
