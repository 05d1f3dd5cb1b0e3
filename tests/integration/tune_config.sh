#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 3f: each class of policy error refuses to start with
# `file: [section] key: what is wrong`; SIGHUP with a broken file keeps the
# running policy and says why; a good file then takes effect.
. "$(dirname "$0")/../lib.sh"

bad() {
	local re=$1 rc=0
	shift
	write_config "$@"
	"$B/uringtuned" -c "$CONF" >"$T/out" 2>"$T/err" || rc=$?
	echo "$* -> exit $rc: $(cat "$T/err")"
	[ "$rc" = 1 ] || fail "exit $rc"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "not one line: $(cat "$T/err")"
	grep -qE "^[0-9T:.-]+Z uringtuned: error: $CONF: $re" "$T/err" || fail "message does not match /$re/"
}
bad '\[napi\] max_busy_poll_us: expected an integer from 1 to 10000, got .20000.' \
	max_busy_poll_us=20000
bad '\[napi\] tracking: expected dynamic, static or auto' tracking=sometimes
bad '\[napi\] prefer_busy_poll: expected' prefer_busy_poll=maybe
bad '\[napi\] initial_busy_poll_us: expected a value from min_busy_poll_us' \
	initial_busy_poll_us=500
bad '\[napi\] min_efficiency: expected' min_efficiency=lots
write_config
echo "bogus_key = 1" >>"$CONF"
"$B/uringtuned" -c "$CONF" >"$T/out" 2>&1 || true
grep -q '\[agent\] bogus_key: unknown key (known keys: enabled, socket, page,' "$T/out" ||
	fail "unknown key in [agent] (the last section) not reported: $(cat "$T/out")"

# reload: broken file refused, running policy kept
start_daemon mode=tune include_comm=ringhold
sed -i 's/^initial_busy_poll_us = .*/initial_busy_poll_us = fast/' "$CONF"
kill -HUP "$DAEMON_PID"
wait_for 30 grep -q 'reload refused' "$T/daemon.log" || fail "no refusal logged"
grep 'reload refused' "$T/daemon.log"
grep -q "initial_busy_poll_us: expected" "$T/daemon.log" || fail "refusal does not say why"
bg "$B/ringhold" >"$T/a.out"
wait_line "$T/a.out" '^ready'
read -r pid fd < <(ring_of "$T/a.out")
expect_napi "$pid" "$fd" '^enabled/dynamic/50000/' 5

# a good file takes effect for the next ring
sed -i 's/^initial_busy_poll_us = .*/initial_busy_poll_us = 60/' "$CONF"
kill -HUP "$DAEMON_PID"
wait_for 30 grep -q 'configuration reloaded' "$T/daemon.log" || fail "reload not done"
bg "$B/ringhold" >"$T/b.out"
wait_line "$T/b.out" '^ready'
read -r pid fd < <(ring_of "$T/b.out")
expect_napi "$pid" "$fd" '^enabled/dynamic/60000/' 5
echo "reload: broken file kept 50 us, good file gave 60 us"
