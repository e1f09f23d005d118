# shellcheck shell=bash
# Sections of report.md for the views of bench/views.sh (issue 15), each
# generated from the results directory's summary.csv, meta.json and
# footprint/ only.  Sourced by bench/report.sh, which sets DIR and meta().

# pivot WORKLOAD_REGEX METRIC...: a Markdown table, one row per config,
# state and workload matching the regex, one column per metric: its median
# and, where the summary has one, its change against the baseline row.
pivot() {
	local pat=$1
	shift
	awk -F, -v pat="$pat" -v metrics="$*" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$3 ~ pat {
			row = $1 SUBSEP $2 SUBSEP $3
			if (!(row in seen)) { seen[row] = 1; rows[++n] = row }
			cell = $c["median"] == "" ? $c["verdict"] : sprintf("%.6g", $c["median"])
			if ($c["rel_change_pct"] != "") cell = cell sprintf(" (%+.3f%%)", $c["rel_change_pct"])
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
# config's, measured over the same boot's I/O by the plugin) times calls
# per I/O, as a share of the instructions per I/O of the workload
gate_share() {
	awk -F, -v base="$(meta BASELINE)" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		function view(w) { return w ~ /^mq-/ ? "mq-all" : w ~ /^poll-/ ? "polled-all" : "latency-all" }
		$4 == "insns_per_call" && $3 ~ /-all$/ { ipc[$1 SUBSEP $2 SUBSEP $3] = $c["median"] }
		$4 == "calls_per_io" && $3 ~ /-all$/ { cpi[$1 SUBSEP $2 SUBSEP $3] = $c["median"] }
		$4 == "insns_per_io" { rows[++n] = $1 SUBSEP $2 SUBSEP $3; ipio[rows[n]] = $c["median"] }
		END {
			split(base, b, " ")
			print "| config | state | workload | instructions per I/O | gate instructions per call | calls per I/O | gate share of the I/O |"
			print "|---|---|---|---|---|---|---|"
			for (i = 1; i <= n; i++) {
				split(rows[i], k, SUBSEP)
				if (k[1] == b[1]) continue
				v = view(k[3]); me = k[1] SUBSEP k[2] SUBSEP v; bk = b[1] SUBSEP b[2] SUBSEP v
				if (!(me in ipc) || !(bk in ipc) || ipio[rows[i]] == "") continue
				g = ipc[me] - ipc[bk]
				printf "| %s | %s | %s | %.0f | %+.2f | %.4f | %.4f%% |\n", k[1], k[2], k[3], ipio[rows[i]], g,
					cpi[me], 100 * g * cpi[me] / ipio[rows[i]]
			}
		}' "$DIR/summary.csv"
	echo
}

# setting NAME: a setting of the views' command as recorded (the last one
# given, as a later command in the directory replaced its view's rows)
setting() {
	meta COMMAND | grep -o "$1=[^ ;]*" | tail -1 | cut -d= -f2
}

# has_workload REGEX: the summary has rows for such a workload
has_workload() {
	cut -d, -f3 "$DIR/summary.csv" | grep -Eq "$1"
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
	if has_workload '^mq-'; then
		printf '### Multi-queue, multi-core (%s)\n\n' "$(view_time mq)"
		printf '2 vCPUs (one socket each), null_blk `submit_queues=2`, one fio job pinned per CPU; `rule-churn` adds and removes a rule on nullb1 in a loop (each a static-key flip) while fio reads nullb0; `rule_changes` is how many add/remove pairs the loop made during the run (its own instructions count in guest time too).\n\n'
		pivot '^mq-' iops insns_per_io lat_p50_ns lat_p99_ns lat_p999_ns rule_changes
	fi
	if has_workload '^poll-'; then
		printf '### Polled peak IOPS (%s)\n\n' "$(view_time polled)"
		printf '1 vCPU, null_blk `poll_queues=1`: pvsync2 with `hipri` at depth 1, and io_uring with `hipri` (IOPOLL), fixed buffers, registered files and non-vectored reads at depth 128 in batches of 32 (t/io_uring'"'"'s settings).\n\n'
		pivot '^poll-' iops insns_per_io lat_p50_ns lat_p99_ns lat_p999_ns
	fi
	if grep -q ',insns_per_io,' "$DIR/summary.csv" && grep -q -- '-all,insns_per_call,' "$DIR/summary.csv"; then
		printf '### The gate'"'"'s share of each workload'"'"'s instructions\n\n'
		printf 'Gate instructions per call = instructions per call of `submit_bio_noacct_nocheck` in this row minus the baseline'"'"'s (QEMU plugin, over all I/O of the boot); calls per I/O: calls counted by the plugin over the I/Os fio counted in the boot (above 1 when fio runs with ramp_time, whose I/Os it does not count, and in the polled boots, where the extra calls are not explained yet); instructions per I/O = 1e9 / IOPS under icount.\n\n'
		gate_share
	fi
	if has_workload '^randread-'; then
		printf '### Latency distribution (%s)\n\n' "$(view_time latency)"
		printf 'fio completion latency (clat) percentiles of the main workloads (1 vCPU, `submit_queues=1`), in guest ns.\n\n'
		pivot '^randread-' lat_ns lat_p50_ns lat_p99_ns lat_p999_ns
	fi
	if has_workload '^switch-'; then
		printf '### The cost of switching (%s)\n\n' "$(view_time switch)"
		printf 'Guest time of one write(2) to `error_injection` (clockio: clock_gettime right around the call), median over the boot'"'"'s %s cycles and the first cycle of the boot: `enable` is the first rule of all (static key 0 to 1: jump-label sites patched, CPUs synchronised), `add` a second rule on that disk, `add_other_disk` a first rule on another disk while the key is on, `removeall_other_disk` that disk'"'"'s removeall (key 2 to 1), `disable` the last removeall (1 to 0, patched back).\n\n' "$(setting SWITCH_CYCLES)"
		pivot '^switch-' switch_enable_ns switch_add_ns switch_add_other_disk_ns switch_removeall_other_disk_ns switch_disable_ns switch_enable_first_ns switch_disable_first_ns
	fi
	if has_workload '^pread-'; then
		printf '### The cost of an injected error (%s)\n\n' "$(view_time errcost)"
		printf 'Guest time per 4 KiB O_DIRECT read over %s reads (clockio pread, a fixed offset sequence); `fail-all` is one READ rule over all of nullb0, so every read ends in `bio_endio()` from the submit path with EIO instead of reaching the driver.\n\n' "$(setting ERRCOST_IOS)"
		pivot '^pread-' pread_ns_per_io io_errors
	fi
	if grep -q ',text_bytes,' "$DIR/summary.csv"; then
		printf '### Footprint (%s)\n\n' "$(view_time footprint)"
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
}
