#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 24: a TCP multishot echo server and client on SINGLE_ISSUER |
# DEFER_TASKRUN rings (which refuse register calls from outside), started
# under `uringtune exec --napi`: the agent switches NAPI on and the tuner
# sizes it from timed windows; a stop switches it off at the programs' next
# call (what each asserts: tests/pattern-test.sh).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../pattern-test.sh"
need_untuned_host
netns_setup

PT_WRAP=("${AGENT_EXEC[@]}" --napi --)
pt_tune "tcp-multishot, DEFER_TASKRUN, agent" --pattern tcp-multishot --ring defer-taskrun -- \
	--pattern tcp-multishot --ring defer-taskrun
