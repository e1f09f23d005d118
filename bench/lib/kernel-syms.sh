# shellcheck shell=bash
# Questions to a kernel tree or build: the C files that define a function,
# where the error-injection gate is (the jump-label site in
# submit_bio_noacct_nocheck) and the host tools that read it.  Part of
# bench/lib/lib.sh, which sources it; sourcing it defines functions and
# nothing else.

# host_tool NAME: the host tool perf-scripts/NAME.c, built into the cache
# under the hash of its source (checkouts of other commits may share the
# cache); prints its path.
host_tool() {
	local src=$REPO_DIR/perf-scripts/$1.c tool
	tool=$CACHE/tools/$1-$(sha256sum <"$src" | cut -c1-12)
	if [[ ! -x $tool ]]; then
		mkdir -p "$CACHE/tools"
		# a name of this (sub)shell's own: make test's stages are subshells
		# of one shell, so $$ is the same in each
		gcc -std=c11 -Wall -Wextra -Werror -O2 -o "$tool.$BASHPID" "$src" || return 1
		mv -f "$tool.$BASHPID" "$tool"
	fi
	printf '%s\n' "$tool"
}

# tree_source_dirs SRC: where a function of an x86 build can be defined.
tree_source_dirs() {
	local d
	for d in "$1"/*/; do
		case $(basename "$d") in
		arch | Documentation | LICENSES | samples | scripts | tools | usr) ;;
		*) printf '%s\n' "${d%/}" ;;
		esac
	done
	printf '%s/arch/x86\n' "$1"
}

# tree_function_files SRC FUNC: the C files of the tree SRC (relative to
# it, one line, "-" for none) with a line that starts FUNC's definition:
# the type, the name, the parameters, no ';'.
tree_function_files() {
	local -a files
	mapfile -t files < <(tree_source_dirs "$1" | xargs grep -rlE --include='*.c' \
		"^([A-Za-z_][A-Za-z0-9_ *]*[ *])?$2\\([^;]*\$" 2>/dev/null | sort)
	printf '%s ' "${files[@]#"$1"/}" | sed 's/ $//; s/^$/-/'
	echo
}

# gate_entry BUILD_DIR: "ADDRESS BRANCH" of the blk_error_injection_enabled
# jump-label site in submit_bio_noacct_nocheck, from the build's vmlinux
# (perf-scripts/jump-sites.c); empty and non-zero status when the config
# has none.  BRANCH is the entry's branch bit: 0, the site is a NOP while
# the key is off; 1, a jump.
gate_entry() {
	local tool
	tool=$(host_tool jump-sites) || return 1
	"$tool" "$1/vmlinux" blk_error_injection_enabled 2>/dev/null |
		awk '!f && index($2, "submit_bio_noacct_nocheck+") == 1 { sub(/^branch=/, "", $3); print $1, $3; f = 1 }
			END { exit !f }'
}

# gate_site BUILD_DIR: the site's address (gate_entry).
gate_site() {
	local entry
	entry=$(gate_entry "$1") || return 1
	printf '%s\n' "${entry%% *}"
}

# gate_branch BUILD_DIR: the site's branch bit, 0 when there is no site.
gate_branch() {
	local entry
	entry=$(gate_entry "$1" || true)
	if [[ -n $entry ]]; then printf '%s\n' "${entry#* }"; else printf '0\n'; fi
}
