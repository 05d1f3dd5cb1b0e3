#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 14, item 2: the daemon measures what a sleep costs a waiter. A
# ping-pong without NAPI (every wait sleeps) at two traffic shapes:
#   back to back
#   one ping per ~9 ms (gap 9)
# What holds on any machine, however loaded: both rings have a measured
# wake-up cost (measured_us, > 0) from timed wake-ups (timed > 0), no larger
# than the longest round trip the client saw (each timed wake-up lies inside
# one: from the datagram's arrival to its waiter running, before the reply
# or the next ping); the host's figure goes from the prior (or an earlier
# host figure) to "host", measured on timed > 0 wake-ups.
# How close the figure comes to half the RTT difference without and with
# NAPI busy polling (the old +-30% check, 3 rounds a shape) is measured by
# bench/accuracy.sh (docs/BENCHMARKS.md, accuracy).
. "$(dirname "$0")/../lib.sh"
# another daemon tuning this host would busy-poll these rings: fewer sleeps
need_untuned_host

netns_setup
start_daemon "mode=observe" "wakeup_cost_us=0"
src0=$(status_json | jq -c .daemon.wakeup)
jq -e '.source == "prior" or .source == "host"' >/dev/null <<<"$src0" ||
	fail "daemon.wakeup.source: expected prior or host at start, got $src0"
log "at start: daemon.wakeup $src0"

port=7100
# check_shape NAME CLIENT_ARGS...: one run without NAPI, checked
check_shape() {
	local name=$1 sp cp t0 line rtt max rings srv cli
	shift
	port=$((port + 1))
	# files of this run's own, made before the ends start: a shape's server
	# must not be taken as bound on the last shape's "ring" line
	srv=$T/server.$port.out
	cli=$T/client.$port.out
	: >"$srv"
	: >"$cli"
	# the ends on different CPUs: a wake-up crosses CPUs, as on a real host
	ip netns exec "$NS_A" taskset -c 0 "$B/pingpong" server --bind 198.18.0.1:$port \
		--quiet >"$srv" &
	sp=$!
	BG_PIDS+=("$sp")
	# bound once it printed its ring (a client sooner is refused: ECONNREFUSED)
	wait_line "$srv" '^ring '
	ip netns exec "$NS_B" taskset -c 1 stdbuf -oL "$B/pingpong" client \
		--connect 198.18.0.1:$port --linger 10 --quiet "$@" >"$cli" &
	cp=$!
	BG_PIDS+=("$cp")
	t0=$SECONDS
	while ! grep -q '^rtt' "$cli"; do
		kill -0 "$cp" 2>/dev/null || fail "$name: pingpong client exited: $(cat "$cli")"
		[ $((SECONDS - t0)) -lt 120 ] || fail "$name: pingpong client gave no result in 120 s"
		sleep 0.2
	done
	# the last tick's wake-ups in: two ticks
	sleep 1.2
	line=$(grep '^rtt' "$cli")
	rtt=$(field avg_us "$line")
	max=$(field max_us "$line")
	rings=$(status_json | jq -c --argjson a "$sp" --argjson b "$cp" \
		'[.rings[] | select(.pid == $a or .pid == $b) | {pid, napi: .napi.enabled, wakeup}]')
	kill -TERM "$sp" "$cp" 2>/dev/null || true
	wait "$sp" "$cp" 2>/dev/null || true
	log "$name: RTT avg $rtt us, max $max us; rings: $rings"
	jq -e 'length == 2' >/dev/null <<<"$rings" || fail "$name: expected the server's and the client's ring, got $rings"
	# a daemon tuning the host since the start would have put NAPI on them
	jq -e 'all(.napi | not)' >/dev/null <<<"$rings" || need_untuned_host
	jq -e --argjson max "$max" 'all(.wakeup | (.measured_us | type) == "number" and
		.measured_us > 0 and .measured_us <= $max and .timed > 0)' >/dev/null <<<"$rings" ||
		fail "$name: a ring without NAPI lacks a measured wake-up cost in (0, $max us] (the longest RTT) or timed wake-ups: $rings"
}

check_shape "back to back" --count 10000
check_shape "one ping per ~9 ms" --count 200 --burst 1 --gap-ms 9

# the daemon's host figure is measured now, and the tuner's input says so
src1=$(status_json | jq -c .daemon.wakeup)
log "after the runs: daemon.wakeup $src1"
jq -e '.source == "host" and .timed > 0 and .cost_us > 0' >/dev/null <<<"$src1" ||
	fail "daemon.wakeup after the runs: expected source host, timed > 0, cost_us > 0; got $src1"
echo "PASS: both rings measured their wake-ups at both shapes; the host figure is measured"
