#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `uringtune set` on a ring [select] leaves out is refused with the rule as
# its reason and changes nothing; `--force` pins it all the same, and the
# daemon logs the override (notice) with the rule it overrode.
. "$(dirname "$0")/../lib.sh"

ut() { "$B/uringtune" --socket "$SOCK" "$@"; }

start_daemon mode=tune include_comm="ut-sel ut-exc" exclude_comm=ut-exc
bg "$B/ringhold" --comm ut-exc >"$T/exc.out"
wait_line "$T/exc.out" '^ready'
read -r pid fd < <(ring_of "$T/exc.out")
bg "$B/ringhold" --comm ut-other >"$T/other.out"
wait_line "$T/other.out" '^ready'
read -r opid ofd < <(ring_of "$T/other.out")
expect_ring "$pid" "$fd" '.managed_by == "none"'
sleep 1.2
[ "$(napi_state "$pid" "$fd")" = disabled ] || fail "an excluded ring was tuned"

# refused: exit 1, one line naming the rule, nothing changed
expect_error 1 "ring pid $pid fd $fd \\(process ut-exc\\) is not selected: excluded by exclude_comm; use --force to tune it anyway" \
	ut set "$pid" "$fd" --busy-poll-us 40
# a process no include rule names: that reason
expect_error 1 "ring pid $opid fd $ofd \\(process ut-other\\) is not selected: matches no include rule; use --force" \
	ut set "$opid" "$ofd" --busy-poll-us 40
sleep 0.3
[ "$(napi_state "$pid" "$fd")" = disabled ] || fail "a refused set changed the ring"
[ "$(status_json | jq .daemon.journal_entries)" = 0 ] || fail "a refused set left a journal entry"

# --force: pinned, and the daemon says what it overrode
out=$(ut set "$pid" "$fd" --busy-poll-us 40 --force) || fail "set --force failed"
echo "$out"
[[ $out == *"pinned at 40 us (--force: whatever [select] says)"* ]] || fail "set --force said: $out"
expect_napi "$pid" "$fd" '^enabled/dynamic/40000/false$' 2
expect_ring "$pid" "$fd" '.managed_by == "uringtune" and .tuning.pinned'
wait_line "$T/daemon.log" "notice: ring pid=$pid comm=ut-exc fd=$fd: uringtune set --force: pinned although excluded by exclude_comm"
# still pinned a tick later, and put back at the stop
sleep 1.2
expect_napi "$pid" "$fd" '^enabled/dynamic/40000/false$' 1
# --force goes with set only
expect_error 2 'and --force go with set only' ut reset --force
stop_daemon
expect_napi "$pid" "$fd" '^disabled$' 2
echo "set on an excluded ring: refused with the rule; --force pinned it, logged; restored at stop"
