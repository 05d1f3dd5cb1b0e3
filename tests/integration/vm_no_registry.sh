#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 5e: with no registry reachable (and nothing cached), the VM
# tests report each kernel skipped, with the reason, never passed; so do
# the systemd guest (its root file system comes from the same archive) and
# the builds against the older kernels' own types.
. "$(dirname "$0")/../lib.sh"

mkdir -p "$T/sources" "$T/cache"
# a Debian archive on a loopback port nobody listens on
sed -E 's|^URIs:.*|URIs: http://127.0.0.1:9/debian|' /etc/apt/sources.list.d/debian.sources \
	>"$T/sources/debian.sources" 2>/dev/null ||
	printf 'Types: deb\nURIs: http://127.0.0.1:9/debian\nSuites: bookworm\nComponents: main\n' \
		>"$T/sources/debian.sources"
rc=0
UT_VM_CACHE=$T/cache UT_VM_APT_SOURCES=$T/sources timeout 300 vm/vmtest.sh 6.1 7 \
	>"$T/out" 2>&1 || rc=$?
cat "$T/out"
grep -q '^PASS vm' "$T/out" && fail "a kernel passed without a registry"
for k in 6.1 7; do
	grep -qE "^SKIP vm ${k//./\\.}[ :].*(unreachable|fetch)" "$T/out" ||
		fail "no skip with a reason for $k"
done
# the systemd guest (7) and the builds against older kernels' types: the
# root file system's archive and the kernels are out of reach too
grep -qE "^SKIP vm-systemd 7: .*unreachable" "$T/out" || fail "no skip with a reason for the systemd guest"
grep -qE "^SKIP vm-core: .*unreachable" "$T/out" || fail "no skip with a reason for the core builds"
grep -q '0 passed, 0 failed, 4 skipped' "$T/out" || fail "summary: $(tail -1 "$T/out")"
echo "vmtest exit $rc: every kernel, the systemd guest and the core builds skipped with their reasons"
