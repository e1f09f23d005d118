#!/usr/bin/env bash
# Write RESULTS_DIR/report.md: the run's metadata, what its numbers mean
# under its accelerator, tables of verdicts and instruction counts, and the
# figures from RESULTS_DIR/plots.
#
#   report.sh RESULTS_DIR
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# meta KEY: a value of meta.env, which is written with printf %q.
meta() {
	bash -c '. "$1" && printf %s "${!2:-}"' _ "$DIR/meta.env" "$1"
}

accel_meaning() {
	case $(meta ACCEL) in
	tcg-icount)
		echo "Guest ran under QEMU TCG with \`-icount shift=0\`: guest time advances 1 ns per guest instruction, so IOPS and latencies here are instruction counts in disguise (IOPS = 1e9 / instructions per I/O), free of host noise. The \`deterministic\` column of summary.csv says whether this run's repeats were identical (runs made before \`-seed\` and a guest-clock RTC were added to tcg-icount could differ by up to 0.1%). They rank the configs by instructions executed, not by hardware time; caches, branch prediction and the NOP's own cost on real silicon are invisible."
		;;
	tcg)
		echo "Guest ran under QEMU TCG (software emulation, no KVM): IOPS follow host wall time of an emulator, a noisy and distorted picture of hardware cost. Differences smaller than the CIs mean nothing."
		;;
	kvm)
		echo "Guest ran under KVM: IOPS and cycles are hardware measurements (with a vPMU where available)."
		;;
	*) echo "Unknown accelerator." ;;
	esac
}

# Markdown table of summary rows matching a workload/metric regex.
table() {
	local pattern=$1 header=$2
	printf '%s\n' "$header"
	printf '%s\n' "$(printf '%s' "$header" | sed 's/[^|]/-/g')"
	awk -F, -v pat="$pattern" '
		NR > 1 && ($3 "," $4) ~ pat {
			ci = ($10 == "" ? "n/a" : sprintf("%.6g..%.6g (%.1f%%)", $10, $11, 100 * $12))
			rel = ($13 == "" ? "" : sprintf("%+.3f%%", $13))
			printf "| %s | %s | %s | %s | %.6g | %s | %s | %s | %s |\n", $1, $2, $3, $4, $7, ci, $5, rel, $16
		}' "$DIR/summary.csv"
}

figures() {
	local f
	for f in iops relative insns-per-call rules-scaling cycles; do
		[[ -f $DIR/plots/$f.png ]] && printf '![%s](plots/%s.png)\n\n' "$f" "$f"
	done
	return 0
}

# shellcheck disable=SC2016 # backticks in the text are Markdown
main() {
	DIR=${1:?usage: report.sh RESULTS_DIR}
	[[ -f $DIR/summary.csv && -f $DIR/meta.env ]] || die "$DIR has no summary.csv/meta.env"
	{
		printf '# blkinject-bench report: %s\n\n' "$(meta RUN_ID)"
		printf '| | |\n|---|---|\n'
		printf '| date | %s |\n| accelerator | %s |\n| host CPU | %s |\n' "$(meta DATE)" "$(meta ACCEL)" "$(meta HOST_CPU)"
		printf '| QEMU | %s |\n| kernel | %s (%s) |\n' "$(meta QEMU)" "$(meta KERNEL_RELEASE)" "$(meta KERNEL_SOURCE)"
		printf '| patch series sha256 | %s |\n| repository commit | %s |\n\n' "$(meta SERIES_SHA256)" "$(meta GIT_COMMIT)"
		printf 'Reproduce with:\n\n```\n%s\n```\n\n' "$(meta COMMAND)"
		printf '%s\n\n' "$(accel_meaning)"
		printf 'Verdicts compare each row with the baseline row `%s` on the same workload:' "$(meta BASELINE)"
		printf ' the CI of the median is distribution-free (order statistics, its exact coverage in brackets); the change is a percentile bootstrap of the ratio of medians; "indistinguishable" means its CI contains 0. See bench/stats/README.md.\n\n'
		if grep -q ',iops,' "$DIR/summary.csv"; then
			printf '## IOPS\n\n'
			table ',iops$' '| config | state | workload | metric | median | CI of median | n | vs baseline | verdict |'
			echo
		fi
		if grep -q ',insns_per_call,' "$DIR/summary.csv"; then
			printf '## Instructions per call (exact, QEMU plugin under icount)\n\n'
			table 'insns_per_call$|calls_per_io$' '| config | state | workload | metric | median | CI of median | n | vs baseline | verdict |'
			echo
		fi
		if grep -q ',cycles_per_io,' "$DIR/summary.csv"; then
			printf '## Cycles per I/O (KVM vPMU)\n\n'
			table 'cycles_per_io$' '| config | state | workload | metric | median | CI of median | n | vs baseline | verdict |'
			echo
		else
			printf 'No cycles in this run: the guest had no PMU (cycles need KVM with a vPMU).\n\n'
		fi
		if [[ -d $DIR/annotate && -f $DIR/annotate/on-key-off.txt ]]; then
			printf '## perf annotate of the gate (on, key-off)\n\n```\n'
			grep -B3 -A6 -m1 -i 'nop\|xchg' "$DIR/annotate/on-key-off.txt" || head -30 "$DIR/annotate/on-key-off.txt"
			printf '```\n\n'
		fi
		if [[ -s $DIR/failures.txt ]]; then
			printf '## Failed runs (excluded from every statistic)\n\n```\n'
			cat "$DIR/failures.txt"
			printf '```\n\n'
		fi
		printf '## Figures\n\n'
		figures
	} >"$DIR/report.md"
	log "report: $DIR/report.md"
}

main "$@"
