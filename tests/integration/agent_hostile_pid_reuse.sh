#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 12, point 3: pid reuse on the agent socket. An unprivileged process
# gets a slot (HELLO), queues a RING and an APP_NAPI naming fd 3 (inode 0,
# claiming the agent registered NAPI) and exits; a root process takes its
# pid (ns_last_pid) and holds a ring at fd 3, which uringtuned tunes and
# journals. The queued messages must change nothing: the root ring stays
# uringtune's, journaled, not attached to any slot, and is put back when the
# daemon stops. (Before the fix the daemon took the dead process's messages
# for the root process's: the ring became "the app's", its journal entry
# was dropped and SIGTERM left it tuned.) Sixty silent connections first, so
# that a daemon that blocks on each would still hold the queued messages
# when the root process has the pid.
#
# Then a HELLO whose process exits without its RING: the next process with
# its pid registers NAPI on its own SINGLE_ISSUER ring, and that call is its
# own (the ring is "the app's"), not taken for the dead agent's setup.
. "$(dirname "$0")/../lib.sh"

# backlog_empty: every queued connection accepted by the daemon
backlog_empty() { [ "$(agent_backlog)" = 0 ] || [ -z "$(agent_backlog)" ]; }

# the unprivileged peers reach the agent socket in the test's directory
chmod 0711 "$T"
start_daemon mode=tune include_comm="ringhold agent_hostile"

log "a HELLO, then RING + APP_NAPI queued by a process that exits"
coproc ATTACK { exec "${NOBODY[@]}" "${HOSTILE[@]}" reuse --fd 3 --ino 0; }
cpid=$ATTACK_PID
BG_PIDS+=("$cpid")
# bash forgets a coproc's fds (and pid) once it exits: keep copies
exec {ain}<&"${ATTACK[0]}" {aout}>&"${ATTACK[1]}"
read -r line <&"$ain"
echo "$line"
apid=$(field pid "$line")
[ "$(field status "$line")" = 0 ] || fail "the attacker's HELLO was not answered: $line"
bg "${NOBODY[@]}" "${HOSTILE[@]}" silent --count 60 --hold 60 >"$T/silent.out"
wait_line "$T/silent.out" '^silent connected='
echo go >&"$aout"
read -r line <&"$ain"
echo "$line"
wait "$cpid" 2>/dev/null || true
kill -0 "$apid" 2>/dev/null && fail "the attacker $apid is still there"

log "a root process takes pid $apid and holds a ring at fd 3"
# fds 3 and up closed (flock's lock is one): its ring is fd 3
spawn_at_pid "$apid" "$B/ringhold" --hold 120 >"$T/root.out" 3>&- 4>&- 5>&- ||
	skip "could not land a process on pid $apid (too busy a host)"
wait_line "$T/root.out" '^ready'
read -r pid fd < <(ring_of "$T/root.out")
[ "$pid" = "$apid" ] && [ "$fd" = 3 ] || fail "root ring at pid $pid fd $fd"
expect_napi "$pid" 3 '^enabled/'
# whatever was queued has been read, and a tick has passed
wait_for 30 backlog_empty || fail "the daemon never took the queued connections"
sleep 1.5
expect_ring "$pid" 3 '.managed_by == "uringtune" and .agent == null and
	.managed_via == "register"'
j=$(status_json | jq '.daemon.journal_entries')
[ "$j" -ge 1 ] || fail "the root ring's journal entry is gone ($j entries)"
status_json | jq -c '.daemon.agent | {requests, refused, slots_used, refusals}'

log "the daemon stops: the root ring is put back"
stop_daemon
expect_napi "$pid" 3 '^disabled$'
kill_bg

log "a HELLO whose process exits; its pid's next process registers NAPI itself"
start_daemon mode=tune include_comm="ringhold agent_hostile"
exec {ain}<&- {aout}>&-
coproc ATTACK { exec "${NOBODY[@]}" "${HOSTILE[@]}" reuse; }
cpid=$ATTACK_PID
BG_PIDS+=("$cpid")
exec {ain}<&"${ATTACK[0]}" {aout}>&"${ATTACK[1]}"
read -r line <&"$ain"
echo "$line"
apid=$(field pid "$line")
[ "$(field status "$line")" = 0 ] || fail "the attacker's HELLO was not answered: $line"
# no RING: end of input, it exits
eval "exec ${ATTACK[1]}>&-"
exec {aout}>&-
wait "$cpid" 2>/dev/null || true
spawn_at_pid "$apid" "$B/ringhold" --flags defer-taskrun --napi-busy-poll-us 20 \
	--hold 120 >"$T/root2.out" || skip "could not land a process on pid $apid"
wait_line "$T/root2.out" '^ready'
read -r pid fd < <(ring_of "$T/root2.out")
expect_napi "$pid" "$fd" '^enabled/dynamic/20000/'
expect_ring "$pid" "$fd" '.managed_by == "app" and .agent == null'
sleep 1.2
expect_ring "$pid" "$fd" '.managed_by == "app"' 1
status_json | jq -c '.daemon.agent | {slots_used, refusals}'
