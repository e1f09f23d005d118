#!/bin/sh
# Guest side of "make fuzz": rounds of eifuzz on a plain, a zoned and a
# scsi_debug disk, a new seed per run, until FUZZ_SECONDS have passed or a
# run disagrees with the model.  The kernel log is checked for reports
# after every run (rejected writes each log a warning, so the console only
# shows errors and worse while fuzzing; a report of any level is found in
# the log).  Prints one line per run and a summary; exits 1 on a
# disagreement or a kernel report.
set -u
# What counts as a kernel report: the runner's expression, in the image.
SPLAT="($(cat /etc/kernel-report.ere))"
seed=$FUZZ_SEED
seconds=$FUZZ_SECONDS
log=/tmp/fuzz.log
: >"$log"

uptime_s() {
	cut -d. -f1 /proc/uptime
}

wait_for_dev() {
	i=0
	while [ ! -b "/dev/$1" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || return 1
		sleep 0.1
	done
}

scsi_debug_disk() {
	i=0
	while [ $i -lt 100 ]; do
		for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
			[ -e "$d" ] && wait_for_dev "${d##*/}" && echo "${d##*/}" && return 0
		done
		i=$((i + 1))
		sleep 0.1
	done
	return 1
}

unload() {
	i=0
	until rmmod "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "rmmod $1 failed"; return 1; }
		sleep 0.1
	done
}

# fuzz_disk KIND STEPS: load the disk, run eifuzz once, unload; 1 on failure.
fuzz_disk() {
	case $1 in
	plain) modprobe null_blk nr_devices=1 gb=1 memory_backed=1 discard=1 && dev=nullb0 ;;
	zoned) modprobe null_blk nr_devices=1 gb=1 zoned=1 zone_size=4 && dev=nullb0 ;;
	scsi) modprobe scsi_debug dev_size_mb=64 lbpws=1 && dev=$(scsi_debug_disk) ;;
	esac || { echo "loading the $1 disk failed"; return 1; }
	wait_for_dev "$dev" || { echo "/dev/$dev did not appear"; return 1; }
	eifuzz -r -s "$seed" -n "$2" "$dev" >/tmp/run.out
	rc=$?
	cat /tmp/run.out
	cat /tmp/run.out >>"$log"
	seed=$((seed + 1))
	case $1 in
	scsi) unload scsi_debug ;;
	*) unload null_blk ;;
	esac
	if dmesg -c | grep -E -A20 "$SPLAT" >/tmp/report; then
		echo "kernel report after the $1 run:"
		cat /tmp/report
		cat /tmp/report >&2
		reports=$((reports + 1))
		return 1
	fi
	[ "$rc" -eq 0 ] || { disagreements=$((disagreements + 1)); return 1; }
}

dmesg -c >/dev/null
# On the gcov config: count the campaign only, not the boot (no-op elsewhere).
gcov-counts reset
start=$(uptime_s)
disagreements=0 reports=0 failed=0
echo "fuzz: first seed $seed, $seconds s"
# The disks take turns; the time is checked before each run.
set -- "plain 2000" "zoned 1500" "scsi 150"
while [ $(($(uptime_s) - start)) -lt "$seconds" ] && [ $failed -eq 0 ]; do
	# shellcheck disable=SC2086
	fuzz_disk $1 || failed=1
	set -- "$2" "$3" "$1"
done
elapsed=$(($(uptime_s) - start))
# eifuzz -r lines: "...: N steps, W writes (A accepted), I I/Os (...)" and
# "...: T s, ... writes/s, ... I/Os/s, S statistical checks".
awk -v el="$elapsed" -v dis="$disagreements" -v rep="$reports" -v last="$((seed - 1))" '
/ steps, / { for (i = 1; i <= NF; i++) {
		if ($(i + 1) == "steps,") steps += $i
		if ($(i + 1) == "writes") w += $i
		if ($(i + 1) == "I/Os") io += $i
		if ($(i + 1) == "accepted),") { x = $i; sub(/\(/, "", x); acc += x }
	}; runs++ }
/ s, .* writes\/s/ { for (i = 1; i <= NF; i++) {
		if ($(i + 1) == "s,") t += $i
		if ($(i + 1) == "statistical") st += $i
	} }
END {
	printf "fuzz: %d runs (seeds up to %d), %d steps, %d writes (%d accepted), %d I/Os, %d statistical checks\n", runs, last, steps, w, acc, io, st
	printf "fuzz: %d disagreements, %d kernel reports\n", dis, rep
	if (t > 0) printf "fuzz: %.0f s in eifuzz (%d s in all): %.0f writes/s, %.0f I/Os/s\n", t, el, w / t, io / t
}' "$log"
gcov-counts dump
exit $failed
