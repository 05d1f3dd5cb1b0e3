#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# state_dir holds how to undo every change: a start refuses one that anyone
# but root can write (group- or world-writable, or owned by another user) or
# that is reached through a symlink another user could have planted, with a
# line naming owner, mode and the fix, before anything is touched. A symlink
# root made in its own directory is fine.
. "$(dirname "$0")/../lib.sh"

chmod 0711 "$T"

# refused: exit 1, the message, no journal, no socket, no metrics
refused() {
	local dir=$1 re=$2 rc=0
	write_config state_dir="$dir"
	timeout 30 "$B/uringtuned" -c "$CONF" --mode tune >"$T/out" 2>&1 || rc=$?
	echo "state_dir $dir -> exit $rc: $(tail -n 1 "$T/out")"
	[ "$rc" = 1 ] || { cat "$T/out"; fail "exit $rc, expected 1"; }
	grep -qE "error: .*$re" "$T/out" || { cat "$T/out"; fail "no line matching /$re/"; }
	[ ! -e "$dir/journal" ] || fail "a journal was written in $dir"
	[ ! -e "$SOCK" ] || fail "the control socket was created"
	[ -z "$(ls "$T/textfile")" ] || fail "metrics were exported"
}

mkdir -m 0700 "$T/gw"
chmod 0770 "$T/gw"
refused "$T/gw" "state_dir $T/gw: owned by uid 0 with mode 0770: expected a directory owned by root and writable by it alone \\(chown root: $T/gw && chmod 0700 $T/gw\\)"
chmod 0703 "$T/gw"
refused "$T/gw" "with mode 0703: expected"
mkdir -m 0700 "$T/nobodys"
chown nobody:nogroup "$T/nobodys"
refused "$T/nobodys" "state_dir $T/nobodys: owned by uid 65534 with mode 0700: expected"

# a symlink in a directory user nobody owns: it could be anyone's
mkdir -m 0700 "$T/real"
mkdir -m 0755 "$T/nob"
chown nobody:nogroup "$T/nob"
setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$T/real" "$T/nob/state"
refused "$T/nob/state" "state_dir $T/nob/state: 'state' is a symbolic link in a directory that uid 65534 \\(mode 0755\\) can write: not followed"
[ ! -e "$T/real/journal" ] || fail "the journal was written through nobody's symlink"

# root's own symlink, in root's own directory: followed (the start sweeps a
# crash's temporary file out of the real directory: it was used)
ln -s real "$T/rootlink"
echo half >"$T/real/journal.tmp.AbCdEf"
start_daemon state_dir="$T/rootlink"
[ ! -e "$T/real/journal.tmp.AbCdEf" ] || fail "the state directory was not used through root's symlink"
grep -q "journal: removed $T/rootlink/journal.tmp.AbCdEf" "$T/daemon.log" || fail "no line about the stale file"
stop_daemon
echo "state_dir refused when others can write it or planted a symlink on the way; root's symlink works"
