#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark (not a test): what observing costs. UDP ping-pong over io_uring
# between two namespaces, both rings with self-registered NAPI busy polling
# (50 us), observe-mode uringtuned running vs not, in interleaved rounds.
# Prints per-round RTTs and the medians; writes bench/results/rtt_observe.csv.
#   ROUNDS (default 7), COUNT pings per round (default 20000)
# Extra daemon variants: VARIANTS="off on" (default); each is "off" or "on".
. "$(dirname "$0")/../tests/lib.sh"

ROUNDS=${ROUNDS:-7}
COUNT=${COUNT:-20000}
out=bench/results/rtt_observe.csv
mkdir -p bench/results

netns_setup
bg ip netns exec "$NS_B" "$B/pingpong" server --bind 198.18.0.2:7000 \
	--napi-busy-poll-us 50 --quiet >"$T/server.out"
wait_line "$T/server.out" '^ring '

one_round() {
	ip netns exec "$NS_A" "$B/pingpong" client --connect 198.18.0.2:7000 \
		--count "$COUNT" --napi-busy-poll-us 50 --quiet | grep '^rtt '
}

echo "round,daemon,min_us,avg_us,max_us,mdev_us,p50_us,p99_us" >"$out"
for r in $(seq 1 "$ROUNDS"); do
	# alternate the order so drift on a shared machine hits both sides
	if [ $((r % 2)) = 1 ]; then order="off on"; else order="on off"; fi
	for mode in $order; do
		[ "$mode" = on ] && start_daemon
		line=$(one_round)
		[ "$mode" = on ] && stop_daemon
		printf '%s,%s,%s,%s,%s,%s,%s,%s\n' "$r" "$mode" "$(field min_us "$line")" \
			"$(field avg_us "$line")" "$(field max_us "$line")" \
			"$(field mdev_us "$line")" "$(field p50_us "$line")" \
			"$(field p99_us "$line")" >>"$out"
		echo "round $r daemon $mode: $line"
	done
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
range() { sort -n | awk 'NR==1{lo=$1} {hi=$1} END {printf "%s-%s", lo, hi}'; }
# column COL: median and min-max of that column over the rounds, per side
summary() {
	local col=$1 name=$2 off on
	off=$(awk -F, -v c="$col" '$2=="off"{print $c}' "$out" | median)
	on=$(awk -F, -v c="$col" '$2=="on"{print $c}' "$out" | median)
	printf '%-4s RTT, median of rounds: no daemon %6s us (%s), observe-mode %6s us (%s), ratio %s\n' \
		"$name" "$off" "$(awk -F, -v c="$col" '$2=="off"{print $c}' "$out" | range)" \
		"$on" "$(awk -F, -v c="$col" '$2=="on"{print $c}' "$out" | range)" \
		"$(awk -v a="$on" -v b="$off" 'BEGIN{printf "%.3f", a/b}')"
}
echo
summary 3 min
summary 7 p50
summary 4 avg
summary 8 p99
echo "csv: $out"
