# shellcheck shell=bash
# The kernel toolchain policy, written once: which of kbuild's own
# variables are honoured and which are refused.  The kernels are built for
# x86_64 with the host's gcc through ccache, into CACHE/build/CONFIG;
# a kbuild variable that would change that is refused before any work
# rather than mixed into a build, and one that says what is done anyway
# (CC=gcc, ARCH=x86_64) is accepted.  Both the resolver
# (bench/lib/settings.sh, types "toolchain" in bench/plan/settings.table)
# and `bench/kernel/build.sh check-vars` ask toolchain_refusal.
#
# Sourcing this file defines functions and nothing else.
#   toolchain_vars              the variables of the policy, one a line
#   toolchain_refusal NAME VALUE   why NAME=VALUE is refused, on stdout;
#                               status 1 (nothing printed) when it is not

toolchain_vars() {
	printf '%s\n' CC LLVM O ARCH CROSS_COMPILE KBUILD_OUTPUT
}

toolchain_refusal() {
	local name=$1 value=$2
	# unset and empty are the same to kbuild
	[[ -n $value ]] || return 1
	case $name in
	CC)
		case $value in gcc | cc | /usr/bin/gcc | /usr/bin/cc | 'ccache gcc') return 1 ;; esac
		echo 'kernels are built with gcc through ccache (CC="ccache gcc"); CC may be unset, gcc or cc' ;;
	# kbuild reads any non-empty LLVM (LLVM=0 too) as "use LLVM"
	LLVM) echo 'clang/LLVM kernel builds are not supported, kernels are built with gcc through ccache; unset LLVM' ;;
	ARCH)
		case $value in x86_64 | x86) return 1 ;; esac
		echo 'kernels are built for x86_64 only (ARCH may be unset, x86 or x86_64): the guests are qemu-system-x86_64' ;;
	O | KBUILD_OUTPUT) echo "builds go to CACHE/build/CONFIG, where every stage finds them; set CACHE=DIR to put them elsewhere, and unset $name" ;;
	CROSS_COMPILE) echo "not used: kernels are built for x86_64 with the host's gcc only; unset CROSS_COMPILE" ;;
	*) return 1 ;;
	esac
}
