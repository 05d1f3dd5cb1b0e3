#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 2d: rings created before the daemon started are found by the
# inventory sweep with their setup flags and NAPI state read from the kernel.
. "$(dirname "$0")/../lib.sh"
need_untuned_host

bg "$B/ringhold" --flags coop-taskrun --napi-busy-poll-us 30 --napi-prefer >"$T/napi.out"
bg "$B/ringhold" --flags sqpoll >"$T/sqpoll.out"
wait_line "$T/napi.out" '^ready'
wait_line "$T/sqpoll.out" '^ready'
cat "$T/napi.out" "$T/sqpoll.out"
grep -q 'napi=ok' "$T/napi.out" || fail "ringhold could not register NAPI on its own ring"

start_daemon

r=$(grep '^ring ' "$T/napi.out")
expect_ring "$(field pid "$r")" "$(field fd "$r")" '.comm == "ringhold" and
	.setup_flags == ["COOP_TASKRUN"] and .napi.enabled and
	.napi.busy_poll_us == 30 and .napi.prefer_busy_poll and
	.napi.tracking == "dynamic" and .managed_by == "app" and (.tunable | not) and
	(.reason | test("application"))'

r=$(grep '^ring ' "$T/sqpoll.out")
expect_ring "$(field pid "$r")" "$(field fd "$r")" '.comm == "ringhold" and
	.setup_flags == ["SQPOLL"] and (.napi.enabled | not) and
	.napi.tracking == "inactive" and .managed_by == "none" and .tunable and
	.inode > 0'
status_json | jq -c '.rings[] | select(.comm == "ringhold") | {pid, fd, setup_flags, napi, managed_by}'
