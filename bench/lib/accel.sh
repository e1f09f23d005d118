# shellcheck shell=bash
# The accelerators a user may name.  Part of bench/lib/lib.sh, which
# sources it; sourcing it defines a constant and a function, nothing else.

VALID_ACCELS="auto kvm tcg tcg-icount"

check_accel() {
	[[ " $VALID_ACCELS " == *" $1 "* && -n $1 ]] ||
		die_bad_input "unknown accelerator '$1' (valid: $VALID_ACCELS)"
}
