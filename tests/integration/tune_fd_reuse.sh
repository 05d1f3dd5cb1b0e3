#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 3c: a ring closed and a new one opened on the same fd number
# never gets the old ring's decision; processes exiting while uringtune acts
# on their rings cause no error storm and leave the registry clean.
. "$(dirname "$0")/../lib.sh"

start_daemon mode=tune include_comm=ringhold
bg "$B/ringhold" >"$T/hold.out"
wait_line "$T/hold.out" '^ready'
read -r pid fd < <(ring_of "$T/hold.out")
expect_napi "$pid" "$fd" '^enabled/dynamic/50000/' 5

# pin the first ring to 77 us
"$B/uringtune" --socket "$SOCK" set "$pid" "$fd" --busy-poll-us 77
expect_napi "$pid" "$fd" '^enabled/dynamic/77000/' 2
expect_ring "$pid" "$fd" '.tuning.pinned'

# same process, same fd number, a new ring
kill -USR1 "$pid"
# (a function: wait_for's arguments are expanded once, when it is called)
reopened() { [ "$(grep -c '^ready' "$T/hold.out")" = 2 ]; }
wait_for 30 reopened || fail "ringhold did not reopen: $(grep -c '^ready' "$T/hold.out") ready lines in $T/hold.out"
read -r pid2 fd2 < <(grep '^ring ' "$T/hold.out" | tail -1 | sed -E 's/.*pid=([0-9]+) fd=([0-9]+).*/\1 \2/')
[ "$pid2 $fd2" = "$pid $fd" ] || fail "the new ring is at $pid2/$fd2, not on the old fd $fd"
expect_napi "$pid" "$fd" '^enabled/dynamic/50000/' 5
expect_ring "$pid" "$fd" '(.tuning.pinned | not) and .napi.busy_poll_us == 50'
sleep 1.2
[[ "$(napi_state "$pid" "$fd")" =~ /50000/ ]] || fail "new ring got $(napi_state "$pid" "$fd")"
[ "$(status_json | jq .daemon.journal_entries)" = 1 ] ||
	fail "journal: $(cat "$T/state/journal")"
echo "fd $fd reused: new ring at the policy's 50 us, old pin not inherited"

# 1000 rings born and closed while uringtune acts on them
bg "$B/ringhold" --churn 1000 --hold 60 >"$T/churn.out"
churn_pid=${BG_PIDS[-1]}
wait_line "$T/churn.out" '^churned count=1000' 60
clean() {
	[ "$(status_json | jq --argjson p "$churn_pid" '[.rings[] | select(.pid == $p)] | length')" = 0 ]
}
wait_for 30 clean || fail "rings of the churning process still listed"
noisy=$(grep -cE 'error|warning' "$T/daemon.log" || true)
echo "daemon log: $noisy error/warning lines during the churn"
[ "$noisy" -le 2 ] || { grep -E 'error|warning' "$T/daemon.log" | head; fail "error storm"; }
# the gone rings' entries are dropped as the daemon settles each (after it
# lists them no more, and later on a loaded host): eventually, only the first
journal_one() { [ "$(status_json | jq .daemon.journal_entries)" = 1 ]; }
wait_for_timed 30 "the churned rings' journal entries dropped" journal_one ||
	{ cat "$T/state/journal"; fail "journal entries of gone rings kept: $(status_json | jq .daemon.journal_entries) entries (expected 1), the journal above"; }
