#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark part 4, footprint (not a test): what uringtuned itself costs.
#   idle   an observe-mode daemon (shipped configuration: 1 s ticks, textfile
#          export on) with 0 / 100 / 1000 idle rings (build/ringhold): RSS
#          (/proc/PID/status VmRSS) and CPU over INTERVAL seconds (utime+stime
#          from /proc/PID/stat, as % of one core; the schedstat run time of
#          its threads, in ns, alongside since clock ticks are 10 ms). A fresh
#          daemon per measurement, ring counts in an order rotated each round.
#          The ring count is read from the textfile export, not from status:
#          a status query grows the daemon's heap, which would be measured.
#   status `uringtune status --json` (and the table) with STATUS_RINGS rings:
#          STATUS_RUNS timed runs, median and min-max; RSS and idle CPU
#          before the first query, RSS after the last.
#   ROUNDS (default 3; QUICK 2), RING_COUNTS (default "0 100 1000"),
#   INTERVAL seconds (10; QUICK 3), STATUS_RINGS (10000), STATUS_RUNS (9; QUICK 5),
#   FOOTPRINT_SETTLE seconds between the rings seen and the idle interval (1.2:
#   a tick for their sweep); EXPORT_S (bench/lib.sh) for the waits on the export
# CSV: RESULTS/footprint.csv, footprint_status.csv, footprint_big.csv;
# plot footprint.png.
. "$(dirname "$0")/lib.sh"

PART=footprint
ROUNDS=${ROUNDS:-$(quick 2 3)}
RING_COUNTS=${RING_COUNTS:-0 100 1000}
INTERVAL=${INTERVAL:-$(quick 3 10)}
STATUS_RINGS=${STATUS_RINGS:-10000}
STATUS_RUNS=${STATUS_RUNS:-$(quick 5 9)}
FOOTPRINT_SETTLE=${FOOTPRINT_SETTLE:-1.2}
# rings per ringhold process: well under a default fd limit of 1024
PER_PROC=500
out=$RESULTS/footprint.csv
st=$RESULTS/footprint_status.csv
big=$RESULTS/footprint_big.csv

part_banner "ROUNDS=$ROUNDS RING_COUNTS=\"$RING_COUNTS\" INTERVAL=$INTERVAL STATUS_RINGS=$STATUS_RINGS STATUS_RUNS=$STATUS_RUNS" \
	"FOOTPRINT_SETTLE=$FOOTPRINT_SETTLE${EXPORT_S:+ EXPORT_S=$EXPORT_S}"
targets_begin
ulimit -n 65536 2>/dev/null || true

HOLDERS=()
# hold_rings N: N idle rings in ringhold processes, ready
hold_rings() {
	local n=$1 i=0 c
	HOLDERS=()
	while [ "$n" -gt 0 ]; do
		c=$((n < PER_PROC ? n : PER_PROC))
		i=$((i + 1))
		bg "$B/ringhold" --count "$c" --hold 600 >"$T/hold$i.out"
		HOLDERS+=("${BG_PIDS[-1]}")
		n=$((n - c))
	done
	for c in $(seq 1 "$i"); do
		wait_line "$T/hold$c.out" '^ready' 60
	done
}

release_rings() {
	local p
	for p in "${HOLDERS[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
		bg_forget "$p"
	done
	HOLDERS=()
}


# --- idle rings ----------------------------------------------------------------

read -ra counts <<<"$RING_COUNTS"
nc=${#counts[@]}
echo "round,rings,rss_kb,cpu_pct,cpu_pct_schedstat,interval_s" >"$out"
for r in $(seq 1 "$ROUNDS"); do
	for k in $(seq 0 $((nc - 1))); do
		n=${counts[$(( (k + r) % nc ))]}
		bench_daemon max_rings=$((n > 16384 - 1024 ? n + 1024 : 16384))
		hold_rings "$n"
		wait_for 30 seen "$n" || fail "the daemon did not see $n rings (export says $(prom_rings))"
		# a tick for the new rings' sweep to settle, then the idle interval
		sleep "$FOOTPRINT_SETTLE"
		read -r cpu cpu_ns < <(idle_cpu "$INTERVAL")
		rss=$(rss_kb "$DAEMON_PID")
		echo "$r,$n,$rss,$cpu,$cpu_ns,$INTERVAL" >>"$out"
		printf 'round %s rings %5s: RSS %6s kB, CPU %6s%% of a core (schedstat %s%%)\n' \
			"$r" "$n" "$rss" "$cpu" "$cpu_ns"
		release_rings
		stop_daemon
	done
done

# --- status with many rings -----------------------------------------------------

bench_daemon max_rings=$((STATUS_RINGS + 2048))
hold_rings "$STATUS_RINGS"
wait_for 60 seen "$STATUS_RINGS" ||
	fail "the daemon did not see $STATUS_RINGS rings (export says $(prom_rings))"
sleep "$FOOTPRINT_SETTLE"
read -r cpu cpu_ns < <(idle_cpu "$INTERVAL")
rss0=$(rss_kb "$DAEMON_PID")
echo "run,rings,view,ms,bytes" >"$st"
for i in $(seq 1 "$STATUS_RUNS"); do
	for view in json table; do
		args=(status)
		[ "$view" = table ] || args+=(--json)
		t0=$(date +%s%N)
		"$B/uringtune" --socket "$SOCK" "${args[@]}" >"$T/status.out"
		t1=$(date +%s%N)
		echo "$i,$(prom_rings),$view,$(awk -v d="$((t1 - t0))" 'BEGIN{printf "%.1f", d/1e6}'),$(wc -c <"$T/status.out")" >>"$st"
	done
done
rss1=$(rss_kb "$DAEMON_PID")
echo "rings,rss_kb_before_status,rss_kb_after_status,cpu_pct,cpu_pct_schedstat,interval_s" >"$big"
echo "$(prom_rings),$rss0,$rss1,$cpu,$cpu_ns,$INTERVAL" >>"$big"
release_rings
stop_daemon

# --- summary -----------------------------------------------------------------

echo
echo "uringtuned (observe mode) with idle rings: medians over $ROUNDS rounds (min-max)"
printf '%6s %10s %17s %10s %15s %12s\n' rings RSS_MB range CPU_% range schedstat_%
for n in "${counts[@]}"; do
	rss=$(csv_col "$out" 3 2 "$n")
	cpu=$(csv_col "$out" 4 2 "$n")
	cns=$(csv_col "$out" 5 2 "$n")
	printf '%6s %10s %17s %10s %15s %12s\n' "$n" \
		"$(median <<<"$rss" | awk '{printf "%.1f", $1/1024}')" \
		"$(awk '{printf "%.1f\n", $1/1024}' <<<"$rss" | range)" \
		"$(median <<<"$cpu")" "$(range <<<"$cpu")" "$(median <<<"$cns")"
done
bigrow=$(tail -n 1 "$big")
IFS=, read -r brings brss0 brss1 bcpu bcns _ <<<"$bigrow"
printf '%6s %10s %17s %10s %15s %12s   (one run; RSS before the first status query)\n' "$brings" \
	"$(awk -v v="$brss0" 'BEGIN{printf "%.1f", v/1024}')" - "$bcpu" - "$bcns"
echo
js=$(csv_col "$st" 4 3 json)
tb=$(csv_col "$st" 4 3 table)
echo "status with $brings rings, $STATUS_RUNS runs: --json median $(median <<<"$js") ms ($(range <<<"$js")), $(csv_col "$st" 5 3 json | tail -n 1) bytes;" \
	"table median $(median <<<"$tb") ms ($(range <<<"$tb"))"
echo "daemon RSS with $brings rings: $(awk -v v="$brss0" 'BEGIN{printf "%.1f", v/1024}') MB before the status queries, $(awk -v v="$brss1" 'BEGIN{printf "%.1f", v/1024}') MB after"
echo
maxrss=0
for n in "${counts[@]}"; do
	v=$(csv_col "$out" 3 2 "$n" | median)
	awk -v a="$v" -v b="$maxrss" 'BEGIN{exit !(a>b)}' && maxrss=$v
	target "RSS MB with $n idle rings" "$(awk -v v="$v" 'BEGIN{printf "%.1f", v/1024}')" '<=' 16
done
last=${counts[-1]}
target "idle CPU % with $last rings" "$(csv_col "$out" 4 2 "$last" | median)" '<=' 1
target "status --json ms with $brings rings" "$(median <<<"$js")" '<=' 200

# --- plot ----------------------------------------------------------------------
dat=$T/footprint_plot.csv
{
	for n in "${counts[@]}"; do
		rss=$(csv_col "$out" 3 2 "$n" | awk '{printf "%.2f\n", $1/1024}')
		cpu=$(csv_col "$out" 4 2 "$n")
		echo "$n,$(median <<<"$rss"),$(minimum <<<"$rss"),$(maximum <<<"$rss"),$(median <<<"$cpu"),$(minimum <<<"$cpu"),$(maximum <<<"$cpu")"
	done
} >"$dat"
echo "$brings,$(awk -v v="$brss0" 'BEGIN{printf "%.2f", v/1024}'),$(awk -v v="$brss1" 'BEGIN{printf "%.2f", v/1024}'),$bcpu" >"$T/footprint_big.csv"
csv_col "$st" 4 3 json | nl -w1 -s, >"$T/status_json.csv"
csv_col "$st" 4 3 table | nl -w1 -s, >"$T/status_table.csv"
# 0 rings sit at 1 on the logarithmic axis, labelled 0
xt=$(for n in "${counts[@]}" "$brings"; do printf '"%s" %s,' "$n" "$((n < 1 ? 1 : n))"; done)
plot "$RESULTS/footprint.png" 1200 420 <<EOF
set multiplot layout 1,3 title 'uringtuned footprint (observe mode, shipped configuration)'
set xlabel 'idle rings'
set logscale x
set xrange [0.7:$((brings * 2))]
set xtics (${xt%,})
set key top left
set title 'RSS, MB (median, min-max over rounds)'
set yrange [0:17<*]
set arrow 1 from graph 0, first 16 to graph 1, first 16 nohead lc rgb 'red' dt 3
plot '$dat' using (\$1 < 1 ? 1 : \$1):2:3:4 with yerrorlines pt 7 lc rgb '#2060c0' title 'idle', \
	'$T/footprint_big.csv' using 1:2 with points pt 9 ps 1.5 lc rgb '#2060c0' title 'before status', \
	'' using 1:3 with points pt 8 ps 1.5 lc rgb '#c04020' title 'after status queries'
set title 'CPU, % of one core (median, min-max over rounds)'
set yrange [0:1.1<*]
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lc rgb 'red' dt 3
plot '$dat' using (\$1 < 1 ? 1 : \$1):5:6:7 with yerrorlines pt 7 lc rgb '#c04020' title 'idle', \
	'$T/footprint_big.csv' using 1:4 with points pt 9 ps 1.5 lc rgb '#c04020' title 'one run'
unset logscale x
set xtics autofreq
set xrange [0.5:$STATUS_RUNS.5]
set xlabel 'run'
set title 'uringtune status with $brings rings, ms'
set yrange [0:210<*]
set arrow 1 from graph 0, first 200 to graph 1, first 200 nohead lc rgb 'red' dt 3
set key bottom right
plot '$T/status_json.csv' using 1:2 with linespoints pt 7 title '--json', \
	'$T/status_table.csv' using 1:2 with linespoints pt 5 title 'table'
unset multiplot
EOF
echo "csv: $out $st $big"
