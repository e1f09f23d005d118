# shellcheck shell=bash
# The sequential gate's rounds (bench/stats/README.md, "The sequential
# gate").  Under kvm and tcg, after a first round of REPEATS boots a row,
# the gating rows `benchstat sequential` leaves undecided get more boots,
# BASE and NEW (or a row and its baseline) interleaved, until each is
# decided or REPEATS_MAX repeats a side or REPEATS_MINUTES are spent.
# Sourcing this file defines functions and does nothing else.

# seq_design: "FIRST MAX", the first round and the budget of a sequential
# run, or nothing when REPEATS_MAX allows no round after the first or the
# first round is too small to look at (a rank test needs 2 a side).
seq_design() {
	local first=$REPEATS max=$REPEATS_MAX
	((max > first && first >= 2)) || return 0
	printf '%s %s\n' "$first" "$max"
}

# seq_args DESIGN: benchstat's words for DESIGN ("FIRST MAX"), one a line
seq_args() {
	printf '%s\n' sequential --first "${1% *}" --max "${1#* }"
}

# seq_targets NEXT: benchstat's --next file, each (CONFIG, STATE) once with
# its largest N, in the order first listed: "CONFIG STATE N" a line
seq_targets() {
	awk '!(($1, $2) in n) { order[++k] = $1 SUBSEP $2; n[$1, $2] = 0 }
		$3 > n[$1, $2] { n[$1, $2] = $3 }
		END { for (i = 1; i <= k; i++) { split(order[i], p, SUBSEP); print p[1], p[2], n[order[i]] } }' "$1"
}

# seq_round_fits START DONE NEXT: a round of NEXT boots, each as long as
# the DONE boots since START took on average, ends within REPEATS_MINUTES
# of START (always, when REPEATS_MINUTES is 0)
seq_round_fits() {
	local start=$1 done=$2 next=$3 budget now
	budget=$((REPEATS_MINUTES * 60))
	((budget > 0)) || return 0
	now=$EPOCHSECONDS
	((now - start + (now - start) * next / (done > 0 ? done : 1) <= budget))
}

# series_rounds OUT: compare-series under kvm or tcg: the boots of both
# sides, a piece of "bench.sh --job" each under OUT/pieces/SIDE, joined
# into OUT/base and OUT/new after every round; each look's table in
# OUT/sequential.txt.  SIDE_SRC[base] and [new] are "KSRC|SERIES".
series_rounds() {
	# last (each row's repeats so far) and max are series_round's and
	# seq_piece's too
	local out=$1 design first=$REPEATS max round=1 start boots=0 n cfg state r line bin
	local -A last=()
	local -a todo=() words=()
	design=$(seq_design)
	max=$REPEATS_MAX
	((max > first)) || max=$first
	bin=$(benchstat_bin)
	mkdir -p "$out/pieces/base" "$out/pieces/new"
	: >"$out/pieces/base/boots.txt"
	: >"$out/pieces/new/boots.txt"
	matrix_rows | awk -v n="$first" '{ print $1, $2, n }' >"$out/next"
	start=$EPOCHSECONDS
	log "compare-series: $ACCEL: $first boots a side a row${design:+, then up to $max for rows still undecided}$( ((REPEATS_MINUTES == 0)) || echo " within $REPEATS_MINUTES minutes")"
	while [[ -s $out/next ]]; do
		mapfile -t todo < <(seq_targets "$out/next")
		n=0
		for line in "${todo[@]}"; do
			read -r cfg state r <<<"$line"
			n=$((n + 2 * (r - ${last[$cfg $state]:-0})))
		done
		if ((round > 1)) && ! seq_round_fits "$start" "$boots" "$n"; then
			log "compare-series: the time budget (REPEATS_MINUTES=$REPEATS_MINUTES) has no room for round $round ($n boots): the rows still open end undecided"
			break
		fi
		log "compare-series: round $round: $n boots (${#todo[@]} rows)"
		series_round "$out" "${todo[@]}"
		boots=$((boots + n))
		seq_join "$out" base
		seq_join "$out" new
		[[ -n $design ]] || break
		rm -f "$out/next"
		{
			printf '=== look after round %d: %d boots, %d s ===\n' "$round" "$boots" "$((EPOCHSECONDS - start))"
			# its status is the final gate's business (compare.sh), its
			# complaints go to the log
			mapfile -t words < <(seq_args "$design")
			"$bin" "${words[@]}" --next "$out/next" compare --threshold "$THRESHOLD" \
				--accel "$ACCEL_USED" "$out/base/runs.csv" "$out/new/runs.csv" || true
		} >>"$out/sequential.txt"
		[[ -f $out/next ]] || die "benchstat sequential failed (see $out/sequential.txt)"
		round=$((round + 1))
	done
	rm -f "$out/next"
	log "compare-series: $boots boots in $((EPOCHSECONDS - start)) s, $((round > 1 ? round - 1 : 1)) rounds"
	for r in base new; do
		meta_set "$out/$r" SEQUENTIAL "$design"
		meta_set "$out/$r" BOOTS_DONE "$(wc -l <"$out/pieces/$r/boots.txt")"
		meta_set "$out/$r" BOOT_SECONDS "$((EPOCHSECONDS - start))"
	done
}

# seq_order "CONFIG STATE N"...: a round's boots, "CONFIG STATE REPEAT" a
# line: repeat by repeat over the rows, each row's repeats after the last
# it has (the caller's associative array last) up to its N.  The caller
# updates last as it boots them.
seq_order() {
	local top=0 r line cfg state n
	for line in "$@"; do
		read -r cfg state n <<<"$line"
		((n <= top)) || top=$n
	done
	for ((r = 1; r <= top; r++)); do
		for line in "$@"; do
			read -r cfg state n <<<"$line"
			((r > ${last[$cfg $state]:-0} && r <= n)) || continue
			printf '%s %s %s\n' "$cfg" "$state" "$r"
		done
	done
}

# series_round OUT "CONFIG STATE N"...: each row's boots up to its N
# (seq_order), BASE and NEW in turn (BASE first on odd repeats)
series_round() {
	local out=$1 line cfg state r
	local -a order
	shift
	mapfile -t order < <(seq_order "$@")
	for line in "${order[@]}"; do
		read -r cfg state r <<<"$line"
		if ((r % 2)); then
			seq_piece "$out" base "$r" "$cfg" "$state"
			seq_piece "$out" new "$r" "$cfg" "$state"
		else
			seq_piece "$out" new "$r" "$cfg" "$state"
			seq_piece "$out" base "$r" "$cfg" "$state"
		fi
		last[$cfg $state]=$r
	done
}

# seq_piece OUT SIDE REPEAT CONFIG STATE: one boot of SIDE's kernel
# (bench.sh --job), its piece in OUT/pieces/SIDE/CONFIG.STATE.rREPEAT
seq_piece() {
	local out=$1 side=$2 r=$3 cfg=$4 state=$5 id status=0 t0 ksrc series
	local -a src=()
	id=$cfg.$state.r$r
	ksrc=${SIDE_SRC[$side]%%|*} series=${SIDE_SRC[$side]#*|}
	src=("SERIES=$series")
	[[ -z $ksrc ]] || src+=("KSRC=$ksrc")
	t0=$EPOCHSECONDS
	plan_call bench "${src[@]}" RESULTS_ROOT="$out/pieces/$side" RUN_ID="$id" \
		REPEATS="$max" BOOTS=per-state -- "$BENCH_DIR/run/bench.sh" --job "$id" \
		>/dev/null 2>"$out/pieces/$side/$id.log" || status=$?
	[[ -f $out/pieces/$side/$id/runs.csv ]] ||
		die "$side $id: bench.sh --job wrote no runs.csv (exit $status): $(tail -n 3 "$out/pieces/$side/$id.log")"
	echo "$id" >>"$out/pieces/$side/boots.txt"
	log "compare-series: $side $cfg/$state repeat $r: $((EPOCHSECONDS - t0)) s$( ((status == 0)) || echo ", exit $status (its rows are marked failed)")"
}

# seq_join OUT SIDE: OUT/SIDE/runs.csv and meta.json from SIDE's pieces,
# in boot order (seq: the boot's place in it)
seq_join() {
	local out=$1 side=$2 id k=0
	local -a metas=()
	mkdir -p "$out/$side"
	{
		printf 'seq,config,state,workload,repeat,status,metric,value\n'
		while read -r id; do
			k=$((k + 1))
			metas+=("$out/pieces/$side/$id/meta.json")
			tail -n +2 "$out/pieces/$side/$id/runs.csv" | awk -F, -v OFS=, -v k="$k" '{ $1 = k; print }'
		done <"$out/pieces/$side/boots.txt"
	} >"$out/$side/runs.csv"
	jq -s --arg run "$side" --arg command "$BENCH_COMMAND" --arg first "$REPEATS" \
		--arg max "$REPEATS_MAX" '
		(reduce .[].BUILDS as $b ({}; . + $b)) as $builds |
		.[0] + {RUN_ID: $run, COMMAND: $command, BUILDS: $builds, REPEATS: $first,
			REPEATS_MAX: $max} | del(.JOB_ID)' "${metas[@]}" >"$out/$side/meta.json"
}
