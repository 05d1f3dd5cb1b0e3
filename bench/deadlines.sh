#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark part deadlines (not a test): the product's real-time deadlines,
# measured, which the tests assert only with bounds 10x and more
# (tests/integration/sd_notify.sh, agent_hostile_stall.sh, agent_hostile_slots.sh;
# the deadline logic itself is unit-tested on fake clocks):
#   watchdog  WATCHDOG_USEC=400 ms as the service manager's: the first
#             WATCHDOG=1 after READY=1, the widest gap between two, how many
#             in the first 1.5 s (systemd kills a service whose gap exceeds it)
#   agent     a HELLO's round trip, the slowest of 50 while 60 silent
#             connections stall the socket, and of 1024 HELLO + RING in a row:
#             the agent waits UT_AGENT_REPLY_TIMEOUT_MS (250 ms), then goes on
#             without the daemon
# Its targets go to targets.csv only (no CSV of its own, no plot).
. "$(dirname "$0")/lib.sh"

PART=deadlines
WATCHDOG_USEC=400000
part_banner "WATCHDOG_USEC=$WATCHDOG_USEC"
targets_begin

NSOCK=$T/notify.sock
bg "$B/notify_listen" "$NSOCK" > >(while IFS= read -r line; do
	printf '%s %s\n' "$EPOCHREALTIME" "$line"
done >"$T/notify.out")
wait_line "$T/notify.out" ' listening$'
write_config
env NOTIFY_SOCKET="$NSOCK" WATCHDOG_USEC=$WATCHDOG_USEC "$B/uringtuned" -c "$CONF" \
	>>"$T/daemon.log" 2>&1 &
DAEMON_PID=$!
wait_line "$T/notify.out" ' READY=1$' 20
sleep 2
# "first_ms max_gap_ms n_in_1.5s"
read -r first gap n < <(awk '
	{ ts = $1; sub(/^[^ ]* /, "") }
	$0 == "READY=1" && !t0 { t0 = ts }
	$0 == "WATCHDOG=1" && t0 {
		if (!prev)
			first = ts - t0
		else if (ts - prev > worst)
			worst = ts - prev
		if (ts - t0 <= 1.5)
			n++
		prev = ts
	}
	END { printf "%.1f %.1f %d\n", first * 1e3, worst * 1e3, n }' "$T/notify.out")
echo "watchdog: first WATCHDOG=1 ${first} ms after READY=1, widest gap ${gap} ms, $n in 1.5 s"
target watchdog_first_ms "$first" '<=' 1000 "after READY=1"
target watchdog_max_gap_ms "$gap" '<=' $((WATCHDOG_USEC / 1000)) "WATCHDOG_USEC"
target watchdog_pings_1500ms "$n" '>=' 2
stop_daemon
kill_bg

chmod 0711 "$T"
bench_daemon mode=tune
bg "${NOBODY[@]}" "${HOSTILE[@]}" silent --count 60 --again --hold 40 >"$T/silent.out"
wait_line "$T/silent.out" '^silent connected=60'
sleep 0.5
"${HOSTILE[@]}" --timeout-ms 5000 flood --count 50 --hold 0 >"$T/stall.out" &
hpid=$!
wait_line "$T/stall.out" '^ready' 60
kill "$hpid"
stall=$(sed -nE 's/.*hello_max_us=([0-9]+).*/\1/p' "$T/stall.out")
kill_bg
"${HOSTILE[@]}" --timeout-ms 5000 flood --count 1024 --hold 0 >"$T/flood.out" &
hpid=$!
wait_line "$T/flood.out" '^ready' 120
kill "$hpid"
flood=$(sed -nE 's/.*hello_max_us=([0-9]+).*/\1/p' "$T/flood.out")
grep -h '^flood' "$T/stall.out" "$T/flood.out"
target agent_hello_max_ms_stalled "$(awk -v u="$stall" 'BEGIN { printf "%.1f", u / 1e3 }')" \
	'<=' 250 "60 silent connections; UT_AGENT_REPLY_TIMEOUT_MS"
target agent_hello_max_ms_flood "$(awk -v u="$flood" 'BEGIN { printf "%.1f", u / 1e3 }')" \
	'<=' 250 "1024 HELLO + RING; UT_AGENT_REPLY_TIMEOUT_MS"
