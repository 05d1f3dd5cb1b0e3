#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 2e: plain, SINGLE_ISSUER, DEFER_TASKRUN, SQPOLL and IOPOLL rings
# created while the daemon runs: setup flags, tunable and reason are right.
. "$(dirname "$0")/../lib.sh"

start_daemon

# kind | expected setup_flags | expected tunable | word the reason must hold
cases=(
	"plain|[]|true|^$"
	"single-issuer|[\"SINGLE_ISSUER\"]|false|SINGLE_ISSUER.*EEXIST"
	"defer-taskrun|[\"SINGLE_ISSUER\",\"DEFER_TASKRUN\"]|false|DEFER_TASKRUN.*EEXIST"
	"sqpoll|[\"SQPOLL\"]|true|^$"
	"iopoll|[\"IOPOLL\"]|false|IOPOLL.*EINVAL"
)
for c in "${cases[@]}"; do
	IFS='|' read -r kind flags tunable reason <<<"$c"
	bg "$B/ringhold" --flags "$kind" >"$T/$kind.out"
	wait_line "$T/$kind.out" '^ready'
	r=$(grep '^ring ' "$T/$kind.out")
	pid=$(field pid "$r")
	fd=$(field fd "$r")
	expect_ring "$pid" "$fd" ".setup_flags == $flags and .tunable == $tunable and
		(.reason | test(\"$reason\")) and .managed_by == \"none\" and
		.comm == \"ringhold\""
	echo "$kind: $(ring "$pid" "$fd" | jq -c '{setup_flags, tunable, reason}')"
done
