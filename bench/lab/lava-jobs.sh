#!/usr/bin/env bash
# One LAVA job per shard of the benchmark matrix, for a lab that schedules
# the shards with LAVA (docs/lab.md).  A thin layer over the shards of
# bench.sh: each job is the boot "bench.sh --job ID" would make
# (bench.sh --plan-job ID describes it), deployed and booted by LAVA.
#
#   lava-jobs.sh [-u URL] [-p PLUGIN] OUTDIR [ID...]
#     OUTDIR    made here, it must not exist:
#               jobs/ID/job.yaml    the LAVA job of each job ID of the plan
#                                   (bench.sh --list), or of each ID given
#               jobs/ID/shard.tar   the job's guest files (its script and
#                                   environment), a ramdisk overlay
#               jobs/ID/piece/      the start of the job's piece of
#                                   results (plan.txt, meta.json), which
#                                   bench/lab/lava-results.sh completes
#               jobs/ID/boot.env    the boot (bench.sh --plan-job)
#               artifacts/base.cpio the guest's initramfs (image.sh base)
#               artifacts/CONFIG/   bzImage, modules.tar.xz (the
#                                   modules_install tree) and, with the
#                                   plugin, insncount-ranges.txt
#     -u URL    OUTDIR as the LAVA workers reach it (default file://OUTDIR,
#               for lava-run on this host)
#     -p PATH   the insncount plugin on the workers (default this cache's
#               build; a device tagged insncount has one)
#
# Settings are bench.sh's: JOB_FILE and the environment (bench.sh -h),
# resolved as the job driver's: its boots run on the lab's devices, so
# ACCEL is the accelerator of the lab's device type, not probed here:
# tcg-icount (auto, the default; our device: bench/lab/qemu-tcg-icount.yaml)
# or kvm.  The kernels
# are this cache's builds, as for bench.sh --job; a host that builds none
# unpacks bench/lab/pack-build.sh archives into CACHE first.  The jobs collect
# their results with a "monitors" test action (bench/lab/lava-guest.sh says
# which lines); PERF_RECORD is off in them (annotate needs perf.data, which
# LAVA's results do not carry).
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lab/lava.sh
. "$HERE/lava.sh"
driver_start job -- "$0" "$@"
DIE_STATUS=$STATUS_BAD_INPUT
plan_read ACCEL_USED
hot_funcs_read

LAB_DIR=$BENCH_DIR/lab

# config_artifacts CONFIG DIR: what a job of CONFIG deploys from its build.
config_artifacts() {
	local cfg=$1 dir=$2 build release
	build=$(kernel_build_dir "$cfg")
	release=$(cat "$build/include/config/kernel.release")
	mkdir -p "$dir"
	cp "$build/arch/x86/boot/bzImage" "$dir/bzImage"
	tar -C "$build/modroot" --owner=0 --group=0 --exclude="lib/modules/$release/build" \
		--exclude="lib/modules/$release/source" -cJf "$dir/modules.tar.xz" lib
	[[ $JOB_PLUGIN == 0 ]] || write_plugin_ranges "$cfg" "$dir/insncount-ranges.txt"
}

# shard_tar JOBDIR CONFIG: the guest's /bench of the job, as run-guest
# would make it for bench.sh --job, with lava-guest.sh as its script.
shard_tar() {
	local dir=$1 cfg=$2 stage release
	local -a envs=()
	stage=$(mktemp -d)
	mkdir "$stage/bench"
	cp "$LAB_DIR/lava-guest.sh" "$stage/bench/script"
	cp "$BENCH_DIR/guest/bench.sh" "$BENCH_DIR/guest/state.sh" "$BENCH_DIR/collect/fio-rows.jq" "$stage/bench/"
	cp -r "$BENCH_DIR/guest/fio" "$stage/bench/fio"
	mapfile -t envs < <(sed 's/^PERF_RECORD=.*/PERF_RECORD=0/' "$dir/guest.env")
	release=$(cat "$(kernel_build_dir "$cfg")/include/config/kernel.release")
	guest_env "$cfg" "$ACCEL" "$release" 1 0 "${envs[@]}" >"$stage/bench/env"
	tar -C "$stage" --owner=0 --group=0 --sort=name -cf "$dir/shard.tar" bench
	rm -rf "$stage"
}

# write_job ID JOBDIR: JOBDIR/job.yaml.
write_job() {
	local id=$1 dir=$2 cfg states timeout plugin tags ranges=''
	local -A boot
	env_lines boot "$dir/boot.env"
	cfg=${boot[CONFIG]:-} states=${boot[STATES]:-}
	timeout=${boot[TIMEOUT]:-} plugin=${boot[PLUGIN]:-}
	tags=$ACCEL
	if [[ $plugin == 1 ]]; then
		tags+=$'\n- insncount'
		ranges="      insncount-ranges:
        url: $URL/artifacts/$cfg/insncount-ranges.txt
        image_arg: -plugin $PLUGIN_PATH,ranges={insncount-ranges},mark=$(plugin_mark "$cfg"),format=cases"
	fi
	cat >"$dir/job.yaml" <<EOF
# blkinject-bench job $id: config $cfg in ${states//,/ } (boot ${boot[SEQ]:-},
# repeat ${boot[REPEAT]:-}) under $ACCEL, as bench.sh --job $id runs it.
# Made by bench/lab/lava-jobs.sh; bench/lab/lava-results.sh turns the
# finished job's log into the job's rows (docs/lab.md).
device_type: qemu
job_name: blkinject-bench $id ($cfg, $ACCEL)
tags:
- $tags
priority: medium
visibility: public
context:
  arch: amd64
metadata:
  blkinject-bench.job: '$id'
  blkinject-bench.config: '$cfg'
  blkinject-bench.states: '${states//,/ }'
  blkinject-bench.commit: '$(meta_get "$dir/piece" GIT_COMMIT)'
timeouts:
  job:
    seconds: $((timeout + 900))
  action:
    seconds: $timeout
  connection:
    seconds: $timeout
actions:
- deploy:
    to: tmpfs
    timeout:
      minutes: 10
    images:
      kernel:
        url: $URL/artifacts/$cfg/bzImage
        image_arg: '-kernel {kernel} -m $(guest_memory_mb "$cfg") -append "$GUEST_CMDLINE"'
      ramdisk:
        url: $URL/artifacts/base.cpio
        format: cpio.newc
        image_arg: -initrd {ramdisk}
        overlays:
          modules:
            url: $URL/artifacts/$cfg/modules.tar.xz
            format: tar
            path: /
          shard:
            url: $URL/jobs/$id/shard.tar
            format: tar
            path: /
${ranges:+$ranges
}- boot:
    method: qemu
    media: tmpfs
    timeout:
      seconds: $timeout
- test:
    timeout:
      seconds: $timeout
    monitors:
    - name: $LAVA_SUITE
      start: $LAVA_START
      end: $LAVA_END
      pattern: '$LAVA_PATTERN'
EOF
}

main() {
	local out opt id cfg dir
	local -a ids
	local -A boot
	URL='' PLUGIN_PATH=''
	while getopts 'u:p:' opt; do
		case $opt in
		u) URL=${OPTARG%/} ;;
		p) PLUGIN_PATH=$OPTARG ;;
		*) help_usage "$0" ;;
		esac
	done
	shift $((OPTIND - 1))
	[[ $# -ge 1 && -n $1 ]] || help_usage "$0"
	out=$1
	shift
	[[ ! -e $out ]] || die "$out exists already"
	ACCEL=$ACCEL_USED
	[[ " $LAB_ACCELS " == *" $ACCEL "* ]] || die "ACCEL=$ACCEL: a lab's device type is $(one_line <<<"${LAB_ACCELS// /$'\n'}" | sed 's/ / or /')"
	if [[ $# -gt 0 ]]; then ids=("$@"); else mapfile -t ids < <("$BENCH_DIR/run/bench.sh" --list | cut -d' ' -f1); fi
	[[ ${#ids[@]} -gt 0 ]] || die "the plan has no jobs"
	for id in "${ids[@]}"; do
		[[ $id =~ ^[A-Za-z0-9._,+-]+$ && $id != *..* ]] || die "job ID '$id' is not a plan's job ID (bench.sh --list prints them)"
	done
	mkdir -p "$out/artifacts" "$out/jobs"
	out=$(cd "$out" && pwd -P)
	URL=${URL:-file://$out}
	for id in "${ids[@]}"; do
		dir=$out/jobs/$id
		mkdir -p "$dir"
		"$BENCH_DIR/run/bench.sh" --plan-job "$id" "$dir/piece" >/dev/null
		mv "$dir/piece/boot.env" "$dir/piece/guest.env" "$dir/"
		env_lines boot "$dir/boot.env"
		cfg=${boot[CONFIG]:-}
		JOB_PLUGIN=${boot[PLUGIN]:-}
		[[ $JOB_PLUGIN == 0 || -n $PLUGIN_PATH ]] || PLUGIN_PATH=$(plugin_so)
		[[ -d $out/artifacts/$cfg ]] || config_artifacts "$cfg" "$out/artifacts/$cfg"
		shard_tar "$dir" "$cfg"
		write_job "$id" "$dir"
		log "lava-jobs: $dir/job.yaml"
	done
	"$BENCH_DIR/vm/image.sh" base >/dev/null
	cp "$CACHE/images/base.cpio" "$out/artifacts/base.cpio"
	printf '%s\n' "$out"
}

main "$@"
