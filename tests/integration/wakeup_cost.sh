#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 14, item 2: the daemon measures what a sleep costs a waiter. Its
# figure must be within +-30% of half the ping-pong's RTT difference without
# and with NAPI busy polling on both rings (each round trip has two sleeps
# that busy polling avoids), at two traffic shapes:
#   back to back                 NAPI 50 us
#   one ping per ~9 ms (gap 9)   NAPI 10 ms (the cap: the server's wait fits it)
# Each shape runs ROUNDS interleaved rounds (without, then with NAPI); the
# comparison is of medians over the rounds (the VM is shared and noisy). The
# daemon's figure is the mean of the two rings' own measured_us, read while
# the rings live. An accuracy check, not a timing threshold.
. "$(dirname "$0")/../lib.sh"

ROUNDS=${ROUNDS:-3}
netns_setup
start_daemon "mode=observe" "wakeup_cost_us=0"
status_json | jq -e '.daemon.wakeup.source == "prior" or .daemon.wakeup.source == "host"' >/dev/null ||
	fail "daemon.wakeup.source: expected prior or host at start, got $(status_json | jq -c .daemon.wakeup)"

port=7100
# one run: prints "RTT_AVG EST" (EST: mean of the rings' measured_us, "null" if none)
run_pair() {
	local napi=$1
	shift
	local sargs=() cargs=() sp cp t0 rtt est
	port=$((port + 1))
	if [ "$napi" != 0 ]; then
		sargs=(--napi-busy-poll-us "$napi")
		cargs=(--napi-busy-poll-us "$napi")
	fi
	# the ends on different CPUs: a wake-up crosses CPUs, as on a real host
	ip netns exec "$NS_A" taskset -c 0 "$B/pingpong" server --bind 198.18.0.1:$port \
		--quiet "${sargs[@]}" >/dev/null &
	sp=$!
	BG_PIDS+=("$sp")
	wait_for 5 ss -N "$NS_A" -uln "sport = :$port" -H | grep -q . 2>/dev/null || sleep 0.3
	ip netns exec "$NS_B" taskset -c 1 stdbuf -oL "$B/pingpong" client \
		--connect 198.18.0.1:$port --linger 10 --quiet "${cargs[@]}" "$@" >"$T/out" &
	cp=$!
	BG_PIDS+=("$cp")
	t0=$SECONDS
	while ! grep -q '^rtt' "$T/out"; do
		kill -0 "$cp" 2>/dev/null || fail "pingpong client exited: $(cat "$T/out")"
		[ $((SECONDS - t0)) -lt 120 ] || fail "pingpong client gave no result in 120 s"
		sleep 0.2
	done
	# the last tick's wake-ups in: two ticks
	sleep 1.2
	rtt=$(field avg_us "$(grep '^rtt' "$T/out")")
	est=$(status_json | jq -r --argjson a "$sp" --argjson b "$cp" \
		'[.rings[] | select(.pid == $a or .pid == $b) | .wakeup.measured_us | numbers] |
		 if length == 2 then add / 2 else "null" end')
	kill -TERM "$sp" "$cp" 2>/dev/null || true
	wait "$sp" "$cp" 2>/dev/null || true
	echo "$rtt $est"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

check_shape() {
	local name=$1 napi=$2
	shift 2
	local r off on halves=() ests=() half est
	for ((r = 1; r <= ROUNDS; r++)); do
		read -r off_rtt off_est < <(run_pair 0 "$@")
		read -r on_rtt _ < <(run_pair "$napi" "$@")
		[ "$off_est" != null ] || fail "$name: no measured wake-up cost on the rings without NAPI"
		half=$(awk -v a="$off_rtt" -v b="$on_rtt" 'BEGIN { printf "%.2f", (a - b) / 2 }')
		log "$name round $r: RTT avg without NAPI $off_rtt us, with $on_rtt us: half the difference $half us; measured $off_est us"
		halves+=("$half")
		ests+=("$off_est")
	done
	half=$(printf '%s\n' "${halves[@]}" | median)
	est=$(printf '%s\n' "${ests[@]}" | median)
	echo "$name: half the RTT difference (median) $half us, the daemon's wake-up cost (median) $est us"
	awk -v h="$half" -v e="$est" 'BEGIN { exit !(h > 0 && e >= 0.7 * h && e <= 1.3 * h) }' ||
		fail "$name: measured $est us is not within +-30% of $half us"
}

check_shape "back to back" 50 --count 10000
check_shape "one ping per ~9 ms" 10000 --count 400 --burst 1 --gap-ms 9

# the daemon's host figure is measured now, and the tuner's input says so
status_json | jq -e '.daemon.wakeup.source == "host" and .daemon.wakeup.timed > 0' >/dev/null ||
	fail "daemon.wakeup after the runs: $(status_json | jq -c .daemon.wakeup)"
echo "PASS: wake-up cost within +-30% at both shapes"
