#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark (not a test), detail of part 2 (overhead): each of the daemon's
# BPF programs' runs and average run time (kernel.bpf_stats_enabled, which
# adds its own ~55 ns per run here) during two workloads, under an
# observe-mode uringtuned:
#   pingpong  COUNT pings, both rings busy-polling NAPI at 50 us
#   nop       build/nopbench, NOP_OPS NOPs in batches of 32
#   fork      FORKS processes started (fork + exec of /bin/true) by a shell
#             that holds no ring: what the inventory's fork report
#             (on_process_fork, a hash lookup per new process) and ring-gone
#             watch (on_queue_work, per queued work item) cost a fork-heavy
#             host that has nothing to do with io_uring
# and so what each program costs per ping, per NOP or per process started.
#   COUNT (default 20000; QUICK 5000), NOP_OPS (default 2000000; QUICK 500000),
#   FORKS (default 5000; QUICK 1000)
# CSV: RESULTS/prog_cost.csv; plot prog_cost.png.
. "$(dirname "$0")/lib.sh"

PART=prog_cost
COUNT=${COUNT:-$(quick 5000 20000)}
NOP_OPS=${NOP_OPS:-$(quick 500000 2000000)}
FORKS=${FORKS:-$(quick 1000 5000)}
out=$RESULTS/prog_cost.csv

part_banner "COUNT=$COUNT NOP_OPS=$NOP_OPS FORKS=$FORKS"
netns_setup
bench_daemon
old=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled=$old; cleanup' EXIT
sysctl -qw kernel.bpf_stats_enabled=1

# the daemon's programs: those among its fds
ids=$(sed -n 's/^prog_id:\t*//p' /proc/"$DAEMON_PID"/fdinfo/* 2>/dev/null | sort -un)
[ -n "$ids" ] || fail "no BPF programs among uringtuned's fds"
# snapshot: "name runs ns" per program
snapshot() {
	local id
	for id in $ids; do
		bpftool -j prog show id "$id" | jq -r '"\(.name) \(.run_cnt // 0) \(.run_time_ns // 0)"'
	done
}

echo "workload,program,runs,avg_ns,runs_per_op,ns_per_op" >"$out"
# measure WORKLOAD OPS CMD...: run CMD, add each program's delta to the CSV
measure() {
	local w=$1 ops=$2
	shift 2
	snapshot >"$T/before"
	"$@" >"$T/work.out"
	snapshot >"$T/after"
	grep -E '^(rtt|nop|fork) ' "$T/work.out"
	join "$T/before" "$T/after" | awk -v w="$w" -v ops="$ops" '{
		runs = $4 - $2; ns = $5 - $3
		printf "%s,%s,%d,%.0f,%.4f,%.1f\n", w, $1, runs, runs ? ns / runs : 0, runs / ops, ns / ops
	}' >>"$out"
}

pp_server --napi-busy-poll-us 50
measure pingpong "$COUNT" pp_client --count "$COUNT" --napi-busy-poll-us 50
pp_server_stop
measure nop "$NOP_OPS" "${PIN_CLIENT[@]}" "$B/nopbench" --ops "$NOP_OPS"
# forks: the wall time per process started, beside what the programs took of it
measure fork "$FORKS" bash -c 't0=$(date +%s%N); for ((i = 0; i < '"$FORKS"'; i++)); do /bin/true; done
	echo "fork us_per_process=$(( ($(date +%s%N) - t0) / 1000 / '"$FORKS"' ))"'

echo
echo "BPF programs of uringtuned, per workload (avg_ns includes bpf_stats' own cost)"
column -t -s, "$out"

# plot: ns per operation, per program, one cluster per workload
dat=$T/prog_cost_plot.csv
progs=$(awk -F, 'NR > 1 {print $2}' "$out" | sort -u)
{
	echo "program,pingpong,nop,fork"
	for p in $progs; do
		printf '%s,%s,%s,%s\n' "$p" \
			"$(awk -F, -v p="$p" '$1=="pingpong" && $2==p {print $6}' "$out")" \
			"$(awk -F, -v p="$p" '$1=="nop" && $2==p {print $6}' "$out")" \
			"$(awk -F, -v p="$p" '$1=="fork" && $2==p {print $6}' "$out")"
	done
} >"$dat"
plot "$RESULTS/prog_cost.png" 900 450 <<EOF
set title 'uringtuned BPF programs: ns of run time per ping / NOP / process started (bpf_stats_enabled)'
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set key top right autotitle columnheader
set ylabel 'ns per operation'
set yrange [0:*]
set xtics rotate by -20
plot '$dat' using 2:xtic(1), '' using 3, '' using 4
EOF
echo "csv: $out"
