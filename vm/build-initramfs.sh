#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the test VM's initramfs: busybox-static (sh and its applets), vm/init
# as /init, the project's binaries with every shared library they load (and
# the dynamic loader), and config/uringtune.ini. The test script is not in
# it: vm/run.sh appends it as a second cpio archive (the kernel unpacks
# concatenated archives in order), so one initramfs serves every test.
#
# usage: vm/build-initramfs.sh [OUT]     (default .cache/vm/initramfs.cpio.gz)
#
# Rebuilt only when an input changed (OUT.inputs holds their checksums). Needs the binaries built
# (make), busybox-static and cpio (scripts/deps.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${UT_VM_CACHE:-$ROOT/.cache/vm}
OUT=${1:-$CACHE/initramfs.cpio.gz}
B=$ROOT/build
BINS=(uringtuned uringtune iopoll_load ringhold pingpong)
BUSYBOX=${BUSYBOX:-/bin/busybox}

die() { echo "build-initramfs: $*" >&2; exit 1; }

inputs=("$ROOT/vm/init" "$0" "$ROOT/config/uringtune.ini")
for b in "${BINS[@]}"; do
	[ -x "$B/$b" ] || die "$B/$b is missing: run make first"
	inputs+=("$B/$b")
done
[ -x "$BUSYBOX" ] || die "$BUSYBOX is missing: install busybox-static (scripts/deps.sh)"
command -v cpio >/dev/null || die "cpio is missing (scripts/deps.sh)"
# a dynamic busybox would need its libraries too, and Debian's is not the
# one with every applet
ldd "$BUSYBOX" >/dev/null 2>&1 && die "$BUSYBOX is not static: install busybox-static"

# Libraries at the paths ldd resolved them to, the loader included (ldd prints
# it without "=>").
libs=$(for b in "${BINS[@]}"; do ldd "$B/$b"; done |
	awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u)
[ -n "$libs" ] || die "ldd found no libraries for ${BINS[*]}"
mapfile -t -O ${#inputs[@]} inputs <<<"$libs"

# up to date when built from the same bytes (mtimes would miss a build
# from another tree into the same cache)
manifest=$(sha256sum "${inputs[@]}" "$BUSYBOX" | awk '{ print $1 }')
if [ -f "$OUT" ] && [ "$(cat "$OUT.inputs" 2>/dev/null)" = "$manifest" ]; then
	echo "build-initramfs: $OUT is up to date"
	exit 0
fi

mkdir -p "$(dirname "$OUT")"
stage=$(mktemp -d "$(dirname "$OUT")/.initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,etc/uringtune,proc,sys,dev,run,tmp,var/lib,root}
cp "$BUSYBOX" "$stage/bin/busybox"
for a in $("$BUSYBOX" --list); do
	[ "$a" = busybox ] || ln -s busybox "$stage/bin/$a"
done
install -m 0755 "$ROOT/vm/init" "$stage/init"
for b in "${BINS[@]}"; do
	cp "$B/$b" "$stage/bin/$b"
done
cp "$ROOT/config/uringtune.ini" "$stage/etc/uringtune/uringtune.ini"
# root without a password file: some libraries look the user up
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$stage/etc/passwd"
printf 'root:x:0:\n' >"$stage/etc/group"

# cp -L: the files, not Debian's version symlinks
for l in $libs; do
	mkdir -p "$stage$(dirname "$l")"
	cp -L "$l" "$stage$l"
done
# merged /usr on the host: the loader's path is /lib64, libraries /lib/...;
# both are real directories here, and /usr/lib points at /lib
[ -e "$stage/usr/lib" ] || ln -s ../lib "$stage/usr/lib"

(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -6 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "$manifest" >"$OUT.inputs"
echo "build-initramfs: $OUT ($(du -k "$OUT" | cut -f1) KiB, $(wc -w <<<"$libs") libraries)"
