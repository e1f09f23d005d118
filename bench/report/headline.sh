# shellcheck shell=bash
# The headline of a run's report: a few lines that answer the claim (does
# the gate cost anything while idle, and what do rules cost) with the run's
# own numbers, from summary.csv and static.csv, rounded by the one rule
# (bench/stats/round.sh).  Sourced by bench/report/report.sh; needs ROUND_AWK.
#
#   headline_lines DIR   one item a line, unwrapped: the idle gate (key-off),
#                        a rule on another disk (key-on-other), one rule
#                        (rules-1), the most rules measured (rules-N), the
#                        ablations (the other configs in key-off)
#
# The idle gate is config on (else the first of summary.csv besides the
# baseline's) in key-off: its
# change per call of the gate function (HOT_FUNCS' first), set beside the
# static answer, which names an exact +1 the patched jump-label NOP when the
# objects show exactly that; any other gating row that is not the same or
# within the threshold is named as a cost beyond it.

# headline_lines DIR
headline_lines() {
	local dir=$1 f base g accel states static=/dev/null
	meta_var f "$dir" HOT_FUNCS
	read -r f _ <<<"$f" || true
	f=${f:-submit_bio_noacct_nocheck}
	meta_var base "$dir" BASELINE
	base=${base:-off off}
	meta_var accel "$dir" ACCEL
	meta_var states "$dir" STATES
	g=$(awk -F, -v b="${base%% *}" 'NR > 1 && $1 != b && g == "" { g = $1 } $1 == "on" && b != "on" { g = "on"; exit }
		END { print g }' "$dir/summary.csv")
	if [[ -z $g ]]; then
		printf 'headline: no config beside the baseline %s in this run: no idle gate to judge; see the tables below\n' \
			"${base// //}"
		return 0
	fi
	[[ ! -f $dir/static.csv ]] || static=$dir/static.csv
	awk -F, -v bc="${base%% *}" -v bs="${base#* }" -v g="$g" -v f="$f" -v m="$(plugin_metric "$f")" \
		-v sfile="$static" -v summary="$dir/summary.csv" -v accel="$accel" \
		-v states="$states" "$ROUND_AWK"'
		FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i; next }
		FILENAME == sfile && $c["function"] == f && $c["base"] == bc {
			st[$c["new"]] = $c["status"]
			for (k in c) sv[$c["new"], k] = $c[k]
		}
		FILENAME == summary { if (!($1 in seencfg)) { seencfg[$1] = 1; configs = configs " " $1 }; row() }
		function row(   key, w) {
			key = $1 SUBSEP $2
			w = $3
			# per I/O and IOPS: randread-qd1, else the first workload that has them
			if (!(key in wl) && $4 ~ /^(insns_per_io|iops)$/ && $3 !~ /^(perf|count)-/)
				wl[key] = w
			if ($4 == m && !(key in call)) {
				call[key] = $c["delta"]; callv[key] = $c["verdict"]; have[key] = 1
			} else if ($4 == "insns_per_io" && (w == "randread-qd1" || w == wl[key] && !(key in iodone))) {
				io[key] = $c["delta"]; iop[key] = $c["rel_change_pct"]; ioc[key] = $c["class"]
				iow[key] = $c["ci_hi"] != "" && $c["ci_lo"] != "" ? $c["ci_hi"] - $c["ci_lo"] : ""
				have[key] = 1; if (w == "randread-qd1") { iodone[key] = 1; wl[key] = w }
			} else if ($4 == "iops" && (w == "randread-qd1" || w == wl[key] && !(key in iopsdone))) {
				iops[key] = $c["rel_change_pct"]; iopsv[key] = $c["verdict"]; have[key] = 1
				if (w == "randread-qd1") { iopsdone[key] = 1; wl[key] = w }
			}
			if ($c["gates"] == "yes" && $c["verdict"] !~ /^(same|within-threshold|not-slower|baseline|faster)$/ &&
			    $4 != m) {
				if (!((key, w, $4) in seenbad)) {
					seenbad[key, w, $4] = 1
					bad[key] = bad[key] (bad[key] == "" ? "" : ", ") w " " $4 " " $c["verdict"]
				}
			}
		}
		function per(d, cls, what, w) {
			return rnd_signed(d, cls, w) " instruction" (d == 1 || d == -1 ? "" : "s") " per " what
		}
		# the counted change per call, then per I/O and IOPS, of config k in state s
		function counts(k, s, long,   key, t) {
			key = k SUBSEP s; t = ""
			if (key in call && call[key] != "")
				t = long ? per(call[key], "deterministic", "call") : rnd_signed(call[key], "deterministic") " per call"
			if (key in io && io[key] != "")
				t = t (t == "" ? "" : "; ") (long ? per(io[key], ioc[key], "I/O", iow[key]) : rnd_signed(io[key], ioc[key], iow[key]) " per I/O") \
					" (" rnd_pct(iop[key]) ")"
			if (key in iops && iops[key] != "")
				t = t (t == "" ? "" : "; ") "IOPS " rnd_pct(iops[key]) \
					(iopsv[key] ~ /^(same|within-threshold|not-slower)$/ ? "" : " (" iopsv[key] ")")
			if ((key in wl) && wl[key] != "randread-qd1" && ((key in io) || (key in iops)))
				t = t " on " wl[key]
			return t
		}
		function nop(k) {
			return st[k] == "compared" && sv[k, "sites_added"] == 1 && sv[k, "sites_taken"] == 0 &&
				sv[k, "sites_removed"] == 0 && sv[k, "sites_flipped"] == 0 &&
				sv[k, "other_added"] + sv[k, "other_removed"] + sv[k, "other_changed"] == 0
		}
		function idle(   key, d, s, t, beyond, tail) {
			key = g SUBSEP "key-off"
			if (!(key in have)) {
				printf "idle gate: this run has no %s/key-off row; see the tables below\n", g
				return
			}
			d = key in call ? call[key] : ""
			if (d == "")
				s = "no count per call"
			else if (d == 0)
				s = "the same instructions per call"
			else
				s = per(d, "deterministic", "call")
			beyond = bad[key]
			if (d != "" && d != 0) {
				if (!(g in st))
					s = s " (no static answer in this run)"
				else if (nop(g) && d == 1)
					s = s ", the jump-label NOP (static diff agrees)"
				else if (nop(g) && d > 1) {
					s = s ", the jump-label NOP and " (d - 1) " more"
					beyond = beyond (beyond == "" ? "" : ", ") (d - 1) " instruction" (d == 2 ? "" : "s") " per call"
				} else if (sv[g, "sites_taken"] > 0) {
					s = s ", a TAKEN jump instead of a NOP (static)"
					beyond = beyond (beyond == "" ? "" : ", ") "a taken jump"
				} else {
					s = s sprintf(" (static diff: %+d: %s)", sv[g, "idle_delta"],
						sv[g, "idle_delta"] + 0 == d + 0 ? "agree" : "DISAGREE")
					if (callv[key] != "same" && callv[key] != "within-threshold")
						beyond = beyond (beyond == "" ? "" : ", ") "per call " callv[key]
				}
			}
			t = counts(g, "key-off", 1)
			sub(/^[^;]*per call(; )?/, "", t)
			if (t != "" && accel != "") t = t " (" accel ")"
			if (beyond != "")
				tail = "Cost beyond " (nop(g) ? "the NOP" : "the baseline") ": " beyond "."
			else if (nop(g) && d == 1)
				tail = "No cost beyond the NOP."
			else if (d == 0 || d == "")
				tail = "No cost measured."
			else
				tail = "Every other gating row the same or within the threshold."
			printf "idle gate (%s/key-off vs %s): %s%s. %s\n", g, bc == bs ? bc : bc "/" bs, s, t == "" ? "" : "; " t, tail
		}
		function item(label, s,   t) {
			if (!((g SUBSEP s) in have)) return
			t = counts(g, s, 0)
			printf "%s: %s\n", label, t == "" ? "no counts" : t
		}
		END {
			idle()
			item("rule on another disk", "key-on-other")
			item("one rule", "rules-1")
			n = split(states, sl, " "); many = ""; most = 1
			for (i = 1; i <= n; i++)
				if (sl[i] ~ /^rules-[0-9]+$/ && substr(sl[i], 7) + 0 > most) { most = substr(sl[i], 7) + 0; many = sl[i] }
			if (many != "") item(most " rules", many)
			n = split(configs, cl, " "); t = ""
			for (i = 1; i <= n; i++) {
				if (cl[i] == bc || cl[i] == g || !((cl[i] SUBSEP "key-off") in have)) continue
				key = cl[i] SUBSEP "key-off"
				t = t (t == "" ? "" : "; ") cl[i] " " (call[key] == "" ? "-" : rnd_signed(call[key], "deterministic")) \
					", " (io[key] == "" ? "-" : rnd_signed(io[key], ioc[key], iow[key]))
			}
			if (t != "") printf "ablations (key-off; per call, per I/O): %s\n", t
		}' "$static" "$dir/summary.csv"
}
