#!/usr/bin/env bash
# Regenerates the synthetic plotting fixture in this directory:
#
#   bash plots/testdata/gen-fixture.sh [OUT_DIR]
#
# (OUT_DIR defaults to this directory; plots/test.sh uses another one to
# check that the committed fixture is what this script produces.)
#
# Writes runs.csv (a made-up but plausible tcg-icount run: 4 configs,
# 8 states, 2 workloads, metrics iops and insns_per_call, 5 repeats) with a
# portable Park-Miller LCG in awk (same output with mawk and gawk), builds
# bench/stats/benchstat into a temp dir and turns runs.csv into
# summary.csv with it, so the fixture has benchstat's real semantics
# (ci_level, classes, verdicts, deterministic).  meta.env is static.
#
# The model: insns_per_call = 60 for off/off, plus a per-config gate cost
# (static-key NOP +1, no jump labels +3, no static key +4), +5 once the
# static key is on, +12 + 8 per rule on the target disk, +10 for the
# random draw of match-chance.  iops = base * ipio / (ipio + extra) with
# 0.3% multiplicative noise (icount: time = instructions).  One randread-qd1
# repeat of on/rules-100 failed, so that group has n = 4 (ci_level 0.875).
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/help.sh
. "$HERE/../../bench/lib/help.sh"
help_answer "$0" "$@"

here=$(cd "$HERE" && pwd)
repo=$(cd "$here/../.." && pwd)
dest=${1:-$here}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

awk 'BEGIN {
	OFS = ","
	seed = 12345
	print "seq,config,state,workload,repeat,status,metric,value"
	nc = split("off on on-nojl nokey", cfg, " ")
	ns = split("key-off key-on-other rules-1 rules-10 rules-100 rules-1000 match-chance", st, " ")
	nw = split("randread-qd1 randread-qd32", wl, " ")
	gate["off"] = 0; gate["on"] = 1; gate["on-nojl"] = 3; gate["nokey"] = 4
	# key on: the NOP becomes a jump to the per-disk test (nokey has no key)
	keyon["off"] = 0; keyon["on"] = 5; keyon["on-nojl"] = 4; keyon["nokey"] = 0
	base["randread-qd1"] = 34000;  ipio["randread-qd1"] = 28000
	base["randread-qd32"] = 48000; ipio["randread-qd32"] = 16000
	seq = 0
	for (c = 1; c <= nc; c++) {
		if (cfg[c] == "off") { n = 1; s1[1] = "off" }
		else { n = ns; for (i = 1; i <= ns; i++) s1[i] = st[i] }
		for (i = 1; i <= n; i++) {
			s = s1[i]
			extra = gate[cfg[c]]
			if (s == "key-on-other") extra += keyon[cfg[c]]
			if (s ~ /^rules-/) { r = substr(s, 7) + 0; extra += keyon[cfg[c]] + 12 + 8 * r }
			if (s == "match-chance") extra += keyon[cfg[c]] + 12 + 8 + 10
			for (w = 1; w <= nw; w++) {
				for (rep = 1; rep <= 5; rep++) {
					seq++
					failed = (cfg[c] == "on" && s == "rules-100" && wl[w] == "randread-qd1" && rep == 3)
					# Box-Muller from two LCG draws
					u1 = lcg(); u2 = lcg()
					z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2)
					iops = base[wl[w]] * ipio[wl[w]] / (ipio[wl[w]] + extra) * (1 + 0.003 * z)
					if (failed) {
						print seq, cfg[c], s, wl[w], rep, "failed", "iops", ""
						print seq, cfg[c], s, wl[w], rep, "failed", "insns_per_call", ""
					} else {
						print seq, cfg[c], s, wl[w], rep, "ok", "iops", sprintf("%.1f", iops)
						print seq, cfg[c], s, wl[w], rep, "ok", "insns_per_call", 60 + extra
					}
				}
			}
		}
	}
}
function lcg() {
	seed = (seed * 16807) % 2147483647
	return seed / 2147483647
}' >"$dest/runs.csv"

env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	make -s --no-print-directory -C "$repo/bench/stats" OUT="$tmp" >/dev/null
"$tmp/benchstat" summary --accel "$(sed -n 's/^ACCEL=//p' "$here/meta.env")" "$dest/runs.csv" >"$dest/summary.csv"
echo "wrote $dest/runs.csv and $dest/summary.csv ($(($(wc -l <"$dest/summary.csv") - 1)) groups)"
