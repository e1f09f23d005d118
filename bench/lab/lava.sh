# shellcheck shell=bash
# What the lab tools share: how each starts (lab_start), and what the LAVA
# jobs of bench/lab/lava-jobs.sh and their reader, bench/lab/lava-results.sh,
# agree on.  Sourcing it sources bench/lib/lib.sh and defines functions and
# constants, nothing else.

# shellcheck source=bench/lib/lib.sh
. "${BASH_SOURCE[0]%/*}/../lib/lib.sh"

# lab_start DRIVER 'NAME...' SCRIPT [ARG...]: a lab tool's start
# (tool_start: the settings NAME... of DRIVER's), then bad input as die's
# status (what a lab tool refuses is the pieces, results or settings it
# was given).
lab_start() {
	tool_start "$1" "$2" -- "${@:3}"
	DIE_STATUS=$STATUS_BAD_INPUT
}

# The jobs' monitors test action: its name (the results' suite), the line
# it starts and ends at (bench/guest/init prints both on the console) and
# its pattern, one value a line: the guest's "BIB-LAVA CASE VALUE UNIT"
# (bench/lab/lava-guest.sh) and the insncount plugin's "insncount CASE
# VALUE UNIT" (format=cases, written by QEMU on the same console).
# shellcheck disable=SC2034 # read by the scripts that source this file
LAVA_SUITE=blkinject-bench
# shellcheck disable=SC2034
LAVA_START='BLKINJECT-STAGE script'
# shellcheck disable=SC2034
LAVA_END='BLKINJECT-EXIT rc='
# shellcheck disable=SC2034
LAVA_PATTERN='(?:BIB-LAVA|insncount) (?P<test_case_id>[\w./-]+) (?P<measurement>-?[0-9][0-9.eE+-]*) (?P<units>\w+)'

# The accelerators a lab's device type boots with: our device
# (bench/lab/qemu-tcg-icount.yaml) and a KVM one.
# shellcheck disable=SC2034
LAB_ACCELS="tcg-icount kvm"

# Debian's Python, which has lava-dispatcher's modules and YAML (a python3
# earlier on PATH, e.g. pyenv's, may have neither).
LAVA_PYTHON=/usr/bin/python3

# yaml_to_json FILE: a YAML document as JSON on stdout; also the stream
# lava-run writes on stderr, one flow mapping a line without the "- " of
# a sequence.  Non-zero when FILE is not YAML.
yaml_to_json() {
	"$LAVA_PYTHON" -c '
import json, sys, yaml
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
lines = [line for line in text.splitlines() if line.strip()]
if lines and lines[0].lstrip().startswith("{"):
    text = "\n".join("- " + line for line in lines)
try:
    data = yaml.safe_load(text)
except yaml.YAMLError as exc:
    sys.exit("not YAML: %s" % str(exc).replace("\n", " "))
json.dump(data, sys.stdout, default=str)
' "$1"
}

# env_lines ARRAY FILE: FILE's KEY=VALUE lines (a job folder's boot.env
# and guest.env) into the associative ARRAY, read by the shell, not
# sourced (a key on several lines: its values, a line each).
env_lines() {
	local -n env_lines_into=$1
	local line key
	env_lines_into=()
	while IFS= read -r line || [[ -n $line ]]; do
		[[ $line =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || continue
		key=${BASH_REMATCH[1]}
		# shellcheck disable=SC2004 # an associative array (the caller's, by name)
		env_lines_into[$key]+=${env_lines_into[$key]+$'\n'}${BASH_REMATCH[2]}
	done <"$2"
}
