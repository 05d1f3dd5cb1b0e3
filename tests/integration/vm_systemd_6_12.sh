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
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
SERIES=6.12
me=$(basename "$0" .sh)
[ "$(id -u)" = 0 ] || { echo "$me: needs root (mmdebstrap, dpkg-deb -x with owners)"; exit 77; }

t0=$(date +%s)
if ! out=$(make --no-print-directory deb 2>&1); then
	tail -n 20 <<<"$out"
	echo "$me: make deb failed"
	exit 1
fi
echo "make deb: $(( $(date +%s) - t0 )) s"
out=$(vm/vmtest-systemd.sh --deb auto $SERIES 2>&1)
rc=$?
echo "$out"
case $rc in
0) exit 0 ;;
3) grep -E '^SKIP vm-systemd ' <<<"$out" | tail -n 1 | sed 's/^SKIP //'; exit 77 ;;
*) exit 1 ;;
esac
