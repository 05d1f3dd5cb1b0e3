#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The ELF vmlinux inside a compressed kernel image (bzImage, vmlinuz), the
# way the kernel's scripts/extract-vmlinux finds it: look for each
# compression format's magic bytes in the image, decompress from there, and
# keep the first result that is an ELF file. A decompressor that stops at
# the data after the stream (the bzImage's tail) still leaves the whole
# vmlinux: its exit status is not what decides, the ELF header is.
#
# usage: vm/extract-vmlinux.sh IMAGE OUT
# Exit: 0 OUT is the ELF vmlinux; 1 none found (the formats tried are named);
# 2 bad usage.
set -uo pipefail

[ $# -eq 2 ] || { sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
img=$1
out=$2
[ -r "$img" ] || { echo "extract-vmlinux: $img: cannot read it" >&2; exit 1; }

is_elf() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; }

if is_elf "$img"; then
	cp "$img" "$out"
	exit 0
fi

# format: magic bytes (grep -P escapes), decompressor reading stdin
formats=(
	'gzip|\x1f\x8b\x08|gzip -dc'
	'xz|\xfd\x37\x7a\x58\x5a\x00|xz -dc'
	'bzip2|BZh|bzip2 -dc'
	'lzma|\x5d\x00\x00\x00|xz -dc --format=lzma'
	'lzo|\x89\x4c\x5a\x4f|lzop -dc'
	'lz4|\x02\x21\x4c\x18|lz4 -dc'
	'zstd|\x28\xb5\x2f\xfd|zstd -dc'
)
tmp=$out.tmp
trap 'rm -f "$tmp"' EXIT
tried=
for f in "${formats[@]}"; do
	IFS='|' read -r name magic cmd <<<"$f"
	if ! command -v "${cmd%% *}" >/dev/null; then
		tried="$tried $name(no ${cmd%% *})"
		continue
	fi
	# the first few places the magic occurs: the real stream is early in a bzImage
	for off in $(LC_ALL=C grep -obUaP "$magic" "$img" 2>/dev/null | head -n 8 | cut -d: -f1); do
		tail -c +$((off + 1)) "$img" | $cmd >"$tmp" 2>/dev/null
		if is_elf "$tmp"; then
			mv "$tmp" "$out"
			exit 0
		fi
	done
	tried="$tried $name"
done
echo "extract-vmlinux: no ELF vmlinux found in $img (tried:$tried)" >&2
exit 1
