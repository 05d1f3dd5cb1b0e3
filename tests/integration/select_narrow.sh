#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A reload with a narrower [select] puts back every ring uringtune tuned that
# the new rules leave out, through the journal, and says so in one line; a
# ring pinned by `uringtune set` goes back too, one pinned with --force
# stays; the rest stay tuned. A wider [select] later takes them again.
. "$(dirname "$0")/../lib.sh"

ut() { "$B/uringtune" --socket "$SOCK" "$@"; }

start_daemon mode=tune include_comm="ut-keep ut-drop ut-pin ut-force"
declare -A PID FD
for c in ut-keep ut-drop ut-pin ut-force; do
	bg "$B/ringhold" --comm "$c" >"$T/$c.out"
	wait_line "$T/$c.out" '^ready'
	read -r "PID[$c]" "FD[$c]" < <(ring_of "$T/$c.out")
	expect_napi "${PID[$c]}" "${FD[$c]}" '^enabled/dynamic/50000/'
done
ut set "${PID[ut-pin]}" "${FD[ut-pin]}" --busy-poll-us 66 >/dev/null
ut set "${PID[ut-force]}" "${FD[ut-force]}" --busy-poll-us 77 --force >/dev/null
expect_napi "${PID[ut-force]}" "${FD[ut-force]}" '^enabled/dynamic/77000/'
[ "$(status_json | jq .daemon.journal_entries)" = 4 ] || fail "expected 4 journal entries"

# narrower: three of the four left out
sed -i 's|^# exclude_comm = .*|exclude_comm = ut-drop ut-pin ut-force|' "$CONF"
grep -q '^exclude_comm = ut-drop ut-pin ut-force$' "$CONF" || fail "cannot set exclude_comm in $CONF"
kill -HUP "$DAEMON_PID"
wait_line "$T/daemon.log" 'reload: \[select\] no longer selects'
grep 'reload: \[select\]' "$T/daemon.log"
[ "$(grep -c 'reload: \[select\] no longer selects' "$T/daemon.log")" = 1 ] || fail "more than one summary line"
grep -q 'no longer selects 3 rings uringtune tuned: 2 restored, 0 could not be (kept in the journal), 1 pinned with set --force kept' \
	"$T/daemon.log" || fail "summary line"
expect_napi "${PID[ut-drop]}" "${FD[ut-drop]}" '^disabled$' 2
expect_napi "${PID[ut-pin]}" "${FD[ut-pin]}" '^disabled$' 2
expect_napi "${PID[ut-force]}" "${FD[ut-force]}" '^enabled/dynamic/77000/' 1
expect_napi "${PID[ut-keep]}" "${FD[ut-keep]}" '^enabled/dynamic/50000/' 1
expect_ring "${PID[ut-pin]}" "${FD[ut-pin]}" '.managed_by == "none" and (.tuning.pinned | not)'
expect_ring "${PID[ut-force]}" "${FD[ut-force]}" '.managed_by == "uringtune" and .tuning.pinned and .tuning.forced'
[ "$(status_json | jq .daemon.journal_entries)" = 2 ] || fail "expected 2 journal entries (keep, force)"
# and they stay put while [select] leaves them out
sleep 1.2
expect_napi "${PID[ut-drop]}" "${FD[ut-drop]}" '^disabled$' 1
echo "narrower [select]: 2 restored, the --force pin kept, the selected ring still tuned"

# wider again: taken again
sed -i 's|^exclude_comm = .*|# exclude_comm = sshd|' "$CONF"
kill -HUP "$DAEMON_PID"
expect_napi "${PID[ut-drop]}" "${FD[ut-drop]}" '^enabled/dynamic/50000/' 3
expect_napi "${PID[ut-pin]}" "${FD[ut-pin]}" '^enabled/dynamic/50000/' 3
stop_daemon
for c in ut-keep ut-drop ut-pin ut-force; do
	expect_napi "${PID[$c]}" "${FD[$c]}" '^disabled$' 2
done
echo "wider [select] takes them again; all restored at stop"
