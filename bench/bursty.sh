#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark part 5, bursty (not a test): traffic with idle gaps, where busy
# polling spins for nothing at the start of every gap. The ping-pong client
# sends BURST pings back to back, sleeps GAP_MS, and again, until COUNT
# pings (pingpong --burst --gap-ms); client and server pinned (PIN=1).
# Interleaved rounds of:
#   none    no NAPI busy polling, no daemon (the CPU floor)
#   s50     both rings busy-poll NAPI at 50 us, set by the application
#   tune    the unmodified ping-pong under uringtuned --mode tune
# Per run: CPU of client + server (each process's getrusage utime+stime,
# pingpong --cpu), per ping and as % of one core over the client's wall
# time; RTT p50/p99. "vs none": CPU per ping minus none's in the same round,
# what busy polling adds (negative: it saves more wake-up work than it spins).
# A tune-mode ring starts at initial_busy_poll_us (50) and the tuner first
# resizes it after settle_s (5 s) and min_windows (1000) windows: runs
# shorter than that (QUICK) measure the daemon's reaction, not its tuning.
#   ROUNDS (default 3), COUNT (100000; QUICK 20000), BURST (10), GAP_MS (1),
#   MODES (default "none s50 tune")
# cpu_pressure_ms: the host's CPU pressure during the run (psi_us in
# bench/lib.sh), which flags runs something else disturbed.
# CSV: RESULTS/bursty.csv, bursty_summary.csv; the tuner's last decision on
# each tune run's server ring, and every change it made to the server's and
# the client's ring (from the daemon's log): bursty_decisions.txt; plot
# bursty.png. MODES=tune ROUNDS=1 COUNT=4800000 (~10 min) counts the changes
# per 10 minutes of steady traffic.
. "$(dirname "$0")/lib.sh"

PART=bursty
ROUNDS=${ROUNDS:-3}
COUNT=${COUNT:-$(quick 20000 100000)}
BURST=${BURST:-10}
GAP_MS=${GAP_MS:-1}
MODES=${MODES:-none s50 tune}
out=$RESULTS/bursty.csv
sum=$RESULTS/bursty_summary.csv

part_banner "ROUNDS=$ROUNDS COUNT=$COUNT BURST=$BURST GAP_MS=$GAP_MS MODES=\"$MODES\""
netns_setup
targets_begin
read -ra modes <<<"$MODES"

# one_run MODE: "pings,wall_s,client_us,server_us,p50,p99,avg,server_napi,psi_ms"
one_run() {
	local mode=$1 napi=() line cl sv state w0 w1 p f psi0 psi1 l0 changes
	case $mode in
	s*) napi=(--napi-busy-poll-us "${mode#s}") ;;
	esac
	# the daemon log is appended to from run to run: this run's lines follow l0
	l0=0
	[ ! -f "$T/daemon.log" ] || l0=$(wc -l <"$T/daemon.log")
	[ "$mode" != tune ] || bench_daemon mode=tune include_comm=pingpong
	pp_server --cpu "${napi[@]}"
	if [ "$mode" = tune ]; then
		read -r p f < <(ring_of "$T/server.out")
		expect_napi "$p" "$f" '^enabled/' 5
	fi
	w0=$(date +%s%N)
	psi0=$(psi_us)
	pp_client --count "$COUNT" --burst "$BURST" --gap-ms "$GAP_MS" --cpu "${napi[@]}" \
		>"$T/client.out"
	w1=$(date +%s%N)
	psi1=$(psi_us)
	state=$(server_napi)
	if [ "$mode" = tune ]; then
		# what the tuner did to the server's ring, and why (its last decision)
		read -r p f < <(ring_of "$T/server.out")
		ring "$p" "$f" | jq -r --arg r "$r" \
			'"round \($r) server ring: busy_poll_us \(.napi.busy_poll_us), last decision: \(.tuning.last_decision // "none")"' \
			>>"$RESULTS/bursty_decisions.txt" || true
	fi
	pp_server_stop
	if [ "$mode" = tune ]; then
		stop_daemon
		# every change the tuner made to each ring after taking it, from the log
		for who in server client; do
			read -r p f < <(ring_of "$T/$who.out")
			changes=$(tail -n +$((l0 + 1)) "$T/daemon.log" |
				grep -F "ring pid=$p comm=pingpong fd=$f: " |
				grep -v 'NAPI busy polling on' || true)
			echo "round $r $who ring: changes: $(grep -c . <<<"$changes") in $(((w1 - w0) / 1000000000)) s" \
				>>"$RESULTS/bursty_decisions.txt"
			[ -z "$changes" ] || sed 's/^/  /' <<<"$changes" >>"$RESULTS/bursty_decisions.txt"
		done
	fi
	line=$(grep '^rtt ' "$T/client.out")
	cl=$(grep '^cpu ' "$T/client.out")
	sv=$(grep '^cpu ' "$T/server.out")
	if [ -z "$line" ] || [ -z "$cl" ] || [ -z "$sv" ]; then
		fail "$mode: missing rtt or cpu lines"
	fi
	printf '%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$(field count "$line")" \
		"$(awk -v d="$((w1 - w0))" 'BEGIN{printf "%.3f", d/1e9}')" \
		"$(($(field user_us "$cl") + $(field sys_us "$cl")))" \
		"$(($(field user_us "$sv") + $(field sys_us "$sv")))" \
		"$(field p50_us "$line")" "$(field p99_us "$line")" "$(field avg_us "$line")" "$state" \
		$(((psi1 - psi0) / 1000))
}

rm -f "$RESULTS/bursty_decisions.txt"
echo "round,mode,pings,wall_s,client_cpu_us,server_cpu_us,cpu_us_per_ping,cpu_pct,p50_us,p99_us,avg_us,server_napi,cpu_pressure_ms" >"$out"
n=${#modes[@]}
for r in $(seq 1 "$ROUNDS"); do
	for k in $(seq 0 $((n - 1))); do
		mode=${modes[$(( (k + r) % n ))]}
		res=$(one_run "$mode")
		IFS=, read -r pings wall cl sv p50 p99 avg state psi <<<"$res"
		per=$(awk -v c="$((cl + sv))" -v n="$pings" 'BEGIN{printf "%.2f", c/n}')
		pctc=$(awk -v c="$((cl + sv))" -v w="$wall" 'BEGIN{printf "%.1f", 100*c/1e6/w}')
		echo "$r,$mode,$pings,$wall,$cl,$sv,$per,$pctc,$p50,$p99,$avg,$state,$psi" >>"$out"
		printf 'round %s %-5s %6s pings in %6s s: CPU %7s us/ping (%5s%% of a core), RTT p50 %7s us p99 %7s us, server NAPI %s, CPU pressure %s ms\n' \
			"$r" "$mode" "$pings" "$wall" "$per" "$pctc" "$p50" "$p99" "$state" "$psi"
	done
done

# --- summary -----------------------------------------------------------------

# vs_none MODE: per round, this mode's CPU per ping minus none's
vs_none() {
	awk -F, -v m="$1" 'NR > 1 {v[$1, $2] = $7; r[$1] = 1}
		END {for (k in r) if ((k, "none") in v && (k, m) in v) printf "%.2f\n", v[k, m] - v[k, "none"]}' "$out"
}
echo "mode,rounds,cpu_us_per_ping,cpu_lo,cpu_hi,cpu_pct,vs_none_us_per_ping,p50_us,p50_lo,p50_hi,p99_us,p99_lo,p99_hi" >"$sum"
echo
echo "bursts of $BURST pings, $GAP_MS ms apart, $COUNT pings per run: medians over $ROUNDS rounds (min-max)"
printf '%-5s %9s %15s %7s %10s %8s %17s %9s %19s\n' mode cpu/ping range cpu% vs_none p50_us range p99_us range
for m in "${modes[@]}"; do
	c=$(csv_col "$out" 7 2 "$m")
	p5=$(csv_col "$out" 9 2 "$m")
	p9=$(csv_col "$out" 10 2 "$m")
	sp=$(vs_none "$m" | median 2>/dev/null || echo -)
	[ "$m" != none ] || sp=0
	echo "$m,$ROUNDS,$(median <<<"$c"),$(minimum <<<"$c"),$(maximum <<<"$c"),$(csv_col "$out" 8 2 "$m" | median),$sp,$(median <<<"$p5"),$(minimum <<<"$p5"),$(maximum <<<"$p5"),$(median <<<"$p9"),$(minimum <<<"$p9"),$(maximum <<<"$p9")" >>"$sum"
	printf '%-5s %9s %15s %7s %10s %8s %17s %9s %19s\n' "$m" "$(median <<<"$c")" "$(range <<<"$c")" \
		"$(csv_col "$out" 8 2 "$m" | median)" "$sp" "$(median <<<"$p5")" "$(range <<<"$p5")" \
		"$(median <<<"$p9")" "$(range <<<"$p9")"
done
echo "(cpu/ping, vs_none: us of client + server CPU per ping; cpu%: of one core over the run)"
sv() { awk -F, -v m="$1" -v c="$2" '$1==m {print $c}' "$sum"; }
if [[ " $MODES " == *" tune "* && " $MODES " == *" s50 "* ]]; then
	echo
	echo "tune vs s50: CPU per ping $(ratio "$(sv tune 3)" "$(sv s50 3)")x, CPU per ping vs none $(sv tune 7) and $(sv s50 7) us, p50 $(ratio "$(sv tune 8)" "$(sv s50 8)")x, p99 $(ratio "$(sv tune 11)" "$(sv s50 11)")x"
	echo "server ring's NAPI at the end of the tune runs: $(csv_col "$out" 12 2 tune | sort | uniq -c | awk '{printf "%s (%s runs) ", $2, $1}')"
	[ ! -s "$RESULTS/bursty_decisions.txt" ] || cat "$RESULTS/bursty_decisions.txt"
fi

# --- plot ----------------------------------------------------------------------
dat=$T/bursty_plot.csv
awk -F, 'NR > 1' "$sum" >"$dat"
plot "$RESULTS/bursty.png" 1100 420 <<EOF
set multiplot layout 1,2 title 'bursty ping-pong: $BURST pings every $GAP_MS ms, $COUNT pings per run, $ROUNDS interleaved rounds (bars: min-max)'
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.7 border -1
set yrange [0:*]
set title 'CPU of client + server per ping, us'
plot '$dat' using 3:4:5:xtic(1) lc rgb '#c04020'
set title 'RTT, us (log scale)'
set logscale y
set yrange [5:*]
set key top right
plot '$dat' using 8:9:10:xtic(1) title 'p50' lc rgb '#2060c0', '' using 11:12:13 title 'p99' lc rgb '#80a0e0'
unset multiplot
EOF
echo "csv: $out $sum"
