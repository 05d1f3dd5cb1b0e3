#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Kernel modules for a guest, from the booted kernel's own Debian package:
# vm/fetch-kernels.sh keeps only vmlinuz and config (and NVMe's modules when
# it is not built in), so the packages it names (KERNEL_DIR/packages, and
# linux-modules-<uname -r> from 7.x, where the modules are split off) are
# downloaded again through the same private apt lists (.cache/vm/apt), and
# the modules asked for, with what they depend on (modules.dep), are copied
# out decompressed, with a modules.dep of their own (depmod), into
#
#   .cache/vm/systemd-modules/<uname -r>/lib/modules/<uname -r>/
#
# which the guest copies to /lib/modules (modprobe then works as usual).
# Cached per kernel and module list.
#
# usage: vm/fetch-modules.sh KERNEL_DIR MODULE...
# Prints "MODULES <dir> <n> modules downloaded N MiB|cached"; exit 0, 1 on
# failure, 3 when the registry is unreachable and nothing is cached.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${UT_VM_CACHE:-$ROOT/.cache/vm}
APTDIR=$CACHE/apt
. "$ROOT/vm/modules-lib.sh"

[ $# -ge 2 ] || { sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
kdir=$1
shift
want=("$@")
krel=$(cat "$kdir/krel" 2>/dev/null) || { echo "fetch-modules: $kdir: no krel (vm/fetch-kernels.sh)" >&2; exit 1; }
[ -f "$kdir/packages" ] || { echo "fetch-modules: $kdir: no packages file (vm/fetch-kernels.sh)" >&2; exit 1; }

out=$CACHE/systemd-modules/$krel
tag="$(cat "$kdir/packages") ${want[*]}"
if [ -f "$out/complete" ] && [ "$(cat "$out/complete")" = "$tag" ]; then
	echo "MODULES $out $(find "$out" -name '*.ko' | wc -l) modules cached"
	exit 0
fi
[ -d "$APTDIR/sources.list.d" ] && [ -d "$APTDIR/lists" ] ||
	{ echo "fetch-modules: no apt lists in $APTDIR (vm/fetch-kernels.sh makes them)" >&2; exit 3; }
APT_OPTS=(-o "Dir::Etc::sourcelist=/dev/null"
	  -o "Dir::Etc::sourceparts=$APTDIR/sources.list.d"
	  -o "Dir::Etc::preferences=/dev/null" -o "Dir::Etc::preferencesparts=$APTDIR/preferences.d"
	  -o "Dir::State::Lists=$APTDIR/lists"
	  -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")

mkdir -p "$CACHE/systemd-modules" || exit 1
tmp=$(mktemp -d "$CACHE/systemd-modules/.fetch.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# apt's download method runs as _apt
chown _apt "$tmp" 2>/dev/null
mapfile -t pkgs <"$kdir/packages"
# from 7.x the modules are a package of their own, linux-modules-<abi>,
# which vm/fetch-kernels.sh does not need
ver=$(cat "$kdir/version" 2>/dev/null)
if [ -n "$ver" ] && apt-cache "${APT_OPTS[@]}" show "linux-modules-$krel=$ver" >/dev/null 2>&1; then
	pkgs+=("linux-modules-$krel=$ver")
fi
if ! (cd "$tmp" && apt-get "${APT_OPTS[@]}" -q download "${pkgs[@]}" >download.log 2>&1); then
	echo "fetch-modules: apt-get download ${pkgs[*]}: $(grep -E '^(E|W): ' "$tmp/download.log" | head -n 1 | cut -c1-160)" >&2
	exit 3
fi
bytes=$(cat "$tmp"/*.deb | wc -c)
for p in "$tmp"/*.deb; do
	dpkg-deb -x "$p" "$tmp/root" || { echo "fetch-modules: dpkg-deb -x $(basename "$p") failed" >&2; exit 1; }
done
mdir=$(modules_dir "$tmp/root" "$krel") ||
	{ echo "fetch-modules: ${pkgs[*]} hold no modules of $krel, or depmod failed" >&2; exit 1; }
dep=$mdir/modules.dep

for m in "${want[@]}"; do
	[ -n "$(module_path "$dep" "$m")" ] && continue
	# built in: nothing to copy
	grep -qE "/${m//-/[-_]}\\.ko\$" "$mdir/modules.builtin" 2>/dev/null && continue
	echo "fetch-modules: $krel has no module $m (neither a .ko nor built in)" >&2
	exit 1
done
list=$(modules_closure "$dep" "${want[@]}") ||
	{ echo "fetch-modules: modules.dep of $krel does not hold what ${want[*]} need" >&2; exit 1; }
dst=$tmp/out/lib/modules/$krel
mkdir -p "$dst"
for path in $list; do
	mkdir -p "$(dirname "$dst/$path")"
	cp "$mdir/$path" "$dst/$path" && module_unpack "$dst/$path" >/dev/null ||
		{ echo "fetch-modules: copying $path failed" >&2; exit 1; }
done
cp "$mdir"/modules.builtin* "$mdir/modules.order" "$dst/" 2>/dev/null
depmod -b "$tmp/out" "$krel" || { echo "fetch-modules: depmod of the copy failed" >&2; exit 1; }
rm -rf "$out"
mv "$tmp/out/lib/modules/$krel" "$out" && echo "$tag" >"$out/complete" || exit 1
echo "MODULES $out $(find "$out" -name '*.ko' | wc -l) modules downloaded $(awk -v b="$bytes" 'BEGIN { printf "%.1f MiB", b / 1048576 }')"
