#!/bin/sh
# Guest side of the capability comparison: try each thing with each
# mechanism and print one line per cell,
#   MECHANISM|CAPABILITY|yes or no|what was observed
# so that the table is made of results, not claims.  Needs a kernel with
# CONFIG_BLK_ERROR_INJECTION, CONFIG_FAIL_MAKE_REQUEST, the dm targets and
# CONFIG_BPF_KPROBE_OVERRIDE (with failbio, bench/guest/bpf, in the image).
set -u

MB=1048576
EI=/sys/kernel/debug/block
FMR=/sys/kernel/debug/fail_make_request
ZONE_SECTORS=8192

cell() {
	echo "$1|$2|$3|$4"
}

rd() { blkio read "$1" $(($2 * 512)) 4096; }
wr() { blkio write "$1" $(($2 * 512)) 4096; }

# count_fails DEV N: how many of N single-sector reads at sector 0 failed.
count_fails() {
	blkio -n "$2" read "$1" 0 512 | awk '$1 != "ok" { n += $2 } END { print n + 0 }'
}

dm_create() {
	dmsetup --noudevsync create "$1" --table "$2" 2>/dev/null && dmsetup mknodes "$1"
}

dm_remove() {
	dmsetup --noudevsync remove "$1" 2>/dev/null
}

# A zoned null_blk through configfs: 4 MiB zones, 64 MiB.
make_zoned() {
	d=/sys/kernel/config/nullb/zoned
	mkdir "$d"
	echo 64 >"$d/size"
	echo 1 >"$d/zoned"
	echo 4 >"$d/zone_size"
	echo 1 >"$d/memory_backed"
	echo 1 >"$d/power"
	# null_blk names a configfs disk after its directory.
	ZDEV=zoned
	i=0
	while [ ! -b "/dev/$ZDEV" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "zoned null_blk did not appear" >&2; exit 1; }
		sleep 0.1
	done
}

check_ei() {
	m=error_injection
	echo "add,op=READ,start=100,nr_sectors=8,status=MEDIUM" >$EI/nullb0/error_injection
	r=$(rd /dev/nullb0 100) w=$(wr /dev/nullb0 100)
	[ "$r" != ok ] && [ "$w" = ok ] && v=yes || v=no
	cell "$m" "select op" "$v" "READ rule: read $r, write $w"
	[ "$r" = ENODATA ] && v=yes || v=no
	cell "$m" "choose status" "$v" "status=MEDIUM: read gets $r"
	b=$(blkio read /dev/nullb0 $((99 * 512)) 512)
	a=$(blkio read /dev/nullb0 $((108 * 512)) 512)
	cell "$m" "act on the disk itself" "$([ "$r" != ok ] && echo yes || echo no)" "error seen on /dev/nullb0"
	echo removeall >$EI/nullb0/error_injection
	echo "add,op=DISCARD,status=IOERR" >$EI/nullb0/error_injection
	d=$(blkio discard /dev/nullb0 $MB $MB) r=$(rd /dev/nullb0 0)
	[ "$d" != ok ] && [ "$r" = ok ] && v=yes || v=no
	cell "$m" "select discard" "$v" "DISCARD rule: discard $d, read $r"
	echo removeall >$EI/nullb0/error_injection
	echo "add,op=ZONE_RESET,start=$ZONE_SECTORS,nr_sectors=$ZONE_SECTORS,status=IOERR" >$EI/"$ZDEV"/error_injection
	z1=$(blkio zreset "/dev/$ZDEV" $((ZONE_SECTORS * 512)) $((ZONE_SECTORS * 512)))
	z0=$(blkio zreset "/dev/$ZDEV" 0 $((ZONE_SECTORS * 512)))
	[ "$z1" != ok ] && [ "$z0" = ok ] && v=yes || v=no
	cell "$m" "select zone op" "$v" "ZONE_RESET rule on zone 1: reset zone 1 $z1, zone 0 $z0"
	echo removeall >$EI/"$ZDEV"/error_injection
	echo "add,op=READ,start=$((ZONE_SECTORS + 8)),nr_sectors=8,status=IOERR" >$EI/"$ZDEV"/error_injection
	in=$(rd "/dev/$ZDEV" $((ZONE_SECTORS + 8))) out=$(rd "/dev/$ZDEV" $ZONE_SECTORS)
	[ "$in" != ok ] && [ "$out" = ok ] && [ "$b" = ok ] && [ "$a" = ok ] && v=yes || v=no
	cell "$m" "unaligned range on a zoned disk" "$v" "sectors 8200-8207 of a 4 MiB-zone disk: in $in, zone start $out; regular disk 99 $b, 108 $a"
	echo removeall >$EI/"$ZDEV"/error_injection
	echo "add,op=READ,status=IOERR,chance=2" >$EI/nullb0/error_injection
	f=$(count_fails /dev/nullb0 400)
	[ "$f" -gt 100 ] && [ "$f" -lt 300 ] && v=yes || v=no
	cell "$m" "probability" "$v" "chance=2: $f of 400 reads failed"
	echo removeall >$EI/nullb0/error_injection
}

fmr_set() {
	echo "$1" >$FMR/probability
	echo 1 >$FMR/interval
	echo -1 >$FMR/times
	echo 0 >$FMR/verbose
	echo 1 >/sys/block/nullb0/make-it-fail
}

check_fmr() {
	m=fail_make_request
	fmr_set 100
	r=$(rd /dev/nullb0 100) w=$(wr /dev/nullb0 100) d=$(blkio discard /dev/nullb0 $MB $MB)
	far=$(rd /dev/nullb0 1000000)
	[ "$r" != ok ] && [ "$w" = ok ] && v=yes || v=no
	cell "$m" "select op" "$v" "read $r, write $w (no op knob)"
	[ "$d" != ok ] && [ "$r" = ok ] && v=yes || v=no
	cell "$m" "select discard" "$v" "discard $d, read $r"
	cell "$m" "select zone op" no "no op knob: every bio of the disk is a candidate"
	[ "$r" != ok ] && [ "$r" != EIO ] && v=yes || v=no
	cell "$m" "choose status" "$v" "read gets $r"
	[ "$r" != ok ] && [ "$far" = ok ] && v=yes || v=no
	cell "$m" "unaligned range on a zoned disk" "$v" "no range knob: sector 100 $r, sector 1000000 $far"
	cell "$m" "act on the disk itself" "$([ "$r" != ok ] && echo yes || echo no)" "make-it-fail on /dev/nullb0 itself"
	fmr_set 50
	f=$(count_fails /dev/nullb0 400)
	[ "$f" -gt 100 ] && [ "$f" -lt 300 ] && v=yes || v=no
	cell "$m" "probability" "$v" "probability=50: $f of 400 reads failed"
	echo 0 >/sys/block/nullb0/make-it-fail
	echo 0 >$FMR/probability
}

# The BPF way: fail-bio.bpf.c on should_fail_bio(), one rule at a time,
# given in error_injection's words to its loader failbio.
check_bpf() {
	m="BPF should_fail_bio"
	if ! command -v failbio >/dev/null || ! failbio attach; then
		cell "$m" "select op" no "failbio cannot attach in this kernel or image"
		return
	fi
	failbio add nullb0 "op=READ,start=100,nr_sectors=8"
	r=$(rd /dev/nullb0 100) w=$(wr /dev/nullb0 100)
	[ "$r" != ok ] && [ "$w" = ok ] && v=yes || v=no
	cell "$m" "select op" "$v" "op=READ: read $r, write $w"
	refused=$(failbio add nullb0 "op=READ,start=100,nr_sectors=8,status=MEDIUM" 2>&1 && echo accepted)
	[ "$r" != ok ] && [ "$r" != EIO ] && v=yes || v=no
	cell "$m" "choose status" "$v" "read gets $r; status=MEDIUM: ${refused#failbio: }"
	b=$(blkio read /dev/nullb0 $((99 * 512)) 512)
	a=$(blkio read /dev/nullb0 $((108 * 512)) 512)
	cell "$m" "act on the disk itself" "$([ "$r" != ok ] && echo yes || echo no)" "error seen on /dev/nullb0"
	failbio add nullb0 "op=DISCARD"
	d=$(blkio discard /dev/nullb0 $MB $MB) r=$(rd /dev/nullb0 0)
	[ "$d" != ok ] && [ "$r" = ok ] && v=yes || v=no
	cell "$m" "select discard" "$v" "op=DISCARD: discard $d, read $r"
	failbio add "$ZDEV" "op=ZONE_RESET,start=$ZONE_SECTORS,nr_sectors=$ZONE_SECTORS"
	z1=$(blkio zreset "/dev/$ZDEV" $((ZONE_SECTORS * 512)) $((ZONE_SECTORS * 512)))
	z0=$(blkio zreset "/dev/$ZDEV" 0 $((ZONE_SECTORS * 512)))
	[ "$z1" != ok ] && [ "$z0" = ok ] && v=yes || v=no
	cell "$m" "select zone op" "$v" "op=ZONE_RESET on zone 1: reset zone 1 $z1, zone 0 $z0"
	failbio add "$ZDEV" "op=READ,start=$((ZONE_SECTORS + 8)),nr_sectors=8"
	in=$(rd "/dev/$ZDEV" $((ZONE_SECTORS + 8))) out=$(rd "/dev/$ZDEV" $ZONE_SECTORS)
	[ "$in" != ok ] && [ "$out" = ok ] && [ "$b" = ok ] && [ "$a" = ok ] && v=yes || v=no
	cell "$m" "unaligned range on a zoned disk" "$v" "sectors 8200-8207 of a 4 MiB-zone disk: in $in, zone start $out; regular disk 99 $b, 108 $a"
	failbio add nullb0 "op=READ,chance=2"
	f=$(count_fails /dev/nullb0 400)
	[ "$f" -gt 100 ] && [ "$f" -lt 300 ] && v=yes || v=no
	cell "$m" "probability" "$v" "chance=2: $f of 400 reads failed"
	failbio detach
}

# check_dm NAME TABLE_ON_NULLB0 READ_SECTOR ZONED_TABLE: one dm target.
check_dm() {
	m=$1
	if ! dm_create peer "$2"; then
		cell "$m" "select op" no "table rejected: $2"
		return
	fi
	if [ "$m" = dm-dust ]; then
		dmsetup message peer 0 addbadblock 100 >/dev/null
		dmsetup message peer 0 enable >/dev/null
	fi
	r=$(rd /dev/mapper/peer "$3")
	# Before the write: a write to a dm-dust bad block clears it.
	f=0
	[ "$r" = ok ] || f=$(blkio -n 50 read /dev/mapper/peer $(($3 * 512)) 512 | awk '$1 != "ok" { n += $2 } END { print n + 0 }')
	w=$(wr /dev/mapper/peer "$3")
	[ "$r" != ok ] && [ "$w" = ok ] && v=yes || v=no
	cell "$m" "select op" "$v" "read $r, write $w"
	[ "$r" != ok ] && [ "$r" != EIO ] && v=yes || v=no
	cell "$m" "choose status" "$v" "read gets $r, no status knob"
	d=$(blkio discard /dev/mapper/peer $MB $MB)
	cell "$m" "select discard" no "no op selection for discards (discard through the target: $d)"
	cell "$m" "select zone op" no "no zone-op selection"
	direct=$(rd /dev/nullb0 "$3")
	[ "$direct" != ok ] && v=yes || v=no
	cell "$m" "act on the disk itself" "$v" "/dev/mapper/peer read $r, /dev/nullb0 itself $direct"
	cell "$m" "probability" no "no probability knob: $f of 50 reads of a failing sector failed"
	dm_remove peer
	if dm_create zpeer "$4"; then
		cell "$m" "unaligned range on a zoned disk" yes "table with a boundary at sector 8200 accepted on /dev/$ZDEV"
		dm_remove zpeer
	else
		cell "$m" "unaligned range on a zoned disk" no "table with a boundary at sector 8200 rejected on /dev/$ZDEV"
	fi
}

main() {
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 discard=1 || exit 1
	while [ ! -b /dev/nullb0 ]; do sleep 0.1; done
	modprobe dm-flakey
	modprobe dm-dust
	make_zoned
	zs=$(cat /sys/block/"$ZDEV"/size)
	n=$(cat /sys/block/nullb0/size)
	check_ei
	check_fmr
	check_bpf
	check_dm dm-error "0 100 linear /dev/nullb0 0
100 8 error
108 $((n - 108)) linear /dev/nullb0 108" 100 "0 8200 linear /dev/$ZDEV 0
8200 8 error
8208 $((zs - 8208)) linear /dev/$ZDEV 8208"
	check_dm dm-flakey "0 $n flakey /dev/nullb0 0 0 3600 1 error_reads" 100 \
		"0 8200 linear /dev/$ZDEV 0
8200 $((zs - 8200)) flakey /dev/$ZDEV 8200 0 3600 1 error_reads"
	check_dm dm-dust "0 $n dust /dev/nullb0 0 512" 100 \
		"0 8200 linear /dev/$ZDEV 0
8200 $((zs - 8200)) dust /dev/$ZDEV 8200 512"
}

main
