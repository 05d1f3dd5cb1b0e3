#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 24: a UDP echo server on one multishot recvmsg over a provided
# buffer ring, armed once before the first packet (no poll arm before its
# waits), seen and tuned as well as a ping-pong that re-arms: on a plain
# ring waiting plainly, on a COOP_TASKRUN ring whose waits have a timeout,
# with min_wait, and with its socket made by another process and passed
# with SCM_RIGHTS (what each asserts: tests/pattern-test.sh).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../pattern-test.sh"
need_untuned_host
netns_setup

pt_observe "udp-multishot" --pattern udp-multishot -- --pattern udp-multishot
pt_observe "udp-multishot, COOP_TASKRUN, waits with a 1 ms timeout" \
	--pattern udp-multishot --ring coop-taskrun --wait timeout:1000 -- \
	--pattern udp-multishot --ring coop-taskrun --wait timeout:1000
pt_observe "udp-multishot, min_wait 50 us, registered ring" \
	--pattern udp-multishot --wait min-wait:50 --registered-ring -- \
	--pattern udp-multishot --wait min-wait:50 --registered-ring
pt_observe "udp-multishot, socket passed with SCM_RIGHTS" \
	--pattern udp-multishot --socket-via-scm -- --pattern udp-multishot
pt_tune "udp-multishot" --pattern udp-multishot -- --pattern udp-multishot
pt_tune "udp-multishot, COOP_TASKRUN, waits with a 1 ms timeout" \
	--pattern udp-multishot --ring coop-taskrun --wait timeout:1000 -- \
	--pattern udp-multishot --ring coop-taskrun --wait timeout:1000
