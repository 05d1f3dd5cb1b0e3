#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A second uringtuned beside a tuning one (e.g. `make run` beside the
# service). With the same configuration, in tune or observe mode, or in tune
# mode with paths of its own, or in observe mode sharing its agent page, it
# is refused at once with one line naming the first one's pid, having
# touched nothing: the first one's ring stays tuned,
# its journal, agent page, sockets and textfile are as they were, and it still
# restores the ring on SIGTERM. An observe daemon with paths of its own runs
# beside it and does not take the tuning daemon's register calls for the
# application's (managed_by "app"); an application's own call it still does.
. "$(dirname "$0")/../lib.sh"

# tick_ms 60 s, interval_s 1 h: the first daemon rewrites nothing on its own while we look
start_daemon mode=tune tick_ms=60000 interval_s=3600
A=$DAEMON_PID
bg "$B/ringhold" --hold 120 >"$T/r1.out"
wait_line "$T/r1.out" '^ring '
read -r RP RF < <(ring_of "$T/r1.out")
expect_napi "$RP" "$RF" '^enabled/'
expect_ring "$RP" "$RF" '.managed_by == "uringtune"'
[ -s "$T/textfile/uringtune.prom" ] || fail "no textfile"

# what the first daemon has: inode, size and mtime of each file, and contents
files=("$SOCK" "$AGENT_SOCK" "$T/agent.page" "$T/state/journal" "$T/textfile/uringtune.prom")
snapshot() {
	stat -c '%n %i %s %Y' "${files[@]}"
	md5sum "$T/agent.page" "$T/state/journal" "$T/textfile/uringtune.prom"
	napi_state "$RP" "$RF"
}
snapshot >"$T/before"
grep -c '^ring ' "$T/state/journal" | grep -qx 1 || fail "journal: $(cat "$T/state/journal")"

untouched() {
	snapshot >"$T/after"
	diff "$T/before" "$T/after" || fail "$1 changed the first daemon's files or ring"
	kill -0 "$A" || fail "$1: the first daemon is gone"
	status_json >/dev/null || fail "$1: the first daemon does not answer"
	log "$1: refused, the first daemon's ring, files and sockets untouched"
}

# -- the same configuration, tune mode: the host's tuning lock
expect_error 1 "another uringtuned \\(pid $A\\) is tuning this host" \
	timeout 10 "$B/uringtuned" -c "$CONF"
untouched "same config, tune mode"

# -- the same configuration, observe mode: the state directory's lock
expect_error 1 "state directory $T/state is in use by another uringtuned \\(pid $A\\)" \
	timeout 10 "$B/uringtuned" -c "$CONF" --mode observe
untouched "same config, observe mode"

# -- paths of its own, tune mode: still one tuning daemon per host
sed "s|$T/|$T/b/|g" "$CONF" >"$T/b.ini"
grep -q '^mode = tune$' "$T/b.ini" || fail "b.ini: no mode = tune"
expect_error 1 "another uringtuned \\(pid $A\\) is tuning this host" \
	timeout 10 "$B/uringtuned" -c "$T/b.ini"
[ ! -e "$T/b" ] || fail "the refused daemon created $(find "$T/b")"
untouched "other paths, tune mode"

# -- observe mode, its own state directory but the first one's agent page
sed -e 's/^mode = tune$/mode = observe/' -e "s|^state_dir = .*|state_dir = $T/c/state|" \
    "$CONF" >"$T/c.ini"
expect_error 1 "agent page $T/agent.page is in use by another uringtuned \\(pid $A\\)" \
	timeout 10 "$B/uringtuned" -c "$T/c.ini"
untouched "observe mode, same agent page"

# an application that registers NAPI itself, before the observe daemon starts
bg "$B/ringhold" --napi-busy-poll-us 50 --hold 120 >"$T/r3.out"
wait_line "$T/r3.out" '^ring '
read -r R3P R3F < <(ring_of "$T/r3.out")
expect_ring "$R3P" "$R3F" '.managed_by == "app"'

# -- paths of its own, observe mode: runs beside it
sed -i -e 's/^mode = tune$/mode = observe/' -e 's/^tick_ms = .*/tick_ms = 200/' "$T/b.ini"
mkdir -p "$T/b/textfile"
bg "$B/uringtuned" -c "$T/b.ini" -v >"$T/b.log" 2>&1
OBS=${BG_PIDS[-1]}
wait_for 30 "$B/uringtune" --socket "$T/b/uringtune.sock" status --json ||
	{ cat "$T/b.log"; fail "the observe daemon did not answer"; }
# found with NAPI on: the tuning daemon's (in its journal, named by the
# lock file), or the application's
SOCK=$T/b/uringtune.sock expect_ring "$RP" "$RF" '.napi.enabled and .managed_by == "none"'
SOCK=$T/b/uringtune.sock expect_ring "$R3P" "$R3F" '.napi.enabled and .managed_by == "app"'
# a ring created now: the tuning daemon's register call, seen by both
bg "$B/ringhold" --hold 120 >"$T/r2.out"
wait_line "$T/r2.out" '^ring '
read -r R2P R2F < <(ring_of "$T/r2.out")
expect_napi "$R2P" "$R2F" '^enabled/'
expect_ring "$R2P" "$R2F" '.managed_by == "uringtune"'
SOCK=$T/b/uringtune.sock expect_ring "$R2P" "$R2F" '.napi.enabled and .managed_by == "none"'
grep -q "by uringtuned pid $A, which tunes this host" "$T/b.log" ||
	fail "the observe daemon did not see the tuning daemon's register call"
# an application registering itself now is the application's, in both
bg "$B/ringhold" --napi-busy-poll-us 50 --hold 120 >"$T/r4.out"
wait_line "$T/r4.out" '^ring '
read -r R4P R4F < <(ring_of "$T/r4.out")
expect_ring "$R4P" "$R4F" '.managed_by == "app"'
SOCK=$T/b/uringtune.sock expect_ring "$R4P" "$R4F" '.managed_by == "app"'
log "observe daemon beside it: its rings none (tuned by pid $A), the apps' rings app"

# the observe daemon stops: it restores nothing of the other's
kill -TERM "$OBS"
wait "$OBS" || fail "the observe daemon exited $?"
expect_napi "$RP" "$RF" '^enabled/' 1
expect_napi "$R2P" "$R2F" '^enabled/' 1
[ "$(grep -c '^ring ' "$T/state/journal")" = 2 ] || fail "journal: $(cat "$T/state/journal")"

# and the first one still puts its rings back
stop_daemon
expect_napi "$RP" "$RF" '^disabled$' 1
expect_napi "$R2P" "$R2F" '^disabled$' 1
[ "$(grep -c '^ring ' "$T/state/journal")" = 0 ] || fail "journal left: $(cat "$T/state/journal")"
log "the first daemon restored both rings on SIGTERM"
