#!/usr/bin/env bash
# Text a reviewer pastes fits 80 columns, without trailing spaces, and the
# report opens with its headline (issue 26, sections 2 and 4):
#  - every committed results/**/*.txt, except verbatim captures of other
#    tools and record files that scripts read back (EXEMPT below);
#  - the committed golden outputs of benchstat compare and of the coverage
#    table;
#  - outputs generated here from committed runs: bench/report/report.sh on the run
#    with a static answer (its headline: at most 8 lines, the +1 named the
#    jump-label NOP, "No cost beyond the NOP."), the same run with a planted
#    +2 per call (the headline names the cost beyond the NOP), bench/stats/compare.sh
#    on that planted change (exit 1, a REGRESSION row of +2), and
#    bench/run/per-patch.sh report on the committed per-patch run.
#
#   CACHE=... bash tests/host/width.sh     (builds benchstat into $CACHE/tools)
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="80 columns: committed results and generated reports; the headline"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"

WIDTH=80
# Verbatim captures of other tools (perf annotate, objdump, the guest's raw
# files, the test runner's lines with a mutant kernel's report in
# tests/mutants/run.sh's MUTANT.TEST.txt) and records read back by scripts
# (bench.sh's plan, the peers capability cells, per-patch failures with
# their log tail): kept as made.
EXEMPT='/(annotate|raw|footprint)/|/disasm\.txt$|/(plan|capability|failures)\.txt$|-mutants(-[a-z0-9-]+)?/([^/]+/)?[^/]+\.[0-9]{3}-[^/]+\.txt$'
static_run=$REPO_DIR/results/20261203-210846-tcg-icount
per_patch_run=$REPO_DIR/results/20261203-175803-per-patch

# too_wide FILE...: "FILE:LINE: N columns" or "FILE:LINE: trailing space" for
# each offending line; fails when there is one
too_wide() {
	awk -v w="$WIDTH" '
		length($0) > w { printf "%s:%d: %d columns\n", FILENAME, FNR, length($0); bad = 1 }
		/[ \t]$/ { printf "%s:%d: trailing space\n", FILENAME, FNR; bad = 1 }
		END { exit bad }' "$@"
}

# fits NAME FILE...: the files are within WIDTH, no trailing spaces
fits() {
	local name=$1 out
	shift
	if out=$(too_wide "$@"); then
		pass "$name"
	else
		head -5 <<<"$out" | sed 's/^/# /'
		fail "$name"
	fi
}

# headline FILE: the lines before report.txt's first blank line
headline() { awk '/^$/ { exit } { print }' "$1"; }

committed() {
	local files
	mapfile -t files < <(git -C "$REPO_DIR" ls-files 'results/*.txt' 'results/**/*.txt' |
		grep -Ev "$EXEMPT" | sed "s|^|$REPO_DIR/|")
	check "committed results: there are .txt files to check (${#files[@]})" test "${#files[@]}" -gt 10
	fits "every committed results/**/*.txt but captures and records" "${files[@]}"
	fits "benchstat compare golden outputs" "$REPO_DIR"/bench/stats/testdata/compare_*.expected
	fits "coverage table of the fixture" "$REPO_DIR/tests/coverage-fixture/expected.txt"
}

# plant_call DIR DELTA: DIR's summary.csv with on/key-off's count per call
# DELTA above the baseline's
plant_call() {
	awk -F, -v OFS=, -v d="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
		$1 == "off" && $2 == "off" && $3 ~ /^count-/ && $4 == "insns_per_call" { base = $c["median"] }
		$1 == "on" && $2 == "key-off" && $3 ~ /^count-/ && $4 == "insns_per_call" {
			$c["median"] = base + d; $c["min"] = $c["max"] = base + d; $c["delta"] = d
		}
		{ print }' "$static_run/summary.csv" >"$1/summary.csv.new"
	mv "$1/summary.csv.new" "$1/summary.csv"
}

reports() {
	local r=$SCRATCH/run rc=0
	cp -r "$static_run" "$r"
	"$REPO_DIR/bench/report/report.sh" "$r" >/dev/null 2>"$SCRATCH/report.err" || { cat "$SCRATCH/report.err"; fail "report.sh ran"; return; }
	fits "report.txt of the run with a static answer" "$r/report.txt"
	check "its headline is at most 8 lines ($(headline "$r/report.txt" | wc -l))" \
		test "$(headline "$r/report.txt" | wc -l)" -le 8
	check "its headline names the +1 the jump-label NOP" \
		grep -q '^idle gate (on/key-off vs off): +1 instruction per call, the jump-label NOP$' "$r/report.txt"
	check "  ... and no cost beyond it" grep -q 'No cost beyond the NOP\.$' <<<"$(headline "$r/report.txt" | unwrap)"
	check "  ... its body too, not \"slower\"" \
		grep -q '^    instructions per call: 43 (+1) the jump-label NOP (static)$' "$r/report.txt"
	check "report.md opens with the same headline" \
		grep -q '^- idle gate (on/key-off vs off): +1 instruction per call, the jump-label NOP (static diff agrees);' "$r/report.md"

	plant_call "$r" 2
	"$REPO_DIR/bench/report/report.sh" "$r" >/dev/null 2>&1
	check "a planted +2 per call: the headline names 1 instruction beyond the NOP" \
		grep -q 'Cost beyond the NOP: 1 instruction per call\.$' <<<"$(headline "$r/report.txt" | unwrap)"
	check "  ... and the body does not call it the NOP" grep -q '^    instructions per call: 44 (+2) slower$' "$r/report.txt"

	# The gate on the same planted change, from the runs.
	mkdir "$SCRATCH/slow"
	cp "$static_run/meta.json" "$SCRATCH/slow/"
	awk -F, -v OFS=, 'NR > 1 && $2 == "on" && $3 == "key-off" && $4 ~ /^count-/ && $7 == "insns_per_call" { $8 += 2 } { print }' \
		"$static_run/runs.csv" >"$SCRATCH/slow/runs.csv"
	# Relative to the checkout: compare.sh's first line names the runs as
	# given, so an absolute path would make the width depend on the clone's.
	(cd "$REPO_DIR" && bench/stats/compare.sh "${static_run#"$REPO_DIR"/}" "$SCRATCH/slow") \
		>"$SCRATCH/compare.out" 2>/dev/null || rc=$?
	check "compare.sh on the planted change exits 1 (got $rc)" test "$rc" = 1
	check "  ... its row: REGRESSION, +2 instructions per call" grep -Eq \
		'^on/key-off/count-randread-qd1/insns_per_call n 1\+1: 43 -> 45: REGRESSION slower: \+2 instructions per call ' \
		<<<"$(unwrap <"$SCRATCH/compare.out")"
	fits "compare.sh output" "$SCRATCH/compare.out"

	cp -r "$per_patch_run" "$SCRATCH/per-patch"
	"$REPO_DIR/bench/run/per-patch.sh" report "$SCRATCH/per-patch" >/dev/null 2>&1
	fits "per-patch report.txt" "$SCRATCH/per-patch/report.txt"
}

committed
# the reports' tools (benchstat) are built into the cache
export CACHE=${CACHE:-$REPO_DIR/.cache}
reports
finish
