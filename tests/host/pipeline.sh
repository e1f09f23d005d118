#!/usr/bin/env bash
# One pipeline (issue 23): each step has one place in the code, and no
# driver does it on its own.
#   - Every boot goes through boot_guest (bench/lib/boot.sh): no other
#     script runs bench/vm/run-guest with an output directory (-o); only
#     the accelerator probe (-A), which boots nothing of ours, may call
#     it directly.
#   - Every run's directory is made under results_root
#     (bench/lib/results.sh): no driver names the repository's results/.
#   - boot_verdict says why a boot the runner refused ended (no meta
#     written) with errexit on, as in soak.sh's background boots.
# A line that breaks a rule is named in the failure.
#
#   tests/host/pipeline.sh
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="one pipeline: every boot through boot_guest, every run under results_root"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"

# scripts: the tracked shell scripts of the stages and the mutation
# runs, a driver of its own (not the rest of tests/, whose checks call
# the runner to test it)
scripts() {
	git -C "$REPO_DIR" ls-files 'bench/*.sh' 'bench/vm/*' 'bench/plan/*' 'perf-scripts/*.sh' 'plots/*.sh' \
		'tests/mutants/*.sh' |
		grep -vx 'bench/vm/run-guest'
}

# hits ERE [EXCLUDE-ERE]: the lines of the scripts matching ERE (and not
# EXCLUDE-ERE), "FILE:LINE: TEXT" joined by "; ".
hits() {
	local out
	out=$(cd "$REPO_DIR" && { scripts | xargs grep -nE "$1" /dev/null | grep -vE "${2:-^$}" || true; })
	printf '%s' "${out//$'\n'/; }"
}

# refused_verdict: boot_verdict of a boot whose runner refused its
# arguments (a log line, no OUT/meta), in a shell with errexit on.
refused_verdict() {
	mkdir -p "$SCRATCH/refused"
	printf 'run-guest: -a kvm: /dev/kvm is missing\n' >"$SCRATCH/refused.log"
	bash -c 'set -euo pipefail; shopt -s inherit_errexit; . "$1"; boot_verdict "$2" 4' _ \
		"$REPO_DIR/bench/lib/boot.sh" "$SCRATCH/refused"
}

main() {
	local out
	out=$(hits 'vm/run-guest"' 'bench/lib/boot\.sh:|run-guest" -A |^[^:]*:[0-9]+:[[:space:]]*#')
	check "every boot goes through boot_guest${out:+ (not: $out)}" test -z "$out"
	out=$(hits 'REPO_DIR\}?/results' '^bench/lib/results\.sh:')
	check "every run's directory is made under results_root${out:+ (not: $out)}" test -z "$out"
	out=$(hits '^(boot_guest|boot_collect|results_root)\(\)' '^bench/lib/(boot|results)\.sh:')
	check "boot_guest, boot_collect and results_root are defined once${out:+ (not: $out)}" test -z "$out"
	out=$(refused_verdict 2>&1 || true)
	check "boot_verdict of a refused boot under errexit: '$out'" \
		test "$out" = "run-guest exit 4: run-guest: -a kvm: /dev/kvm is missing"
	finish
}

main "$@"
