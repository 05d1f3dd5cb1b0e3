#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# budget: 300
# Acceptance 5a-5c on Debian's 6.12 cloud kernel, in a VM with an emulated NVMe
# device with a poll queue (vm/vmtest.sh): uringtuned observes an IOPOLL load
# at QD1 and QD8, its completion count equals the load generator's exactly
# and its p50 is > 0 and at most 2x the generator's (its times lie inside
# the generator's, its log2 slot at most doubles them; how close the two
# are is a "target vm ... iopoll p50 ratio" line, not judged); on 7.x hybrid rings show
# hybrid_poll_time and CPU of classic vs hybrid is printed beside the
# advisor's prediction; on 6.1 the daemon says NAPI tuning is unavailable
# and still reports IOPOLL times.
# In the same boot, with the fio layer (vm/guest-agent-fio.sh): fio under
# `uringtune exec --hybrid on` still completes on 6.12, which refuses
# HYBRID_IOPOLL (the agent falls back to fio's own flags), and its ring has
# no HYBRID_IOPOLL; a missing agent or `uringtune exec` is a failure.
# A kernel that cannot be fetched or a VM that cannot start is a skip.
set -uo pipefail
cd "$(dirname "$0")/../.."
# the systemd guest is tests/integration/vm_systemd_6_12.sh and vm_systemd_7.sh
out=$(UT_VM_SYSTEMD=0 UT_VM_CORE=0 vm/vmtest.sh 6.12 2>&1)
rc=$?
echo "$out"
line=$(grep -E '^(PASS|FAIL|SKIP) vm ' <<<"$out" | tail -n 1)
case $line in
PASS*) exit 0 ;;
SKIP*) echo "${line#SKIP }"; exit 77 ;;
*) exit $(( rc ? rc : 1 )) ;;
esac
