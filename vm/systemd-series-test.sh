#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# vm/systemd-series-test.sh NAME SERIES: the body of the systemd-guest tests
# (tests/integration/vm_systemd_*.sh, one kernel each): `make deb` of this
# tree, then vm/vmtest-systemd.sh on that kernel. Exit 0 passed, 77 skipped
# (its reason the last line: a kernel or root file system out of reach), 1
# failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
me=$1
series=$2
[ "$(id -u)" = 0 ] || { echo "$me: needs root (mmdebstrap, dpkg-deb -x with owners)"; exit 77; }

t0=$(date +%s)
if ! out=$(make --no-print-directory deb 2>&1); then
	tail -n 20 <<<"$out"
	echo "$me: make deb failed"
	exit 1
fi
echo "make deb: $(( $(date +%s) - t0 )) s"
out=$(vm/vmtest-systemd.sh --deb auto "$series" 2>&1)
rc=$?
echo "$out"
case $rc in
0) exit 0 ;;
3) grep -E '^SKIP vm-systemd ' <<<"$out" | tail -n 1 | sed 's/^SKIP //'; exit 77 ;;
*) exit 1 ;;
esac
