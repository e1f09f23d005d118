# shellcheck shell=bash
# The accelerators: what each one is and what follows from it, in one
# place.  A script that needs to know something about an accelerator asks
# a function here; none compares an accelerator's name.  QEMU's arguments
# for each are bench/vm/run-guest's (accel_args).
#
#   accelerator  guest time            counts  boots       plugin  vPMU
#   kvm          the host's hardware   sampled per-state   no      yes
#   tcg          an emulator's, wall   sampled per-state   yes     no
#   tcg-icount   instructions (1 ns    exact   per-config  yes     no
#                each, -icount shift=0)
#
# "auto" is kvm where KVM runs a guest (accel_kvm_runs), else tcg-icount;
# plain tcg only when asked for.  A metric's class under an accelerator
# (accel_class) is in benchstat's vocabulary (bench/stats/README.md
# "Metric classes"): a metric kind (exact, guest-time, sampled,
# percentile, random) is deterministic, sampled or random.
#
# Part of bench/lib/lib.sh, and sourced by the resolver (bench/lib/
# settings.sh) on its own; sourcing it defines functions, nothing else.

# shellcheck source=bench/lib/cores.sh
. "${BASH_SOURCE[0]%/*}/cores.sh"

# accel_names ARRAY: what ACCEL may be, auto and the accelerators, into
# ARRAY (read without a subshell: accel_known runs on every command).
accel_names() {
	local -n accel_names_into=$1
	# shellcheck disable=SC2034 # the caller's array, by name
	accel_names_into=(auto kvm tcg tcg-icount)
}

# accel_valid: what ACCEL may be, one line.
accel_valid() {
	local -a names
	accel_names names
	echo "${names[*]}"
}

# accel_known ACCEL: ACCEL is one of accel_valid.
accel_known() {
	local -a names
	accel_names names
	[[ -n $1 && " ${names[*]} " == *" $1 "* ]]
}

check_accel() {
	accel_known "$1" || die_bad_input "unknown accelerator '$1' (valid: $(accel_valid))"
}

# accel_exact ACCEL: guest time counts instructions: every guest-time
# number is an exact count, one run decides, a boot's history does not
# move the numbers and boots at once do not disturb each other.
accel_exact() {
	[[ $1 == tcg-icount ]]
}

# accel_boots ACCEL: how the matrix spends its boots by default: one boot
# per config measuring every state (per-config, where counts are exact),
# else a fresh boot per row (per-state: the host's time and state leak
# into every number).
accel_boots() {
	if accel_exact "$1"; then echo per-config; else echo per-state; fi
}

# accel_plugin ACCEL: QEMU's TCG plugins load (the instruction counter);
# not under kvm, where the guest runs on the host's CPU.
accel_plugin() {
	[[ $1 != kvm ]]
}

# accel_counts ACCEL: the suite counts instructions with the plugin in its
# own boots (the counted fio job, FIO_IOS): only where the counts are
# exact; elsewhere make perf counts in boots of its own (accel_counter).
accel_counts() {
	accel_exact "$1"
}

# accel_counter: the accelerator whose counts are exact, which make perf
# boots to count under any other.
accel_counter() {
	echo tcg-icount
}

# accel_pmu ACCEL: the guest has a vPMU: cycles and instructions from perf
# (make perf's count-randread-qd1-kvm rows).
accel_pmu() {
	[[ $1 == kvm ]]
}

# accel_host_time ACCEL: guest time is the host's time (kvm's hardware,
# tcg's emulator): a layout accident moves it, so the layout noise floor
# is printed beside its verdicts.
accel_host_time() {
	! accel_exact "$1"
}

# accel_starved ACCEL: guest time is the host's wall clock of an emulator,
# so a host busy with other work can starve the vCPU for tens of seconds
# (the guest's RCU stall warning then reports the host).
accel_starved() {
	[[ $1 == tcg ]]
}

# accel_class ACCEL KIND: the class benchstat gives a metric of KIND
# (exact, guest-time, sampled, percentile, random) under ACCEL:
# deterministic, sampled or random.  A percentile under icount is a bucket
# of fio's histogram, not repeatable at depth above one: random.
accel_class() {
	case $2 in
	exact) echo deterministic ;;
	guest-time) if accel_exact "$1"; then echo deterministic; else echo sampled; fi ;;
	percentile) if accel_exact "$1"; then echo random; else echo sampled; fi ;;
	sampled) echo sampled ;;
	*) echo random ;;
	esac
}

# accel_defaults ARRAY ACCEL DRIVER: what "auto" stands for under ACCEL,
# into the associative ARRAY, by setting name.  Where counts are exact
# one run decides.  Elsewhere REPEATS stays auto for the matrix, whose
# driver takes the n at which its gating rows are powered (bench.sh,
# benchstat plan); the views and make perf on its own have no such plan
# and take 5; compare-series takes 10, the sequential gate's first round
# (bench/lib/sequential.sh).
accel_defaults() {
	local -n accel_defaults_into=$1
	local cores
	# shellcheck disable=SC2034 # the caller's array, by name
	if accel_exact "$2"; then
		host_cores cores
		accel_defaults_into+=([REPEATS]=1 [BOOTS]=per-config [FIO_RUNTIME]=1 [FIO_RAMP]=200ms [GUEST_JOBS]=$cores)
	else
		[[ $3 != views && $3 != perf ]] || accel_defaults_into[REPEATS]=5
		[[ $3 != compare-series ]] || accel_defaults_into[REPEATS]=10
		accel_defaults_into+=([BOOTS]=per-state [FIO_RUNTIME]=2 [FIO_RAMP]=500ms [GUEST_JOBS]=1)
	fi
}

# accel_about ACCEL: what the numbers of a run under ACCEL are, for the
# report.
accel_about() {
	case $1 in
	tcg-icount)
		echo "Guest ran under QEMU TCG with \`-icount shift=0\`: guest time advances 1 ns per guest instruction, so IOPS and latencies here are instruction counts in disguise (IOPS = 1e9 / instructions per I/O), free of host noise; they are judged as deterministic (class in summary.csv). They rank the configs by instructions executed, not by hardware time; caches, branch prediction and the NOP's own cost on real silicon are invisible."
		;;
	tcg)
		echo "Guest ran under QEMU TCG (software emulation, no KVM): IOPS follow host wall time of an emulator, a noisy and distorted picture of hardware cost; they are sampled metrics, judged by the Wilcoxon rank-sum test."
		;;
	kvm)
		echo "Guest ran under KVM: IOPS and cycles are hardware measurements, sampled metrics judged by the Wilcoxon rank-sum test."
		;;
	*) echo "Unknown accelerator." ;;
	esac
}

# accel_kvm_runs QEMU SECONDS: KVM runs a guest here.  /dev/kvm can exist
# while guests hang or QEMU aborts (a PVM host: -cpu host fails on MSR
# 0x10a, every other model hangs after the BIOS), so QEMU itself is asked
# to run one: under -accel kvm -cpu host, as run-guest boots, a 64 KiB
# firmware whose reset vector writes to isa-debug-exit, which ends QEMU
# with status 99.  No kernel, no build, nothing left behind: milliseconds
# where KVM works.  On failure, why on stdout (QEMU's first line, or the
# time it hung).
accel_kvm_runs() {
	local qemu=$1 limit=$2 dir rc=0 why
	dir=$(mktemp -d)
	# hlt everywhere; at 0xfff0: mov al, 0x31; out 0xf4, al; hlt; jmp $
	{
		head -c 65520 /dev/zero | tr '\0' '\364'
		printf '\260\061\346\364\364\353\376\364\364\364\364\364\364\364\364\364'
	} >"$dir/probe.bin"
	timeout -k 2 "$limit" "$qemu" -accel kvm -cpu host,la57=off -nodefaults -no-user-config \
		-display none -m 16 -bios "$dir/probe.bin" -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		</dev/null >"$dir/out" 2>&1 || rc=$?
	why=$(grep -m1 . "$dir/out" || true)
	rm -rf "$dir"
	((rc != 99)) || return 0
	if ((rc == 124 || rc == 137)); then
		echo "QEMU ran no guest code under -accel kvm within ${limit}s (KVM_PROBE_TIMEOUT)"
	else
		echo "QEMU under -accel kvm -cpu host: ${why:-exit $rc}"
	fi
	return 1
}

# accel_choose VAR ACCEL QEMU SECONDS: the accelerator a boot uses, into
# VAR (no subshell: the resolver asks on every command): ACCEL, or for
# auto kvm where accel_kvm_runs, else tcg-icount (a machine without a
# readable and writable /dev/kvm is not probed).  ACCEL=kvm where KVM runs
# no guest: why, instead, and status 4 (setup).
accel_choose() {
	local -n accel_choose_into=$1
	local accel=$2 why
	# shellcheck disable=SC2034 # the caller's variable, by name
	case $accel in
	auto)
		if [[ -r /dev/kvm && -w /dev/kvm ]] && accel_kvm_runs "$3" "$4" >/dev/null; then
			accel_choose_into=kvm
		else
			accel_choose_into=tcg-icount
		fi
		;;
	kvm)
		why=$(accel_kvm_runs "$3" "$4") || {
			printf -v accel_choose_into 'KVM does not run guests here: %s; use ACCEL=auto (tcg-icount here), tcg or tcg-icount' "$why"
			return 4
		}
		accel_choose_into=kvm
		;;
	*) accel_choose_into=$accel ;;
	esac
}
