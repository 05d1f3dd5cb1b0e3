#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make uninstall removes exactly what make install installed (into a staging
# root, DESTDIR): every file, whatever other parts of the tree add to make
# install, but a configuration the operator changed, which is kept and said
# so; an unchanged one goes. Files that are not make install's stay.
. "$(dirname "$0")/../lib.sh"

ROOT=$T/root
inst() { make -s install DESTDIR="$ROOT" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install"; }; }
files() { (cd "$ROOT" && find . ! -type d | sed 's|^\.||' | sort); }

# -- a changed configuration is kept
inst
files >"$T/installed"
conf=$(grep -x '.*/uringtune/uringtune.ini' "$T/installed")
mkdir -p "$ROOT/usr/sbin" && echo other >"$ROOT/usr/sbin/not-ours"
echo "# the operator's line" >>"$ROOT$conf"
inst # the second install puts the shipped file beside it as .dist
make uninstall DESTDIR="$ROOT" >"$T/uninstall.log" 2>&1 || { cat "$T/uninstall.log"; fail "make uninstall"; }
grep -q "kept $ROOT$conf" "$T/uninstall.log" || { cat "$T/uninstall.log"; fail "make uninstall did not say it kept the changed $conf"; }
left=$(files | tr '\n' ' ')
[ "$left" = "$conf /usr/sbin/not-ours " ] || fail "make uninstall left: $left (expected $conf /usr/sbin/not-ours)"
echo "changed config kept, the rest of $(grep -c . "$T/installed") installed files removed: $(tr '\n' ' ' <"$T/installed")"

# -- an unchanged one goes, with its directory
rm -rf "$ROOT"
inst
make uninstall DESTDIR="$ROOT" >"$T/uninstall.log" 2>&1 || { cat "$T/uninstall.log"; fail "make uninstall"; }
left=$(files | tr '\n' ' ')
[ -z "$left" ] || fail "make uninstall left: $left"
[ ! -e "$ROOT$(dirname "$conf")" ] || fail "make uninstall left the empty $(dirname "$conf")"
echo "unchanged config removed with its directory; nothing left"
