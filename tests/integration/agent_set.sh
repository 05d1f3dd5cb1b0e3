#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 6d: a later daemon decision reaches a SINGLE_ISSUER ring
# through its agent. `uringtune set` on a DEFER_TASKRUN ring set up under
# `uringtune exec --napi` is written to the policy page; the agent applies it
# from the submitting thread at the ring's next liburing call, and the
# kernel's fdinfo says so. Then reset (NAPI off through the agent), set
# again, and a daemon stop: every ring it switched on goes off, at the
# rings' next calls, after the daemon is gone. A new daemon takes the page
# over (tune: NAPI on again); after a kill -9 an observe-mode start
# switches off what the killed one left on.
. "$(dirname "$0")/../lib.sh"

ut() { "$B/uringtune" --socket "$SOCK" "$@"; }

netns_setup
start_daemon mode=tune include_comm=pingpong
bg ip netns exec "$NS_B" "${AGENT_EXEC[@]}" --napi -- "$B/pingpong" server \
	--bind 198.18.0.2:7000 --ring defer-taskrun >"$T/server.out"
wait_line "$T/server.out" '^ring '
# long enough to outlive every step (each step waits for at most a few seconds)
bg ip netns exec "$NS_A" "${AGENT_EXEC[@]}" --napi -- "$B/pingpong" client \
	--connect 198.18.0.2:7000 --ring defer-taskrun --count 100000000 >"$T/client.out"
wait_line "$T/client.out" '^ring '
read -r spid sfd < <(ring_of "$T/server.out")
read -r cpid cfd < <(ring_of "$T/client.out")
expect_napi "$cpid" "$cfd" '^enabled/dynamic/50000/false$'
expect_ring "$cpid" "$cfd" '.managed_via == "agent" and .agent.pending == false'

log "set: 30 us, prefer"
ut set "$cpid" "$cfd" --busy-poll-us 30 --prefer | tee "$T/set.out"
expect_napi "$cpid" "$cfd" '^enabled/dynamic/30000/true$'
expect_ring "$cpid" "$cfd" '.napi.busy_poll_us == 30 and .napi.prefer_busy_poll and
	.agent.pending == false and .tuning.pinned and .managed_by == "uringtune"'
a=$(status_json | jq -c '.daemon.agent | {published, applied}')
echo "$a"
jq -e '.published >= 1 and .applied >= 1' <<<"$a" >/dev/null || fail "not counted: $a"
# pinned: still so a tick later
sleep 1.2
expect_napi "$cpid" "$cfd" '^enabled/dynamic/30000/true$' 1

log "reset: NAPI off through the agent, then left alone"
ut reset "$cpid" "$cfd"
expect_napi "$cpid" "$cfd" '^disabled$'
expect_ring "$cpid" "$cfd" '.managed_by == "none" and .tuning.hands_off and
	(.napi.enabled | not)'
sleep 1.2
expect_napi "$cpid" "$cfd" '^disabled$' 1

log "set again, then stop the daemon: its rings go back to NAPI off"
ut set "$cpid" "$cfd" --busy-poll-us 80
expect_napi "$cpid" "$cfd" '^enabled/dynamic/80000/false$'
expect_napi "$spid" "$sfd" '^enabled/dynamic/50000/false$'
stop_daemon
# the programs go on: the agent finds the last decision at their next call
expect_napi "$cpid" "$cfd" '^disabled$'
expect_napi "$spid" "$sfd" '^disabled$'
kill -0 "$cpid" && kill -0 "$spid" || fail "a ping-pong died"

log "a new daemon (tune) takes the page over and switches NAPI on again"
start_daemon mode=tune include_comm=pingpong
grep -q 'agent page .*taken over' "$T/daemon.log" || fail "page not taken over"
expect_napi "$cpid" "$cfd" '^enabled/dynamic/50000/false$'
expect_napi "$spid" "$sfd" '^enabled/dynamic/50000/false$'
expect_ring "$cpid" "$cfd" '.managed_via == "agent" and .agent.pending == false'

log "the daemon is killed (no restore); an observe-mode start switches off what it left on"
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null || true
DAEMON_PID=
expect_napi "$cpid" "$cfd" '^enabled/dynamic/50000/false$' 1
start_daemon mode=observe
expect_napi "$cpid" "$cfd" '^disabled$'
expect_napi "$spid" "$sfd" '^disabled$'
expect_ring "$cpid" "$cfd" '.managed_via == null and .managed_by == "none" and .agent != null'
grep -q 'observe mode: NAPI off at its next submit or wait' "$T/daemon.log" || fail "not said"
