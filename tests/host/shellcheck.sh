#!/usr/bin/env bash
# Every shell script of the repository passes shellcheck: the tracked
# *.sh, the runner, the guest's init, the resolver and make's way in, and
# the guest tests; "ok - FILE" or "not ok - FILE" with shellcheck's findings
# below it.  One shellcheck a file, the host's cores at once (a single
# process over every file takes as long as one core needs for all).
#
#   tests/host/shellcheck.sh     "ok"/"not ok" a line; exit 1 on a failure
set -euo pipefail
shopt -s inherit_errexit
# shellcheck disable=SC2034 # read by tests/check.sh, as blktests reads it
DESCRIPTION="shellcheck: every shell script, a line a file"

# shellcheck source=tests/lib/assert.sh
. "$(dirname "$0")/../lib/assert.sh"
test_init "$0" "$@"

# shell_scripts: the files to check, relative to the checkout, in order.
shell_scripts() {
	git -C "$REPO_DIR" ls-files | while read -r f; do
		[[ -f $REPO_DIR/$f ]] || continue
		case $f in
		*.sh | bench/vm/run-guest | bench/guest/init | bench/plan/resolve | bench/plan/run) printf '%s\n' "$f" ;;
		tests/block/[0-9]*[!t]) [[ $f == *.out ]] || printf '%s\n' "$f" ;;
		esac
	done
}

# sourced: the files the scripts source, as shellcheck -x follows them
# (the paths of "# shellcheck source=" directives, and literal paths).
sourced() {
	(cd "$REPO_DIR" && git ls-files | xargs grep -hoE -e '^# shellcheck source=[^ ]+' \
		-e '^[[:space:]]*(\.|source) [A-Za-z0-9_./-]+$' 2>/dev/null |
		sed -E 's/^# shellcheck source=//; s/^[[:space:]]*(\.|source) //' | sort -u |
		while read -r f; do [[ ! -f $f ]] || printf '%s\n' "$f"; done)
}

# context_hash: what every file's answer depends on besides the file.
context_hash() {
	{
		shellcheck --version
		cat "$REPO_DIR/.shellcheckrc" 2>/dev/null || :
		sourced | while read -r f; do printf '%s\n' "$f"; cat "$REPO_DIR/$f"; done
	} | sha256sum | cut -c1-32
}

# lint FILE KEY: shellcheck -x FILE (in the checkout, as the directives'
# paths are written), its findings in SCRATCH/FILE.out, a mark
# SCRATCH/FILE.bad when it found any; DONE/KEY remembered when it passes.
lint() {
	local out=$SCRATCH/${1//\//_}
	if (cd "$REPO_DIR" && shellcheck -x "$1") >"$out.out" 2>&1; then
		: >"$DONE/$2"
	else
		: >"$out.bad"
	fi
}

main() {
	local -a files sums todo
	local -A known=()
	local f out note i key
	mapfile -t files < <(shell_scripts)
	check "there are shell scripts to check (${#files[@]})" test "${#files[@]}" -gt 50
	DONE=${CACHE:-$REPO_DIR/.cache}/check/shellcheck
	mkdir -p "$DONE"
	CONTEXT=$(context_hash)
	# A file's verdict holds while its content and CONTEXT do: its key
	# names both, the content by one git hash-object for every file (the
	# working tree's bytes), not a hash process a file.
	mapfile -t sums < <(cd "$REPO_DIR" && git hash-object -- "${files[@]}")
	check "a content hash for each script" test "${#sums[@]}" = "${#files[@]}"
	todo=()
	for i in "${!files[@]}"; do
		f=${files[i]}
		key=$CONTEXT.${sums[i]}.${f//\//_}
		if [[ -e $DONE/$key ]]; then
			known[$f]=1
		else
			todo+=("$f" "$key")
		fi
	done
	export -f lint
	export REPO_DIR SCRATCH DONE
	# shellcheck disable=SC2016 # expanded by the bash xargs runs
	((${#todo[@]} == 0)) || printf '%s\0' "${todo[@]}" | xargs -0 -n 2 -P "$(nproc)" bash -c 'lint "$1" "$2"' lint
	for f in "${files[@]}"; do
		out=$SCRATCH/${f//\//_}
		note=''
		[[ -z ${known[$f]:-} ]] || note=' (passed as it is)'
		check "$f$note" test ! -e "$out.bad"
		[[ ! -e $out.bad ]] || sed 's/^/    /' "$out.out"
	done
	finish
}

main "$@"
