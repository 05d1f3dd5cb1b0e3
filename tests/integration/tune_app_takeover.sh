#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 3e: an application registers NAPI itself after uringtune tuned
# its ring: managed_by app, its setting is never overridden, its journal
# entry is dropped, and stopping uringtune does not restore over it.
. "$(dirname "$0")/../lib.sh"

start_daemon mode=tune include_comm=ringhold
bg "$B/ringhold" --napi-busy-poll-us 30 --napi-later >"$T/app.out"
wait_line "$T/app.out" '^ready'
read -r pid fd < <(ring_of "$T/app.out")
expect_napi "$pid" "$fd" '^enabled/dynamic/50000/' 5
expect_ring "$pid" "$fd" '.managed_by == "uringtune"'

kill -USR2 "$pid"
wait_line "$T/app.out" '^napi .* ok$'
expect_ring "$pid" "$fd" '.managed_by == "app" and .napi.busy_poll_us == 30 and
	(.tunable | not)'
sleep 2.5	# two ticks: nothing may touch it
[[ "$(napi_state "$pid" "$fd")" =~ ^enabled/dynamic/30000/ ]] ||
	fail "the application's setting was overridden: $(napi_state "$pid" "$fd")"
[ "$(status_json | jq .daemon.journal_entries)" = 0 ] || fail "journal entry kept"
grep -q 'application took over' "$T/daemon.log" || fail "takeover not logged"

stop_daemon
[[ "$(napi_state "$pid" "$fd")" =~ ^enabled/dynamic/30000/ ]] ||
	fail "stopping uringtune changed the application's ring: $(napi_state "$pid" "$fd")"
echo "app setting kept: $(napi_state "$pid" "$fd")"
