#!/usr/bin/env bash
# A results directory as KCIDB I/O data (schema v5.3, the newest of
# kernelci/kcidb-io), on stdout: one checkout (the kernel source and the
# series), one build per config, one test per config x state x workload x
# metric with its median as the test's number.  A per-patch run's rows
# were built from different sources: each prefix of the series is a
# checkout of its own (p0 the source alone, pK its first K patches, off
# the whole series), each build on its own.  docs/lab.md "KCIDB export"
# has the mapping.
#
#   export-kcidb.sh RESULTS_DIR > kcidb.json
#
# KCIDB_ORIGIN (a setting, [a-z0-9_]+; its default blkinject_bench is the
# table's) is the CI system the IDs name: a lab submits under its own.
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
tool_start export 'CACHE KCIDB_ORIGIN' -- "$0" "$@"

# prefixes DIR: a per-patch run's sources, {LABEL: {series_sha256,
# patches}} (prefixes.txt says what each row is; each row's meta.json in
# rows.tar.xz the hash of what was applied); {} for any other run.
prefixes() {
	local dir=$1 tmp label what applied='' sha
	local -A shas=()
	if [[ ! -f $dir/prefixes.txt ]]; then
		echo '{}'
		return
	fi
	[[ -f $dir/rows.tar.xz ]] || die_bad_input "$dir: a per-patch run (prefixes.txt) without rows.tar.xz: which source each row was built from is unknown"
	tmp=$(mktemp -d)
	tar -C "$tmp" -xJf "$dir/rows.tar.xz" --wildcards 'rows/*/meta.json'
	for label in "$tmp"/rows/*/; do
		label=${label%/}
		shas[${label##*/}]=$(jq -r '.SERIES_SHA256 // ""' "$label/meta.json")
	done
	rm -rf "$tmp"
	while read -r label what; do
		case $label in
		p0) jq -n --arg l p0 '{($l): {series_sha256: "none", patches: ""}}' ;;
		off) jq -n --arg l off --arg s "${shas[off]:-}" --arg p "$applied" '{($l): {series_sha256: $s, patches: $p}}' ;;
		*)
			applied+="${applied:+ }${what%% *}"
			sha=${shas[$label]:-}
			[[ -n $sha ]] || die_bad_input "$dir: row $label has no meta.json in rows.tar.xz"
			jq -n --arg l "$label" --arg s "$sha" --arg p "$applied" '{($l): {series_sha256: $s, patches: $p}}'
			;;
		esac
	done <"$dir/prefixes.txt" | jq -s 'add // {}'
}

main() {
	local dir=${1:-}
	[[ $# -eq 1 && -n $dir ]] || die_bad_input "usage: export-kcidb.sh RESULTS_DIR (a directory with summary.json, e.g. results/<run>)"
	[[ -f $dir/summary.json ]] || die_bad_input "$dir is not a results directory (no summary.json; bench/stats/summarise.sh makes one from runs.csv)"
	jq --arg origin "$KCIDB_ORIGIN" --argjson prefixes "$(prefixes "$dir")" '
		def clean: with_entries(select(.value != null and .value != ""));
		def unit:
			if . == "iops" then "IOPS"
			elif test("_per_call$") then "insn/call"
			elif . == "calls_per_io" then "calls/IO"
			elif test("^(insns|instructions)_per_io$") then "insn/IO"
			elif . == "cycles_per_io" then "cycles/IO"
			elif test("_ns_per_io$") then "ns/IO"
			elif test("_ns$") then "ns"
			elif test("_bytes$") then "B"
			elif test("_pct$") then "%"
			elif . == "io_errors" then "errors"
			else null end;
		# PASS/FAIL where the verdict judges a gating metric (as
		# bench/stats/compare.sh does), DONE for a measurement without one,
		# ERROR when every repeat failed.
		def status:
			if .median == null then "ERROR"
			elif .gates and .verdict == "slower" then "FAIL"
			elif .gates and (.verdict | IN("same", "within-threshold", "faster")) then "PASS"
			else "DONE" end;
		.meta as $m |
		($m.RUN_ID) as $run |
		($m.DATE // null) as $date |
		# the series applied to a config: its prefix in a per-patch run,
		# else the one of the run
		def series($cfg): $prefixes[$cfg] // {series_sha256: $m.SERIES_SHA256};
		def checkout_id($cfg): "\($origin):" + ("\($m.KERNEL_SOURCE // "unknown")+series-\(series($cfg).series_sha256 // "unknown")" | gsub("[^A-Za-z0-9._~+-]"; "_"));
		def build_id($cfg): "\($origin):" + ($m.BUILDS[$cfg].build_id // "" | if . == "" then "\($run).\($cfg)" else . end);
		(.summary | map(.config) | unique) as $configs |
		{
			version: {major: 5, minor: 3},
			checkouts: [$configs[] as $cfg | {
				id: checkout_id($cfg), origin: $origin,
				tree_name: $m.KERNEL_SOURCE, start_time: $date, valid: true,
				misc: ({series_sha256: series($cfg).series_sha256, patches: series($cfg).patches,
					blkinject_bench_commit: $m.GIT_COMMIT, kernel_release: $m.KERNEL_RELEASE} | clean)
			} | clean] | unique_by(.id),
			builds: [$configs[] as $cfg | {
				id: build_id($cfg), checkout_id: checkout_id($cfg), origin: $origin,
				config_name: $cfg, architecture: "x86_64", compiler: $m.GCC, status: "PASS",
				misc: ($m.BUILDS[$cfg] // {} | clean)
			} | clean],
			tests: [.summary[] | . as $r | {
				id: "\($origin):\($run).\(.config).\(.state).\(.workload).\(.metric)",
				build_id: build_id(.config), origin: $origin,
				path: "blkinject.\(.state).\(.workload).\(.metric)",
				status: status,
				number: (if .median == null then null else ({value: .median, unit: (.metric | unit)} | clean) end),
				start_time: $date,
				environment: {comment: "QEMU \($m.ACCEL) on \($m.HOST_CPU // "unknown")",
					misc: ({accel: $m.ACCEL, host_cpu: $m.HOST_CPU, host_kernel: $m.HOST_KERNEL, qemu: $m.QEMU} | clean)},
				misc: ($r | {config, state, workload, metric, class, n, n_failed, min, max, ci_lo, ci_hi, delta,
					rel_change_pct, verdict, verdict_text, gates, baseline: $m.BASELINE} | clean)
			} | clean]
		}' "$dir/summary.json"
}

main "$@"
