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
mdir=$(ls -d "$tmp/root/usr/lib/modules/$krel" "$tmp/root/lib/modules/$krel" 2>/dev/null | head -n 1)
[ -n "$mdir" ] || { echo "fetch-modules: ${pkgs[*]} hold no modules of $krel" >&2; exit 1; }
# packages leave modules.dep to depmod at install time
# (the host's depmod reads BASE/lib/modules; 7.x packages use /usr/lib)
[ -e "$tmp/root/lib/modules/$krel" ] || { mkdir -p "$tmp/root/lib/modules" && ln -s "$mdir" "$tmp/root/lib/modules/$krel"; }
depmod -b "$tmp/root" "$krel" || { echo "fetch-modules: depmod failed" >&2; exit 1; }
dep=$mdir/modules.dep
[ -f "$dep" ] || { echo "fetch-modules: no modules.dep for $krel" >&2; exit 1; }

dst=$tmp/out/lib/modules/$krel
mkdir -p "$dst"
seen=" "
add() {
	local path=$1 line d d2
	case $seen in *" $path "*) return 0 ;; esac
	seen="$seen$path "
	line=$(grep -m1 "^$path:" "$dep") || return 1
	for d2 in ${line#*:}; do add "$d2" || return 1; done
	d=$dst/$path
	mkdir -p "$(dirname "$d")"
	cp "$mdir/$path" "$d" || return 1
	case $d in
	*.xz) xz -d "$d" ;;
	*.zst) zstd -q -d --rm "$d" ;;
	*.gz) gzip -d "$d" ;;
	esac
}
n=0
for m in "${want[@]}"; do
	path=$(grep -oE "^[^:]*/${m//-/[-_]}\\.ko(\\.xz|\\.zst|\\.gz)?:" "$dep" | head -n 1)
	if [ -z "$path" ]; then
		# built in: nothing to copy
		grep -qE "/${m//-/[-_]}\\.ko\$" "$mdir/modules.builtin" 2>/dev/null && continue
		echo "fetch-modules: $krel has no module $m (neither a .ko nor built in)" >&2
		exit 1
	fi
	add "${path%:}" || { echo "fetch-modules: copying $m and its dependencies failed" >&2; exit 1; }
	n=$((n + 1))
done
cp "$mdir"/modules.builtin* "$mdir/modules.order" "$dst/" 2>/dev/null
depmod -b "$tmp/out" "$krel" || { echo "fetch-modules: depmod of the copy failed" >&2; exit 1; }
rm -rf "$out"
mv "$tmp/out/lib/modules/$krel" "$out" && echo "$tag" >"$out/complete" || exit 1
echo "MODULES $out $(find "$out" -name '*.ko' | wc -l) modules downloaded $(awk -v b="$bytes" 'BEGIN { printf "%.1f MiB", b / 1048576 }')"
