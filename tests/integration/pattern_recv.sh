#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 24: the single-shot recv re-armed before every wait (what pingpong
# does, and what uringtune was first checked against), through the same
# checks as the multishot patterns (tests/pattern-test.sh), on a plain ring
# and on a DEFER_TASKRUN ring that registers NAPI itself.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../pattern-test.sh"
need_untuned_host
netns_setup

pt_observe "recv" --pattern recv -- --pattern recv
pt_observe "recv, DEFER_TASKRUN" --pattern recv --ring defer-taskrun -- \
	--pattern recv --ring defer-taskrun
pt_tune "recv" --pattern recv -- --pattern recv
