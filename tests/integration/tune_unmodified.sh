#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 3a: an unmodified ping-pong (no NAPI registration of its own,
# rings without SINGLE_ISSUER) across veth namespaces, uringtuned in tune
# mode: both rings get NAPI enabled (the kernel's fdinfo says so) and status
# says managed_by uringtune. State, not time: the time goes to bench/.
. "$(dirname "$0")/../lib.sh"

netns_setup
start_daemon mode=tune include_comm=pingpong

bg ip netns exec "$NS_B" "$B/pingpong" server --bind 198.18.0.2:7000 >"$T/server.out"
wait_line "$T/server.out" '^ring '
bg ip netns exec "$NS_A" "$B/pingpong" client --connect 198.18.0.2:7000 \
	--count 5000 --linger 60 >"$T/client.out"
wait_line "$T/client.out" '^ring '

for who in server client; do
	read -r pid fd < <(ring_of "$T/$who.out")
	# the shipped policy: initial 50 us, dynamic tracking until IDs settle
	expect_napi "$pid" "$fd" '^enabled/dynamic/50000/false$'
	expect_ring "$pid" "$fd" '.managed_by == "uringtune" and .napi.enabled and
		.napi.busy_poll_us == 50 and .tuning.error == null'
	echo "$who pid=$pid fd=$fd: $(napi_state "$pid" "$fd")"
done
wait_line "$T/client.out" '^rtt ' 60
cat "$T/client.out"
# the kernel really busy-polls for the client now
read -r pid fd < <(ring_of "$T/client.out")
expect_ring "$pid" "$fd" '.busy_poll.windows > 0 and (.kernel_napi_ids | length) == 1'
status_json | jq -c '.daemon | {journal_entries, actions_ok, actions_failed}'
