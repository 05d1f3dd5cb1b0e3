#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 6b: the ping-pong with SINGLE_ISSUER|DEFER_TASKRUN rings, liburing
# as a shared library, no NAPI registration of its own, uringtuned in tune
# mode. Without the agent, status says the kernel refuses foreign
# registration (EEXIST) and the rings stay as they are; under
# `uringtune exec --napi` the agent registers NAPI from each ring's
# submitting thread at setup, the kernel's fdinfo says so, and status lists
# the rings as managed by uringtune through the agent, counted apart. A
# program that registers NAPI itself under the agent manages its ring, and
# a config rule by process name ([agent] napi_comm) does what --napi does.
. "$(dirname "$0")/../lib.sh"

grep -q "liburing\.so" <<<"$(ldd "$B/pingpong")" || fail "pingpong is not linked with liburing.so"
netns_setup
# the export every second: its count is checked below
start_daemon mode=tune include_comm=pingpong interval_s=1

# pingpong_pair PREFIX [uringtune exec ARGS...]: server and client, defer-taskrun rings
pingpong_pair() {
	local p=$1
	shift
	local run=()
	[ $# -eq 0 ] || run=("${AGENT_EXEC[@]}" "$@" --)
	bg ip netns exec "$NS_B" "${run[@]}" "$B/pingpong" server --bind 198.18.0.2:7000 \
		--ring defer-taskrun >"$T/$p-server.out" 2>"$T/$p-server.err"
	wait_line "$T/$p-server.out" '^ring '
	bg ip netns exec "$NS_A" "${run[@]}" "$B/pingpong" client --connect 198.18.0.2:7000 \
		--ring defer-taskrun --count 3000 --linger 60 >"$T/$p-client.out" 2>"$T/$p-client.err"
	wait_line "$T/$p-client.out" '^ring '
}

log "without the agent"
pingpong_pair plain
wait_line "$T/plain-client.out" '^rtt ' 60
for who in server client; do
	read -r pid fd < <(ring_of "$T/plain-$who.out")
	expect_ring "$pid" "$fd" '(.setup_flags | index("DEFER_TASKRUN")) and
		(.tunable | not) and (.reason | test("EEXIST")) and .managed_by == "none" and
		.agent == null and (.napi.enabled | not)'
	[ "$(napi_state "$pid" "$fd")" = disabled ] || fail "$who ring was changed without the agent"
	echo "$who: $(ring "$pid" "$fd" | jq -c '{setup_flags, tunable, reason}')"
done
kill_bg

log "under uringtune exec --napi"
pingpong_pair agent --napi
for who in server client; do
	read -r pid fd < <(ring_of "$T/agent-$who.out")
	# the shipped policy: initial 50 us, dynamic tracking
	expect_napi "$pid" "$fd" '^enabled/dynamic/50000/false$'
	expect_ring "$pid" "$fd" '.managed_by == "uringtune" and .managed_via == "agent" and
		.tunable and .agent.napi_at_setup == "registered" and .napi.enabled and
		.napi.busy_poll_us == 50 and .tuning.error == null'
	echo "$who: $(ring "$pid" "$fd" | jq -c '{managed_by, managed_via, agent}')"
	# the program still sees its own flags
	grep -q 'flags=0x3000 ' "$T/agent-$who.out" || fail "$who: $(cat "$T/agent-$who.out")"
done
wait_line "$T/agent-client.out" '^rtt ' 60
cat "$T/agent-client.out"
read -r pid fd < <(ring_of "$T/agent-client.out")
# the kernel really busy-polls for it now
expect_ring "$pid" "$fd" '.busy_poll.windows > 0'
"$B/uringtune" --socket "$SOCK" status | tee "$T/table"
grep -E "^$pid +pingpong .*uringtune \(agent\)" "$T/table" || fail "table does not say uringtune (agent)"
a=$(status_json | jq -c '.daemon.agent')
echo "daemon.agent: $a"
jq -e '.rings == 2 and .rings_managed == 2 and .napi_registered == 2 and .napi_failed == 0' \
	<<<"$a" >/dev/null || fail "agent counts: $a"
# the export counts them apart too
wait_for 30 grep -q '^uringtune_agent_rings{managed="true"} 2$' "$T/textfile/uringtune.prom" ||
	fail "export: $(grep agent "$T/textfile/uringtune.prom")"
# nothing was journaled (the agent's page is their record) and nothing failed
s=$(status_json | jq -c '.daemon | {journal_entries, actions_failed}')
[ "$s" = '{"journal_entries":0,"actions_failed":0}' ] || fail "daemon: $s"
kill_bg

log "a program that registers NAPI itself under the agent manages its ring"
# the agent registers 50 us at setup, then the program its own 20 us: the
# agent sees that call (syscall()) and tells the daemon, which steps back
bg ip netns exec "$NS_B" "${AGENT_EXEC[@]}" --napi -- "$B/pingpong" server --bind 198.18.0.2:7000 \
	--ring defer-taskrun --napi-busy-poll-us 20 >"$T/own-server.out"
wait_line "$T/own-server.out" '^ring '
read -r pid fd < <(ring_of "$T/own-server.out")
expect_napi "$pid" "$fd" '^enabled/dynamic/20000/false$'
expect_ring "$pid" "$fd" '.managed_by == "app" and (.tunable | not) and .napi.busy_poll_us == 20'
sleep 1.2	# a tick: still the program's
expect_napi "$pid" "$fd" '^enabled/dynamic/20000/false$' 1
a=$(status_json | jq -c '.daemon.agent.app_took_over')
[ "$a" -ge 1 ] || fail "app_took_over: $a"
kill_bg

log "[agent] napi_comm = pingpong: the same without uringtune exec's --napi"
stop_daemon
start_daemon mode=tune include_comm=pingpong napi_comm=pingpong
bg ip netns exec "$NS_B" "${AGENT_EXEC[@]}" -- "$B/pingpong" server --bind 198.18.0.2:7000 \
	--ring defer-taskrun >"$T/rule-server.out"
wait_line "$T/rule-server.out" '^ring '
read -r pid fd < <(ring_of "$T/rule-server.out")
expect_napi "$pid" "$fd" '^enabled/dynamic/50000/false$'
expect_ring "$pid" "$fd" '.managed_via == "agent" and .agent.napi_at_setup == "registered"'
