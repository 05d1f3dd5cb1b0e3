#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark (not a test): what tuning wins. UDP ping-pong over io_uring
# between two namespaces, in interleaved rounds:
#   none     no daemon, no NAPI busy polling
#   tune     the unmodified ping-pong under uringtuned --mode tune
#   sN       the application itself registers NAPI with a static N us timeout
# Reports medians over rounds of each round's p50 and average RTT, and the
# ratios tune/none and tune/best static. CSV: bench/results/rtt_tune.csv
#   ROUNDS (default 5), COUNT pings per round (default 20000),
#   STATIC timeouts (default "10 25 50 100 200")
. "$(dirname "$0")/../tests/lib.sh"

ROUNDS=${ROUNDS:-5}
COUNT=${COUNT:-20000}
STATIC=${STATIC:-10 25 50 100 200}
out=bench/results/rtt_tune.csv
mkdir -p bench/results

netns_setup
write_config mode=tune

modes=(none tune)
for s in $STATIC; do modes+=("s$s"); done

one_round() {
	local mode=$1 napi=() srv line
	case $mode in
	s*) napi=(--napi-busy-poll-us "${mode#s}") ;;
	esac
	if [ "$mode" = tune ]; then
		"$B/uringtuned" -c "$CONF" >>"$T/daemon.log" 2>&1 &
		DAEMON_PID=$!
		wait_for 15 "$B/uringtune" --socket "$SOCK" status --json ||
			fail "uringtuned did not start"
	fi
	ip netns exec "$NS_B" "$B/pingpong" server --bind 198.18.0.2:7000 "${napi[@]}" \
		--quiet >"$T/server.out" &
	srv=$!
	wait_line "$T/server.out" '^ring '
	if [ "$mode" = tune ]; then
		read -r p f < <(ring_of "$T/server.out")
		expect_napi "$p" "$f" '^enabled/' 5
	fi
	line=$(ip netns exec "$NS_A" "$B/pingpong" client --connect 198.18.0.2:7000 \
		--count "$COUNT" "${napi[@]}" --quiet | grep '^rtt ')
	kill -TERM "$srv"
	wait "$srv" || true
	if [ "$mode" = tune ]; then
		stop_daemon
	fi
	echo "$line"
}

echo "round,mode,min_us,avg_us,p50_us,p99_us" >"$out"
for r in $(seq 1 "$ROUNDS"); do
	# rotate the order each round: drift on a shared machine hits every mode
	n=${#modes[@]}
	for k in $(seq 0 $((n - 1))); do
		mode=${modes[$(( (k + r) % n ))]}
		line=$(one_round "$mode")
		printf '%s,%s,%s,%s,%s,%s\n' "$r" "$mode" "$(field min_us "$line")" \
			"$(field avg_us "$line")" "$(field p50_us "$line")" \
			"$(field p99_us "$line")" >>"$out"
		echo "round $r $mode: $line"
	done
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
col() { awk -F, -v m="$1" -v c="$2" '$2==m{print $c}' "$out" | median; }
echo
printf '%-6s %8s %8s\n' mode p50_us avg_us
best=
for m in "${modes[@]}"; do
	printf '%-6s %8s %8s\n' "$m" "$(col "$m" 5)" "$(col "$m" 4)"
	case $m in
	s*) v=$(col "$m" 5)
	    if [ -z "$best" ] || awk -v a="$v" -v b="$best" 'BEGIN{exit !(a<b)}'; then
		    best=$v; best_mode=$m
	    fi ;;
	esac
done
tune=$(col tune 5)
none=$(col none 5)
echo
printf 'p50 ratios: tune/none %.3f, tune/best static (%s) %.3f\n' \
	"$(awk -v a="$tune" -v b="$none" 'BEGIN{print a/b}')" "$best_mode" \
	"$(awk -v a="$tune" -v b="$best" 'BEGIN{print a/b}')"
echo "csv: $out"
