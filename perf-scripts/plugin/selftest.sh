#!/bin/bash
# Self-check of the insncount plugin: boot a kernel to its "no root fs" panic
# twice under deterministic TCG (-icount, sleep=off) and check that
# start_kernel ran exactly once and that both runs give identical counts.
#
# Usage: selftest.sh KERNEL_BUILD_DIR     (needs arch/x86/boot/bzImage, System.map)
# Env: HEADER_DIR (passed to make if set), QEMU_TIMEOUT (seconds, default 120).
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/help.sh
. "$HERE/../../bench/lib/help.sh"
help_answer "$0" "$@"

here=$(cd "$HERE" && pwd)
[[ $# -eq 1 ]] || { echo "usage: $0 KERNEL_BUILD_DIR" >&2; exit 2; }
kdir=$1
timeout_s=${QEMU_TIMEOUT:-120}

fails=0
ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

for f in arch/x86/boot/bzImage System.map; do
    [[ -r $kdir/$f ]] || { fail "missing $kdir/$f"; exit 1; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Snapshot the kernel so a concurrent rebuild cannot change it between runs.
cp "$kdir/arch/x86/boot/bzImage" "$kdir/System.map" "$tmp/"

# Build the plugin from the current sources into the temp dir.
make_args=(-s -C "$here" OUT="$tmp")
if [[ -n ${HEADER_DIR:-} ]]; then
    make_args+=(HEADER_DIR="$HEADER_DIR")
fi
if make "${make_args[@]}" >"$tmp/make.log" 2>&1; then
    ok "plugin builds"
else
    cat "$tmp/make.log"; fail "plugin build"; exit 1
fi

# printk is called _printk since Linux 5.15.
printk=_printk
grep -q ' _printk$' "$tmp/System.map" || printk=printk
"$here/ranges-from-systemmap.sh" "$tmp/System.map" start_kernel "$printk" vprintk_emit \
    >"$tmp/ranges.txt"

run() {
    local n=$1 t0 ms rc=0
    t0=${EPOCHREALTIME/./}
    timeout "$timeout_s" qemu-system-x86_64 \
        -accel tcg -icount shift=0,align=off,sleep=off \
        -m 512 -smp 1 -nographic -no-reboot \
        -kernel "$tmp/bzImage" -append "console=ttyS0 nokaslr panic=-1" \
        -plugin "$tmp/libinsncount.so,ranges=$tmp/ranges.txt,out=$tmp/counts$n.txt" \
        </dev/null >"$tmp/console$n.log" 2>&1 || rc=$?
    ms=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
    printf 'run %s: qemu exit %d, %d.%03d s\n' "$n" "$rc" $((ms / 1000)) $((ms % 1000))
    if [[ $rc -ne 0 ]]; then
        tail -n 20 "$tmp/console$n.log"
        fail "run $n: qemu exited with $rc (124 = timeout after ${timeout_s}s)"
        return 1
    fi
    grep -q 'Kernel panic' "$tmp/console$n.log" ||
        echo "note: run $n: no 'Kernel panic' on the console"
    sed 's/^/  /' "$tmp/counts$n.txt"
}

for n in 1 2; do
    run "$n" || exit 1
done

if grep -qx 'start_kernel entries=1 .*' "$tmp/counts1.txt"; then
    ok "start_kernel entries=1"
else
    fail "start_kernel entries != 1: $(grep '^start_kernel ' "$tmp/counts1.txt" || echo none)"
fi
if grep -Eq "^$printk entries=[1-9][0-9]* " "$tmp/counts1.txt"; then
    ok "$printk entries > 0"
else
    fail "$printk was never entered"
fi
if cmp -s "$tmp/counts1.txt" "$tmp/counts2.txt"; then
    ok "two runs give identical counts"
else
    diff "$tmp/counts1.txt" "$tmp/counts2.txt" || true
    fail "runs differ"
fi

[[ $fails -eq 0 ]] || exit 1
