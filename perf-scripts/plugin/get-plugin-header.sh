#!/bin/bash
# Fetch qemu-plugin.h matching the installed Debian QEMU into a cache dir.
#
# Usage: get-plugin-header.sh DEST_DIR      (e.g. $CACHE/qemu-plugin)
#
# Debian ships QEMU with TCG plugin support but no binary package contains
# include/qemu/qemu-plugin.h, so we take it from Debian's qemu source package
# (the upstream orig tarball).  The host's APT configuration is never
# touched: "apt-get source" runs with a private configuration under
# $APT_DIR (default DEST_DIR/../apt) whose only entries are deb-src lines
# derived from the Debian archives the host already uses, with its own
# lists and cache.  Nothing is done when the header is already present.
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/help.sh
. "$HERE/../../bench/lib/help.sh"

die() { echo "get-plugin-header: error: $*" >&2; exit 1; }
log() { echo "get-plugin-header: $*" >&2; }

case ${1:-} in
-h | --help) help_header "$0"; exit 0 ;;
esac
[[ $# -eq 1 ]] || die "usage: $0 DEST_DIR"
dest=$1
header="$dest/qemu-plugin.h"

# Idempotent: an existing header is trusted (it was verified when installed).
if [[ -f $header ]]; then
    exit 0
fi

command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not installed"

# Installed QEMU version, e.g. "7.2.22" -> major 7, minor 2.
qemu_ver=$(qemu-system-x86_64 --version | sed -n 's/^QEMU emulator version \([0-9][0-9.]*\).*/\1/p')
[[ -n $qemu_ver ]] || die "cannot parse 'qemu-system-x86_64 --version'"
qemu_major=${qemu_ver%%.*}
qemu_minor=${qemu_ver#*.}; qemu_minor=${qemu_minor%%.*}

# 1. A private APT configuration: deb-src for every Debian archive, suite
#    and component the host has a "deb" entry for (its mirror, its suites).
mkdir -p "$dest"
apt_dir=${APT_DIR:-$(cd "$dest/.." && pwd)/apt}
mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
# shellcheck disable=SC2016 # $(FIELD) is apt's own format syntax
apt-get indextargets --format '$(ORIGIN)|$(REPO_URI)|$(RELEASE)|$(COMPONENT)' 'Created-By: Packages' |
    awk -F'|' '$1 == "Debian" { print "deb-src", $2, $3, $4 }' | sort -u >"$apt_dir/sources.list.new"
[[ -s $apt_dir/sources.list.new ]] ||
    die "the host's APT sources have no Debian archive to derive a deb-src entry from"
mv "$apt_dir/sources.list.new" "$apt_dir/sources.list"
apt_private=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list"
    -o "Dir::Etc::sourceparts=$apt_dir/sources.list.d"
    -o "Dir::State::Lists=$apt_dir/lists"
    -o "Dir::Cache=$apt_dir/cache"
    -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
    -o "APT::Sandbox::User=root")

# 2. Source indices into the private lists.
if ! apt-cache "${apt_private[@]}" showsrc qemu >/dev/null 2>&1; then
    log "apt-get update with the private sources in $apt_dir: $(cut -d' ' -f2-3 "$apt_dir/sources.list" | tr '\n' ';')"
    apt-get "${apt_private[@]}" update -qq
fi
apt-cache "${apt_private[@]}" showsrc qemu >/dev/null 2>&1 ||
    die "apt cannot find source package 'qemu' in $apt_dir/sources.list"

# 3. Download the source package matching the installed binary if still
#    available, else the current one (same upstream orig tarball within a
#    Debian release; the version check below catches a real mismatch).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src_ver=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null || true)
cd "$tmp"
if [[ -z $src_ver ]] || ! apt-get "${apt_private[@]}" source -qq --download-only "qemu=$src_ver" >/dev/null 2>&1; then
    log "source for installed version '${src_ver:-?}' not available, using current qemu source"
    apt-get "${apt_private[@]}" source -qq --download-only qemu >/dev/null
fi

shopt -s nullglob
origs=(qemu_*.orig.tar.*)
shopt -u nullglob
[[ ${#origs[@]} -eq 1 ]] || die "expected exactly one qemu_*.orig.tar.* in download, found: ${origs[*]:-none}"
orig=${origs[0]}

# 4. Extract only the header and the VERSION file (top dir is qemu-X.Y.Z).
tar -xf "$orig" --wildcards --no-wildcards-match-slash \
    'qemu-*/include/qemu/qemu-plugin.h' 'qemu-*/VERSION' ||
    die "could not extract qemu-*/include/qemu/qemu-plugin.h from $orig"
shopt -s nullglob
hdrs=(qemu-*/include/qemu/qemu-plugin.h)
vers=(qemu-*/VERSION)
shopt -u nullglob
[[ ${#hdrs[@]} -eq 1 && ${#vers[@]} -eq 1 ]] || die "unexpected layout of $orig"

# 5. Verify the header belongs to the installed QEMU. The source tree version
#    must have the same major.minor as the binary, and QEMU_PLUGIN_VERSION (the
#    plugin API version, not the QEMU version) must be the one known for that
#    QEMU major. QEMU itself also refuses plugins built for an unsupported API.
tree_ver=$(tr -d '[:space:]' < "${vers[0]}")
[[ ${tree_ver%.*} == "$qemu_major.$qemu_minor" ]] ||
    die "header is from QEMU $tree_ver but installed QEMU is $qemu_ver"
api_ver=$(sed -n 's/^#define QEMU_PLUGIN_VERSION[[:space:]]\+\([0-9]\+\).*/\1/p' "${hdrs[0]}")
[[ -n $api_ver ]] || die "no QEMU_PLUGIN_VERSION in header"
case $qemu_major in
    6|7) want_api=1 ;;
    *) want_api="" ;;
esac
if [[ -n $want_api && $api_ver != "$want_api" ]]; then
    die "header QEMU_PLUGIN_VERSION=$api_ver, expected $want_api for QEMU $qemu_major.x"
fi

# 6. Install atomically so a half-written header never looks "present".
install -m 0644 "${hdrs[0]}" "$header.tmp.$$"
mv -f "$header.tmp.$$" "$header"
log "installed $header (QEMU $tree_ver source, QEMU_PLUGIN_VERSION=$api_ver, from $orig)"
