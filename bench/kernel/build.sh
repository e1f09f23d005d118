#!/usr/bin/env bash
# Kernel trees and builds, all under $CACHE (never in the repository).
#
#   build.sh tree NAME              sync source tree NAME with its patches
#   build.sh build CONFIG...        build configs out of tree (O=)
#   build.sh checkpatch             print the path of the source's
#                                   scripts/checkpatch.pl (extracting it)
#   build.sh check                  checkpatch each patch, build each prefix
#                                   with on, with JUMP_LABEL=n and for i386
#   build.sh defines TREE SYMBOL    exit 0 when TREE's Kconfig defines SYMBOL
#   build.sh functions TREE FUNC... "FUNC FILE..." a line, the C files of
#                                    TREE that define FUNC ("FUNC -": none);
#                                    exit 2 naming those none defines (a
#                                    HOT_FUNCS name to refuse before a build)
#   build.sh objects CONFIG [OBJ...]  only OBJs of CONFIG: configure, make
#                                    prepare, compile those the .config
#                                    builds; print their paths
#   build.sh check-vars             exit 2 on kbuild variables that are
#                                    not honoured (bench/lib/toolchain.sh)
#
# A tree is the pristine source plus a patch list.  When the patch list
# changes, only files whose content changed are rewritten, so make and
# ccache rebuild only what the change touched.  A config's first build
# starts from the objects of a built config of the same tree whose .config
# differs in a few lines (seed_build): on after off compiles 166 objects,
# not 994, and gives the same bytes.
#
#   KSRC=   the source: a git checkout (its HEAD), an extracted tree or a
#           tarball; default Debian's /usr/src/linux-source-6.12.tar.xz
#   SERIES= a directory with a "series" file (default patches/), or none
#           for a tree that already has the change
# Any other KSRC/SERIES pair builds under $CACHE/variants/ (bench/lib/lib.sh).
# Exit status: 0 done, 1 a build, patch or check failed (with the log's
# tail), 2 bad input (nothing done), 4 the source tarball is missing.
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
# shellcheck source=bench/lib/toolchain.sh
. "$BENCH_DIR/lib/toolchain.sh"
tool_start kernels 'CACHE KSRC SERIES JOBS CCACHE_DIR CC LLVM O ARCH CROSS_COMPILE KBUILD_OUTPUT' -- "$0" "$@"

PATCH_DIR=$REPO_DIR/patches

export CCACHE_DIR
export CCACHE_BASEDIR=$CACHE
export CCACHE_NOHASHDIR=1
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=blkinject KBUILD_BUILD_HOST=bench

# Kernels are built for x86_64 with gcc through ccache, into
# CACHE/build/CONFIG.  kbuild's own variables that would change that (CC
# other than gcc, LLVM, O, ARCH other than x86/x86_64, CROSS_COMPILE,
# KBUILD_OUTPUT) are refused (exit 2) before any work rather than mixed
# into a build, by the policy the resolver applies too
# (bench/lib/toolchain.sh).
# check_kbuild_vars: refuse them, each named; then clear them and make's
# variables (an outer make's MAKEFLAGS carries its command line: LLVM=1,
# V=1, W=1) so that nothing reaches kbuild but what build.sh passes.
check_kbuild_vars() {
	local name why bad=0
	while read -r name; do
		why=$(toolchain_refusal "$name" "${!name:-}") || continue
		printf "error: %s='%s': %s\n" "$name" "${!name}" "$why" >&2
		bad=1
	done < <(toolchain_vars)
	[[ $bad == 0 ]] || exit "$STATUS_BAD_INPUT"
	# shellcheck disable=SC2046 # the policy's names, one word each
	unset $(toolchain_vars) MAKEFLAGS MAKEOVERRIDES MFLAGS GNUMAKEFLAGS MAKELEVEL
}

# The unpatched source: Debian's tarball extracted in src/pristine, or a
# copy of KSRC in ksrc/KSRC_ID (lib.sh's resolve_variant).
pristine_dir() {
	if [[ $KSRC_KIND == debian ]]; then
		printf '%s/src/pristine\n' "$CACHE"
	else
		printf '%s/ksrc/%s\n' "$CACHE" "$KSRC_ID"
	fi
}

ensure_pristine() {
	if [[ $KSRC_KIND == debian ]]; then ensure_debian_pristine; else ensure_ksrc_pristine; fi
}

# source_version: the installed Debian source package's version (a setup
# error, exit 4, when its tarball is missing).
source_version() {
	[[ -f $SOURCE_TARBALL ]] || die_setup "$SOURCE_TARBALL missing: run 'make deps' (apt-get install $SOURCE_PKG)"
	dpkg-query -W -f='${Version}' "$SOURCE_PKG"
}

# extracted DIR VERSION: DIR holds an extraction of that package version.
extracted() {
	[[ -f $1/.blkinject-version && $(<"$1/.blkinject-version") == "$2" ]]
}

# Extract the Debian source tarball once per package version.
ensure_debian_pristine() {
	local dir version
	dir=$(pristine_dir)
	version=$(source_version)
	extracted "$dir" "$version" && return
	log "extracting $SOURCE_PKG $version into $dir"
	rm -rf "$CACHE"/src/tree-* "$CACHE"/trees/*/src
	extract_source "$dir" "$version"
}

# extract_source DIR VERSION [FILE...]: Debian's tarball, or only its FILEs
# (paths below its top directory), extracted into DIR through DIR.tmp and
# marked with VERSION (extracted).
extract_source() {
	local dir=$1 version=$2
	local -a until_found=()
	shift 2
	# a few FILEs: tar stops reading once it has each one (scripts/ lies
	# near the end of Debian's tarball: 11.4 s of CPU, not 13.8, for checkpatch)
	[[ $# -eq 0 ]] || until_found=(--occurrence)
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp"
	tar -xJf "$SOURCE_TARBALL" -C "$dir.tmp" --strip-components=1 ${until_found[@]+"${until_found[@]}"} "${@/#/$SOURCE_PKG/}"
	printf '%s\n' "$version" >"$dir.tmp/.blkinject-version"
	mv "$dir.tmp" "$dir"
}

# Copy KSRC once per identity: a git checkout's HEAD (git archive, so
# uncommitted changes are not measured), a tree (cleaned with mrproper,
# since out-of-tree builds need a clean source) or a tarball.
ensure_ksrc_pristine() {
	local dir
	dir=$(pristine_dir)
	[[ ! -f $dir/.blkinject-version ]] || return 0
	log "copying KSRC=$KSRC ($KSRC_ID) into $dir"
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	case $KSRC_KIND in
	git)
		git -C "$KSRC" diff --quiet HEAD 2>/dev/null ||
			log "warning: KSRC=$KSRC has uncommitted changes; measuring its HEAD commit only"
		git -C "$KSRC" archive --format=tar HEAD | tar -x -C "$dir.tmp" ;;
	dir)
		cp -a "$KSRC/." "$dir.tmp/"
		make -C "$dir.tmp" -s mrproper >/dev/null 2>&1 || true ;;
	tar)
		tar -xaf "$KSRC" -C "$dir.tmp" --strip-components=1 ||
			die_bad_input "KSRC=$KSRC: tar could not extract it" ;;
	esac
	[[ -f $dir.tmp/Makefile && -f $dir.tmp/Kconfig && -f $dir.tmp/scripts/kconfig/merge_config.sh ]] ||
		die_bad_input "KSRC=$KSRC: not a kernel source (no Makefile, Kconfig and scripts/kconfig/merge_config.sh at its top)"
	printf '%s\n' "$KSRC_ID" >"$dir.tmp/.blkinject-version"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
}

# The patch files of a tree, one absolute path a line, in order: the
# series (SERIES, default patches/; none with SERIES=none or for a tree
# marked no-series) and then the tree's own patches from patches/.
tree_patches() {
	local name=$1 line p
	line=$(awk -v n="$name" '$1 == n' "$BENCH_DIR/kernel/configs/trees")
	[[ -n $line ]] || die_bad_input "unknown tree '$name' (see bench/kernel/configs/trees)"
	if [[ $SERIES_DIR != none ]] && tree_has_series "$name"; then
		series_patches "$SERIES_DIR"
	fi
	for p in $line; do
		[[ $p == "$name" || $p == no-series ]] && continue
		printf '%s/%s\n' "$PATCH_DIR" "$p"
	done
}

# Paths a patch touches.
patch_files() {
	sed -n -e 's|^+++ b/||p' -e 's|^--- a/||p' "$@" | sort -u
}

# sync_tree DIR PATCH...: make DIR the pristine tree plus PATCHes.
sync_tree() {
	local dir=$1 pristine stage hash p f
	shift
	pristine=$(pristine_dir)
	hash=$(cat "$@" </dev/null | sha256sum | cut -c1-16)
	if [[ -f $dir/.blkinject-patches && $(cat "$dir/.blkinject-patches") == "$hash" ]]; then
		return
	fi
	if [[ ! -d $dir ]]; then
		log "copying pristine tree to $dir"
		mkdir -p "$(dirname "$dir")"
		# A variant's tree starts as hard links to its pristine copy (fast,
		# no space): nothing writes into a tree but the copy-back below,
		# which replaces a file instead of writing through its link.
		if [[ $dir == "$CACHE"/src/* || $dir == "$CACHE"/trees/* ]]; then
			cp -a "$pristine" "$dir.tmp"
		else
			cp -al "$pristine" "$dir.tmp"
		fi
		: >"$dir.tmp/.blkinject-touched"
		mv "$dir.tmp" "$dir"
	fi
	stage=$(mktemp -d "$(dirname "$dir")/stage.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$stage'" RETURN
	{ cat "$dir/.blkinject-touched"; [[ $# -eq 0 ]] || patch_files "$@"; } |
		sort -u >"$stage.files"
	while read -r f; do
		if [[ -f $pristine/$f ]]; then
			mkdir -p "$stage/tree/$(dirname "$f")"
			cp -p "$pristine/$f" "$stage/tree/$f"
		fi
	done <"$stage.files"
	mkdir -p "$stage/tree"
	for p in "$@"; do
		[[ -f $p ]] || die_bad_input "patch $p listed but missing"
		if ! patch -d "$stage/tree" -p1 --batch --forward --fuzz=0 \
			--no-backup-if-mismatch -r - <"$p" >"$stage/patch.log" 2>&1; then
			die_with_log "patch $(basename "$p") does not apply" "$stage/patch.log"
		fi
	done
	# Copy back only files whose content changed, to keep make incremental.
	while read -r f; do
		if [[ -f $stage/tree/$f ]]; then
			if ! cmp -s "$stage/tree/$f" "$dir/$f"; then
				mkdir -p "$dir/$(dirname "$f")"
				rm -f "$dir/$f"
				cp "$stage/tree/$f" "$dir/$f"
			fi
		else
			rm -f "$dir/$f"
		fi
	done <"$stage.files"
	rm -f "$stage.files"
	{ [[ $# -eq 0 ]] || patch_files "$@"; } >"$dir/.blkinject-touched"
	printf '%s\n' "$hash" >"$dir/.blkinject-patches"
}

# tree_build_dir TREE CONFIG: where CONFIG is built, beside TREE in its
# root; build/CONFIG of the variant root (lib.sh's kernel_build_dir, what
# every other script reads) links to it.
tree_build_dir() {
	local out link
	out=$(tree_root "$1")/build/$2
	link=$(tree_variant "$1")/build/$2
	if [[ $out != "$link" ]]; then
		mkdir -p "$out" "$(dirname "$link")"
		# A build from before trees had roots is a directory: replace it.
		[[ -L $link || ! -e $link ]] || rm -rf "$link"
		ln -sfn "$out" "$link"
	fi
	printf '%s\n' "$out"
}

# One command at a time extracts the source and syncs a tree (CACHE/src/
# .lock, held until the tree is synced): two builds started at once, or a
# build beside the checkpatch check (which extracts checkpatch.pl), would
# each remove the other's extraction.
cmd_tree() {
	local name=$1 patches lock
	mkdir -p "$CACHE/src"
	exec {lock}>"$CACHE/src/.lock"
	flock "$lock"
	ensure_pristine
	mapfile -t patches < <(tree_patches "$name")
	log "tree $name: ${#patches[@]} patches"
	sync_tree "$(tree_dir "$name")" "${patches[@]}"
	exec {lock}>&-
}

# cmd_checkpatch: the path of the source's scripts/checkpatch.pl: the
# extracted tree's when it is there, else (Debian's tarball) the script
# and the two files it reads beside it, extracted alone into
# CACHE/src/checkpatch: checking the patches needs 10 s of xz, not the
# 40 s of the whole tree.
cmd_checkpatch() {
	local dir version lock
	mkdir -p "$CACHE/src"
	exec {lock}>"$CACHE/src/.lock"
	flock "$lock"
	dir=$(pristine_dir)
	if [[ $KSRC_KIND != debian ]]; then
		ensure_pristine
	else
		version=$(source_version)
		extracted "$dir" "$version" || dir=$CACHE/src/checkpatch
		if ! extracted "$dir" "$version"; then
			log "extracting scripts/checkpatch.pl of $SOURCE_PKG $version into $dir"
			extract_source "$dir" "$version" scripts/checkpatch.pl scripts/spelling.txt \
				scripts/const_structs.checkpatch
		fi
	fi
	exec {lock}>&-
	printf '%s/scripts/checkpatch.pl\n' "$dir"
}

# Symbols a fragment asks for, as "CONFIG_X=v" lines ("n" for "is not set").
fragment_symbols() {
	sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)$/\1/p' \
		-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1=n/p' "$@"
}

# kconfig_defines SRC SYMBOL: whether a Kconfig file of SRC defines SYMBOL.
kconfig_defines() {
	grep -rqsE --include='Kconfig*' "^[[:space:]]*(menu)?config[[:space:]]+${2#CONFIG_}[[:space:]]*\$" "$1"
}

# kconfig_missing SRC FRAGMENT...: the symbols the fragments ask for (the
# last fragment's value winning, as in merge_config.sh; "n" asks for
# nothing) that no Kconfig file of SRC defines, one a line.  One pass over
# the Kconfig files, so that a tree without the change is named before
# tinyconfig is made (a minute).
kconfig_missing() {
	local src=$1
	shift
	fragment_symbols "$@" | awk -F= '{ v[$1] = $2 } END { for (k in v) if (v[k] != "n") print k }' |
		LC_ALL=C sort | LC_ALL=C comm -23 - <(grep -rhsE --include='Kconfig*' \
			'^[[:space:]]*(menu)?config[[:space:]]+[A-Za-z0-9_]+[[:space:]]*$' "$src" |
			awk '{ print "CONFIG_" $2 }' | LC_ALL=C sort -u)
}

# refuse_undefined LABEL SRC FRAGMENT...: stop before anything is
# configured when a fragment asks for a symbol that no Kconfig file of SRC
# defines, naming each: the tree lacks the change (another KSRC, or
# SERIES=none on a tree without it).
refuse_undefined() {
	local label=$1 src=$2 sym missing
	shift 2
	missing=$(kconfig_missing "$src" "$@")
	[[ -n $missing ]] || return 0
	for sym in $missing; do
		printf 'error: this tree has no %s (no Kconfig entry defines it): give SERIES= (a series that adds it) or a KSRC tree with the change\n' "${sym#CONFIG_}" >&2
	done
	die "$label: the tree lacks what the fragments ask for (nothing configured)"
}

# verify_config OUT FRAGMENT...: fail when kconfig dropped or changed a
# symbol a fragment asked for (a later fragment overrides an earlier one,
# as in merge_config.sh).  A symbol the tree does not define at all was
# refused before configuring (refuse_undefined).
verify_config() {
	local out=$1 sym want got bad=0
	shift
	while IFS='=' read -r sym want; do
		got=$(sed -n -e "s/^$sym=\(.*\)$/\1/p" -e "s/^# $sym is not set$/n/p" "$out/.config")
		got=${got:-n}
		if [[ $got != "$want" ]]; then
			printf 'error: %s=%s requested, kconfig gave %s\n' "$sym" "$want" "$got" >&2
			bad=1
		fi
	done < <(fragment_symbols "$@" | awk -F= '{ v[$1] = $2; if (!($1 in o)) o[$1] = n++ }
		END { for (k in v) print o[k], k "=" v[k] }' | sort -n | cut -d' ' -f2-)
	return $bad
}

# configure SRC OUT FRAGMENT...: tinyconfig plus fragments into OUT/.config.
configure() {
	local src=$1 out=$2
	shift 2
	mkdir -p "$out"
	make -C "$src" O="$out" -s tinyconfig >"$out/config.log" 2>&1 ||
		die_with_log "tinyconfig failed" "$out/config.log"
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$@" \
		>>"$out/config.log" 2>&1 || die_with_log "merge_config failed" "$out/config.log"
	make -C "$src" O="$out" -s olddefconfig >>"$out/config.log" 2>&1 ||
		die_with_log "olddefconfig failed" "$out/config.log"
}

# make_kernel SRC OUT LABEL: build bzImage and modules, install modules.
make_kernel() {
	local src=$1 out=$2 label=$3
	log "$label: make -j$JOBS bzImage modules (log: $out/build.log)"
	if ! make -C "$src" O="$out" -j"$JOBS" CC="ccache gcc" bzImage modules \
		>"$out/build.log" 2>&1; then
		die_with_log "$label: kernel build failed" "$out/build.log"
	fi
	rm -rf "$out/modroot"
	make -C "$src" O="$out" -s INSTALL_MOD_PATH="$out/modroot" modules_install \
		>>"$out/build.log" 2>&1 || die_with_log "$label: modules_install failed" "$out/build.log"
}

# Bump when the way a config is built changes (not the fragments).
BUILD_RECIPE=1

# What a build depends on besides the tree: the fragments and the recipe.
# A fragment's legend (the words of a figure's key) is not one of them.
build_inputs_hash() {
	local cfg=$1
	{
		grep -hv '^# legend:' "$BENCH_DIR/kernel/configs/common.config" "$(config_fragment "$cfg")"
		echo "$BUILD_RECIPE"
	} | sha256sum | cut -c1-16
}

# configure_config LABEL CONFIG SRC OUT: OUT/.config from tinyconfig, the
# common fragment and CONFIG's, checked against the fragments.
configure_config() {
	local label=$1 cfg=$2 src=$3 out=$4
	local -a fragments=("$BENCH_DIR/kernel/configs/common.config" "$(config_fragment "$cfg")")
	refuse_undefined "$label" "$src" "${fragments[@]}"
	log "$label: configuring from tinyconfig + common.config + $cfg.config"
	configure "$src" "$out" "${fragments[@]}"
	verify_config "$out" "${fragments[@]}" ||
		die "$label: .config does not match the fragments (see $out/config.log)"
}

# SEED_MAX_DIFF: the most .config lines in which a built config of the same
# tree may differ from a config built for the first time for its objects
# to be the start (seed_build).
SEED_MAX_DIFF=40

# config_distance CONFIG_FILE CONFIG_FILE: the number of symbol lines in
# which two .config files differ.
config_distance() {
	diff <(grep '^CONFIG_' "$1" | sort) <(grep '^CONFIG_' "$2" | sort) | grep -c '^[<>]' || true
}

# seed_build LABEL CONFIG TREE SRC OUT: before CONFIG's first build in OUT
# (configured, no vmlinux yet), copy in the build of the config of the same
# tree and patches whose .config differs least from OUT's (at most
# SEED_MAX_DIFF lines), keeping OUT's .config.  kbuild then recompiles only
# the objects that the differing symbols reach, as after any change of
# .config: for on after off, 166 compilations instead of the 994 of a
# build from nothing, which ccache would each still have to preprocess.
seed_build() {
	local label=$1 cfg=$2 tree=$3 src=$4 out=$5 c dir n best='' best_n=$SEED_MAX_DIFF patches
	[[ ! -e $out/vmlinux ]] || return 0
	patches=$(cat "$src/.blkinject-patches")
	for c in $(all_configs); do
		[[ $c != "$cfg" && $(config_tree "$c") == "$tree" ]] || continue
		dir=$(tree_root "$tree")/build/$c
		[[ -f $dir/vmlinux && -f $dir/.blkinject-stamp && -f $dir/.config ]] || continue
		[[ $(cat "$dir/.blkinject-stamp") == "$patches "* ]] || continue
		n=$(config_distance "$dir/.config" "$out/.config")
		((n <= best_n)) || continue
		best=$dir best_n=$n
	done
	if [[ -z $best ]]; then
		seed_across "$label" "$cfg" "$tree" "$src" "$out"
		return 0
	fi
	log "$label: starting from the objects of ${best##*/} (.config differs in $best_n lines)"
	seed_copy "$best" "$out"
}

# seed_copy BUILD OUT: BUILD's objects into OUT, OUT's .config kept.
seed_copy() {
	local best=$1 out=$2
	mkdir -p "$out.keep"
	mv "$out/.config" "$out/config.log" "$out.keep/"
	cp -a "$best/." "$out/"
	mv "$out.keep/.config" "$out.keep/config.log" "$out/"
	rmdir "$out.keep"
	# .config newer than the copied auto.conf: kbuild syncs it and touches
	# the changed symbols; no .version: the first build's number, #1.
	touch "$out/.config"
	rm -rf "$out/.version" "$out/.blkinject-stamp" "$out/.blkinject-objects" "$out/modroot"
}

# other_tree_roots TREE: TREE's root in each other variant of the same
# KSRC with a series (the default root, for Debian's source, and
# variants/KSRC_ID+series-*): trees that differ from this one only in
# the files their series patch.
other_tree_roots() {
	local tree=$1 here v r
	here=$(tree_root "$tree")
	for v in "$CACHE" "$CACHE"/variants/"$KSRC_ID"+series-*; do
		[[ $v != "$CACHE" || $KSRC_KIND == debian ]] || continue
		if [[ $tree == main ]]; then r=$v; else r=$v/trees/$tree; fi
		[[ $r != "$here" && -f $r/src/tree-main/.blkinject-patches ]] && printf '%s\n' "$r"
	done
	return 0
}

# sed_literal TEXT: TEXT as a sed pattern or replacement that matches or
# gives TEXT itself ("|" the delimiter).
sed_literal() {
	printf '%s\n' "$1" | sed 's/[][\\.*^$&|/]/\\&/g'
}

# seed_across LABEL CONFIG TREE SRC OUT: CONFIG's first build in a variant
# (another series on the same source: make compare-series's fixtures, a
# series under review) starts from the objects of CONFIG built in another
# variant, when their .config files differ in at most SEED_MAX_DIFF lines.
# The copy's text files (kbuild's .cmd files, the Makefile) name the
# other tree and build directory: they are made to name these, and each
# patched file of this tree that is byte for byte the other tree's gets
# its time, so that kbuild recompiles only what the two series do
# differently (the objects that include a file one of them changes) and
# links again, where a build from nothing passes every object through
# ccache.
seed_across() {
	local label=$1 cfg=$2 tree=$3 src=$4 out=$5 r dir n best='' best_n=$SEED_MAX_DIFF old_src f
	for r in $(other_tree_roots "$tree"); do
		dir=$r/build/$cfg
		[[ -f $dir/vmlinux && -f $dir/.blkinject-stamp && -f $dir/.config && ! -L $dir ]] || continue
		n=$(config_distance "$dir/.config" "$out/.config")
		((n <= best_n)) || continue
		best=$dir best_n=$n
	done
	[[ -n $best ]] || return 0
	old_src=${best%/build/*}/src/tree-main
	log "$label: starting from the objects of $cfg built from ${old_src%/src/tree-main} (.config differs in $best_n lines)"
	seed_copy "$best" "$out"
	grep -rIlZF -e "$old_src" -e "$best" "$out" |
		xargs -0 -r sed -i -e "s|$(sed_literal "$best")|$(sed_literal "$out")|g" \
			-e "s|$(sed_literal "$old_src")|$(sed_literal "$src")|g"
	ln -sfn "$src" "$out/source"
	# a file either series patched: the other tree's time where the two
	# are the same bytes (a file of this tree's own, not a link to the
	# pristine copy), else newer than every object copied: a file the
	# other series changed and this one did not is the pristine copy's
	# link here, older than the objects, so it is replaced by a copy
	while read -r f; do
		[[ -f $src/$f ]] || continue
		if [[ -f $old_src/$f && $(stat -c %h "$src/$f") == 1 ]] && cmp -s "$old_src/$f" "$src/$f"; then
			touch -r "$old_src/$f" "$src/$f"
		else
			cp "$src/$f" "$src/$f.bib-new"
			mv -f "$src/$f.bib-new" "$src/$f"
		fi
	done < <(cat "$old_src/.blkinject-touched" "$src/.blkinject-touched" 2>/dev/null | sort -u)
}

build_one() {
	local cfg=$1 label=$2 tree src out stamp t0
	tree=$(config_tree "$cfg")
	cmd_tree "$tree"
	src=$(tree_dir "$tree")
	out=$(tree_build_dir "$tree" "$cfg")
	stamp="$(cat "$src/.blkinject-patches") $(build_inputs_hash "$cfg")"
	if [[ -f $out/.blkinject-stamp && $(cat "$out/.blkinject-stamp") == "$stamp" &&
		-f $out/arch/x86/boot/bzImage ]]; then
		log "$label: up to date ($out)"
		return
	fi
	t0=$EPOCHSECONDS
	rm -f "$out/.blkinject-stamp"
	configure_config "$label" "$cfg" "$src" "$out"
	seed_build "$label" "$cfg" "$tree" "$src" "$out"
	make_kernel "$src" "$out" "$label"
	printf '%s\n' "$stamp" >"$out/.blkinject-stamp"
	log "$label: built in $((EPOCHSECONDS - t0))s: $out/arch/x86/boot/bzImage"
}

cmd_build() {
	local configs i=0 cfg
	configs=("$@")
	[[ ${#configs[@]} -gt 0 ]] || mapfile -t configs < <(all_configs)
	# All names first: a typo in the last one must not cost the first builds.
	check_configs "${configs[@]}"
	for cfg in "${configs[@]}"; do
		i=$((i + 1))
		build_one "$cfg" "[kernel $i/${#configs[@]}] $cfg"
	done
}

checkpatch() {
	"$(pristine_dir)/scripts/checkpatch.pl" --strict --no-tree \
		--ignore FILE_PATH_CHANGES "$@"
}

# check_build LABEL SRC OUT ARCH FRAGMENT...: configure OUT (tinyconfig of
# ARCH plus the fragments), check that kconfig kept what they ask, build.
# ARCH goes to make on its command line (kbuild's ARCH from the
# environment is refused): x86_64, or i386 for the 32-bit compile.
check_build() {
	local label=$1 src=$2 out=$3 arch=$4
	shift 4
	refuse_undefined "$label" "$src" "$@"
	mkdir -p "$out"
	make -C "$src" O="$out" ARCH="$arch" -s tinyconfig >"$out/config.log" 2>&1 ||
		die_with_log "$label: tinyconfig failed" "$out/config.log"
	ARCH=$arch "$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$@" \
		>>"$out/config.log" 2>&1 || die_with_log "$label: merge_config failed" "$out/config.log"
	make -C "$src" O="$out" ARCH="$arch" -s olddefconfig >>"$out/config.log" 2>&1 ||
		die_with_log "$label: olddefconfig failed" "$out/config.log"
	verify_config "$out" "$@" || die "$label: .config does not match the fragments (see $out/config.log)"
	log "$label: make -j$JOBS ARCH=$arch (log: $out/build.log)"
	make -C "$src" O="$out" ARCH="$arch" -j"$JOBS" CC="ccache gcc" \
		>"$out/build.log" 2>&1 || die_with_log "$label: build failed" "$out/build.log"
	if grep -E '^[^ ]*(error-injection|blk-core|blk-sysfs|genhd)\.c:[0-9]+:[0-9]+: warning' \
		"$out/build.log" >&2; then
		die "$label: the series' files compile with warnings"
	fi
}

# Apply the series to a pristine tree, run checkpatch on every patch (the
# ablation and instrumentation patches included) and build every prefix
# three ways, each in a build directory of its own so that each prefix
# compiles only what it changes: with the on fragment (x86_64); with
# CONFIG_JUMP_LABEL=n (the feature selects JUMP_LABEL where the
# architecture has it, so a prefix that adds the feature gets the nojl
# ablation, which drops the select, on top: the static key then compiles
# as a plain count, as on an architecture without jump labels); and as a
# 32-bit i386 tinyconfig with block, debugfs and the feature.
cmd_check() {
	local patches src root i n p failed=0 nojl t0 frag feature
	local -a with
	ensure_pristine
	mapfile -t patches < <(tree_patches main)
	n=${#patches[@]}
	for p in "${patches[@]}" "$PATCH_DIR"/ablation/*.patch "$PATCH_DIR"/instrument/*.patch; do
		if checkpatch "$p" >"$CACHE/checkpatch.log" 2>&1; then
			log "checkpatch ok: ${p#"$PATCH_DIR"/}"
		else
			cat "$CACHE/checkpatch.log" >&2
			log "checkpatch FAILED: ${p#"$PATCH_DIR"/}"
			failed=1
		fi
	done
	[[ $failed -eq 0 ]] || die "checkpatch found problems"
	src=$(tree_dir check)
	root=$(tree_root check)/build
	nojl=$PATCH_DIR/ablation/nojl-do-not-select-jump-label.patch
	# The fragments, with and without the feature (a prefix before it
	# cannot have it, and refuse_undefined would rightly stop at that).
	frag=$CACHE/check-fragments
	mkdir -p "$frag"
	cp "$BENCH_DIR/kernel/configs/on.config" "$frag/on.config"
	grep -v BLK_ERROR_INJECTION "$BENCH_DIR/kernel/configs/on.config" >"$frag/on-nofeature.config"
	printf '# CONFIG_JUMP_LABEL is not set\n' >"$frag/nojl.config"
	printf 'CONFIG_BLOCK=y\nCONFIG_DEBUG_FS=y\nCONFIG_BLK_ERROR_INJECTION=y\n' >"$frag/i386.config"
	printf 'CONFIG_BLOCK=y\nCONFIG_DEBUG_FS=y\n' >"$frag/i386-nofeature.config"
	for ((i = 1; i <= n; i++)); do
		t0=$EPOCHSECONDS
		log "[prefix $i/$n] ${patches[i - 1]##*/}"
		sync_tree "$src" "${patches[@]:0:i}"
		with=("${patches[@]:0:i}")
		if kconfig_defines "$src" CONFIG_BLK_ERROR_INJECTION; then
			feature='' with+=("$nojl")
		else
			feature=-nofeature
		fi
		check_build "[prefix $i/$n, on]" "$src" "$root/check-on" x86_64 \
			"$BENCH_DIR/kernel/configs/common.config" "$frag/on$feature.config"
		check_build "[prefix $i/$n, i386]" "$src" "$root/check-i386" i386 "$frag/i386$feature.config"
		sync_tree "$src" "${with[@]}"
		check_build "[prefix $i/$n, JUMP_LABEL=n]" "$src" "$root/check-nojl" x86_64 \
			"$BENCH_DIR/kernel/configs/common.config" "$frag/on$feature.config" "$frag/nojl.config"
		log "[prefix $i/$n] built three ways in $((EPOCHSECONDS - t0))s"
	done
	for p in "$PATCH_DIR"/ablation/*.patch "$PATCH_DIR"/instrument/*.patch; do
		log "[not for merging] ${p#"$PATCH_DIR"/} applies on the series"
		sync_tree "$src" "${patches[@]}" "$p"
	done
	log "patches-check: all $n prefixes build with on, with JUMP_LABEL=n and for i386; checkpatch clean"
}

# object_built SRC CONFIG_FILE OBJECT: whether OBJECT's directory Makefile
# builds it in this .config: a line naming it under obj-y, or under
# obj-$(CONFIG_X) with X set (a composite's part: the composite's line).
# (make OBJECT compiles it either way, so this decides what exists.)
object_built() {
	local src=$1 config=$2 obj=$3 depth=${4:-0} dir base lines line var sym
	dir=$(dirname "$obj") base=$(basename "$obj")
	((depth < 4)) || return 0
	lines=$(cat "$src/$dir/Makefile" "$src/$dir/Kbuild" 2>/dev/null |
		sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' | grep -E "(^|[[:space:]=])${base//./\\.}([[:space:]]|\$)" || true)
	# No line names it (a generated rule, say): make decides.
	[[ -n $lines ]] || return 0
	while read -r line; do
		var=${line%%[+:]=*}
		var=${var//[[:space:]]/}
		if [[ $var =~ \$\((CONFIG_[A-Za-z0-9_]+)\) ]]; then
			sym=${BASH_REMATCH[1]}
			grep -Eq "^$sym=(y|m)$" "$config" || continue
			var=${var/\$\($sym\)/y}
		fi
		case $var in
		obj-y | obj-m | lib-y) return 0 ;;
		*-y | *-m | *-objs) object_built "$src" "$config" "$dir/${var%-*}.o" $((depth + 1)) && return 0 ;;
		esac
	done <<<"$lines"
	return 1
}

# cmd_objects CONFIG [OBJECT...]: CONFIG's OBJECTs alone, without vmlinux,
# for a look at their code (perf-scripts/static.sh).  CONFIG's build
# directory is configured as build_one does it and prepared (make prepare),
# unless a finished build or an earlier objects run of the same tree and
# fragments left it current; then the OBJECTs this .config builds are
# compiled where missing.  Prints the path of each of those, one a line.
cmd_objects() {
	local cfg=$1 tree src out stamp o t0 fresh=0 built=() missing=()
	shift
	check_configs "$cfg"
	tree=$(config_tree "$cfg")
	cmd_tree "$tree"
	src=$(tree_dir "$tree")
	out=$(tree_build_dir "$tree" "$cfg")
	stamp="$(cat "$src/.blkinject-patches") $(build_inputs_hash "$cfg")"
	if ! [[ -f $out/.blkinject-stamp && $(cat "$out/.blkinject-stamp") == "$stamp" ]] &&
		! [[ -f $out/.blkinject-objects && $(cat "$out/.blkinject-objects") == "$stamp" ]]; then
		t0=$EPOCHSECONDS
		rm -f "$out/.blkinject-objects"
		configure_config "$cfg" "$cfg" "$src" "$out"
		log "$cfg: configured in $((EPOCHSECONDS - t0))s; make prepare"
		t0=$EPOCHSECONDS
		make -C "$src" O="$out" -j"$JOBS" CC="ccache gcc" prepare >"$out/prepare.log" 2>&1 ||
			die_with_log "$cfg: make prepare failed" "$out/prepare.log"
		printf '%s\n' "$stamp" >"$out/.blkinject-objects"
		log "$cfg: prepared in $((EPOCHSECONDS - t0))s"
		fresh=1
	fi
	for o in "$@"; do
		object_built "$src" "$out/.config" "$o" || continue
		built+=("$o")
		# Freshly configured, make decides what is out of date; else an
		# object there is current (the stamps cover its sources).
		[[ $fresh == 0 && -f $out/$o ]] || missing+=("$o")
	done
	if [[ ${#missing[@]} -gt 0 ]]; then
		t0=$EPOCHSECONDS
		make -C "$src" O="$out" -j"$JOBS" CC="ccache gcc" "${missing[@]}" >"$out/objects.log" 2>&1 ||
			die_with_log "$cfg: compiling ${missing[*]} failed" "$out/objects.log"
		log "$cfg: compiled ${missing[*]} in $((EPOCHSECONDS - t0))s"
	fi
	for o in "${built[@]}"; do
		printf '%s/%s\n' "$out" "$o"
	done
}

# cmd_defines TREE SYMBOL: exit 0 when tree TREE (synced) defines SYMBOL.
cmd_defines() {
	cmd_tree "$1" >&2
	kconfig_defines "$(tree_dir "$1")" "$2"
}

# cmd_functions TREE FUNC...: the files of the synced TREE that define each
# FUNC; exit 2 when a FUNC has none (the plugin counts a function by its
# place in System.map: one no source defines is never there).  The answers
# are kept in the tree while its patches are the same (a search of the
# tree takes seconds).
cmd_functions() {
	local tree=$1 src f files known missing=()
	shift
	cmd_tree "$tree" >&2
	src=$(tree_dir "$tree")
	known=$src/.blkinject-functions
	[[ -f $known && $(head -n 1 "$known") == "$(cat "$src/.blkinject-patches")" ]] ||
		cat "$src/.blkinject-patches" >"$known"
	for f in "$@"; do
		files=$(awk -v f="$f" 'NR > 1 && $1 == f { $1 = ""; sub(/^ /, ""); print; exit }' "$known")
		if [[ -z $files ]]; then
			files=$(tree_function_files "$src" "$f")
			printf '%s %s\n' "$f" "$files" >>"$known"
		fi
		printf '%s %s\n' "$f" "$files"
		[[ $files != - ]] || missing+=("$f")
	done
	((${#missing[@]} == 0)) ||
		die_bad_input "HOT_FUNCS: ${missing[*]}: defined in no C file of the kernel source ($(kernel_source_name), series $(series_name)): name functions of it (the plugin counts a function by its address in System.map)"
}

main() {
	local cmd=${1:-}
	[[ $# -gt 0 ]] && shift
	case $cmd in -h | --help | help) ;; *) check_kbuild_vars ;; esac
	case $cmd in
	check-vars) [[ $# -eq 0 ]] || die_bad_input "usage: build.sh check-vars (no arguments)" ;;
	tree) [[ $# -eq 1 ]] || die_bad_input "usage: build.sh tree NAME"; cmd_tree "$1" ;;
	build) cmd_build "$@" ;;
	checkpatch) [[ $# -eq 0 ]] || die_bad_input "usage: build.sh checkpatch (no arguments)"; cmd_checkpatch ;;
	check) [[ $# -eq 0 ]] || die_bad_input "usage: build.sh check (no arguments)"; cmd_check ;;
	defines) [[ $# -eq 2 ]] || die_bad_input "usage: build.sh defines TREE CONFIG_SYMBOL"; cmd_defines "$@" ;;
	functions) [[ $# -ge 2 ]] || die_bad_input "usage: build.sh functions TREE FUNC..."; cmd_functions "$@" ;;
	objects) [[ $# -ge 1 ]] || die_bad_input "usage: build.sh objects CONFIG [OBJECT...]"; cmd_objects "$@" ;;
	help) help_text ;;
	*) die_bad_input "usage: build.sh tree NAME | build [CONFIG...] | checkpatch | check | defines TREE SYMBOL | functions TREE FUNC... | objects CONFIG [OBJECT...] | check-vars" ;;
	esac
}

main "$@"
