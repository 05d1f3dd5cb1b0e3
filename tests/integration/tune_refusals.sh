#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 3d: SINGLE_ISSUER and DEFER_TASKRUN rings under tune mode: no
# foreign registration is attempted more than once (here: none, the flags
# say it would fail), status says why, and the ring is untouched. IOPOLL too.
. "$(dirname "$0")/../lib.sh"

start_daemon mode=tune include_comm=ringhold
for kind in single-issuer defer-taskrun iopoll; do
	bg "$B/ringhold" --flags "$kind" >"$T/$kind.out"
	wait_line "$T/$kind.out" '^ready'
	read -r pid fd < <(ring_of "$T/$kind.out")
	expect_ring "$pid" "$fd" '(.tunable | not) and .managed_by == "none" and
		(.reason | test("EEXIST|EINVAL"))'
	echo "$kind: $(ring "$pid" "$fd" | jq -c '{tunable, reason}')"
	sleep 1.2	# a tick passes: still untouched, nothing retried
	[ "$(napi_state "$pid" "$fd")" = disabled ] || fail "$kind ring was changed"
done
! grep -q 'refused' "$T/daemon.log" || fail "the daemon tried a ring it knew would refuse"
s=$(status_json | jq -c '.daemon | {actions_ok, actions_failed, journal_entries}')
echo "$s"
[ "$(jq .actions_failed <<<"$s")" = 0 ] || fail "failed attempts: $s"
[ "$(jq .journal_entries <<<"$s")" = 0 ] || fail "journal entries for untouched rings: $s"
