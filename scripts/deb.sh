#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make deb: builds the Debian package from debian/ with dpkg-buildpackage.
#
# dpkg-buildpackage builds in the source directory and writes its results to
# the parent of it, so the tree is copied first, as it is (tracked files and
# new ones git does not ignore, uncommitted changes included; not build/ or
# .cache/) to $BUILD/deb/src/uringtune-UPSTREAM_VERSION, and built there
# with `dpkg-buildpackage -b -us -uc` (binary packages only, unsigned; no
# fakeroot: Rules-Requires-Root: no). The results are moved to $BUILD/deb/:
#   uringtune_VERSION_ARCH.deb          the package
#   uringtune-dbgsym_VERSION_ARCH.deb   the binaries' debug symbols
#   uringtune_VERSION_ARCH.buildinfo, uringtune_VERSION_ARCH.changes
# The build's log is $BUILD/deb/build.log. Exits 1 with the log's tail if
# the build fails; the previous results are gone by then (never a stale
# package beside a failed build).
set -u
cd "$(dirname "$0")/.." || exit 1

BUILD=${BUILD:-build}
out=$BUILD/deb
say() { printf '  %-8s %s\n' "$1" "$2"; }

version=$(dpkg-parsechangelog -S Version) || { echo "deb: cannot read debian/changelog" >&2; exit 1; }
upstream=${version%-*}
arch=$(dpkg-architecture -qDEB_HOST_ARCH) || exit 1
src=$out/src/uringtune-$upstream

rm -rf "$out"
mkdir -p "$src" || exit 1

say STAGE "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# deleted but not yet committed files are listed and not there: skipped
	git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			[ -e "$f" ] || [ -L "$f" ] || continue
			printf '%s\0' "$f"
		done | cpio --quiet -0 -pdm "$src" || { echo "deb: copying the tree failed" >&2; exit 1; }
else
	# a tree without git (an unpacked tarball): everything but the outputs
	tar -C . --exclude=./build --exclude=./build-fuzz --exclude=./build-asan --exclude=./.cache \
		--exclude="./$BUILD" -cf - . | tar -C "$src" -xf - || exit 1
fi

say DPKG "dpkg-buildpackage -b -us -uc (uringtune $version, $arch; log: $out/build.log)"
start=$SECONDS
if ! (cd "$src" && DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-parallel=$(nproc)}" \
	dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1; then
	echo "deb: dpkg-buildpackage failed; the end of $out/build.log:" >&2
	tail -n 40 "$out/build.log" >&2
	exit 1
fi

for f in "$out"/src/*_"$version"_*; do
	[ -e "$f" ] || continue
	mv "$f" "$out/" || exit 1
	say DEB "$out/${f##*/}"
done
deb=$out/uringtune_${version}_$arch.deb
[ -f "$deb" ] || { echo "deb: dpkg-buildpackage made no $deb" >&2; exit 1; }
echo "deb: built $deb in $((SECONDS - start)) s ($(du -k "$deb" | cut -f1) KiB)"
