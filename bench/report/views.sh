# shellcheck shell=bash
# Sections of report.md for the views of bench/run/views.sh (issue 15), each
# generated from the results directory's summary.csv, meta.json and
# footprint/ only, and titled by its recipe's DESCRIPTION (meta.json's
# VIEW_<NAME>_DESCRIPTION; a run made before views.sh recorded it, by the
# recipe in bench/plan/views).  A view this file has no paragraph for gets
# a section of its own: its title and the table of its rows
# (VIEW_<NAME>_ROWS), every metric they have.  Sourced by
# bench/report/report.sh, which sets DIR, meta(), FLOORS (layout_floors of
# the summary) and GUEST_TIME (guest_time_metrics).

# FLOOR_AWK: floor_of(WORKLOAD, METRIC), the layout noise floor in percent
# for a guest-time metric ("" if the run has none), from the file FLOORS
# names: the workload's own off/off-layout difference if the run has both
# on it, else that metric's difference on the layout view's workload of the
# same depth class (qd1, or deeper: the layout view runs randread-qd1 and
# randread-qd32), else (pread, switch: metrics the layout view does not
# measure) the largest over its iops, insns_per_io and lat_ns.
FLOOR_AWK='
	function abs(x) { return x < 0 ? -x : x }
	function depth(w) { return w ~ /-qd1$/ ? "qd1" : "deeper" }
	function load_floors(   l, f, d) {
		while ((getline l < floors) > 0) {
			split(l, f, " ")
			fl[f[1], f[2]] = abs(f[3])
			if (f[1] ~ /^layout-/) {
				d = depth(f[1])
				if (!((d, f[2]) in lay) || abs(f[3]) > lay[d, f[2]]) lay[d, f[2]] = abs(f[3])
				if (f[2] ~ /^(iops|insns_per_io|lat_ns)$/ && abs(f[3]) > mean_floor) mean_floor = abs(f[3])
				any_layout = 1
			}
		}
	}
	function floor_of(w, m) {
		if (!index(" " kinds " ", " " m " ")) return ""
		if ((w, m) in fl) return fl[w, m]
		if ((depth(w), m) in lay) return lay[depth(w), m]
		return any_layout ? mean_floor : ""
	}'

# pivot WORKLOAD_REGEX METRIC...: a Markdown table, one row per config,
# state and workload matching the regex, one column per metric: its median
# and, where the summary has one, its change against the baseline row and,
# for a guest-time metric, the layout noise floor beside it.
pivot() {
	local pat=$1
	shift
	awk -F, -v pat="$pat" -v metrics="$*" -v floors="$FLOORS" -v kinds="$GUEST_TIME" "$FLOOR_AWK$ROUND_AWK"'
		BEGIN { load_floors() }
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$3 ~ pat {
			row = $1 SUBSEP $2 SUBSEP $3
			if (!(row in seen)) { seen[row] = 1; rows[++n] = row }
			w = $c["ci_hi"] != "" && $c["ci_lo"] != "" ? $c["ci_hi"] - $c["ci_lo"] : ""
			cell = $c["median"] == "" ? $c["verdict"] : rnd($c["median"], $c["class"], w)
			if ($c["rel_change_pct"] != "") {
				# the layout rows are the floor itself
				f = $1 == "off-layout" ? "" : floor_of($3, $4)
				cell = cell " (" rnd_pct($c["rel_change_pct"]) (f == "" ? "" : sprintf("; floor %.2f%%", f)) ")"
			}
			v[row, $4] = cell
		}
		END {
			m = split(metrics, ms, " ")
			line = "| config | state | workload |"; sep = "|---|---|---|"
			for (j = 1; j <= m; j++) { line = line " " ms[j] " |"; sep = sep "---|" }
			print line; print sep
			for (i = 1; i <= n; i++) {
				split(rows[i], k, SUBSEP)
				line = "| " k[1] " | " k[2] " | " k[3] " |"
				for (j = 1; j <= m; j++) line = line " " ((rows[i], ms[j]) in v ? v[rows[i], ms[j]] : "") " |"
				print line
			}
		}' "$DIR/summary.csv"
	echo
}

# gate_share: per fio workload, the gate's instructions per call (this
# config's instructions in submit_bio_noacct_nocheck minus the baseline
# config's on the same workload, counted by the plugin over that fio run)
# times calls per I/O, as a share of the instructions per I/O of the
# workload
gate_share() {
	awk -F, -v base="$(meta BASELINE)" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ r = $1 SUBSEP $2 SUBSEP $3 }
		$4 == "insns_per_call" { ipc[r] = $c["median"] }
		$4 == "calls_per_io" { cpi[r] = $c["median"] }
		$4 == "iowq_punts_per_io" { punt[r] = $c["median"] }
		$4 == "insns_per_io" { rows[++n] = r; ipio[r] = $c["median"] }
		END {
			split(base, b, " ")
			print "| config | state | workload | instructions per I/O | gate instructions per call | calls per I/O | io-wq punts per I/O | gate share of the I/O |"
			print "|---|---|---|---|---|---|---|---|"
			for (i = 1; i <= n; i++) {
				split(rows[i], k, SUBSEP)
				if (k[1] == b[1] || k[1] == "off-layout") continue
				me = rows[i]; bk = b[1] SUBSEP b[2] SUBSEP k[3]
				if (!(me in ipc) || !(bk in ipc) || ipio[me] == "") continue
				g = ipc[me] - ipc[bk]
				printf "| %s | %s | %s | %.0f | %+.2f | %.4f | %s | %.4f%% |\n", k[1], k[2], k[3], ipio[me], g,
					cpi[me], (me in punt) ? sprintf("%.4f", punt[me]) : "", 100 * g * cpi[me] / ipio[me]
			}
		}' "$DIR/summary.csv"
	echo
}

# floor_line: the layout view's floor per guest-time metric, one line
floor_line() {
	awk -v kinds="$GUEST_TIME" -v floors="$FLOORS" "$FLOOR_AWK"'
		BEGIN {
			load_floors()
			n = split(kinds, k, " ")
			for (i = 1; i <= n; i++)
				if (("qd1", k[i]) in lay)
					s = s sprintf("%s`%s` %.2f%% (qd1) / %.2f%% (deeper)", s == "" ? "" : ", ", k[i],
						lay["qd1", k[i]], lay["deeper", k[i]])
			print s "; metrics it does not measure (pread, switch): " sprintf("%.2f%%", mean_floor)
		}'
}

# setting NAME: a setting of the views' command as recorded (the last one
# given, as a later command in the directory replaced its view's rows)
setting() {
	meta COMMAND | grep -o "$1=[^ ;]*" | tail -1 | cut -d= -f2
}

# has_workload REGEX: the summary has rows for such a workload (awk reads
# the whole file: a reader that stops at the first match, grep -q, kills the
# writer of a pipe with SIGPIPE, which pipefail turns into "no such rows")
has_workload() {
	awk -F, -v re="$1" '$3 ~ re { found = 1 } END { exit !found }' "$DIR/summary.csv"
}

# view_title VIEW: its recipe's DESCRIPTION, as a title (first letter
# capital).
view_title() {
	local up=${1^^} t
	up=${up//-/_}
	t=$(meta "VIEW_${up}_DESCRIPTION")
	if [[ $t == "not recorded" ]]; then
		t=$(settings_recipe "$1" DESCRIPTION)
	fi
	printf '%s\n' "${t^}"
}

# view_rows_re VIEW: an ERE of its rows' workloads (VIEW_<NAME>_ROWS).
view_rows_re() {
	local up=${1^^}
	up=${up//-/_}
	printf '^(%s)$\n' "$(meta "VIEW_${up}_ROWS" | sed 's/[.+]/[&]/g; s/ /|/g')"
}

# view_metrics RE: the metrics of the summary's rows whose workload
# matches RE, in the summary's order.
view_metrics() {
	awk -F, -v re="$1" 'NR > 1 && $3 ~ re && !s[$4]++ { printf "%s%s", n++ ? " " : "", $4 } END { print "" }' "$DIR/summary.csv"
}

# other_views: the run's views this file has no paragraph for, a section
# each: the title, the time, the table of every metric of its rows.
other_views() {
	local v re
	for v in $(meta VIEWS); do
		case $v in mq | polled | latency | switch | errcost | layout | footprint) continue ;; esac
		re=$(view_rows_re "$v")
		has_workload "$re" || continue
		printf '### %s (%s)\n\n' "$(view_title "$v")" "$(view_time "$v")"
		# shellcheck disable=SC2046 # a list of words
		pivot "$re" $(view_metrics "$re")
	done
}

view_time() {
	local s
	s=$(meta "VIEW_SECONDS_$1")
	[[ $s == "not recorded" ]] && echo "$s" || printf '%dm%02ds' $((s / 60)) $((s % 60))
}

# shellcheck disable=SC2016 # backticks in the text are Markdown
views_sections() {
	local fig
	[[ $(meta VIEWS) != "not recorded" ]] || return 0
	printf '## Views of the hot path (bench/views.sh: %s)\n\n' "$(meta VIEWS)"
	printf 'Each view boots every config x state once per repeat; in the tables a value is the median, in parentheses its change against `%s` on the same workload. Under `tcg-icount` every guest-time value is an instruction count (1 ns = 1 instruction, all vCPUs together), so one repeat suffices; under `kvm`/`tcg` the same script needs `REPEATS>=4` for a verdict.\n\n' "$(meta BASELINE)"
	if has_workload '^layout-'; then
		printf 'Beside each change of a guest-time metric, `floor` is the layout noise floor (section *Layout noise floor* below): how far two `off` builds that differ only in code layout are apart on that metric; a change below it says nothing about the code. A workload the layout view did not run gets the floor of its depth class (qd1, or deeper). Per metric: %s.\n\n' "$(floor_line)"
	else
		printf 'This run has no layout noise floor (`bench/views.sh layout`): a guest-time change here has no floor beside it.\n\n'
	fi
	if has_workload '^mq-'; then
		printf '### %s (%s)\n\n' "$(view_title mq)" "$(view_time mq)"
		printf '2 vCPUs (one socket each), null_blk `submit_queues=2`, one fio job pinned per CPU; `rule-churn` adds and removes a rule on nullb1 in a loop (each a static-key flip) while fio reads nullb0; `rule_changes` is how many add/remove pairs the loop made during the run (its own instructions count in guest time too).\n\n'
		pivot '^mq-' iops insns_per_io lat_p50_ns lat_p99_ns lat_p999_ns rule_changes
	fi
	if has_workload '^poll-'; then
		printf '### %s (%s)\n\n' "$(view_title polled)" "$(view_time polled)"
		printf '1 vCPU, null_blk `poll_queues=1`: pvsync2 with `hipri` at depth 1, and io_uring with `hipri` (IOPOLL), fixed buffers, registered files and non-vectored reads at depth 128 in batches of 32 (t/io_uring'"'"'s settings).\n\n'
		pivot '^poll-' iops insns_per_io lat_p50_ns lat_p99_ns lat_p999_ns
	fi
	if grep -q ',insns_per_io,' "$DIR/summary.csv" && grep -Eq '^[^,]*,[^,]*,(mq|poll|randread)-[^,]*,insns_per_call,' "$DIR/summary.csv"; then
		printf '### The gate'"'"'s share of each workload'"'"'s instructions\n\n'
		printf 'Gate instructions per call = instructions per call of `submit_bio_noacct_nocheck` in this row minus the baseline'"'"'s on the same workload (QEMU plugin, counted between two marks around the fio run); calls per I/O: calls in that window over the reads nullb0 completed in it (`/sys/block/nullb0/stat`, fio'"'"'s ramp_time included as in the count); io-wq punts per I/O: entries of `io_wq_submit_work` over the same reads. Where io_uring'"'"'s non-blocking issue finds no free tag (the polled view'"'"'s qd128 with `POLL_TAGS` below 128) the bio ends with `BLK_STS_AGAIN` and io_uring issues the request again from an io-wq worker: one more `submit_bio`, so calls per I/O = 1 + punts per I/O, and the gate runs once per attempt. Instructions per I/O = 1e9 / IOPS under icount.\n\n'
		gate_share
	fi
	if has_workload '^randread-'; then
		printf '### %s (%s)\n\n' "$(view_title latency)" "$(view_time latency)"
		printf 'fio completion latency (clat) percentiles of the main workloads (1 vCPU, `submit_queues=1`), in guest ns.\n\n'
		pivot '^randread-' lat_ns lat_p50_ns lat_p99_ns lat_p999_ns
	fi
	if has_workload '^switch-'; then
		printf '### %s (%s)\n\n' "$(view_title switch)" "$(view_time switch)"
		printf 'Guest time of one write(2) to `error_injection` (clockio: clock_gettime right around the call), median over the boot'"'"'s %s cycles and the first cycle of the boot: `enable` is the first rule of all (static key 0 to 1: jump-label sites patched, CPUs synchronised), `add` a second rule on that disk, `add_other_disk` a first rule on another disk while the key is on, `removeall_other_disk` that disk'"'"'s removeall (key 2 to 1), `disable` the last removeall (1 to 0, patched back).\n\n' "$(setting SWITCH_CYCLES)"
		pivot '^switch-' switch_enable_ns switch_add_ns switch_add_other_disk_ns switch_removeall_other_disk_ns switch_disable_ns switch_enable_first_ns switch_disable_first_ns
	fi
	if has_workload '^pread-'; then
		printf '### %s (%s)\n\n' "$(view_title errcost)" "$(view_time errcost)"
		printf 'Guest time per 4 KiB O_DIRECT read over %s reads (clockio pread, a fixed offset sequence); `fail-all` is one READ rule over all of nullb0, so every read ends in `bio_endio()` from the submit path with EIO instead of reaching the driver.\n\n' "$(setting ERRCOST_IOS)"
		pivot '^pread-' pread_ns_per_io io_errors
	fi
	if has_workload '^layout-'; then
		printf '### %s (%s)\n\n' "$(view_title layout)" "$(view_time layout)"
		printf '`off` and `off-layout` (`off` plus `CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B`: every function 64-byte aligned instead of 16, so code moves and shares cache lines differently; the two .config files differ only in the alignment symbols) on the latency view'"'"'s workloads, state off. Their difference on a guest-time metric is the floor printed beside every guest-time change in this report. Under `tcg-icount` guest time is instructions, which layout does not change, so this floor should be 0 there; under `kvm`/`tcg` it is the size of a layout accident.\n\n'
		pivot '^layout-' iops insns_per_io lat_ns lat_p50_ns lat_p99_ns lat_p999_ns insns_per_call calls_per_io
	fi
	if grep -q ',text_bytes,' "$DIR/summary.csv"; then
		printf '### %s (%s)\n\n' "$(view_title footprint)" "$(view_time footprint)"
		printf '`text_bytes`: the sizes of all functions in vmlinux added up (`nm -S`, types t/T; the `.text` section is padded to 6 MiB in both); `func_bytes`: `submit_bio_noacct_nocheck` (`nm -S`); `jump_sites`: jump-label entries of `blk_error_injection_enabled` (perf-scripts/jump-sites.c); `hot_lines`: 64-byte lines of `submit_bio_noacct_nocheck` the idle path executed during %s qd1 reads (QEMU plugin, one range per line); `insns_per_call`: instructions per call in that run.\n\n' "$(setting FIO_IOS)"
		pivot '^count-randread-qd1$' text_bytes func_bytes jump_sites hot_lines insns_per_call
		for fig in "$DIR"/footprint/*.txt; do
			[[ -f $fig ]] || continue
			printf '`%s`: instructions executed per 64-byte line (first column the line address):\n\n```\n' "footprint/$(basename "$fig")"
			awk '/^#/ { print; next } { n[$1] = $2; if (!($1 in s)) { s[$1] = 1; o[++k] = $1 } c[$1]++ }
				END { for (i = 1; i <= k; i++) printf "line %s: %d instructions, %s executed in the run\n", o[i], c[o[i]], n[o[i]] }' "$fig"
			printf '```\n\n'
		done
	fi
	other_views
}
