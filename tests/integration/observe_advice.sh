#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 14 item 5: advice before action. uringtuned in observe mode beside an
# unmodified ping-pong pair across veth namespaces: each ring shows what tune
# mode would set and why (status --json tuning.advice, the table's ADVICE
# column, status --ring, the textfile's uringtune_ring_advice_busy_poll_seconds
# that promtool accepts), and its advice changes in tuning.decisions (static
# tracking once the NAPI IDs settle: static_after_s=2). Nothing is changed on
# the rings. A pair [select] leaves out has no advice and says why; a
# SINGLE_ISSUER ring's reason names the fix.
. "$(dirname "$0")/../lib.sh"

command -v promtool >/dev/null || fail "promtool missing (Debian package prometheus)"

netns_setup
cp "$B/pingpong" "$T/ppexcl"
PROM=$T/textfile/uringtune.prom
start_daemon mode=observe exclude_comm=ppexcl static_after_s=2 interval_s=1

# sparse traffic for ~30 s: the rings wait, and sleep, between pings
bg ip netns exec "$NS_B" "$B/pingpong" server --bind 198.18.0.2:7000 >"$T/server.out"
wait_line "$T/server.out" '^ring '
bg ip netns exec "$NS_A" "$B/pingpong" client --connect 198.18.0.2:7000 \
	--count 6000 --burst 1 --gap-ms 5 --linger 60 >"$T/client.out"
wait_line "$T/client.out" '^ring '
bg ip netns exec "$NS_B" "$T/ppexcl" server --bind 198.18.0.2:7001 >"$T/xserver.out"
wait_line "$T/xserver.out" '^ring '
bg ip netns exec "$NS_A" "$T/ppexcl" client --connect 198.18.0.2:7001 \
	--count 6000 --burst 1 --gap-ms 5 --linger 60 >"$T/xclient.out"
wait_line "$T/xclient.out" '^ring '
bg ip netns exec "$NS_B" "$B/pingpong" server --bind 198.18.0.2:7002 --ring single-issuer \
	>"$T/siserver.out"
wait_line "$T/siserver.out" '^ring '

for who in server client; do
	read -r pid fd < <(ring_of "$T/$who.out")
	# the tuner's initial setting, then static tracking once the IDs held still
	expect_ring "$pid" "$fd" '.tunable and .napi.enabled == false and
		.tuning.advice.enabled and .tuning.advice.busy_poll_us == 50 and
		(.tuning.advice.why | length > 0) and
		(.tuning.advice.since | test("^[0-9-]{10}T[0-9:.]{12}Z$")) and
		(.tuning.decisions | length) >= 1 and
		(.tuning.decisions[0].why | test("^initial: "))' 10
	expect_ring "$pid" "$fd" '.tuning.advice.tracking == "static" and
		(.tuning.advice.why | test("static tracking")) and
		(.tuning.decisions | length) >= 2 and
		.tuning.decisions[-1].why == .tuning.advice.why and
		(.tuning.decisions[-1].time | test("Z$"))' 15
	ring "$pid" "$fd" | jq -c '{pid, fd, napi, tuning: {advice: .tuning.advice,
		decisions: .tuning.decisions}}'
	# observe mode changed nothing: the kernel's own state
	expect_napi "$pid" "$fd" '^disabled$'
	# the table's ADVICE column, and the single-ring view
	"$B/uringtune" --socket "$SOCK" status >"$T/table"
	grep -qE "^PID .* ADVICE +TUNABLE" "$T/table" || { cat "$T/table"; fail "no ADVICE column"; }
	grep -qE "^$pid +pingpong +$fd .* 50us +yes" "$T/table" ||
		{ cat "$T/table"; fail "ring $pid:$fd's ADVICE is not 50us"; }
	"$B/uringtune" --socket "$SOCK" status --ring "$pid:$fd" >"$T/view"
	grep -qE '^advice +50us, static tracking, since ' "$T/view" &&
		grep -qE '^decisions +[0-9]+, oldest first' "$T/view" &&
		grep -qE '^  [0-9-]{10}T[0-9:.]{12}Z  50us +initial: ' "$T/view" ||
		{ cat "$T/view"; fail "status --ring shows no advice or decisions"; }
done

# [select] left the other pair out: no advice, and the reason says so
for who in xserver xclient; do
	read -r pid fd < <(ring_of "$T/$who.out")
	expect_ring "$pid" "$fd" '(.tunable | not) and .tuning.advice == null and
		(.reason | test("^\\[select\\] leaves it out: excluded by exclude_comm$")) and
		.tuning.decisions == []' 10
	ring "$pid" "$fd" | jq -c '{pid, fd, comm, tunable, reason}'
done

# SINGLE_ISSUER: not tunable from outside, and the reason names the way in
read -r pid fd < <(ring_of "$T/siserver.out")
expect_ring "$pid" "$fd" '(.tunable | not) and .tuning.advice == null and
	(.reason | test("EEXIST")) and (.reason | test("uringtune exec --napi")) and
	(.reason | test("\\[agent\\] napi_comm"))'
ring "$pid" "$fd" | jq -c '{pid, fd, tunable, reason}'

# the metric: the advised timeout of each advised ring, in seconds; promtool accepts the file
read -r pid fd < <(ring_of "$T/client.out")
read -r xpid xfd < <(ring_of "$T/xclient.out")
advised() {
	grep -qE "^uringtune_ring_advice_busy_poll_seconds\{ring=\"$pid:$fd\",comm=\"pingpong\"\} 0\\.00005$" "$PROM"
}
wait_for 30 advised || { grep advice "$PROM"; fail "no advice metric for the client ring"; }
grep -q "^uringtune_ring_advice_busy_poll_seconds{ring=\"$xpid:" "$PROM" &&
	fail "an excluded ring has an advice metric"
promtool check metrics <"$PROM" || fail "promtool check metrics failed"
grep '^uringtune_ring_advice_busy_poll_seconds' "$PROM"
