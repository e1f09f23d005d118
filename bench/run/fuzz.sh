#!/usr/bin/env bash
# make fuzz: a long campaign of the model-based fuzzer (eifuzz) on the
# debug kernel (KASAN, lockdep, kmemleak).  Exits non-zero on a
# disagreement with the model, a kernel report or a failed boot.
#
#   FUZZ_SECONDS=360 FUZZ_SEED=1 CONFIG=debug bench/run/fuzz.sh
#
# Settings (their defaults: bench/plan/settings.table, and
# bench/plan/drivers/fuzz.job's CONFIG=debug): FUZZ_SECONDS: guest seconds to start new runs in (the boot adds about a
# minute on debug under TCG, the last run up to about two more, and on a
# loaded host the guest clock falls behind the wall clock); FUZZ_SEED: the
# first seed, each run takes the next one; CONFIG: any config with
# the feature (make coverage runs the gcov config); FUZZ_OUT: the run's
# directory (default $CACHE/fuzz-runs/CONFIG-TIME), whose result.log has
# every run and, on the gcov config, the "=== gcov-counts ===" block.
set -euo pipefail
shopt -s inherit_errexit
# this script's directory (not dirname: a process at every start)
HERE=${0%/*}
[[ $0 == */* ]] || HERE=.
# shellcheck source=bench/lib/lib.sh
. "$HERE/../lib/lib.sh"
driver_start fuzz -- "$0" "$@"

plan_read FUZZ_SECONDS FUZZ_SEED CONFIG FUZZ_OUT

main() {
	local out status=0
	"$BENCH_DIR/kernel/build.sh" build "$CONFIG"
	out=$FUZZ_OUT
	[[ -n $out ]] || out=$CACHE/fuzz-runs/$CONFIG-$(date +%Y%m%d-%H%M%S)
	log "fuzz: $CONFIG, first seed $FUZZ_SEED, ${FUZZ_SECONDS}s (output $out)"
	# A run that never finishes must still end: allow the boot and the
	# last run (a few minutes at most on debug under TCG).
	boot_guest "$out" -c "$CONFIG" -t $((FUZZ_SECONDS + 900)) \
		-e "FUZZ_SECONDS=$FUZZ_SECONDS" -e "FUZZ_SEED=$FUZZ_SEED" \
		"$BENCH_DIR/guest/fuzz.sh" || status=$?
	# The summary and any failure; not each passing run, nor the counts.
	[[ ! -f $out/result.log ]] || awk '/^=== gcov-counts ===$/ { skip = 1 } !skip && !/^eifuzz .*no disagreement$|writes\/s, .* statistical checks$/
		/^=== end ===$/ { skip = 0 }' "$out/result.log"
	if [[ $status -ne 0 ]]; then
		log "fuzz: FAILED ($(boot_verdict "$out" "$status")); every run is in $out/result.log"
		return 1
	fi
	log "fuzz: passed; every run is in $out/result.log"
}

main "$@"
