#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 2c: the same ping-pong without NAPI registration. Status shows
# NAPI disabled, the NAPI IDs still observed on the sockets, an empty kernel
# list and no busy-poll windows.
. "$(dirname "$0")/../lib.sh"
need_untuned_host

netns_setup
start_daemon

bg ip netns exec "$NS_B" "$B/pingpong" server --bind 198.18.0.2:7000 >"$T/server.out"
wait_line "$T/server.out" '^ring '
srv=$(grep '^ring ' "$T/server.out")

bg ip netns exec "$NS_A" "$B/pingpong" client --connect 198.18.0.2:7000 \
	--count 5000 --linger 60 >"$T/client.out"
wait_line "$T/client.out" '^rtt ' 60
cat "$T/client.out"
cli=$(grep '^ring ' "$T/client.out")
cli_napi=$(field napi_id "$(grep '^rtt ' "$T/client.out")")
[ "$cli_napi" -ge 257 ] || fail "client socket has no NAPI ID ($cli_napi): is NAPI on for veth?"

for r in "$cli" "$srv"; do
	pid=$(field pid "$r")
	fd=$(field fd "$r")
	expect_ring "$pid" "$fd" '.comm == "pingpong" and (.napi.enabled | not) and
		.napi.tracking == "inactive" and .managed_by == "none" and
		(.napi_ids | length) == 1 and .kernel_napi_ids == [] and
		.busy_poll.windows == 0 and .waits.total > 0 and .tunable'
	ring "$pid" "$fd" | jq -c '{pid, fd, napi, napi_ids, waits}'
done
expect_ring "$(field pid "$cli")" "$(field fd "$cli")" ".napi_ids == [$cli_napi]"
