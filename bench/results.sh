# shellcheck shell=bash
# Shared by the benchmark and perf drivers: the matrix, result metadata,
# block splitting and summaries.  Needs bench/lib.sh.

BENCH_CONFIGS=${BENCH_CONFIGS:-off on on-nojl nokey}
STATES=${STATES:-key-off key-on-other rules-1 rules-10 rules-100 rules-1000 match-chance}
# The row every other row is compared with: "CONFIG STATE".
BASELINE=${BASELINE:-off off}

benchstat_bin() {
	make -s -C "$BENCH_DIR/stats" OUT="$CACHE/tools" "$CACHE/tools/benchstat" >&2
	printf '%s\n' "$CACHE/tools/benchstat"
}

# Rows of the matrix: "config state", the baseline first.
matrix_rows() {
	local cfg state
	for cfg in $BENCH_CONFIGS; do
		if [[ $cfg == off ]]; then
			printf 'off off\n'
			continue
		fi
		for state in $STATES; do
			printf '%s %s\n' "$cfg" "$state"
		done
	done
}

# split_blocks LOG DIR: each "=== NAME ===" ... "=== end ===" block of LOG
# into DIR/NAME (spaces in NAME become dashes).
split_blocks() {
	awk -v dir="$2" '
		/^=== end ===$/ { if (file != "") close(file); file = ""; next }
		/^=== .* ===$/ {
			name = substr($0, 5, length($0) - 8); gsub(/ /, "-", name)
			file = dir "/" name; printf "" > file; next
		}
		file != "" { print >> file }
	' "$1"
}

# write_meta DIR ACCEL COMMAND: what is needed to reproduce a run.
write_meta() {
	local dir=$1 accel=$2 command=$3 cfg
	{
		printf 'RUN_ID=%s\nDATE=%s\nACCEL=%s\n' "$RUN_ID" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$accel"
		printf 'HOST_CPU=%q\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
		printf 'HOST_NPROC=%s\n' "$(nproc)"
		printf 'QEMU=%q\n' "$(qemu-system-x86_64 --version | head -1)"
		printf 'KERNEL_SOURCE=%q\n' "linux-source-6.12 $(cat "$CACHE/src/pristine/.blkinject-version")"
		printf 'KERNEL_RELEASE=%s\n' "$(cat "$(kernel_build_dir on)/include/config/kernel.release" 2>/dev/null || echo unknown)"
		printf 'SERIES_SHA256=%s\n' "$(cat "$REPO_DIR"/patches/series "$REPO_DIR"/patches/*.patch | sha256sum | cut -c1-16)"
		printf 'GIT_COMMIT=%s\n' "$(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo none)$(git -C "$REPO_DIR" diff --quiet HEAD 2>/dev/null || echo -dirty)"
		for cfg in $BENCH_CONFIGS; do
			printf 'CONFIG_SHA256_%s=%s\n' "${cfg//-/_}" \
				"$(sha256sum "$(kernel_build_dir "$cfg")/.config" | cut -c1-16)"
		done
		printf 'BENCH_CONFIGS=%q\nSTATES=%q\nBASELINE=%q\n' "$BENCH_CONFIGS" "$STATES" "$BASELINE"
		printf 'COMMAND=%q\n' "$command"
	} >"$dir/meta.env"
}

# summarise DIR: summary.csv and summary.json from DIR/runs.csv, with the
# rows in matrix order (configs as in BENCH_CONFIGS, states as in STATES)
# rather than in the shuffled run order.
summarise() {
	local dir=$1 sorted
	sorted=$(mktemp)
	awk -F, -v configs="$BENCH_CONFIGS" -v states="off $STATES" '
		BEGIN { n = split(configs, c, " "); for (i = 1; i <= n; i++) co[c[i]] = i
			n = split(states, s, " "); for (i = 1; i <= n; i++) so[s[i]] = i }
		NR == 1 { print "0\t0\t0\t" $0; next }
		{ printf "%d\t%d\t%d\t%s\n", co[$2] + 0, so[$3] + 0, NR, $0 }
	' "$dir/runs.csv" | sort -t "$(printf '\t')" -k1,1n -k2,2n -k3,3n | cut -f4- >"$sorted"
	"$(benchstat_bin)" summary --baseline-config "${BASELINE% *}" \
		--baseline-state "${BASELINE#* }" "$sorted" >"$dir/summary.csv"
	rm -f "$sorted"
	write_summary_json "$dir"
}

# summary.json: the metadata and the summary rows, for tools.
write_summary_json() {
	local dir=$1
	jq -R -s '
		split("\n") | map(select(length > 0)) |
		(.[0] | split(",")) as $h |
		.[1:] | map(split(",") as $v | [$h, $v] | transpose | map({(.[0]): .[1]}) | add)
	' "$dir/summary.csv" >"$dir/summary.rows.json"
	jq -R -s '
		split("\n") | map(select(test("^[A-Z_0-9]+=")) | capture("^(?<k>[A-Z_0-9]+)=(?<v>.*)$")) |
		map({(.k): (.v | sub("^\\$?'"'"'"; "") | sub("'"'"'$"; ""))}) | add
	' "$dir/meta.env" >"$dir/meta.json"
	jq -n --slurpfile m "$dir/meta.json" --slurpfile r "$dir/summary.rows.json" \
		'{meta: $m[0], summary: $r[0]}' >"$dir/summary.json"
	rm -f "$dir/summary.rows.json" "$dir/meta.json"
}

fmt_duration() {
	printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}

