#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark (not a test), the method behind the others: does pinning the
# ping-pong's two ends to their own CPUs (taskset -c 0 / -c 1, what PIN=1
# does in every part) make runs repeatable? On a 2-vCPU VM an unpinned pair
# lands either on one CPU or on two, and the RTT differs several-fold
# between the two placements, the other way round with busy polling. In
# interleaved rounds, pinned and unpinned, each of:
#   none    no NAPI busy polling, no daemon
#   s50     both rings busy-poll NAPI at 50 us (set by the application)
#   tune    the unmodified ping-pong under uringtuned --mode tune
# Per (mode, placement): median, min and max over rounds of the runs' p50,
# and the spread max/min: the smaller, the more repeatable.
#   ROUNDS (default 7; QUICK 4), COUNT (10000; QUICK 3000)
# CSV: RESULTS/pinning.csv, pinning_summary.csv; plot pinning.png.
. "$(dirname "$0")/lib.sh"

PART=pinning
ROUNDS=${ROUNDS:-$(quick 4 7)}
COUNT=${COUNT:-$(quick 3000 10000)}
out=$RESULTS/pinning.csv
sum=$RESULTS/pinning_summary.csv

part_banner "ROUNDS=$ROUNDS COUNT=$COUNT (PIN is varied here)"
netns_setup
[ "$(nproc)" -ge 2 ] || skip "pinning needs 2 CPUs"

runs=(none:1 none:0 s50:1 s50:0 tune:1 tune:0)
echo "round,mode,pinned,p50_us,avg_us,p99_us" >"$out"
n=${#runs[@]}
for r in $(seq 1 "$ROUNDS"); do
	for k in $(seq 0 $((n - 1))); do
		run=${runs[$(( (k + r) % n ))]}
		mode=${run%:*}
		pin=${run#*:}
		if [ "$pin" = 1 ]; then
			PIN_CLIENT=(taskset -c 0)
			PIN_SERVER=(taskset -c 1)
		else
			PIN_CLIENT=()
			PIN_SERVER=()
		fi
		napi=()
		[ "$mode" != s50 ] || napi=(--napi-busy-poll-us 50)
		[ "$mode" != tune ] || bench_daemon mode=tune include_comm=pingpong
		pp_server "${napi[@]}"
		if [ "$mode" = tune ]; then
			read -r p f < <(ring_of "$T/server.out")
			expect_napi "$p" "$f" '^enabled/' 5
		fi
		line=$(pp_client --count "$COUNT" "${napi[@]}" | grep '^rtt ')
		pp_server_stop
		[ "$mode" != tune ] || stop_daemon
		echo "$r,$mode,$pin,$(field p50_us "$line"),$(field avg_us "$line"),$(field p99_us "$line")" >>"$out"
		printf 'round %s %-4s pinned=%s p50 %8s us avg %8s us p99 %8s us\n' "$r" "$mode" "$pin" \
			"$(field p50_us "$line")" "$(field avg_us "$line")" "$(field p99_us "$line")"
	done
done

echo "mode,pinned,rounds,p50_median,p50_min,p50_max,spread,avg_median" >"$sum"
echo
echo "p50 RTT over $ROUNDS rounds of $COUNT pings: pinned (client CPU 0, server CPU 1) vs unpinned"
printf '%-5s %-7s %9s %9s %9s %8s %9s\n' mode pinned median min max spread avg_med
for run in "${runs[@]}"; do
	mode=${run%:*}
	pin=${run#*:}
	v=$(csv_col "$out" 4 2 "$mode" 3 "$pin")
	lo=$(minimum <<<"$v")
	hi=$(maximum <<<"$v")
	row="$mode,$pin,$ROUNDS,$(median <<<"$v"),$lo,$hi,$(ratio "$hi" "$lo" 2),$(csv_col "$out" 5 2 "$mode" 3 "$pin" | median)"
	echo "$row" >>"$sum"
	IFS=, read -r a b _ c d e f g <<<"$row"
	printf '%-5s %-7s %9s %9s %9s %8s %9s\n' "$a" "$([ "$b" = 1 ] && echo yes || echo no)" \
		"$c" "$d" "$e" "$f" "$g"
done
echo "(spread = max/min of the rounds' p50: 1.00 is perfectly repeatable)"

# plot: every run's p50 and average, per mode, pinned and unpinned side by side
awk -F, 'NR > 1 {x = ($2 == "none" ? 0 : $2 == "s50" ? 1 : 2) + ($3 == 1 ? -0.15 : 0.15)
	print x "," $4 "," $3 "," $5}' "$out" >"$T/pin_plot.csv"
plot "$RESULTS/pinning.png" 1100 450 <<EOF
set multiplot layout 1,2 title 'each run ($ROUNDS interleaved rounds of $COUNT pings): pinned (client CPU 0, server CPU 1) vs unpinned'
set xtics ('none' 0, 's50' 1, 'tune' 2)
set xrange [-0.6:2.6]
set logscale y
set yrange [5:200]
set key top right
set title 'p50 RTT, us'
plot '$T/pin_plot.csv' using 1:(\$3 == 1 ? \$2 : NaN) with points pt 7 ps 1.3 lc rgb '#2060c0' title 'pinned', \\
	'' using 1:(\$3 == 0 ? \$2 : NaN) with points pt 6 ps 1.3 lc rgb '#c04020' title 'unpinned'
set title 'average RTT, us'
plot '$T/pin_plot.csv' using 1:(\$3 == 1 ? \$4 : NaN) with points pt 7 ps 1.3 lc rgb '#2060c0' title 'pinned', \\
	'' using 1:(\$3 == 0 ? \$4 : NaN) with points pt 6 ps 1.3 lc rgb '#c04020' title 'unpinned'
unset multiplot
EOF
echo "csv: $out $sum"
