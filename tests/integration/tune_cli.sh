#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# uringtune set / reset against a tune-mode daemon, and [select] rules:
# a pinned ring keeps its setting, reset restores and leaves rings alone,
# refusals are one clear line, excluded processes are never touched.
. "$(dirname "$0")/../lib.sh"

ut() { "$B/uringtune" --socket "$SOCK" "$@"; }

start_daemon mode=tune
sed -i 's/^\[select\]$/[select]\nexclude_comm = pingpong/' "$CONF"
kill -HUP "$DAEMON_PID"
wait_for 30 grep -q 'configuration reloaded' "$T/daemon.log" || fail "reload failed"

bg "$B/ringhold" --count 2 >"$T/h.out"
wait_line "$T/h.out" '^ready'
read -r pid fd1 < <(ring_n_of "$T/h.out" 1)
read -r _ fd2 < <(ring_n_of "$T/h.out" 2)
expect_napi "$pid" "$fd1" '^enabled/dynamic/50000/false$'
expect_napi "$pid" "$fd2" '^enabled/dynamic/50000/false$'

# set: pinned, kept across ticks
ut set "$pid" "$fd1" --busy-poll-us 120 --prefer
expect_napi "$pid" "$fd1" '^enabled/dynamic/120000/true$' 2
sleep 1.2
expect_napi "$pid" "$fd1" '^enabled/dynamic/120000/true$' 1
expect_ring "$pid" "$fd1" '.tuning.pinned and (.tuning.last_decision | test("pinned"))'

# static tracking needs NAPI IDs seen on the ring: one clear line, exit 1
rc=0
ut set "$pid" "$fd2" --busy-poll-us 30 --static 2>"$T/err" || rc=$?
[ "$rc" = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q 'no NAPI ID seen' "$T/err" ||
	fail "set --static without IDs: exit $rc, $(cat "$T/err")"
cat "$T/err"

# reset one: original state, then left alone
ut reset "$pid" "$fd1"
expect_napi "$pid" "$fd1" '^disabled$' 1
sleep 1.2
expect_napi "$pid" "$fd1" '^disabled$' 1
expect_ring "$pid" "$fd1" '.managed_by == "none" and .tuning.hands_off'
# reset all: the other ring too
ut reset
expect_napi "$pid" "$fd2" '^disabled$' 1
[ "$(status_json | jq .daemon.journal_entries)" = 0 ] || fail "journal not empty after reset"

# refusals: a SINGLE_ISSUER ring, a ring that does not exist
bg "$B/ringhold" --flags single-issuer >"$T/si.out"
wait_line "$T/si.out" '^ready'
read -r spid sfd < <(ring_of "$T/si.out")
rc=0
ut set "$spid" "$sfd" --busy-poll-us 50 2>"$T/err" || rc=$?
[ "$rc" = 1 ] && grep -q 'EEXIST' "$T/err" || fail "set on SINGLE_ISSUER: exit $rc, $(cat "$T/err")"
rc=0
ut set 999999 3 --busy-poll-us 50 2>"$T/err" || rc=$?
[ "$rc" = 1 ] && grep -q 'no io_uring ring at pid 999999 fd 3' "$T/err" || fail "set on nothing: $(cat "$T/err")"
rc=0
ut set "$spid" --busy-poll-us 50 2>"$T/err" || rc=$?
[ "$rc" = 2 ] || fail "set without FD: exit $rc"

# [select] exclude_comm: a pingpong ring is never taken
bg "$B/pingpong" server --bind 127.0.0.1:7001 >"$T/pp.out"
wait_line "$T/pp.out" '^ring '
read -r ppid pfd < <(ring_of "$T/pp.out")
sleep 1.2
expect_ring "$ppid" "$pfd" '.managed_by == "none"'
[ "$(napi_state "$ppid" "$pfd")" = disabled ] || fail "excluded process was tuned"
echo "set/reset/select behave"
