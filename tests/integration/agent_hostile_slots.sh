#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 12, point 3: the slot leak. An unprivileged peer sends 1024 HELLOs,
# each followed by a RING naming the same ring (its own): one slot per ring,
# so at most one slot stays in use, and a legitimate agent still gets one.
# (Before the fix each RING took a new slot and left the old one: 1024
# slots, the page full until a restart.) Then the quotas: at most 16 HELLOs
# of one uid waiting for their rings, at most [agent] slots_per_uid slots
# per uid (the rest set up unchanged), every refusal counted, and one warning
# line per uid per minute however many refusals. Every HELLO is answered at
# all: each waits up to BOUND_MS, 10x and more the slowest seen here under
# two CPU hogs (printed); a reply later than that counts as refused.
. "$(dirname "$0")/../lib.sh"

BOUND_MS=5000

chmod 0711 "$T"
agent() { status_json | jq -c ".daemon.agent | $1"; }
slots_are() { [ "$(agent .slots_used)" = "$1" ]; }
# warnings about uid 65534 in the daemon's log
warnings() { grep -c 'warning: agent: .*uid 65534' "$T/daemon.log" || true; }

start_daemon mode=tune

log "1024 HELLO + RING naming the same ring"
bg "${NOBODY[@]}" "${HOSTILE[@]}" --timeout-ms "$BOUND_MS" flood --count 1024 --hold 120 \
	>"$T/flood.out"
wait_line "$T/flood.out" '^ready' 120
cat "$T/flood.out"
max=$(sed -nE 's/.*hello_max_us=([0-9]+).*/\1/p' "$T/flood.out")
echo "slowest of 1024 HELLOs answered in $max us (bound $BOUND_MS ms)"
grep -q 'answered=1024 refused=0 failed=0' "$T/flood.out" ||
	fail "not every HELLO answered within $BOUND_MS ms: $(grep '^flood' "$T/flood.out")"
read -r fpid ffd < <(ring_of "$T/flood.out")
expect_ring "$fpid" "$ffd" '.agent != null'

log "a legitimate agent still gets a slot"
bg "${AGENT_EXEC[@]}" --napi -- "$B/ringhold" --flags defer-taskrun --hold 120 >"$T/legit.out"
wait_line "$T/legit.out" '^ready'
read -r lpid lfd < <(ring_of "$T/legit.out")
expect_napi "$lpid" "$lfd" '^enabled/dynamic/50000/'
expect_ring "$lpid" "$lfd" '.managed_via == "agent" and .agent.napi_at_setup == "registered"'
a=$(agent '{slots_used, slots_replaced, requests}')
echo "after the flood and the legitimate agent: $a"
jq -e '.slots_used == 2 and .slots_replaced == 1023' <<<"$a" >/dev/null ||
	fail "slots not reused: $a"
kill_bg
wait_for 5 slots_are 0 || fail "slots of gone rings kept: $(agent .slots_used)"

log "HELLOs without their rings: at most 16 of one uid"
bg "${NOBODY[@]}" "${HOSTILE[@]}" --timeout-ms "$BOUND_MS" hello --count 40 --hold 120 \
	>"$T/hello.out"
wait_line "$T/hello.out" '^ready'
cat "$T/hello.out"
grep -q 'answered=16 refused=24' "$T/hello.out" || fail "pending quota"
grep -q 'why=uid 65534 has 16 ring setups under way' "$T/hello.out" || fail "no reason given"
jq -e '.quota_pending == 24' <<<"$(agent .refusals)" >/dev/null || fail "$(agent .refusals)"
[ "$(warnings)" = 1 ] || { grep 'uid 65534' "$T/daemon.log"; fail "$(warnings) warning lines"; }
grep 'warning: agent: .*uid 65534' "$T/daemon.log"
# its process exits: its pending slots go at the next tick
kill_bg
wait_for 5 slots_are 0 || fail "slots of a dead process kept: $(agent .slots_used)"

log "[agent] slots_per_uid = 8: a program with 12 rings gets 8 slots"
stop_daemon
start_daemon mode=tune slots_per_uid=8
bg "${NOBODY[@]}" "${AGENT_EXEC[@]}" --napi -- "$B/ringhold" --flags defer-taskrun --count 12 \
	--hold 120 >"$T/many.out"
wait_line "$T/many.out" '^ready'
pid=$(ring_of "$T/many.out" | cut -d' ' -f1)
n_on=0
while read -r _ fd; do
	[[ "$(napi_state "$pid" "$fd")" == enabled/* ]] && n_on=$((n_on + 1))
done < <(grep '^ring ' "$T/many.out" | sed -E 's/.*pid=([0-9]+) fd=([0-9]+).*/\1 \2/')
r=$(status_json | jq --argjson pid "$pid" '[.rings[] | select(.pid == $pid and .agent != null)] | length')
echo "rings with a slot: $r, NAPI on: $n_on, $(agent '{slots_used, refusals: .refusals.quota_slots}')"
[ "$r" = 8 ] && [ "$n_on" = 8 ] || fail "expected 8 rings through the agent"
jq -e '.quota_slots == 4' <<<"$(agent .refusals)" >/dev/null || fail "$(agent .refusals)"
[ "$(warnings)" = 1 ] || fail "$(warnings) warning lines"
