#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The daemon's log as an operator reads it: a burst of rings found at start
# is one summary line (each ring's line at debug only); every line carries a
# timestamp unless stderr is the journal's stream (then a <N> prefix); and a
# process name with control characters cannot forge a line or a priority.
. "$(dirname "$0")/../lib.sh"

# 1. timestamps off the journal, <N> on it (JOURNAL_STREAM naming our stderr)
write_config tick_ms=5
rc=0
"$B/uringtuned" -c "$CONF" 2>"$T/plain.err" || rc=$?
[ "$rc" = 1 ] || fail "a bad file started: exit $rc"
grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z uringtuned: error: .*tick_ms' "$T/plain.err" ||
	fail "no timestamp: $(cat "$T/plain.err")"
: >"$T/journal.err"
stream=$(stat -c '%d:%i' "$T/journal.err")
JOURNAL_STREAM=$stream "$B/uringtuned" -c "$CONF" 2>>"$T/journal.err" || true
grep -qE '^<3>.*tick_ms' "$T/journal.err" || fail "no <3> prefix on the journal's stream: $(cat "$T/journal.err")"
# a variable inherited from elsewhere names another stream: a terminal's lines
JOURNAL_STREAM=1:1 "$B/uringtuned" -c "$CONF" 2>"$T/other.err" || true
grep -qE '^[0-9-]+T[0-9:.]+Z uringtuned: error:' "$T/other.err" || fail "JOURNAL_STREAM of another stream: $(cat "$T/other.err")"
echo "1. $(cat "$T/plain.err") | $(cat "$T/journal.err")"

# 2. 30 rings already there at start: one summary line, no line each at info
bg "$B/ringhold" --count 30 --comm ut-burst >"$T/burst.out"
wait_line "$T/burst.out" '^ready'
# a process name that would forge an emergency line: "x\n<0>y"
bg "$B/ringhold" --comm $'x\n<0>y' >"$T/forge.out"
wait_line "$T/forge.out" '^ready'
start_daemon mode=tune include_comm=ut-burst
wait_line "$T/daemon.log" 'info: found [0-9]+ rings \(30 tuned'
grep 'info: found' "$T/daemon.log"
[ "$(grep -c 'info: found' "$T/daemon.log")" = 1 ] || fail "more than one summary line"
[ "$(grep -c 'info: ring .*NAPI busy polling on' "$T/daemon.log")" = 0 ] || fail "per-ring lines at info in a burst"
[ "$(grep -c 'debug: ring .*comm=ut-burst.*NAPI busy polling on' "$T/daemon.log")" = 30 ] ||
	fail "the burst's rings are not each at debug"
read -r bpid bfd < <(ring_of "$T/burst.out")
expect_napi "$bpid" "$bfd" '^enabled/'
# a few rings later: a line each, no summary
bg "$B/ringhold" --count 2 --comm ut-burst >"$T/few.out"
wait_line "$T/few.out" '^ready'
two_lines() { [ "$(grep -c 'info: ring .*comm=ut-burst.*NAPI busy polling on' "$T/daemon.log")" = 2 ]; }
wait_for 30 two_lines ||
	fail "two new rings: $(grep -c 'info: ring .*NAPI busy polling on' "$T/daemon.log") info lines"
[ "$(grep -c 'info: found' "$T/daemon.log")" = 1 ] || fail "a summary for two rings"
echo "2. 30 rings at start: one summary line; 2 later: a line each"

# 3. the forged name: escaped, one line, no priority of its own
wait_line "$T/daemon.log" 'comm=x\\x0a<0>y'
grep -m1 'comm=x\\x0a<0>y' "$T/daemon.log"
if grep -qE '^(<[0-9]>|y)' "$T/daemon.log"; then
	fail "a line starts with what the process name carried"
fi
bad=$(grep -cvE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z uringtuned: ' "$T/daemon.log" || true)
[ "$bad" = 0 ] || fail "$bad lines without a timestamp"
stop_daemon
echo "3. the name x\\n<0>y stayed inside its line; every line has a timestamp"
