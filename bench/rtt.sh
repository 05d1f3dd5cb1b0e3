#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark part 1, rtt (not a test): what tuning wins, as in the seeds'
# tables. UDP ping-pong over io_uring between two namespaces (veth, NAPI on),
# client and server pinned to CPUs 0 and 1 (PIN=1), in interleaved rounds:
#   none    no daemon, no NAPI busy polling
#   sN      the application registers NAPI busy polling itself, N us
#   sNp     the same with prefer_busy_poll
#   tune    the unmodified ping-pong under uringtuned --mode tune
# for each ring kind (plain, and SQPOLL: both ends --ring sqpoll). A round
# runs every (ring, mode) once, in an order rotated each round, so that drift
# on a shared machine hits every mode alike.
#
# Per (ring, mode): medians over rounds of each round's min/avg/max/mdev/p50/
# p99, and the p50's min-max over rounds. Ratios on the median p50: tune vs
# none, tune vs the best static timeout.
#   ROUNDS (default 5; QUICK 3), COUNT pings per run (20000; QUICK 5000),
#   STATIC timeouts (default "10 25 50 100 200"), PREFER (default "0 1"),
#   RING_KINDS (default "plain sqpoll")
# Each run also records the host's CPU pressure during the client's run
# (cpu_pressure_ms, see psi_us in bench/lib.sh): high values flag runs that
# something else on the shared machine disturbed.
# CSV: RESULTS/rtt.csv (every run), RESULTS/rtt_summary.csv; plot rtt.png.
. "$(dirname "$0")/lib.sh"

PART=rtt
ROUNDS=${ROUNDS:-$(quick 3 5)}
COUNT=${COUNT:-$(quick 5000 20000)}
STATIC=${STATIC:-10 25 50 100 200}
PREFER=${PREFER:-0 1}
RING_KINDS=${RING_KINDS:-plain sqpoll}
out=$RESULTS/rtt.csv
sum=$RESULTS/rtt_summary.csv

part_banner "ROUNDS=$ROUNDS COUNT=$COUNT STATIC=\"$STATIC\" PREFER=\"$PREFER\" RING_KINDS=\"$RING_KINDS\""
netns_setup
targets_begin

modes=(none)
for p in $PREFER; do
	for s in $STATIC; do
		if [ "$p" = 1 ]; then modes+=("s${s}p"); else modes+=("s$s"); fi
	done
done
modes+=(tune)
runs=()
for ring in $RING_KINDS; do
	for m in "${modes[@]}"; do runs+=("$ring:$m"); done
done

# one_run RING MODE: the client's rtt line, then the server ring's NAPI state
one_run() {
	local ring=$1 mode=$2 napi=() line state psi0 psi1
	case $mode in
	s*p) napi=(--napi-busy-poll-us "${mode:1:-1}" --napi-prefer) ;;
	s*) napi=(--napi-busy-poll-us "${mode#s}") ;;
	esac
	[ "$mode" != tune ] || bench_daemon mode=tune include_comm=pingpong
	pp_server --ring "$ring" "${napi[@]}"
	if [ "$mode" = tune ]; then
		# the daemon takes new rings in milliseconds: wait for the server's
		read -r p f < <(ring_of "$T/server.out")
		expect_napi "$p" "$f" '^enabled/' 5
	fi
	psi0=$(psi_us)
	line=$(pp_client --ring "$ring" --count "$COUNT" "${napi[@]}" | grep '^rtt ')
	psi1=$(psi_us)
	state=$(server_napi)
	pp_server_stop
	[ "$mode" != tune ] || stop_daemon
	echo "$line"
	echo "$state"
	echo $(((psi1 - psi0) / 1000))
}

echo "round,ring,mode,min_us,avg_us,max_us,mdev_us,p50_us,p99_us,server_napi,cpu_pressure_ms" >"$out"
n=${#runs[@]}
for r in $(seq 1 "$ROUNDS"); do
	for k in $(seq 0 $((n - 1))); do
		run=${runs[$(( (k + r * 7) % n ))]}
		ring=${run%%:*}
		mode=${run#*:}
		{ read -r line; read -r state; read -r psi; } < <(one_run "$ring" "$mode")
		[ -n "$line" ] || fail "no rtt line from $ring/$mode"
		if [ "$mode" = none ] && [ "$state" != disabled ]; then
			echo "warning: round $r $ring/none: the server ring's NAPI is '$state':" \
				"another tune-mode uringtuned on this host changed it"
		fi
		printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$r" "$ring" "$mode" \
			"$(field min_us "$line")" "$(field avg_us "$line")" \
			"$(field max_us "$line")" "$(field mdev_us "$line")" \
			"$(field p50_us "$line")" "$(field p99_us "$line")" "$state" "$psi" >>"$out"
		printf 'round %s %-6s %-6s p50 %8s us  avg %8s us  p99 %8s us  server NAPI %s  CPU pressure %s ms\n' \
			"$r" "$ring" "$mode" "$(field p50_us "$line")" "$(field avg_us "$line")" \
			"$(field p99_us "$line")" "$state" "$psi"
	done
done

# --- summary -----------------------------------------------------------------

med() { csv_col "$out" "$3" 2 "$1" 3 "$2" | median; }
echo "ring,mode,rounds,min_us,avg_us,max_us,mdev_us,p50_us,p50_lo,p50_hi,p99_us" >"$sum"
echo
echo "RTT, medians over $ROUNDS rounds of $COUNT pings (p50 range: min-max over rounds)"
printf '%-6s %-6s %8s %8s %8s %8s %8s %15s %8s\n' ring mode min avg max mdev p50 p50_range p99
for ring in $RING_KINDS; do
	for m in "${modes[@]}"; do
		p50s=$(csv_col "$out" 8 2 "$ring" 3 "$m")
		lo=$(minimum <<<"$p50s")
		hi=$(maximum <<<"$p50s")
		row=("$(med "$ring" "$m" 4)" "$(med "$ring" "$m" 5)" "$(med "$ring" "$m" 6)"
		     "$(med "$ring" "$m" 7)" "$(med "$ring" "$m" 8)")
		p99=$(med "$ring" "$m" 9)
		echo "$ring,$m,$ROUNDS,${row[0]},${row[1]},${row[2]},${row[3]},${row[4]},$lo,$hi,$p99" >>"$sum"
		printf '%-6s %-6s %8s %8s %8s %8s %8s %15s %8s\n' "$ring" "$m" "${row[@]}" \
			"$lo-$hi" "$p99"
	done
done

# best static: lowest median p50 among the sN/sNp modes
scol() { awk -F, -v r="$1" -v m="$2" -v c="$3" '$1==r && $2==m {print $c}' "$sum"; }
echo
for ring in $RING_KINDS; do
	best=
	best_mode=
	for m in "${modes[@]}"; do
		case $m in s*) ;; *) continue ;; esac
		v=$(scol "$ring" "$m" 8)
		if [ -z "$best" ] || awk -v a="$v" -v b="$best" 'BEGIN{exit !(a<b)}'; then
			best=$v
			best_mode=$m
		fi
	done
	tune=$(scol "$ring" tune 8)
	none=$(scol "$ring" none 8)
	printf '%s: median p50 none %s us, tune %s us, best static %s %s us; avg: none %s, tune %s, %s %s\n' \
		"$ring" "$none" "$tune" "$best_mode" "$best" "$(scol "$ring" none 5)" \
		"$(scol "$ring" tune 5)" "$best_mode" "$(scol "$ring" "$best_mode" 5)"
	# the best of many noisy statics is biased low: also tune vs its own
	# starting point, the application setting 50 us itself
	if [ -n "$(scol "$ring" s50 8)" ]; then
		echo "$ring: tune/s50 p50 $(ratio "$tune" "$(scol "$ring" s50 8)") (s50: the timeout tune starts from)"
	fi
	target "$ring tune/none p50" "$(ratio "$tune" "$none")" '<=' 0.5
	target "$ring tune/best-static($best_mode) p50" "$(ratio "$tune" "$best")" '<=' 1.1
done

# --- plot: median p50 with min-max over rounds, per mode and ring ----------

dat=$T/rtt_plot.csv
{
	printf 'mode'
	for ring in $RING_KINDS; do printf ',%s,lo,hi,p99' "$ring"; done
	echo
	for m in "${modes[@]}"; do
		printf '%s' "$m"
		for ring in $RING_KINDS; do
			printf ',%s,%s,%s,%s' "$(scol "$ring" "$m" 8)" "$(scol "$ring" "$m" 9)" \
				"$(scol "$ring" "$m" 10)" "$(scol "$ring" "$m" 11)"
		done
		echo
	done
} >"$dat"
nr=$(wc -w <<<"$RING_KINDS")
{
	echo "set multiplot layout 2,1 title 'UDP ping-pong RTT over io_uring (veth, NAPI), $ROUNDS interleaved rounds of $COUNT pings'"
	echo "set style data histogram"
	echo "set style histogram errorbars gap 1 lw 1"
	echo "set style fill solid 0.7 border -1"
	echo "set key top left autotitle columnheader"
	echo "set logscale y"
	echo "set yrange [5:*]"
	echo "set ylabel 'p50 RTT, us (median; bars: min-max)'"
	echo "set xtics rotate by -30"
	printf "plot '%s' " "$dat"
	i=0
	for ring in $RING_KINDS; do
		c=$((2 + i * 4))
		[ $i -eq 0 ] || printf ", '' "
		printf "using %d:%d:%d:xtic(1) title '%s'" "$c" $((c + 1)) $((c + 2)) "$ring"
		i=$((i + 1))
	done
	echo
	echo "set style histogram clustered gap 1"
	echo "set ylabel 'p99 RTT, us (median)'"
	printf "plot '%s' " "$dat"
	i=0
	for ring in $RING_KINDS; do
		[ $i -eq 0 ] || printf ", '' "
		printf "using %d:xtic(1) title '%s'" $((5 + i * 4)) "$ring"
		i=$((i + 1))
	done
	echo
	echo "unset multiplot"
} | plot "$RESULTS/rtt.png" 1000 $((500 + 100 * nr))
echo "csv: $out $sum"
