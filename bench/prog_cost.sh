#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark (not a test): each napi_trace program's run count and average run
# time (kernel.bpf_stats_enabled, which adds its own ~55 ns per run here)
# during a ping-pong with both rings busy-polling NAPI at 50 us.
#   COUNT pings (default 20000)
. "$(dirname "$0")/../tests/lib.sh"

COUNT=${COUNT:-20000}
out=bench/results/prog_cost.csv
mkdir -p bench/results

netns_setup
start_daemon
old=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled=$old; cleanup' EXIT
sysctl -qw kernel.bpf_stats_enabled=1

bg ip netns exec "$NS_B" "$B/pingpong" server --bind 198.18.0.2:7000 \
	--napi-busy-poll-us 50 --quiet >"$T/server.out"
wait_line "$T/server.out" '^ring '
ip netns exec "$NS_A" "$B/pingpong" client --connect 198.18.0.2:7000 \
	--count "$COUNT" --napi-busy-poll-us 50 --quiet | grep '^rtt '

# the daemon's programs: those whose maps are among its fds
ids=$(sed -n 's/^prog_id:\t*//p' /proc/"$DAEMON_PID"/fdinfo/* 2>/dev/null | sort -u)
echo "program,runs,avg_ns" >"$out"
for id in $ids; do
	bpftool -j prog show id "$id" |
		jq -r 'select(.run_cnt != null and .run_cnt > 0) |
			"\(.name),\(.run_cnt),\(.run_time_ns / .run_cnt | floor)"'
done | tee -a "$out" | column -t -s,
echo "csv: $out"
