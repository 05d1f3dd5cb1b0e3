#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark part 7, agent (not a test): what the in-process agent costs and
# what it wins, in interleaved rounds (the order rotates each round), with a
# tune-mode uringtuned running throughout:
#   nop  build/nopbench on a DEFER_TASKRUN ring, NOP_SECONDS of NOPs in batches
#        of NOP_BATCH (io_uring_submit_and_wait, one of the agent's interposed
#        calls, once per batch):
#          plain  no agent
#          idle   under `uringtune exec` without flags: the agent has the page
#                 and a slot for the ring, nothing changes, so each call costs
#                 it one atomic load (the issue's target: >= 0.98x of plain)
#          napi   under `uringtune exec --napi`: NAPI registered on the ring by
#                 the agent (the kernel's wait path changes too)
#   rtt  the UDP ping-pong, both ends DEFER_TASKRUN rings (SINGLE_ISSUER):
#          plain  no agent: the kernel refuses uringtune's registration
#                 (EEXIST), so no NAPI busy polling
#          agent  both under `uringtune exec --napi`: NAPI registered at setup
#                 by the agent, then tuned through the page
#          self   no agent, the program registers NAPI itself (50 us, as the
#                 daemon's initial timeout): what the agent should match
# Ratios of medians over rounds, and the per-round ratios' min-max.
#   ROUNDS (default 7; QUICK 3), NOP_SECONDS (2; QUICK 1), NOP_BATCH (32),
#   COUNT pings per rtt run (20000; QUICK 5000)
# CSV: RESULTS/agent.csv (every run), agent_summary.csv; plot agent.png.
. "$(dirname "$0")/lib.sh"

PART=agent
ROUNDS=${ROUNDS:-$(quick 3 7)}
NOP_SECONDS=${NOP_SECONDS:-$(quick 1 2)}
NOP_BATCH=${NOP_BATCH:-32}
COUNT=${COUNT:-$(quick 5000 20000)}
out=$RESULTS/agent.csv
sum=$RESULTS/agent_summary.csv

part_banner "ROUNDS=$ROUNDS NOP_SECONDS=$NOP_SECONDS NOP_BATCH=$NOP_BATCH COUNT=$COUNT"
[ -f "$B/liburingtune-agent.so" ] || fail "$B/liburingtune-agent.so is not built (make)"
netns_setup
targets_begin
bench_daemon mode=tune include_comm=pingpong,nopbench

# run_nop MODE: ops per second
run_nop() {
	local pre=()
	case $1 in
	idle) pre=("${AGENT_EXEC[@]}" --) ;;
	napi) pre=("${AGENT_EXEC[@]}" --napi --) ;;
	esac
	"${PIN_CLIENT[@]}" "${pre[@]}" "$B/nopbench" --ring defer-taskrun --batch "$NOP_BATCH" \
		--seconds "$NOP_SECONDS" 2>/dev/null | sed -nE 's/.*ops_per_s=([0-9.]+).*/\1/p'
}

# run_rtt MODE: the client's rtt line
run_rtt() {
	local pre=() napi=() line
	case $1 in
	agent) pre=("${AGENT_EXEC[@]}" --napi --) ;;
	self) napi=(--napi-busy-poll-us 50) ;;
	esac
	bg ip netns exec "$NS_B" "${PIN_SERVER[@]}" "${pre[@]}" "$B/pingpong" server \
		--bind 198.18.0.2:$PORT --quiet --ring defer-taskrun "${napi[@]}" >"$T/server.out"
	SRV_PID=${BG_PIDS[-1]}
	wait_line "$T/server.out" '^ring '
	line=$(ip netns exec "$NS_A" "${PIN_CLIENT[@]}" "${pre[@]}" "$B/pingpong" client \
		--connect 198.18.0.2:$PORT --quiet --ring defer-taskrun --count "$COUNT" "${napi[@]}" |
		grep '^rtt ')
	echo "$line"
	server_napi
	pp_server_stop
}

echo "round,workload,mode,value,p50_us,p99_us,server_napi" >"$out"
runs=(nop:plain nop:idle nop:napi rtt:plain rtt:agent rtt:self)
n=${#runs[@]}
for r in $(seq 1 "$ROUNDS"); do
	for k in $(seq 0 $((n - 1))); do
		run=${runs[$(( (k + r * 3) % n ))]}
		w=${run%%:*}
		m=${run#*:}
		if [ "$w" = nop ]; then
			v=$(run_nop "$m")
			echo "$r,nop,$m,$v,,," >>"$out"
			printf 'round %s nop %-5s %12s ops/s\n' "$r" "$m" "$v"
		else
			res=$(run_rtt "$m")
			line=$(sed -n 1p <<<"$res")
			state=$(sed -n 2p <<<"$res")
			echo "$r,rtt,$m,$(field avg_us "$line"),$(field p50_us "$line"),$(field p99_us "$line"),$state" >>"$out"
			printf 'round %s rtt %-5s avg %8s us p50 %8s us p99 %8s us server %s\n' "$r" "$m" \
				"$(field avg_us "$line")" "$(field p50_us "$line")" "$(field p99_us "$line")" "$state"
		fi
	done
done
stop_daemon

# --- summary -----------------------------------------------------------------

# col WORKLOAD MODE COL: that column of every round
col() { awk -F, -v w="$1" -v m="$2" -v c="$3" 'NR > 1 && $2 == w && $3 == m {print $c}' "$out"; }
# round_ratios WORKLOAD MODE BASE COL: per-round MODE/BASE
round_ratios() {
	awk -F, -v w="$1" -v m="$2" -v b="$3" -v c="$4" 'NR > 1 && $2 == w {v[$1, $3] = $c; r[$1] = 1}
		END {for (k in r) if (v[k, b] > 0) printf "%.4f\n", v[k, m] / v[k, b]}' "$out"
}

echo "workload,mode,metric,median,lo,hi,vs,ratio,round_ratio_lo,round_ratio_hi" >"$sum"
echo
echo "agent, medians over $ROUNDS interleaved rounds (ranges: min-max over rounds)"
printf '%-4s %-6s %-10s %12s %23s %6s %7s %15s\n' work mode metric median range vs ratio round_ratios
summary_row() { # WORKLOAD MODE METRIC COL BASE
	local v b rr
	v=$(col "$1" "$2" "$4")
	b=$(col "$1" "$5" "$4")
	rr=$(round_ratios "$1" "$2" "$5" "$4")
	local mv mb
	mv=$(median <<<"$v")
	mb=$(median <<<"$b")
	echo "$1,$2,$3,$mv,$(minimum <<<"$v"),$(maximum <<<"$v"),$5,$(ratio "$mv" "$mb"),$(minimum <<<"$rr"),$(maximum <<<"$rr")" >>"$sum"
	printf '%-4s %-6s %-10s %12s %23s %6s %7s %15s\n' "$1" "$2" "$3" "$mv" "$(range <<<"$v")" \
		"$5" "$(ratio "$mv" "$mb")" "$(range <<<"$rr")"
}
summary_row nop plain ops_per_s 4 plain
summary_row nop idle ops_per_s 4 plain
summary_row nop napi ops_per_s 4 plain
summary_row rtt plain p50_us 5 plain
summary_row rtt agent p50_us 5 plain
summary_row rtt self p50_us 5 plain
summary_row rtt agent p50_us 5 self
summary_row rtt plain avg_us 4 plain
summary_row rtt agent avg_us 4 plain
summary_row rtt self avg_us 4 plain
echo
# sval WORKLOAD MODE METRIC [BASE]: the ratio of that summary row
sval() {
	awk -F, -v w="$1" -v m="$2" -v x="$3" -v b="${4:-plain}" \
		'$1 == w && $2 == m && $3 == x && $7 == b {print $8}' "$sum"
}
target "agent NOP throughput ratio" "$(sval nop idle ops_per_s)" '>=' 0.98 \
	"page mapped; nothing to apply: one atomic load per call"
target "agent+NAPI NOP throughput ratio" "$(sval nop napi ops_per_s)" '>=' 0.98 \
	"no target in the issue: NAPI also changes the kernel's path"
target "SINGLE_ISSUER RTT p50 agent/plain" "$(sval rtt agent p50_us plain)" '<=' 0.5 \
	"no target in the issue: what the agent wins"
target "SINGLE_ISSUER RTT p50 agent/self" "$(sval rtt agent p50_us self)" '<=' 1.1 \
	"no target in the issue: the agent against the program registering 50 us itself"

# --- plot: ratio of medians, bars = per-round ratios' min-max -------------------
dat=$T/agent_plot.csv
awk -F, 'NR > 1 && $2 != "plain" {print $1 " " $2 "/" $7 " " $3 "," $8 "," $9 "," $10}' "$sum" >"$dat"
plot "$RESULTS/agent.png" 800 420 <<PLOT
set title 'in-process agent / no agent, ratio of medians ($ROUNDS interleaved rounds; bars: min-max of per-round ratios)'
set ylabel 'ratio, log scale (NOPs: higher is better; RTT: lower)'
set logscale y
set yrange [0.1:2]
set ytics (0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.98, 1, 1.1, 1.5, 2)
set xrange [-0.5:6.5]
set xtics rotate by -20
set arrow from graph 0, first 1 to graph 1, first 1 nohead lc rgb 'black' dt 2
set arrow from graph 0, first 0.98 to graph 1, first 0.98 nohead lc rgb 'blue' dt 3
plot '$dat' using 0:2:3:4:xtic(1) with yerrorbars pt 7 ps 1.5 lc rgb '#2060c0' title 'agent / plain', \
	NaN with lines lc rgb 'blue' dt 3 title 'NOP target 0.98'
PLOT
echo "csv: $out $sum"
