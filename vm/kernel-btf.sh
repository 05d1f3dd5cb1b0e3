#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The BTF of a kernel fetched by vm/fetch-kernels.sh, and the vmlinux.h made
# from it, for building the BPF programs against that kernel's types
# (make BTF=DIR/vmlinux.btf or make VMLINUX_H=DIR/vmlinux.h; README
# "Building on older kernels"). Debian's kernel packages ship no separate
# BTF file: it is the .BTF section of the ELF vmlinux inside vmlinuz, which
# vm/extract-vmlinux.sh takes out of the compressed image.
#
# usage: vm/kernel-btf.sh KERNEL_DIR    (e.g. .cache/vm/kernels/6.1)
#
# Into .cache/vm/btf/<uname -r>/: vmlinux.btf (raw BTF, as in
# /sys/kernel/btf/vmlinux), vmlinux.h (bpftool btf dump ... format c), and
# vmlinuz.sha256 (the image they came from: another image remakes them).
# The vmlinux itself (50-60 MB) is not kept. One line on stdout:
#
#   BTF <uname -r> <dir> made in <s> s | cached
#
# Exit: 0 done; 1 failed (why on stderr); 2 bad usage.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${UT_VM_CACHE:-$ROOT/.cache/vm}
BPFTOOL=${BPFTOOL:-$(command -v bpftool || echo /usr/sbin/bpftool)}

die() { echo "kernel-btf: $*" >&2; exit 1; }

[ $# -eq 1 ] || { sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
kdir=$1
[ -f "$kdir/vmlinuz" ] || die "$kdir: no vmlinuz (a directory of vm/fetch-kernels.sh expected)"
krel=$(cat "$kdir/krel" 2>/dev/null) || die "$kdir: no krel file (a directory of vm/fetch-kernels.sh expected)"
[ -x "$BPFTOOL" ] || die "bpftool is missing (scripts/deps.sh)"
command -v objcopy >/dev/null || die "objcopy is missing (binutils)"

out=$CACHE/btf/$krel
sum=$(sha256sum "$kdir/vmlinuz" | cut -d' ' -f1)
if [ -s "$out/vmlinux.h" ] && [ -s "$out/vmlinux.btf" ] &&
   [ "$(cat "$out/vmlinuz.sha256" 2>/dev/null)" = "$sum" ]; then
	echo "BTF $krel $out cached"
	exit 0
fi

t0=$(date +%s.%N)
mkdir -p "$out" || die "cannot create $out"
tmp=$(mktemp -d "$out/.tmp.XXXXXX") || die "cannot create a temporary directory in $out"
trap 'rm -rf "$tmp"' EXIT
"$ROOT/vm/extract-vmlinux.sh" "$kdir/vmlinuz" "$tmp/vmlinux" || exit 1
objcopy -O binary --only-section=.BTF "$tmp/vmlinux" "$tmp/vmlinux.btf" 2>"$tmp/err" ||
	die "$kdir/vmlinuz: its vmlinux has no readable .BTF section ($(head -n 1 "$tmp/err")): a kernel without CONFIG_DEBUG_INFO_BTF"
[ -s "$tmp/vmlinux.btf" ] ||
	die "$kdir/vmlinuz: its vmlinux has no .BTF section: a kernel without CONFIG_DEBUG_INFO_BTF"
"$BPFTOOL" btf dump file "$tmp/vmlinux.btf" format c >"$tmp/vmlinux.h" 2>"$tmp/err" ||
	die "bpftool cannot read the BTF of $kdir/vmlinuz: $(head -n 1 "$tmp/err")"
grep -q '^struct io_ring_ctx {' "$tmp/vmlinux.h" ||
	die "the BTF of $kdir/vmlinuz has no struct io_ring_ctx"
# the files first, the checksum that vouches for them last
rm -f "$out/vmlinuz.sha256"
chmod 0644 "$tmp/vmlinux.btf" && mv "$tmp/vmlinux.btf" "$tmp/vmlinux.h" "$out/" || die "cannot write $out"
echo "$sum" >"$out/vmlinuz.sha256"
echo "BTF $krel $out made in $(echo "$(date +%s.%N) $t0" | awk '{ printf "%.1f", $1 - $2 }') s"
