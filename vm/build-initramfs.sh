#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the test VM's initramfs: busybox-static (sh and its applets), vm/init
# as /init, the project's binaries and build/liburingtune-agent.so with every
# shared library they load (and the dynamic loader), and config/uringtune.ini.
# The test script is not in it: vm/run.sh appends it as a second cpio archive
# (the kernel unpacks concatenated archives in order), so one initramfs
# serves every test.
#
# usage: vm/build-initramfs.sh [OUT]         (default .cache/vm/initramfs.cpio.gz)
#        vm/build-initramfs.sh --fio [OUT]   (default .cache/vm/initramfs-fio.cpio)
#
# --fio builds the fio layer instead: /usr/bin/fio and every library ldd
# lists for it (about 80 MB, mostly ceph/rbd/gluster/rdma/ICU; all of them
# are in fio's DT_NEEDED closure, so the loader refuses to start fio without
# any one of them). It is a separate archive that vm/run.sh appends after the
# base one only for the tests that run fio (UT_VM_FIO=1), so every other boot
# pays nothing for it. It is left uncompressed: under TCG the guest inflates
# gzip at a few tens of MB/s, while an uncompressed archive is only copied.
#
# Each archive is rebuilt only when an input changed (OUT.inputs holds their
# checksums). Needs the binaries built (make), busybox-static and cpio
# (scripts/deps.sh), and fio for --fio.
#
# UT_VM_DAEMON=PATH puts that uringtuned in instead of build/uringtuned: one
# built against another kernel's vmlinux.h (tests/integration/vm_core_build.sh;
# give such an archive its own OUT).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${UT_VM_CACHE:-$ROOT/.cache/vm}
B=$ROOT/build
BINS=(uringtuned uringtune iopoll_load ringhold pingpong)
DAEMON=${UT_VM_DAEMON:-$B/uringtuned}
AGENT=$B/liburingtune-agent.so
BUSYBOX=${BUSYBOX:-/bin/busybox}
FIO=${FIO:-/usr/bin/fio}

die() { echo "build-initramfs: $*" >&2; exit 1; }
# bin_of NAME: the binary put in as /bin/NAME
bin_of() { if [ "$1" = uringtuned ]; then echo "$DAEMON"; else echo "$B/$1"; fi; }

layer=base
if [ "${1:-}" = --fio ]; then
	layer=fio
	shift
fi
if [ $layer = fio ]; then
	OUT=${1:-$CACHE/initramfs-fio.cpio}
else
	OUT=${1:-$CACHE/initramfs.cpio.gz}
fi
command -v cpio >/dev/null || die "cpio is missing (scripts/deps.sh)"

# libs_of FILE...: the libraries at the paths ldd resolved them to, the
# loader included (ldd prints it without "=>")
libs_of() {
	local f
	for f in "$@"; do ldd "$f"; done |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u
}

# up_to_date INPUT...: OUT was built from the same bytes (mtimes would miss
# a build from another tree into the same cache); leaves $manifest set
up_to_date() {
	manifest=$(sha256sum "$@" | awk '{ print $1 }')
	[ -f "$OUT" ] && [ "$(cat "$OUT.inputs" 2>/dev/null)" = "$manifest" ]
}

# copy_libs STAGE LIB...: cp -L, the files, not Debian's version symlinks;
# merged /usr on the host: the loader's path is /lib64, libraries /lib/...
# (or /usr/lib/... through a RUNPATH: ceph's); both are real directories in
# the archive, and /usr/lib points at /lib, so a /usr/lib path lands in /lib
copy_libs() {
	local stage=$1 l
	shift
	mkdir -p "$stage/lib"
	[ -e "$stage/usr/lib" ] || { mkdir -p "$stage/usr"; ln -s ../lib "$stage/usr/lib"; }
	for l in "$@"; do
		mkdir -p "$stage$(dirname "$l")"
		cp -L "$l" "$stage$l"
	done
}

# pack STAGE COMPRESS: the archive, then its manifest
pack() {
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
		$2 >"$OUT.tmp"
	mv "$OUT.tmp" "$OUT"
	echo "$manifest" >"$OUT.inputs"
}

mkdir -p "$(dirname "$OUT")"
stage=$(mktemp -d "$(dirname "$OUT")/.initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT

if [ $layer = fio ]; then
	[ -x "$FIO" ] || die "$FIO is missing: install fio (scripts/deps.sh)"
	mapfile -t libs < <(libs_of "$FIO")
	[ ${#libs[@]} -gt 0 ] || die "ldd found no libraries for $FIO"
	if up_to_date "$0" "$FIO" "${libs[@]}"; then
		echo "build-initramfs: $OUT is up to date"
		exit 0
	fi
	# the same layout as the base archive (usr/lib a symlink to ../lib):
	# an archive unpacked over another replaces an entry of another type,
	# so a real usr/lib directory here would cut the base's symlink
	mkdir -p "$stage/usr/bin"
	cp "$FIO" "$stage/usr/bin/fio"
	copy_libs "$stage" "${libs[@]}"
	pack "$stage" cat
	echo "build-initramfs: $OUT ($(du -k "$OUT" | cut -f1) KiB, fio $("$FIO" --version) and ${#libs[@]} libraries)"
	exit 0
fi

inputs=("$ROOT/vm/init" "$0" "$ROOT/config/uringtune.ini")
objs=()
for b in "${BINS[@]}"; do
	f=$(bin_of "$b")
	[ -x "$f" ] || die "$f is missing: run make first"
	inputs+=("$f")
	objs+=("$f")
done
# the agent, so that `uringtune exec` works in every VM; an archive without
# it still serves the tests that do not need it (those that do say so)
if [ -f "$AGENT" ]; then
	inputs+=("$AGENT")
	objs+=("$AGENT")
else
	echo "build-initramfs: note: $AGENT is missing: the VM will have no agent (uringtune exec)" >&2
fi
[ -x "$BUSYBOX" ] || die "$BUSYBOX is missing: install busybox-static (scripts/deps.sh)"
# a dynamic busybox would need its libraries too, and Debian's is not the
# one with every applet
ldd "$BUSYBOX" >/dev/null 2>&1 && die "$BUSYBOX is not static: install busybox-static"

mapfile -t libs < <(libs_of "${objs[@]}")
[ ${#libs[@]} -gt 0 ] || die "ldd found no libraries for ${BINS[*]}"
if up_to_date "${inputs[@]}" "${libs[@]}" "$BUSYBOX"; then
	echo "build-initramfs: $OUT is up to date"
	exit 0
fi

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,etc/uringtune,proc,sys,dev,run,tmp,var/lib,root}
cp "$BUSYBOX" "$stage/bin/busybox"
for a in $("$BUSYBOX" --list); do
	[ "$a" = busybox ] || ln -s busybox "$stage/bin/$a"
done
install -m 0755 "$ROOT/vm/init" "$stage/init"
for b in "${BINS[@]}"; do
	cp "$(bin_of "$b")" "$stage/bin/$b"
done
cp "$ROOT/config/uringtune.ini" "$stage/etc/uringtune/uringtune.ini"
# root without a password file: some libraries look the user up
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$stage/etc/passwd"
printf 'root:x:0:\n' >"$stage/etc/group"
copy_libs "$stage" "${libs[@]}"
if [ -f "$AGENT" ]; then
	# where `uringtune exec` looks: beside itself (as in build/), and
	# the installed AGENTDIR (/usr/lib/uringtune, i.e. /lib/uringtune)
	cp "$AGENT" "$stage/bin/liburingtune-agent.so"
	mkdir -p "$stage/lib/uringtune"
	ln -s ../../bin/liburingtune-agent.so "$stage/lib/uringtune/liburingtune-agent.so"
fi

pack "$stage" "gzip -6"
echo "build-initramfs: $OUT ($(du -k "$OUT" | cut -f1) KiB, ${#libs[@]} libraries$([ -f "$AGENT" ] && echo ", agent"))"
