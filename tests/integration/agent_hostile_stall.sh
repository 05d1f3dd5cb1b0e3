#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 12, point 3: the stall. An unprivileged peer keeps 60 connections to
# the agent socket open without a word (each one the daemon closes is opened
# again at once). A legitimate agent still gets its answer within its 250 ms
# budget (its ring set up with NAPI through the agent), HELLOs are answered,
# and `uringtune status` answers. (Before the fix each silent connection
# held the daemon's only thread for 100 ms.) Timings are printed for the
# record; only "answered at all" decides: the HELLOs wait up to BOUND_MS, 10x
# and more the slowest round trip seen here under two CPU hogs. The daemon's
# own deadline for the silent ones (closed at exactly 250 ms, the others
# served) is unit-tested on a fake clock: test_daemon_agent_server's
# stalled_conn_closed_at_its_deadline. The legitimate agent is the real one,
# with its own budget (UT_AGENT_REPLY_TIMEOUT_MS).
. "$(dirname "$0")/../lib.sh"

BOUND_MS=5000

chmod 0711 "$T"
start_daemon mode=tune
bg "${NOBODY[@]}" "${HOSTILE[@]}" silent --count 60 --again --hold 40 >"$T/silent.out"
wait_line "$T/silent.out" '^silent connected=60'
sleep 0.5

log "a legitimate agent under 60 silent connections"
bg env URINGTUNE_AGENT_DEBUG=1 "${AGENT_EXEC[@]}" --napi -- "$B/ringhold" --flags defer-taskrun \
	--hold 60 >"$T/legit.out" 2>"$T/legit.err"
wait_line "$T/legit.out" '^ready'
cat "$T/legit.err"
grep -q 'no usable daemon answer' "$T/legit.err" && fail "the agent got no answer in time"
read -r pid fd < <(ring_of "$T/legit.out")
expect_napi "$pid" "$fd" '^enabled/dynamic/50000/'
expect_ring "$pid" "$fd" '.managed_via == "agent" and .agent.napi_at_setup == "registered"'

log "HELLO round trips (root, 50 HELLO + RING) under the same load"
"${HOSTILE[@]}" --timeout-ms "$BOUND_MS" flood --count 50 --hold 1 >"$T/timed.out"
cat "$T/timed.out"
max=$(sed -nE 's/.*hello_max_us=([0-9]+).*/\1/p' "$T/timed.out")
echo "slowest HELLO answered in $max us (bound $BOUND_MS ms)"
grep -q 'answered=50 refused=0 failed=0' "$T/timed.out" ||
	fail "HELLOs went unanswered within $BOUND_MS ms: $(grep '^flood' "$T/timed.out")"

log "status answers"
t0=$(date +%s%N)
status_json >/dev/null || fail "status did not answer"
echo "status took $((($(date +%s%N) - t0) / 1000000)) ms"
status_json | jq -c '.daemon.agent | {connections_waiting, refusals: (.refusals |
	{connections, timeout})}'
kill_bg
grep 'silent reconnected' "$T/silent.out" || true
