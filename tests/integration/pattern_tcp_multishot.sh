#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 24: a TCP echo server on multishot accept, then one multishot
# receive per connection over a provided buffer ring (the client too),
# observed and tuned, the last with its listening socket made by another
# process and passed with SCM_RIGHTS (what each asserts:
# tests/pattern-test.sh).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../pattern-test.sh"
need_untuned_host
netns_setup

pt_observe "tcp-multishot" --pattern tcp-multishot -- --pattern tcp-multishot
pt_tune "tcp-multishot, listening socket passed with SCM_RIGHTS" \
	--pattern tcp-multishot --socket-via-scm -- --pattern tcp-multishot
