#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark part 3, reaction (not a test): time from a ring's creation (the
# io_uring_create tracepoint) to uringtune's NAPI registration on it, as
# status reports it (.tuning.reaction_us), p50/p99 over RINGS rings per
# round, created by BATCH-ring processes (build/ringhold) started GAP_MS
# apart: a steady arrival, not one burst. A fresh tune-mode daemon per round.
#   ROUNDS (default 3; QUICK 1), RINGS per round (1000), BATCH (10), GAP_MS (20),
#   STATE_DIR (default: under the run's temp directory, on /tmp): where the
#   daemon's journal goes; its fsync before each burst's first change is most
#   of the reaction (STATE_DIR on a tmpfs takes it out, for comparison)
# Then, in each round, the other end of a ring's life: the time from a ring
# closed (build/ringpass close: the process lives) or its process killed
# (build/ringhold, SIGTERM) to its absence from `uringtune status --ring`,
# polled back to back (a poll is one status query, ~5-30 ms here: the time
# is to the first poll that does not list it), GONE rings per round, the two
# ways alternating:
#   GONE (default 10; QUICK 4)
# CSV: RESULTS/reaction.csv (one line per ring, microseconds),
# reaction_summary.csv (per round), reaction_gone.csv (one line per closed
# ring: round, kind close|exit, gone_ms); plot reaction.png (CDF per round).
. "$(dirname "$0")/lib.sh"

PART=reaction
ROUNDS=${ROUNDS:-$(quick 1 3)}
RINGS=${RINGS:-1000}
BATCH=${BATCH:-10}
GAP_MS=${GAP_MS:-20}
GONE=${GONE:-$(quick 4 10)}
out=$RESULTS/reaction.csv
sum=$RESULTS/reaction_summary.csv
gone_csv=$RESULTS/reaction_gone.csv
# a ring still listed this long after its close is counted at this (missed)
GONE_GIVE_UP_MS=30000

part_banner "ROUNDS=$ROUNDS RINGS=$RINGS BATCH=$BATCH GAP_MS=$GAP_MS GONE=$GONE STATE_DIR=${STATE_DIR:-$T/state}"
[ $((RINGS % BATCH)) = 0 ] || fail "RINGS ($RINGS) must be a multiple of BATCH ($BATCH)"
targets_begin
gap=$(awk -v g="$GAP_MS" 'BEGIN{print g/1000}')
procs=$((RINGS / BATCH))

# listed PID FD: status lists the ring (a failure for any other reason than
# "no ring" ends the part: the daemon is gone)
listed() {
	"$B/uringtune" --socket "$SOCK" status --ring "$1:$2" >/dev/null 2>"$T/ring.err" && return 0
	grep -q '^uringtune: no ring ' "$T/ring.err" || fail "status --ring $1:$2: $(cat "$T/ring.err")"
	return 1
}

# gone_once ROUND KIND: one ring made, listed, then closed (KIND close) or its
# process killed (KIND exit); a line "ROUND,KIND,ms until unlisted" of gone_csv
gone_once() {
	local r=$1 kind=$2 o=$T/gone.out p pid fd t0 ms
	if [ "$kind" = close ]; then
		bg "$B/ringpass" close >"$o"
	else
		bg "$B/ringhold" >"$o"
	fi
	p=${BG_PIDS[-1]}
	wait_line "$o" '^ring ' 30
	read -r pid fd < <(ring_of "$o")
	wait_for 30 listed "$pid" "$fd" || fail "round $r: ring pid=$pid fd=$fd ($kind) never listed"
	t0=$(date +%s%N)
	if [ "$kind" = close ]; then kill -USR1 "$p"; else kill -TERM "$p"; fi
	while listed "$pid" "$fd"; do
		ms=$((($(date +%s%N) - t0) / 1000000))
		[ "$ms" -lt "$GONE_GIVE_UP_MS" ] || break
	done
	ms=$(awk -v ns=$(($(date +%s%N) - t0)) 'BEGIN{printf "%.1f", ns / 1e6}')
	echo "$r,$kind,$ms" >>"$gone_csv"
	kill -TERM "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
	bg_forget "$p"
}

echo "round,reaction_us" >"$out"
echo "round,rings,p50_us,p99_us,max_us" >"$sum"
echo "round,kind,gone_ms" >"$gone_csv"
for r in $(seq 1 "$ROUNDS"); do
	bench_daemon mode=tune include_comm=ringhold max_rings=$((RINGS + 1024)) state_dir="${STATE_DIR:-$T/state}/$r"
	pids=()
	for i in $(seq 1 "$procs"); do
		bg "$B/ringhold" --count "$BATCH" --hold 300 >"$T/h$i.out"
		pids+=("${BG_PIDS[-1]}")
		sleep "$gap"
	done
	for i in $(seq 1 "$procs"); do
		wait_line "$T/h$i.out" '^ready' 30
	done
	# only this round's processes: other rings on the host are not ours
	sel=$(printf '%s\n' "${pids[@]}" | jq -s -c .)
	ours() {
		status_json | jq --argjson p "$sel" \
			'[.rings[] | select(.pid as $x | $p | index($x)) | select(.tuning.reaction_us != null)]'
	}
	taken() { [ "$(ours | jq length)" -ge "$RINGS" ]; }
	wait_for 30 taken || fail "round $r: not every ring was tuned ($(ours | jq length) of $RINGS)"
	ours | jq -r '.[].tuning.reaction_us' | sort -g | sed "s/^/$r,/" >>"$out"
	for p in "${pids[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
		bg_forget "$p"
	done
	for i in $(seq 1 "$GONE"); do
		if [ $((i % 2)) = 1 ]; then gone_once "$r" close; else gone_once "$r" exit; fi
	done
	stop_daemon
	v=$(csv_col "$out" 2 1 "$r")
	echo "$r,$(wc -l <<<"$v"),$(pct 50 <<<"$v"),$(pct 99 <<<"$v"),$(maximum <<<"$v")" >>"$sum"
done

echo
echo "ring creation -> NAPI registered (uringtuned --mode tune), $RINGS rings per round"
printf '%-6s %6s %10s %10s %10s\n' round rings p50_us p99_us max_us
tail -n +2 "$sum" | tr , ' ' | xargs -n 5 printf '%-6s %6s %10s %10s %10s\n'
all=$(tail -n +2 "$out" | cut -d, -f2)
printf '%-6s %6s %10s %10s %10s\n' all "$(wc -l <<<"$all")" "$(pct 50 <<<"$all")" \
	"$(pct 99 <<<"$all")" "$(maximum <<<"$all")"
p99s=$(csv_col "$sum" 4)
echo "median over rounds: p50 $(csv_col "$sum" 3 | median) us ($(csv_col "$sum" 3 | range)), p99 $(median <<<"$p99s") us ($(range <<<"$p99s"))"

echo
echo "ring closed (close, or its process killed) -> gone from uringtune status, $GONE rings per round"
printf '%-6s %-6s %6s %10s %10s\n' round kind rings p50_ms max_ms
for r in $(seq 1 "$ROUNDS"); do
	for kind in close exit; do
		v=$(csv_col "$gone_csv" 3 1 "$r" 2 "$kind")
		[ -n "$v" ] || continue
		printf '%-6s %-6s %6s %10s %10s\n' "$r" "$kind" "$(wc -l <<<"$v")" "$(pct 50 <<<"$v")" \
			"$(maximum <<<"$v")"
	done
done
gone_all=$(csv_col "$gone_csv" 3)
printf '%-6s %-6s %6s %10s %10s\n' all both "$(wc -l <<<"$gone_all")" "$(pct 50 <<<"$gone_all")" \
	"$(maximum <<<"$gone_all")"
echo
target "reaction p99 (ms, median of rounds)" "$(awk -v v="$(median <<<"$p99s")" 'BEGIN{printf "%.2f", v/1000}')" '<=' 20
target "ring gone from status after close (ms, max)" "$(maximum <<<"$gone_all")" '<=' 2000 \
	"$(wc -l <<<"$gone_all") rings closed or exited; p50 $(pct 50 <<<"$gone_all") ms"

# plot: CDF of each round
curves=()
for r in $(seq 1 "$ROUNDS"); do
	csv_col "$out" 2 1 "$r" | awk '{a[NR]=$1} END {for (i=1;i<=NR;i++) printf "%s,%.5f\n", a[i]/1000, i/NR}' \
		>"$T/cdf$r.csv"
	curves+=("'$T/cdf$r.csv' using 1:2 with steps lw 2 title 'round $r'")
done
plot "$RESULTS/reaction.png" 900 450 <<EOF
set title 'ring creation to NAPI registered by uringtuned: CDF, $RINGS rings per round ($BATCH per process, one process every $GAP_MS ms)'
set xlabel 'reaction, ms'
set ylabel 'fraction of rings'
set logscale x
set yrange [0:1.02]
set key bottom right
set arrow from 20, graph 0 to 20, graph 1 nohead lc rgb 'red' dt 3
set label 'p99 target 20 ms' at 20, graph 0.5 right offset -1,0 tc rgb 'red'
set arrow from graph 0, first 0.99 to graph 1, first 0.99 nohead lc rgb '#888888' dt 2
plot $(IFS=,; echo "${curves[*]}")
EOF
echo "csv: $out $sum $gone_csv"
