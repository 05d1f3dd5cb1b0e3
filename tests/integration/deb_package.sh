#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The Debian package (make deb, debian/): it builds from this tree, lintian
# finds no error in it, and it holds what a Debian maintainer would expect:
# every file make install installs (daemon, CLI, agent, unit, conffile, man
# pages, and what other parts add), the sysusers file of the uringtune group
# and the contrib/ examples; stripped and hardened binaries (dpkg-buildflags
# reached the build) whose debug symbols are in the -dbgsym package under
# their build IDs; /etc/uringtune/uringtune.ini a conffile; Depends the
# daemon's shared libraries only (nothing a test, benchmark, VM or build
# uses); the systemd snippets that enable and start the service on install
# and stop it on removal; a unit with the installed paths that runs only
# what the package or an Essential package has; Build-Depends all installed
# by scripts/deps.sh deb. Then dpkg really installs, removes and purges it on
# this host (PID 1 is not systemd here, so the service is enabled but not
# started: vm_systemd_*.sh start and stop it in a guest) and the host is left
# as it was.
. "$(dirname "$0")/../lib.sh"

DEB_DIR=$B/deb
X=$T/x
mkdir -p "$X"

# every Build-Depends is one make deb installs (scripts/deps.sh deb)
deps=" $(scripts/deps.sh --list deb | tr '\n' ' ') "
for p in $(sed -n '/^Build-Depends:/,/^[A-Z]/p' debian/control | sed -e 's/^Build-Depends://' -e '/^[A-Z]/d' |
	tr ',' '\n' | sed -e 's/([^)]*)//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' | grep .); do
	case $p in debhelper-compat) p=debhelper ;; esac
	[[ $deps == *" $p "* ]] || fail "Build-Depends has $p, which scripts/deps.sh deb does not install"
done

# -- build
start=$SECONDS
make -s deb >"$T/make-deb.log" 2>&1 || { tail -n 40 "$T/make-deb.log"; fail "make deb"; }
version=$(dpkg-parsechangelog -S Version)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
DEB=$DEB_DIR/uringtune_${version}_$arch.deb
DBG=$DEB_DIR/uringtune-dbgsym_${version}_$arch.deb
CHANGES=$DEB_DIR/uringtune_${version}_$arch.changes
for f in "$DEB" "$DBG" "$CHANGES" "$DEB_DIR/uringtune_${version}_$arch.buildinfo"; do
	[ -f "$f" ] || fail "make deb made no $f (it made: $(ls "$DEB_DIR"))"
done
echo "make deb: $((SECONDS - start)) s; $(du -k "$DEB" | cut -f1) KiB package, $(du -k "$DBG" | cut -f1) KiB dbgsym"
[ "$(dpkg-deb -f "$DEB" Version)" = "$version" ] || fail "the package's version is not debian/changelog's $version"

# -- lintian: no error; warnings, info and overrides are shown
lintian -EvIL +pedantic --show-overrides "$CHANGES" >"$T/lintian.out" 2>&1 || true
grep -v -e '^N:' -e 'running with root privileges' "$T/lintian.out" | sed 's/^/lintian: /' || true
! grep -q '^E: ' "$T/lintian.out" || fail "lintian found errors (E: lines above)"
# it did look at the package (a lintian that read nothing says nothing)
grep -q '^O: uringtune: initial-upload-closes-no-bugs' "$T/lintian.out" ||
	fail "lintian did not report the overridden tag: did it check $CHANGES?"

# -- contents: what make install installs, and the group's sysusers file
dpkg-deb -c "$DEB" | awk '{print $6}' | sed -e 's|^\./|/|' -e 's|/$||' | sort >"$T/contents"
make -s install DESTDIR="$T/inst" PREFIX=/usr >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install"; }
(cd "$T/inst" && find . ! -type d | sed 's|^\.||' | sort) >"$T/installed"
for f in $(cat "$T/installed") /usr/sbin/uringtuned /usr/bin/uringtune \
	/usr/lib/uringtune/liburingtune-agent.so /lib/systemd/system/uringtune.service \
	/etc/uringtune/uringtune.ini /usr/share/man/man8/uringtuned.8.gz \
	/usr/share/man/man8/uringtune.8.gz /usr/share/man/man5/uringtune.ini.5.gz \
	/usr/lib/sysusers.d/uringtune.conf /usr/share/doc/uringtune/copyright; do
	grep -qxF "$f" "$T/contents" || fail "the package has no $f"
done
echo "contents: $(grep -c . "$T/installed") files of make install, and the sysusers file, all there"
dpkg-deb -x "$DEB" "$X"
# the monitoring examples, where the tree has them
for f in $(git ls-files contrib/prometheus contrib/grafana 2>/dev/null); do
	grep -qxF "/usr/share/doc/uringtune/examples/${f#contrib/}" "$T/contents" ||
		fail "the package has no example /usr/share/doc/uringtune/examples/${f#contrib/} (from $f)"
done
grep -Eq '^g[[:space:]]+uringtune[[:space:]]' "$X/usr/lib/sysusers.d/uringtune.conf" ||
	fail "the sysusers file creates no uringtune group"

# -- stripped, hardened binaries; their symbols in the dbgsym package
dpkg-deb -c "$DBG" | awk '{print $6}' | sed 's|^\./|/|' >"$T/dbg-contents"
for b in usr/sbin/uringtuned usr/bin/uringtune usr/lib/uringtune/liburingtune-agent.so; do
	# (outputs kept whole: grep -q closing a pipe early fails it under pipefail)
	sections=$(readelf -SW "$X/$b")
	headers=$(readelf -lW "$X/$b")
	dynamic=$(readelf -dW "$X/$b")
	syms=$(readelf --dyn-syms -W "$X/$b")
	[[ $(file -b "$X/$b") == *", stripped"* ]] || fail "/$b is not stripped: $(file -b "$X/$b")"
	! grep -q '\.debug_' <<<"$sections" || fail "/$b has .debug_ sections"
	grep -q GNU_RELRO <<<"$headers" || fail "/$b: no RELRO (dpkg-buildflags' LDFLAGS did not reach the link)"
	grep -q BIND_NOW <<<"$dynamic" || fail "/$b: no BIND_NOW (hardening=+all's -z now did not reach the link)"
	grep -q __stack_chk_fail <<<"$syms" ||
		fail "/$b: no stack protector (dpkg-buildflags' CFLAGS did not reach the build)"
	grep -Eq '__[a-z_]+_chk@' <<<"$syms" ||
		fail "/$b: no fortified calls (dpkg-buildflags' CPPFLAGS did not reach the build)"
	id=$(readelf -nW "$X/$b" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
	[ -n "$id" ] || fail "/$b has no build ID"
	dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	grep -qxF "$dbg" "$T/dbg-contents" || fail "the dbgsym package has no $dbg for /$b"
	echo "/$b: $(stat -c %s "$X/$b") bytes, stripped, RELRO, BIND_NOW, fortified; symbols in $dbg"
done
dpkg-deb -x "$DBG" "$X.dbg"
id=$(readelf -nW "$X/usr/sbin/uringtuned" | sed -n 's/.*Build ID: *\([0-9a-f][0-9a-f]\)\([0-9a-f]*\).*/\1\/\2/p')
[[ $(readelf -SW "$X.dbg/usr/lib/debug/.build-id/$id.debug" 2>/dev/null) == *.debug_info* ]] ||
	fail "the daemon's .debug file holds no .debug_info"

# -- the conffile
dpkg-deb --ctrl-tarfile "$DEB" | tar -x -C "$T" ./conffiles ./postinst ./prerm ./postrm
grep -qxF /etc/uringtune/uringtune.ini "$T/conffiles" || fail "/etc/uringtune/uringtune.ini is not a conffile"
cmp -s config/uringtune.ini "$X/etc/uringtune/uringtune.ini" || fail "the packaged uringtune.ini is not config/uringtune.ini"

# -- Depends: the daemon's libraries, nothing a test, bench, VM or build uses
depends=$(dpkg-deb -f "$DEB" Depends)
echo "Depends: $depends"
for p in libbpf1 libsystemd0 libc6 libjson-c5 libinih1 libyajl2; do
	grep -Eq "[ ,|]$p( |,)" <<<", $depends," || fail "Depends lacks $p"
done
for p in $(scripts/deps.sh --list check) liburing2; do
	case $p in systemd) continue ;; esac # the sysusers alternative (below)
	! grep -Eq "[ ,|]$p( |,)" <<<", $depends," || fail "Depends has $p, which the daemon does not need"
done
# systemd only as one way to run the sysusers file (dh_installsysusers)
! grep -Eq ', systemd( \([^)]*\))?,' <<<", $depends," || fail "Depends has systemd by itself"

# -- maintainer scripts: the group before the service, enable+start, stop, purge
grep -q 'systemd-sysusers .*uringtune.conf' "$T/postinst" || fail "postinst does not create the group (systemd-sysusers)"
grep -q "deb-systemd-helper enable 'uringtune.service'" "$T/postinst" || fail "postinst does not enable the service"
grep -q "deb-systemd-invoke \$_dh_action 'uringtune.service'" "$T/postinst" || fail "postinst does not start the service"
[ "$(grep -n 'systemd-sysusers' "$T/postinst" | cut -d: -f1)" -lt \
  "$(grep -n 'deb-systemd-invoke' "$T/postinst" | cut -d: -f1)" ] || fail "postinst starts the service before it creates the group"
grep -q "deb-systemd-invoke stop 'uringtune.service'" "$T/prerm" || fail "prerm does not stop the service"
grep -q "deb-systemd-helper purge 'uringtune.service'" "$T/postrm" || fail "postrm does not purge the service's state"
grep -q 'rm -rf /var/lib/uringtune' "$T/postrm" || fail "postrm purge does not remove /var/lib/uringtune"
for s in postinst prerm postrm; do sh -n "$T/$s" || fail "$s is not valid sh"; done
echo "maintainer scripts: group, enable, start (postinst), stop (prerm), purge (postrm)"

# -- the unit: the installed paths; what it runs is in the package or on
# every Debian system (Essential: a minimal bookworm has no procps)
unit=$X/lib/systemd/system/uringtune.service
for p in $(grep -E '^Exec[A-Za-z]*=' "$unit" | sed -e 's/^[^=]*=//' -e 's/^[-@:+!]*//' | awk '{print $1}' | sort -u) \
	 $(grep -Eo -- '-c /[^ ]+' "$unit" | awk '{print $2}' | sort -u); do
	[ ! -e "$X$p" ] || continue
	owner=$({ dpkg -S "$p" 2>/dev/null || true; } | awk -F: '!/^diversion/ && o == "" {o = $1} END {print o}')
	essential=
	[ -z "$owner" ] || essential=$(dpkg-query -W -f='${Essential}' "$owner")
	[ "$essential" = yes ] ||
		fail "the unit runs $p: not in the package, and not from an Essential package (${owner:-no package}), so not on every host"
	echo "unit: $p is $owner's (Essential)"
done
grep -q '^ExecStart=/usr/sbin/uringtuned --foreground -c /etc/uringtune/uringtune.ini$' "$unit" ||
	fail "the packaged unit's ExecStart is not the installed daemon and config: $(grep ^ExecStart= "$unit")"
echo "unit: $(grep ^ExecStart= "$unit")"

# -- dpkg -i / -r / --purge on this host, which is left as it was
st=$(dpkg-query -W -f='${Status}' uringtune 2>/dev/null || true)
if [ -n "$st" ] && [[ $st != *" not-installed" ]]; then
	echo "host: the uringtune package is installed here already; not installing it again"
	exit 0
fi
while read -r f; do
	if [ -e "$f" ] && [ ! -d "$f" ]; then
		echo "host: $f exists (make install?); not installing the package over it"
		exit 0
	fi
done <"$T/contents"
had_group=; getent group uringtune >/dev/null && had_group=1
had_state=; [ -e /var/lib/uringtune ] && had_state=1
installed=
host_undo() {
	[ -n "$installed" ] && dpkg --purge uringtune >"$T/undo.log" 2>&1
	[ -n "$installed" ] && [ -z "$had_group" ] && groupdel uringtune 2>/dev/null
	return 0
}
# lib.sh's cleanup after the host's undo, with the test's exit status
host_exit() {
	local rc=$?
	host_undo
	(exit $rc)
	cleanup
}
trap host_exit EXIT
installed=1
DEBIAN_FRONTEND=noninteractive dpkg -i "$DEB" >"$T/dpkg-i.log" 2>&1 || { cat "$T/dpkg-i.log"; fail "dpkg -i"; }
[ "$(dpkg-query -W -f='${Status}' uringtune)" = "install ok installed" ] || fail "dpkg -i: not installed"
getent group uringtune >/dev/null || fail "dpkg -i: no uringtune group"
[ -L /etc/systemd/system/multi-user.target.wants/uringtune.service ] || fail "dpkg -i: the service is not enabled"
/usr/sbin/uringtuned --check-config -c /etc/uringtune/uringtune.ini >"$T/check.log" 2>&1 ||
	{ cat "$T/check.log"; fail "the installed daemon refuses the installed configuration"; }
echo "host: dpkg -i: installed, group uringtune, service enabled (not started: PID 1 is not systemd), config checks"
echo "# the operator's line" >>/etc/uringtune/uringtune.ini
DEBIAN_FRONTEND=noninteractive dpkg -r uringtune >"$T/dpkg-r.log" 2>&1 || { cat "$T/dpkg-r.log"; fail "dpkg -r"; }
[ ! -e /usr/sbin/uringtuned ] || fail "dpkg -r left /usr/sbin/uringtuned"
grep -q "the operator's line" /etc/uringtune/uringtune.ini || fail "dpkg -r did not keep the changed conffile"
[ -z "$had_state" ] && mkdir -p /var/lib/uringtune && : >/var/lib/uringtune/journal
DEBIAN_FRONTEND=noninteractive dpkg --purge uringtune >"$T/dpkg-p.log" 2>&1 || { cat "$T/dpkg-p.log"; fail "dpkg --purge"; }
installed=
[ -z "$had_group" ] && groupdel uringtune
left=$(while read -r f; do
	if [ -e "$f" ] && [ ! -d "$f" ]; then echo "$f"; fi; done <"$T/contents")
[ -z "$left" ] || fail "dpkg --purge left: $left"
[ ! -e /etc/uringtune ] || fail "dpkg --purge left /etc/uringtune"
[ -n "$had_state" ] || [ ! -e /var/lib/uringtune ] || fail "dpkg --purge left /var/lib/uringtune"
[ ! -e /etc/systemd/system/multi-user.target.wants/uringtune.service ] || fail "dpkg --purge left the enable link"
echo "host: dpkg -r kept the changed conffile; --purge removed it, the state directory and the enable link"
