#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 24: SQPOLL rings busy-poll NAPI from their SQ thread's loop, not in
# the waits of the program's threads: the IDs are seen (= the kernel's
# list) on a multishot UDP server, status says where the polling happens,
# and no window is counted or billed to the waiting thread; in tune mode
# the rings are taken from outside (SQPOLL without SINGLE_ISSUER accepts
# it), their IDs polled, and put back at the stop.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../pattern-test.sh"
need_untuned_host
netns_setup

start_daemon mode=observe include_comm=mshot
pt_server --pattern udp-multishot --ring sqpoll --napi-busy-poll-us 50
pt_client --pattern udp-multishot --ring sqpoll --napi-busy-poll-us 50 --seconds 3600
read -r pid fd < <(ring_of "$T/server.out")
wait_for_timed 20 "the SQPOLL server ring's NAPI IDs = the kernel's list" ids_equal "$pid" "$fd" ||
	fail "seen $(ring "$pid" "$fd" | jq -c .napi_ids), the kernel's list $(ring "$pid" "$fd" | jq -c .kernel_napi_ids)"
expect_ring "$pid" "$fd" '.waits.total > 100' 20
expect_ring "$pid" "$fd" '.busy_poll.polled_in == "sq_thread" and .busy_poll.windows == 0 and
	.busy_poll.spin_ns.paid == 0 and .busy_poll.spin_ns.unpaid == 0'
log "SQPOLL: $(ring "$pid" "$fd" | jq -c '{napi_ids, kernel_napi_ids, waits, polled_in: .busy_poll.polled_in}')"
kill_bg
stop_daemon

log "SQPOLL, tune"
start_daemon mode=tune include_comm=mshot
PT_PORT=$((PT_PORT + 1))
pt_server --pattern udp-multishot --ring sqpoll
pt_client --pattern udp-multishot --ring sqpoll --seconds 3600
read -r pid fd < <(ring_of "$T/server.out")
read -r cpid cfd < <(ring_of "$T/client.out")
expect_ring "$pid" "$fd" '.managed_by == "uringtune" and .napi.enabled' 10
expect_napi "$pid" "$fd" '^enabled/' 10
wait_for_timed 30 "SQPOLL, tune: the server ring's NAPI IDs polled (seen = the kernel's list)" \
	ids_equal "$pid" "$fd" ||
	fail "seen $(ring "$pid" "$fd" | jq -c .napi_ids), the kernel's list $(ring "$pid" "$fd" | jq -c .kernel_napi_ids)"
expect_ring "$pid" "$fd" '.busy_poll.polled_in == "sq_thread" and .busy_poll.windows == 0'
stop_daemon
expect_napi "$pid" "$fd" '^disabled$' 10
expect_napi "$cpid" "$cfd" '^disabled$' 10
log "SQPOLL, tune: taken, IDs polled, put back at the stop"
