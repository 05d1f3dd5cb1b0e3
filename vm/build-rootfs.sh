#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The root file system of the systemd guest (vm/run-systemd.sh): Debian
# bookworm made by mmdebstrap through apt, with systemd as PID 1, as an ext4
# image made without mounting anything (mke2fs -d), cached:
#
#   .cache/vm/systemd-rootfs/<key>/root.ext4   key = sha256 of the package
#                                              list and of this script and
#                                              vm/systemd/* (rebuilt when
#                                              either changes)
#
# Packages: systemd, systemd-sysv, kmod (modprobe veth), iproute2, liburing2
# (build/pingpong),
# ethtool (veth with NAPI: tso off, gro on), jq (the guest test reads
# `uringtune status --json`), and every package DEB (the package under
# test) depends on, so that `dpkg -i` finds them (first alternative of each,
# versions dropped). Docs, man pages and locales are left out.
#
# The image gets vm/systemd/utvm.service (enabled) and its launcher, a fixed
# machine-id (no first-boot prompts), and no getty or timers: the serial
# console is the test's.
#
# usage: vm/build-rootfs.sh [--deb DEB]
# Prints "ROOTFS <image> built in N s, <size> MiB used, <N> packages" or
# "ROOTFS <image> cached"; exit 0, 1 on failure (the reason on stderr), 3
# when this machine cannot build it (not root, no mmdebstrap, no archive).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${UT_VM_CACHE:-$ROOT/.cache/vm}
SUITE=bookworm
# the image's size (sparse): the system (~160 MB) and room for the test
IMAGE_MB=768
# the disk's MBR signature: root=PARTUUID=$DISKID-01 on the kernel's command line
DISKID=75746d76
PARTUUID=$DISKID-01
BASE_PKGS="systemd systemd-sysv kmod iproute2 liburing2 ethtool jq"
# units of a booted Debian that only cost boot time here or would take the
# serial console (systemd-firstboot prompts for a locale without a machine-id)
MASK="systemd-firstboot.service serial-getty@ttyS0.service getty@tty1.service
	apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer fstrim.timer
	e2scrub_all.timer systemd-tmpfiles-clean.timer"

deb=
while [ $# -gt 0 ]; do
	case $1 in
	--deb) deb=${2:-}; shift 2 || { echo "build-rootfs: --deb needs a file" >&2; exit 2; } ;;
	-h|--help) sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "build-rootfs: unknown argument '$1' (expected --deb DEB)" >&2; exit 2 ;;
	esac
done

[ "$(id -u)" = 0 ] || { echo "build-rootfs: must run as root (mmdebstrap's root mode keeps the files' owners)" >&2; exit 3; }
command -v mmdebstrap >/dev/null || { echo "build-rootfs: mmdebstrap is not installed (scripts/deps.sh vmtest)" >&2; exit 3; }
command -v mke2fs >/dev/null || { echo "build-rootfs: mke2fs is not installed (e2fsprogs)" >&2; exit 3; }

pkgs=$BASE_PKGS
if [ -n "$deb" ]; then
	[ -f "$deb" ] || { echo "build-rootfs: $deb: no such package file" >&2; exit 1; }
	depends=$(dpkg-deb -f "$deb" Depends) || { echo "build-rootfs: $deb: not a Debian package (dpkg-deb -f)" >&2; exit 1; }
	pkgs="$pkgs $(tr ',' '\n' <<<"$depends" | sed -e 's/|.*//' -e 's/(.*//' -e 's/[[:space:]]//g' | grep -v '^$')"
fi
pkgs=$(tr ' \n' '\n\n' <<<"$pkgs" | grep -v '^$' | LC_ALL=C sort -u)

# The Debian archive the machine already uses (deb822 sources with a suite
# of this release, not -security): mmdebstrap gets it as its mirror.
mirror=$(awk -v cn="$SUITE" '
	function flush() {
		if (types ~ /(^| )deb( |$)/ && ok && uri == "") uri = first
		types = ""; ok = 0; first = ""
	}
	/^[ \t]*#/ { next }
	/^[ \t]*$/ { flush(); next }
	/^Types:/ { types = $0 }
	/^URIs:/ { first = $2 }
	/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == cn) ok = 1 }
	END { flush(); print uri }
' "${UT_VM_APT_SOURCES:-/etc/apt/sources.list.d}"/*.sources 2>/dev/null)
[ -n "$mirror" ] || { echo "build-rootfs: no Debian archive with suite $SUITE in /etc/apt/sources.list.d/*.sources" >&2; exit 3; }

key=$( { echo "$SUITE $IMAGE_MB"; echo "$pkgs"; cat "$0" "$ROOT"/vm/systemd/*; } | sha256sum | cut -c1-16)
dir=$CACHE/systemd-rootfs/$key
img=$dir/root.ext4
if [ -f "$dir/complete" ]; then
	echo "ROOTFS $img cached"
	exit 0
fi

mkdir -p "$CACHE/systemd-rootfs" || exit 1
tmp=$(mktemp -d "$CACHE/systemd-rootfs/.build.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s.%N)
include=$(paste -sd, <<<"$pkgs")
if ! mmdebstrap --variant=apt --include="$include" \
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
	--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	"$SUITE" "$tmp/root" "$mirror" >"$tmp/mmdebstrap.log" 2>&1; then
	err=$(grep -E '^E: ' "$tmp/mmdebstrap.log" | head -n 2 | paste -sd' ' | cut -c1-300)
	# an archive this host cannot reach is a skip, as for the kernels
	# (vm/fetch-kernels.sh); anything else (a package missing, a broken
	# script) fails
	if grep -qE 'Could not connect|Could not resolve|Temporary failure resolving|Connection (refused|timed out)|Network is unreachable|Unable to connect' \
		"$tmp/mmdebstrap.log"; then
		echo "build-rootfs: registry unreachable ($SUITE from $mirror): $err" >&2
		exit 3
	fi
	echo "build-rootfs: mmdebstrap failed ($SUITE from $mirror): $err" >&2
	exit 1
fi
r=$tmp/root
install -m 0644 "$ROOT/vm/systemd/utvm.service" "$r/etc/systemd/system/utvm.service"
install -m 0755 "$ROOT/vm/systemd/utvm-run" "$r/usr/local/sbin/utvm-run"
mkdir -p "$r/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/utvm.service "$r/etc/systemd/system/multi-user.target.wants/utvm.service"
for u in $MASK; do ln -sf /dev/null "$r/etc/systemd/system/$u"; done
echo utvm >"$r/etc/hostname"
# a fixed machine-id: not a first boot (no systemd-firstboot), and the
# journal has a stable directory
systemd-machine-id-setup --root="$r" >/dev/null 2>&1 || { echo "build-rootfs: systemd-machine-id-setup failed" >&2; exit 1; }
echo "PARTUUID=$PARTUUID / ext4 rw 0 1" >"$r/etc/fstab"
echo "$PARTUUID" >"$tmp/partuuid"
used_mb=$(du -sm "$r" | cut -f1)
# A disk with one MBR partition, found by the kernel by its PARTUUID
# (DISKID-01: no initramfs, and NVMe names namespaces in the order its scan
# finds them, /dev/nvme0n1 is not always the root). The partition table is
# 66 bytes written here (no partitioning tool needed); the file system goes
# into the partition by mke2fs -d at its offset: nothing is mounted.
truncate -s "${IMAGE_MB}M" "$tmp/root.ext4" || exit 1
le32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
{
	printf "$(le32 $((16#$DISKID)))\\x00\\x00"
	# status, CHS start (unused: LBA), type 0x83 Linux, CHS end, LBA start, sectors
	printf "\\x00\\xfe\\xff\\xff\\x83\\xfe\\xff\\xff$(le32 2048)$(le32 $(( (IMAGE_MB - 1) * 2048 )))"
	head -c 48 /dev/zero
	printf '\x55\xaa'
} | dd of="$tmp/root.ext4" bs=1 seek=440 conv=notrunc status=none || exit 1
if ! mke2fs -q -F -t ext4 -L utvmroot -E offset=$((2048 * 512)) -d "$r" "$tmp/root.ext4" "$(( (IMAGE_MB - 1) * 1024 ))k" \
	>"$tmp/mke2fs.log" 2>&1; then
	echo "build-rootfs: mke2fs -d failed: $(head -n 2 "$tmp/mke2fs.log" | paste -sd' ')" >&2
	exit 1
fi
build_s=$(echo "$(date +%s.%N) $t0" | awk '{ printf "%.1f", $1 - $2 }')
mkdir -p "$tmp/out"
mv "$tmp/root.ext4" "$tmp/out/root.ext4"
echo "$pkgs" >"$tmp/out/packages"
echo "$build_s" >"$tmp/out/build_s"
echo "$used_mb" >"$tmp/out/used_mb"
echo "$mirror" >"$tmp/out/mirror"
cp "$tmp/partuuid" "$tmp/out/partuuid"
rm -rf "$dir"
mv "$tmp/out" "$dir" && touch "$dir/complete" || exit 1
# images of older package lists or scripts are not used again
for old in "$CACHE"/systemd-rootfs/*/; do
	[ "${old%/}" = "$dir" ] || rm -rf "${old%/}"
done
echo "ROOTFS $img built in $build_s s, $used_mb MiB used, $(wc -l <<<"$pkgs") packages asked for"
