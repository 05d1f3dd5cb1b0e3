#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark part 2, overhead (not a test): what observing costs. In
# interleaved rounds (the order of "off" and "on" alternates), with and
# without an observe-mode uringtuned:
#   rtt  UDP ping-pong over io_uring between two namespaces, both rings with
#        NAPI busy polling registered by the application (50 us): the BPF
#        programs' per-poll-arm and per-wait work is on the round trip
#   nop  build/nopbench: NOPs in batches of NOP_BATCH on one ring for
#        NOP_SECONDS (the submit/complete path, which uringtune does not hook)
#   udp  UDP echo throughput: the ping-pong client with UDP_WINDOW pings in
#        flight (--window), same rings and NAPI as rtt
# Ratios observe/none of the medians over rounds, and the per-round ratios'
# min-max (each round pairs an off and an on run).
#   ROUNDS (default 9; QUICK 5), COUNT rtt pings (20000; QUICK 5000),
#   NOP_SECONDS (2; QUICK 1), NOP_BATCH (32), UDP_COUNT (200000; QUICK 50000),
#   UDP_WINDOW (32), NAPI_US (50)
# cpu_pressure_ms: the host's CPU pressure over the three workloads (see
# psi_us in bench/lib.sh), which flags rounds something else disturbed.
# CSV: RESULTS/overhead.csv (every round), overhead_summary.csv; plot overhead.png.
. "$(dirname "$0")/lib.sh"

PART=overhead
ROUNDS=${ROUNDS:-$(quick 5 9)}
COUNT=${COUNT:-$(quick 5000 20000)}
NOP_SECONDS=${NOP_SECONDS:-$(quick 1 2)}
NOP_BATCH=${NOP_BATCH:-32}
UDP_COUNT=${UDP_COUNT:-$(quick 50000 200000)}
UDP_WINDOW=${UDP_WINDOW:-32}
NAPI_US=${NAPI_US:-50}
out=$RESULTS/overhead.csv
sum=$RESULTS/overhead_summary.csv

part_banner "ROUNDS=$ROUNDS COUNT=$COUNT NOP_SECONDS=$NOP_SECONDS NOP_BATCH=$NOP_BATCH UDP_COUNT=$UDP_COUNT UDP_WINDOW=$UDP_WINDOW NAPI_US=$NAPI_US"
netns_setup
targets_begin

napi=(--napi-busy-poll-us "$NAPI_US")
echo "round,daemon,rtt_min_us,rtt_p50_us,rtt_avg_us,rtt_p99_us,nop_ops_per_s,udp_pps,udp_p50_us,udp_p99_us,cpu_pressure_ms" >"$out"
for r in $(seq 1 "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then order="off on"; else order="on off"; fi
	for d in $order; do
		[ "$d" = off ] || bench_daemon
		pp_server "${napi[@]}"
		psi0=$(psi_us)
		rtt=$(pp_client --count "$COUNT" "${napi[@]}" | grep '^rtt ')
		udp=$(pp_client --count "$UDP_COUNT" --window "$UDP_WINDOW" "${napi[@]}")
		pp_server_stop
		nop=$("${PIN_CLIENT[@]}" "$B/nopbench" --batch "$NOP_BATCH" --seconds "$NOP_SECONDS" |
			grep '^nop ')
		psi=$((($(psi_us) - psi0) / 1000))
		[ "$d" = off ] || stop_daemon
		udp_rtt=$(grep '^rtt ' <<<"$udp")
		udp_tp=$(grep '^throughput ' <<<"$udp")
		echo "$r,$d,$(field min_us "$rtt"),$(field p50_us "$rtt"),$(field avg_us "$rtt"),$(field p99_us "$rtt"),$(field ops_per_s "$nop"),$(field pps "$udp_tp"),$(field p50_us "$udp_rtt"),$(field p99_us "$udp_rtt"),$psi" >>"$out"
		printf 'round %s daemon %-3s rtt p50 %7s us avg %7s us | nop %10s ops/s | udp %8s pps p50 %7s us | CPU pressure %s ms\n' \
			"$r" "$d" "$(field p50_us "$rtt")" "$(field avg_us "$rtt")" \
			"$(field ops_per_s "$nop")" "$(field pps "$udp_tp")" "$(field p50_us "$udp_rtt")" "$psi"
	done
done

# --- summary -----------------------------------------------------------------

# per_round_ratios COL: on/off of each round
per_round_ratios() {
	awk -F, -v c="$1" 'NR > 1 {v[$1, $2] = $c; r[$1] = 1}
		END {for (k in r) if (v[k, "off"] > 0) printf "%.4f\n", v[k, "on"] / v[k, "off"]}' "$out"
}

metrics=(rtt_min_us:3 rtt_p50_us:4 rtt_avg_us:5 rtt_p99_us:6 nop_ops_per_s:7 udp_pps:8 udp_p50_us:9 udp_p99_us:10)
echo "metric,none,none_lo,none_hi,observe,observe_lo,observe_hi,ratio,round_ratio_lo,round_ratio_hi" >"$sum"
echo
echo "observe-mode uringtuned vs none, medians over $ROUNDS interleaved rounds (ranges: min-max over rounds)"
printf '%-14s %12s %23s %12s %23s %7s %15s\n' metric none range observe range ratio round_ratios
for mc in "${metrics[@]}"; do
	m=${mc%%:*}
	c=${mc#*:}
	off=$(csv_col "$out" "$c" 2 off)
	on=$(csv_col "$out" "$c" 2 on)
	rr=$(per_round_ratios "$c")
	mo=$(median <<<"$off")
	mn=$(median <<<"$on")
	ra=$(ratio "$mn" "$mo")
	echo "$m,$mo,$(minimum <<<"$off"),$(maximum <<<"$off"),$mn,$(minimum <<<"$on"),$(maximum <<<"$on"),$ra,$(minimum <<<"$rr"),$(maximum <<<"$rr")" >>"$sum"
	printf '%-14s %12s %23s %12s %23s %7s %15s\n' "$m" "$mo" "$(range <<<"$off")" "$mn" \
		"$(range <<<"$on")" "$ra" "$(range <<<"$rr")"
done
echo
sval() { awk -F, -v m="$1" -v c="$2" '$1==m {print $c}' "$sum"; }
target "observe RTT p50 ratio" "$(sval rtt_p50_us 8)" '<=' 1.05
target "observe RTT avg ratio" "$(sval rtt_avg_us 8)" '<=' 1.05
target "observe NOP throughput ratio" "$(sval nop_ops_per_s 8)" '>=' 0.97
target "observe UDP throughput ratio" "$(sval udp_pps 8)" '>=' 0.97 "no target in the issue: the NOP one"

# --- plot: ratio of medians per metric, bars = per-round ratios' min-max ----
dat=$T/overhead_plot.csv
awk -F, 'NR > 1 {print $1 "," $8 "," $9 "," $10}' "$sum" >"$dat"
plot "$RESULTS/overhead.png" 900 450 <<EOF
set title 'observe-mode uringtuned / no daemon, ratio of medians ($ROUNDS interleaved rounds; bars: min-max of per-round ratios, clipped to 0.3-3.3)'
set ylabel 'ratio, log scale (RTT: lower is better; throughput: higher)'
set logscale y
set yrange [0.3:3.3]
set ytics (0.33, 0.5, 0.67, 0.8, 0.9, 0.97, 1, 1.05, 1.1, 1.25, 1.5, 2, 3)
set xrange [-0.5:7.5]
set xtics rotate by -20
set arrow from graph 0, first 1 to graph 1, first 1 nohead lc rgb 'black' dt 2
set arrow from graph 0, first 1.05 to graph 1, first 1.05 nohead lc rgb 'red' dt 3
set arrow from graph 0, first 0.97 to graph 1, first 0.97 nohead lc rgb 'blue' dt 3
set key top right
plot '$dat' using 0:2:3:4:xtic(1) with yerrorbars pt 7 ps 1.5 lc rgb '#2060c0' title 'observe / none', \
	NaN with lines lc rgb 'red' dt 3 title 'RTT target 1.05', \
	NaN with lines lc rgb 'blue' dt 3 title 'throughput target 0.97'
EOF
echo "csv: $out $sum"
