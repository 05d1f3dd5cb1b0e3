#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 24: tcp-multishot with receive bundles (IORING_RECVSEND_BUNDLE,
# 6.10+: skipped before, with the kernel's answer), observed and tuned (what
# each asserts: tests/pattern-test.sh).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../pattern-test.sh"
need_untuned_host
netns_setup
pt_need_bundles

pt_observe "tcp-bundle" --pattern tcp-bundle -- --pattern tcp-bundle
pt_tune "tcp-bundle" --pattern tcp-bundle -- --pattern tcp-bundle
