#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The package under real systemd: for each kernel (6.12, newest 7.x) boot a
# Debian bookworm guest with systemd as PID 1 (vm/build-rootfs.sh,
# vm/run-systemd.sh) and run vm/guest-systemd.sh in it, which installs DEB
# with dpkg and checks the service (see that script for the list). Prints
# the guest's per-check lines as
#
#   vmtest-systemd: <uname -r> <check> ok|FAIL <what was seen>
#
# and one line per kernel: PASS vm-systemd <uname -r>: boot .. s, run .. s,
# N checks | FAIL vm-systemd <uname -r>: <failed checks> | SKIP vm-systemd
# <series or uname -r>: <why>; then "vmtest-systemd: N passed, N failed, N
# skipped". Before booting, the unit in DEB must keep every line of
# systemd/uringtune.service (the hardening included), paths aside.
#
# usage: vm/vmtest-systemd.sh --deb DEB|auto [6.12|7 ...]
#   auto: build/deb/uringtune_<debian/changelog version>_<arch>.deb, which
#   `make deb` builds (a FAIL when it is not there)
# Exit 1 if any kernel failed, 3 if all were skipped, else 0.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${UT_VM_CACHE:-$ROOT/.cache/vm}
# "[+N s]" on the progress lines: where the time goes
T_START=$(date +%s.%N)
el() { awk -v a="$T_START" -v b="$(date +%s.%N)" 'BEGIN { printf "[+%.1f s]", b - a }'; }

deb=
series=()
while [ $# -gt 0 ]; do
	case $1 in
	--deb) deb=${2:-}; shift 2 || { echo "vmtest-systemd: --deb needs a file" >&2; exit 2; } ;;
	6.12|7) series+=("$1"); shift ;;
	*) echo "vmtest-systemd: unknown argument '$1' (expected --deb DEB, 6.12 or 7)" >&2; exit 2 ;;
	esac
done
[ ${#series[@]} -gt 0 ] || series=(6.12 7)
if [ "$deb" = auto ]; then
	# what `make deb` of this tree builds: build/deb/uringtune_<version>_amd64.deb
	ver=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version 2>/dev/null)
	deb=$ROOT/build/deb/uringtune_${ver:-?}_$(dpkg --print-architecture)
	deb=$deb.deb
	if [ -z "$ver" ] || [ ! -f "$deb" ]; then
		for s in "${series[@]}"; do
			echo "FAIL vm-systemd $s: no package ${deb#"$ROOT"/} (make deb; debian/changelog version '${ver:-none}')"
		done
		exit 1
	fi
fi
[ -f "$deb" ] || { echo "vmtest-systemd: --deb '$deb': no such package (make deb)" >&2; exit 2; }
[ -x "$ROOT/build/pingpong" ] || { echo "vmtest-systemd: build/pingpong is missing (make)" >&2; exit 2; }
[ -x "$ROOT/build/mshot" ] || { echo "vmtest-systemd: build/mshot is missing (make)" >&2; exit 2; }
command -v jq >/dev/null || { echo "vmtest-systemd: jq is missing (scripts/deps.sh)" >&2; exit 2; }

passed=0
failed=0
skipped=0
tmp=$(mktemp -d /tmp/uringtune-vmtest-systemd.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# The unit the package ships against the repository's: every directive
# line of systemd/uringtune.service must be there (dh may add nothing to a
# unit, and a removed hardening line must be explained in the unit itself)
unit_err=
dpkg-deb -x "$deb" "$tmp/debroot" || { echo "vmtest-systemd: dpkg-deb -x $deb failed" >&2; exit 1; }
shipped=$(ls "$tmp"/debroot/lib/systemd/system/uringtune.service "$tmp"/debroot/usr/lib/systemd/system/uringtune.service 2>/dev/null | head -n 1)
if [ -z "$shipped" ]; then
	unit_err="the package has no uringtune.service under /lib/systemd/system or /usr/lib/systemd/system"
else
	missing=$(grep -vE '^[[:space:]]*(#|$)' "$ROOT/systemd/uringtune.service" | while IFS= read -r l; do
		grep -qxF "$l" "$shipped" || echo "$l"
	done)
	[ -z "$missing" ] || unit_err="the packaged unit lacks lines of systemd/uringtune.service: $(paste -sd'|' <<<"$missing")"
fi
echo "vmtest-systemd: package $(basename "$deb") ($(dpkg-deb -f "$deb" Version)), Depends: $(dpkg-deb -f "$deb" Depends)"
if [ -z "$unit_err" ]; then
	echo "vmtest-systemd: the packaged unit keeps all $(grep -cvE '^[[:space:]]*(#|$)' "$ROOT/systemd/uringtune.service") directive lines of systemd/uringtune.service"
fi

rc=0
rootfs=$("$ROOT/vm/build-rootfs.sh" --deb "$deb" 2>"$tmp/rootfs.err") || rc=$?
if [ $rc -ne 0 ]; then
	why="the root file system: $(tail -n 1 "$tmp/rootfs.err")"
	for s in "${series[@]}"; do
		if [ $rc -eq 3 ]; then echo "SKIP vm-systemd $s: $why"; else echo "FAIL vm-systemd $s: $why"; fi
	done
	[ $rc -eq 3 ] && exit 3
	exit 1
fi
echo "vmtest-systemd: $(el) $rootfs"
image=$(awk '{ print $2 }' <<<"$rootfs")
imgdir=$(dirname "$image")
echo "vmtest-systemd: root file system: $(cat "$imgdir/used_mb") MiB used in an ext4 image of $(( $(stat -c %s "$image") >> 20 )) MiB (sparse, $(du -m "$image" | cut -f1) MiB on disk), built in $(cat "$imgdir/build_s") s"

mkdir -p "$tmp/payload"
cp "$ROOT/vm/guest-systemd.sh" "$tmp/payload/test.sh"
cp "$deb" "$tmp/payload/"
cp "$ROOT/build/pingpong" "$tmp/payload/pingpong"
cp "$ROOT/build/mshot" "$tmp/payload/mshot"

"$ROOT/vm/fetch-kernels.sh" "${series[@]}" >"$tmp/fetch"
for s in "${series[@]}"; do
	line=$(grep -E "^(KERNEL|SKIP) ${s//./\\.}[ :]" "$tmp/fetch" | head -n 1)
	case $line in
	KERNEL*) ;;
	*)
		echo "SKIP vm-systemd $s: ${line#*: }"
		skipped=$((skipped + 1))
		continue ;;
	esac
	read -r _ _ krel _ kdir _ <<<"$line"
	echo "vmtest-systemd: $(el) booting $krel with systemd"
	out=$tmp/$s.out
	"$ROOT/vm/run-systemd.sh" "$kdir" "$image" "$tmp/payload" >"$out" 2>&1
	rc=$?
	cp "$out" "$CACHE/logs/$krel.systemd.utvm" 2>/dev/null
	echo "vmtest-systemd: $(el) $krel: $(grep -m1 '^VM ' "$out")"
	if [ $rc -eq 3 ]; then
		grep -m1 '^SKIP vm-systemd ' "$out" || echo "SKIP vm-systemd $krel: the VM did not start"
		skipped=$((skipped + 1))
		continue
	fi
	sed -n 's/^UTVM: CHECK /vmtest-systemd: '"$krel"' /p; s/^UTVM: NOTE /vmtest-systemd: '"$krel"' note: /p; s/^UTVM: ERROR /vmtest-systemd: '"$krel"' error: /p' "$out"
	vm=$(grep -m1 '^VM ' "$out")
	errs=()
	[ -z "$unit_err" ] || errs+=("$unit_err")
	booted=$(sed -n 's/^UTVM: KERNEL //p' "$out" | head -n 1)
	[ "$booted" = "$krel" ] || errs+=("booted '${booted:-nothing}', expected $krel")
	while IFS= read -r c; do
		errs+=("${c%% *}")
	done < <(sed -n 's/^UTVM: CHECK \([^ ]*\) FAIL.*/\1/p' "$out")
	nok=$(grep -c '^UTVM: CHECK [^ ]* ok' "$out")
	[ "$nok" -ge 12 ] || errs+=("only $nok checks passed (the test did not get through: see the console log)")
	exitv=$(sed -nE 's/.* exit=([^ ]*).*/\1/p' <<<"$vm")
	[ "$exitv" = 0 ] || errs+=("the guest's exit=$exitv")
	grep '^run-systemd: ' "$out" | sed 's/^/vmtest-systemd: /'
	bs=$(sed -nE 's/.* boot_s=([^ ]*).*/\1/p' <<<"$vm")
	rs=$(sed -nE 's/.* run_s=([^ ]*).*/\1/p' <<<"$vm")
	ts=$(sed -nE 's/^UTVM: DONE .*test_s=([^ ]*).*/\1/p' "$out")
	up=$(sed -nE 's/^UTVM: BOOT .*uptime_s=([^ ]*).*/\1/p' "$out" | head -n 1)
	summary="boot: utvm.service started ${bs} s after QEMU start (guest uptime ${up:--} s), test ${ts:--} s, total $rs s ($(sed -nE 's/.* accel=([^ ]*).*/\1/p' <<<"$vm")); $nok checks ok; console log $(sed -nE 's/.* log=([^ ]*).*/\1/p' <<<"$vm")"
	if [ ${#errs[@]} -eq 0 ]; then
		echo "PASS vm-systemd $krel: $summary"
		passed=$((passed + 1))
	else
		echo "FAIL vm-systemd $krel: $(IFS=';'; echo "${errs[*]}" | sed 's/;/; /g') [$summary]"
		failed=$((failed + 1))
	fi
done
echo "vmtest-systemd: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ] || exit 1
[ $passed -gt 0 ] || exit 3
exit 0
