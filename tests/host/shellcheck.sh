#!/usr/bin/env bash
# Every shell script of the repository passes shellcheck: the tracked
# *.sh, the runner, the guest's init, the resolver and make's way in, and
# the guest tests; "ok - FILE" or "not ok - FILE" with shellcheck's findings
# below it.  One shellcheck a batch of files, four batches a core, the
# host's cores at once (one process over every file would leave a core
# idle; one a file starts a process and grows its heap every time).  A
# pass is remembered in CACHE (check/shellcheck) under a key of the file's
# bytes and its closure's (what it sources, followed), so that an edit
# checks again the edited file and those that source it, not every file.
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

# closures FILE...: each FILE's closure, "FILE<TAB>SOURCED..." a line: the
# files shellcheck -x reads besides FILE (the paths of "# shellcheck
# source=" directives, indented ones too, and literal paths of . and
# source that exist in the checkout), followed through the files they
# name in turn.  One grep over every tracked file for the edges.
closures() {
	(cd "$REPO_DIR" && git ls-files -z | xargs -0 grep -HoE -e '^[[:space:]]*# shellcheck source=[^ ]+' \
		-e '^[[:space:]]*(\.|source) [A-Za-z0-9_./-]+$' 2>/dev/null |
		awk -v scripts="$(printf '%s\n' "$@")" '
			function exists(p,   l, r) { if (p ~ /^\/dev\//) return 0; r = (getline l < p); close(p); return r >= 0 }
			{
				f = $0; sub(/:.*/, "", f); p = substr($0, length(f) + 2)
				sub(/^[[:space:]]*(# shellcheck source=|\. |source )/, "", p)
				if (exists(p)) edge[f] = edge[f] " " p
			}
			END {
				n = split(scripts, list, "\n")
				for (i = 1; i <= n; i++) {
					delete seen; queue = edge[list[i]]; out = ""
					while (split(queue, q, " ") > 0) {
						p = q[1]; sub(/^ *[^ ]+/, "", queue)
						if (p in seen || p == list[i]) continue
						seen[p] = 1; out = out " " p; queue = queue " " edge[p]
					}
					print list[i] "\t" out
				}
			}')
}

# closure_hashes: CLOSURE_HASH[x"MEMBERS"] for each distinct closure of
# the array closure: what a verdict depends on besides its file (the
# version of shellcheck, the rc file, each member named with the hash of
# its bytes).  Four processes in all, not a few for each closure.
closure_hashes() {
	local -A member_hash=() index=()
	local -a members=() sums=() lists=()
	local m list version rc i
	for list in "${closure[@]}"; do
		[[ -z ${index[x$list]:-} ]] || continue
		index[x$list]=${#lists[@]}
		lists+=("$list")
		for m in $list; do
			[[ -n ${member_hash[$m]:-} ]] || { member_hash[$m]=-; members+=("$m"); }
		done
	done
	if ((${#members[@]} > 0)); then
		mapfile -t sums < <(cd "$REPO_DIR" && git hash-object -- "${members[@]}")
		for i in "${!members[@]}"; do member_hash[${members[i]}]=${sums[i]}; done
	fi
	version=$(shellcheck --version)
	rc=''
	[[ ! -f $REPO_DIR/.shellcheckrc ]] || rc=$(<"$REPO_DIR/.shellcheckrc")
	mkdir -p "$SCRATCH/closures"
	for i in "${!lists[@]}"; do
		{
			printf '%s\n%s\n' "$version" "$rc"
			for m in ${lists[i]}; do printf '%s %s\n' "$m" "${member_hash[$m]}"; done
		} >"$SCRATCH/closures/$i"
	done
	mapfile -t sums < <(cd "$SCRATCH/closures" && sha256sum -- "${!lists[@]}")
	for i in "${!lists[@]}"; do CLOSURE_HASH[x${lists[i]}]=${sums[i]:0:32}; done
}

# lint FILE KEY: shellcheck -x FILE (run in the checkout, as the
# directives' paths are written), its findings in SCRATCH/FILE.out, a
# mark SCRATCH/FILE.bad when it found any; DONE/KEY remembered when it
# passes.
lint() {
	local out=$SCRATCH/${1//\//_}
	if shellcheck -x "$1" >"$out.out" 2>&1; then
		: >"$DONE/$2"
	else
		: >"$out.bad"
	fi
}

# lint_batch FILE KEY [FILE KEY]...: lint of each, by one shellcheck over
# all of them (a process starts and grows its heap once, not a file each:
# a fifth less CPU).  A file among its findings (lines "FILE:LINE:COL:
# ..." of -f gcc, which names only the files given) is linted again alone,
# for its findings as lint shows them; so is every file when shellcheck
# could not check them all (exit status above 1), or failed naming none.
lint_batch() {
	local -a names=() keys=()
	local -A found=()
	local out rc=0 i line named=0
	while (($# >= 2)); do names+=("$1") keys+=("$2"); shift 2; done
	out=$SCRATCH/batch.$BASHPID
	shellcheck -x -f gcc "${names[@]}" >"$out" 2>&1 || rc=$?
	while IFS= read -r line; do found[${line%%:*}]=1; done <"$out"
	for i in "${!names[@]}"; do [[ -z ${found[${names[i]}]:-} ]] || named=1; done
	# a failure that names none of the files: each checked alone
	((rc == 0 || named == 1)) || rc=2
	for i in "${!names[@]}"; do
		if ((rc > 1)) || [[ -n ${found[${names[i]}]:-} ]]; then
			lint "${names[i]}" "${keys[i]}"
		else
			: >"$DONE/${keys[i]}"
		fi
	done
}

# batches BATCHES FILE KEY...: the pairs dealt to BATCHES batches in turn
# (files of like size spread, so that no core is left with the largest),
# each batch its FILE and KEY lines, NUL-terminated, for xargs.
batches() {
	local n=$1 i
	shift
	local -a batch=()
	for ((i = 0; i < $# / 2; i++)); do
		batch[i % n]+=$'\n'"${*:2*i+1:1}"$'\n'"${*:2*i+2:1}"
	done
	for i in "${!batch[@]}"; do printf '%s\0' "${batch[i]#$'\n'}"; done
}

main() {
	local -a files sums todo
	local -A known=() closure=()
	declare -gA CLOSURE_HASH=()
	local f out note i key members cores
	mapfile -t files < <(shell_scripts)
	check "there are shell scripts to check (${#files[@]})" test "${#files[@]}" -gt 50
	DONE=${CACHE:-$REPO_DIR/.cache}/check/shellcheck
	mkdir -p "$DONE"
	# A verdict holds while the file's bytes and its closure's do: an
	# edit to one library checks again the files that source it, not all.
	while IFS=$'\t' read -r f members; do closure[$f]=$members; done < <(closures "${files[@]}")
	check "a closure for each script" test "${#closure[@]}" = "${#files[@]}"
	check "  ... a library's own sources followed (bench/run/all.sh: bench/lib/plan.sh, by lib.sh)" \
		test -z "${closure[bench/run/all.sh]##* bench/lib/plan.sh*}"
	check "  ... an indented directive followed (tests/host/summaries.sh: bench/lib/lib.sh)" \
		test -z "${closure[tests/host/summaries.sh]##* bench/lib/lib.sh*}"
	# the content by one git hash-object for every file (the working
	# tree's bytes), not a hash process a file
	mapfile -t sums < <(cd "$REPO_DIR" && git hash-object -- "${files[@]}")
	check "a content hash for each script" test "${#sums[@]}" = "${#files[@]}"
	closure_hashes
	todo=()
	for i in "${!files[@]}"; do
		f=${files[i]}
		key=${CLOSURE_HASH[x${closure[$f]}]}.${sums[i]}.${f//\//_}
		if [[ -e $DONE/$key ]]; then
			known[$f]=1
		else
			todo+=("$f" "$key")
		fi
	done
	# lint runs in the checkout: the paths it writes to, absolute
	[[ $DONE == /* ]] || DONE=$PWD/$DONE
	[[ $SCRATCH == /* ]] || SCRATCH=$PWD/$SCRATCH
	export -f lint lint_batch
	export REPO_DIR SCRATCH DONE
	# four batches a core: fewer would leave a core idle at the end
	host_cores cores
	# shellcheck disable=SC2016 # expanded by the bash xargs runs
	((${#todo[@]} == 0)) || batches $((cores * 4)) "${todo[@]}" |
		(cd "$REPO_DIR" && xargs -0 -n 1 -P "$cores" bash -c 'mapfile -t pairs <<<"$1" && lint_batch "${pairs[@]}"' lint)
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
