#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 3b: SIGTERM restores every changed ring to the fdinfo state it
# had before. After kill -9, a restart settles the journal first: tune mode
# re-adopts the rings (and a later SIGTERM restores them), observe mode
# restores them at once.
. "$(dirname "$0")/../lib.sh"

journal_rings() { grep -c '^ring ' "$T/state/journal" 2>/dev/null || true; }
crash_daemon() {
	kill -KILL "$DAEMON_PID"
	wait "$DAEMON_PID" 2>/dev/null || true
	DAEMON_PID=
}

# one ring before the daemon (found by the sweep), one after (the event)
bg "$B/ringhold" >"$T/early.out"
wait_line "$T/early.out" '^ready'
read -r p1 f1 < <(ring_of "$T/early.out")
before1=$(napi_state "$p1" "$f1")
start_daemon mode=tune include_comm=ringhold
bg "$B/ringhold" --flags coop-taskrun >"$T/late.out"
wait_line "$T/late.out" '^ready'
read -r p2 f2 < <(ring_of "$T/late.out")
echo "before: $before1"
[ "$before1" = disabled ] || fail "test ring starts with NAPI $before1"

expect_napi "$p1" "$f1" '^enabled/' 5
expect_napi "$p2" "$f2" '^enabled/' 5
[ "$(journal_rings)" = 2 ] || fail "journal holds $(journal_rings) rings, expected 2"

# 1. SIGTERM restores
stop_daemon
for r in "$p1 $f1" "$p2 $f2"; do
	set -- $r
	[ "$(napi_state "$1" "$2")" = disabled ] ||
		fail "after SIGTERM ring pid=$1 fd=$2 is $(napi_state "$1" "$2")"
done
[ "$(journal_rings)" = 0 ] || fail "journal not empty after a clean stop"
echo "SIGTERM: both rings back to disabled, journal empty"

# 2. kill -9, restart in tune mode: re-adopted, then restored by SIGTERM
start_daemon mode=tune include_comm=ringhold
expect_napi "$p1" "$f1" '^enabled/' 5
expect_napi "$p2" "$f2" '^enabled/' 5
crash_daemon
[ "$(napi_state "$p1" "$f1")" != disabled ] || fail "kill -9 should leave rings as they were"
[ "$(journal_rings)" = 2 ] || fail "journal holds $(journal_rings) rings after the crash"
start_daemon mode=tune include_comm=ringhold
expect_ring "$p1" "$f1" '.managed_by == "uringtune" and .napi.enabled'
expect_ring "$p2" "$f2" '.managed_by == "uringtune" and .napi.enabled'
grep -q 're-adopted' "$T/daemon.log" || fail "no re-adoption in the daemon's log"
[ "$(journal_rings)" = 2 ] || fail "re-adoption must keep the journal"
stop_daemon
expect_napi "$p1" "$f1" '^disabled$' 1
expect_napi "$p2" "$f2" '^disabled$' 1
echo "kill -9 + tune restart: re-adopted, restored on SIGTERM"

# 3. kill -9, restart in observe mode: restored before anything else
start_daemon mode=tune include_comm=ringhold
expect_napi "$p1" "$f1" '^enabled/' 5
crash_daemon
start_daemon mode=observe
expect_napi "$p1" "$f1" '^disabled$' 1
expect_napi "$p2" "$f2" '^disabled$' 1
expect_ring "$p1" "$f1" '.managed_by == "none"'
[ "$(journal_rings)" = 0 ] || fail "observe restart left $(journal_rings) journal entries"
echo "kill -9 + observe restart: restored at start, journal empty"
