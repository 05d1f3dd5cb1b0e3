#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 900
# budget: 300
# Issue 16 item 2: the package under real systemd, on 6.12 (the same on 7.x:
# vm_systemd_7.sh; one kernel per test, one boot each, so that each stays
# well under make check's 300 s on a loaded host). `make deb` builds the
# package of this tree; vm/vmtest-systemd.sh boots Debian bookworm (made by
# mmdebstrap, cached) with systemd as PID 1 on that kernel of the VM
# harness and, in the guest (vm/guest-systemd.sh): dpkg -i; systemctl
# start -> active after READY=1, StatusText set; CapEff exactly CAP_BPF,
# CAP_PERFMON, CAP_SYS_PTRACE; an unmodified ping-pong pair over veth tuned
# (status and fdinfo); a broken `systemctl reload` fails and the daemon
# keeps running; WatchdogSec=5s + SIGSTOP: killed, restarted, the new
# instance re-adopts the rings from its journal; `systemctl stop` restores
# them (fdinfo); `journalctl -u uringtune -p warning` shows the daemon's
# warnings with their priorities; `dpkg -r` stops it and the rings are
# restored. The packaged unit must keep every line of
# systemd/uringtune.service. One line per check and kernel; a kernel that
# cannot be fetched or booted is a skip, a failed check a failure.
exec "$(dirname "$0")/../../vm/systemd-series-test.sh" "$(basename "$0" .sh)" 6.12
