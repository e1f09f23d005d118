# shellcheck shell=bash
# A script's help is its leading comment block; this prints it whatever
# its length, so a header that grows is never cut by a line range.
#
# Sourcing this file defines one function and nothing else, so a script
# sources it before anything (its -h answer needs nothing more).

# help_header FILE: FILE's leading comment block, the comment lines after
# its shebang up to the first line that is not a comment, each with its
# "#" and one space after it stripped.
help_header() {
	sed -n -e '1{/^#!/d}' -e '/^#/!q' -e 's/^# \{0,1\}//p' "$1"
}
