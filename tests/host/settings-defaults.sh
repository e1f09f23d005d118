#!/usr/bin/env bash
# One default per setting, in one place: bench/plan/settings.table (and a
# job file where a matrix or a driver differs from it), read by the
# resolver alone (bench/lib/settings.sh); every script reads its settings
# from the plan (bench/lib/plan.sh plan_read), and a driver hands the
# scripts it runs a plan, never its environment (plan_call).  Fails on:
#  - a ${NAME:-default}, ${NAME-default} or ${NAME:=default} of a setting
#    of the table in a script, library, guest script or gnuplot-free
#    Makefile of bench/, plots/, perf-scripts/ and tests/mutants (their
#    tests aside), or
#    a "NAME ?= default" in a Makefile;
#  - a job file (bench/plan/jobs, bench/plan/drivers, bench/plan/views)
#    that sets a value the layers under it give already (the table's
#    default; default.job's, for another matrix), unless the driver fixes
#    it (FIXED);
#  - a driver of bench/run, or a library, that runs a script with a setting
#    in its environment (NAME=value before the command, env NAME=value,
#    export NAME=...) instead of handing it a plan.
#
#   tests/host/settings-defaults.sh     "ok"/"not ok" a line; exit 1 on a failure
# shellcheck disable=SC2034 # read by the runner, as blktests reads it
DESCRIPTION="one default per setting, the table's: none written in a script, none restated in a job file; drivers hand on plans"
set -euo pipefail
shopt -s inherit_errexit

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"
TABLE=$REPO_DIR/bench/plan/settings.table

# names: the settings of the table, one a line.
names() {
	awk -F'|' '/^[A-Z][A-Z0-9_]* *\|/ { gsub(/[ \t]/, "", $1); print $1 }' "$TABLE"
}

# default NAME: the table's default of NAME.
default() {
	awk -F'|' -v n="$1" '{ k = $1; gsub(/[ \t]/, "", k) } k == n { d = $4; gsub(/^[ \t]+|[ \t]+$/, "", d); print d; exit }' "$TABLE"
}

# scanned: the code the rule covers, one path a line: what runs on the
# host or in the guest under bench/, plots/ and perf-scripts/, the
# mutation drivers of tests/mutants, and the Makefiles; not the resolver,
# and not the tests, whose fixtures choose their own values.
scanned() {
	git -C "$REPO_DIR" ls-files -- bench plots perf-scripts tests/mutants Makefile | while read -r f; do
		case $f in
		bench/lib/settings.sh) continue ;;
		bench/stats/test.sh | bench/stats/gate-test.sh | bench/stats/r-check.sh | bench/stats/scale-bench.sh) continue ;;
		plots/test.sh | plots/testdata/*) continue ;;
		*.sh | bench/vm/run-guest | bench/guest/init | bench/plan/resolve | bench/plan/run | Makefile | */Makefile) ;;
		*) continue ;;
		esac
		printf '%s\n' "$f"
	done
}

# defaults_written FILE...: "FILE:LINE: TEXT" of each default of a setting
# written in FILE (shell: ${NAME:-x}, ${NAME-x}, ${NAME:=x}; make: NAME ?=
# x, but for kbuild's and make's own CC, O, ARCH, ...: a Makefile's CC is
# its compiler, not the kernel's).
defaults_written() {
	local re mre
	re=$(names | paste -sd'|' -)
	mre=$(names | grep -vxE 'CC|LLVM|O|ARCH|CROSS_COMPILE|KBUILD_OUTPUT' | paste -sd'|' -)
	(
		cd "$REPO_DIR" || exit
		grep -HnsE "\\\$\\{($re)(:?[-=])[^}]|^[[:space:]]*($mre)[[:space:]]*\\?=" "$@" |
			grep -vE '\?=[[:space:]]*\$\(error ' || true
	)
}

# restated: "FILE:LINE: NAME = VALUE" of each job file line that sets what
# the layers under it give already.
restated() {
	local f n v fixed def base
	for f in "$REPO_DIR"/bench/plan/jobs/*.job "$REPO_DIR"/bench/plan/drivers/*.job "$REPO_DIR"/bench/plan/views/*.job; do
		[[ -f $f ]] || continue
		fixed=$(sed -n 's/^[[:space:]]*FIXED[[:space:]]*=//p' "$f")
		while IFS='|' read -r line n v; do
			[[ $n != FIXED && " $fixed " != *" $n "* ]] || continue
			def=$(default "$n")
			base=''
			if [[ $f == */jobs/* && $f != */default.job ]]; then
				base=$(sed -n "s/^[[:space:]]*${n}[[:space:]]*=[[:space:]]*//p" "$REPO_DIR/bench/plan/jobs/default.job" | tr -s ' ' | sed 's/ *$//')
			fi
			[[ -n $base ]] || base=$def
			if [[ $v == "$base" && ($f != */views/* || -n $v) ]]; then
				printf '%s:%s: %s = %s (the layer under it gives %s)\n' "${f#"$REPO_DIR"/}" "$line" "$n" "$v" "'$base'"
			fi
		done < <(awk '/^[ \t]*(#|$)/ { next }
			{ k = $0; sub(/[ \t]*=.*/, "", k); gsub(/[ \t]/, "", k)
			  v = $0; sub(/^[^=]*=[ \t]*/, "", v); gsub(/[ \t]+/, " ", v); sub(/ $/, "", v)
			  print NR "|" k "|" v }' "$f")
	done
}

# handed_by_environment: "FILE:LINE: TEXT" of each line of a driver or
# library that puts a setting into the environment of a command: NAME=value
# before a command, env ... NAME=value, export NAME.
handed_by_environment() {
	local re
	re=$(names | paste -sd'|' -)
	(
		cd "$REPO_DIR" || exit
		grep -HnsE "(^|[;&|(][[:space:]]*|env ([^ ]+ )*)($re)=[^ ]* +([A-Za-z_]+=[^ ]* +)*(\"?\\\$(BENCH_DIR|REPO_DIR)|bench/|perf-scripts/|plots/)|^[[:space:]]*export[[:space:]]+($re)(=|$| )" \
			bench/run/*.sh bench/lib/*.sh bench/lab/*.sh || true
	)
}

# A planted default, a planted restated value and a planted handoff are
# found: the checks can fail.
planted() {
	local copy=$SCRATCH/copy out
	mkdir -p "$copy/bench/run" "$copy/bench/plan/jobs" "$copy/bench/plan/drivers" "$copy/bench/plan/views" "$copy/bench/lib" "$copy/bench/lab"
	cp "$TABLE" "$copy/bench/plan/"
	# shellcheck disable=SC2016 # the planted code, written as it is
	printf 'FIO_IOS=${FIO_IOS:-20000}\n' >"$copy/bench/run/planted.sh"
	printf 'CONFIGS = off\nFIO_IOS = 20000\n' >"$copy/bench/plan/jobs/default.job"
	# shellcheck disable=SC2016
	printf 'SEED=2 "$BENCH_DIR/run/bench.sh"\n' >"$copy/bench/lib/planted.sh"
	out=$(REPO_DIR=$copy; cd "$copy" && defaults_written bench/run/planted.sh)
	check "a planted \${FIO_IOS:-20000} is found" grep -q 'planted.sh:1:' <<<"$out"
	out=$(REPO_DIR=$copy restated)
	check "a job file's FIO_IOS = 20000, the table's default, is found" grep -q 'default.job:2: FIO_IOS = 20000' <<<"$out"
	out=$(REPO_DIR=$copy; cd "$copy" && handed_by_environment)
	check "a setting handed to a driver through the environment is found" grep -q 'planted.sh:1:' <<<"$out"
}

main() {
	local files out
	mapfile -t files < <(scanned)
	check "the code to scan is found (${#files[@]} files)" test "${#files[@]}" -gt 50
	out=$(defaults_written "${files[@]}")
	check "no default of a setting is written outside the resolver" test -z "$out"
	[[ -z $out ]] || printf '      %s\n' "${out//$'\n'/$'\n'      }"
	out=$(restated)
	check "no job file restates what the layers under it give" test -z "$out"
	[[ -z $out ]] || printf '      %s\n' "${out//$'\n'/$'\n'      }"
	out=$(handed_by_environment)
	check "no driver or library hands a setting on through the environment" test -z "$out"
	[[ -z $out ]] || printf '      %s\n' "${out//$'\n'/$'\n'      }"
	planted
	finish
}

main "$@"
