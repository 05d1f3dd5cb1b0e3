#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The textfile directory belongs to node_exporter's user (Debian: prometheus
# owns /var/lib/prometheus and its node-exporter directory). That user must
# not steer root's writes and unlinks elsewhere: a symlink it plants as the
# directory, above it, or inside it is never followed; nothing is written or
# removed outside. Here user nobody plays prometheus.
. "$(dirname "$0")/../lib.sh"

as_owner() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
chmod 0711 "$T"
mkdir -m 0755 "$T/prom" "$T/prom/textfile" "$T/prom/sub" "$T/prom/sub/textfile"
chown -R nobody:nogroup "$T/prom"
# root's files the attacks aim at: an exporter's file and a temporary-looking one
mkdir -m 0755 "$T/victim" "$T/victim/textfile"
for f in "$T/victim/uringtune.prom" "$T/victim/.uringtune.prom.AAAAAA" \
	 "$T/victim/textfile/uringtune.prom" "$T/victim/textfile/.uringtune.prom.AAAAAA"; do
	echo "root's own $f" >"$f"
done
snapshot() { find "$T/victim" -printf '%p %i %s %T@\n' | sort; }
snapshot >"$T/victim.before"
victim_intact() {
	snapshot >"$T/victim.now"
	diff "$T/victim.before" "$T/victim.now" || fail "$1: something outside the textfile directory changed"
}
export_error() { status_json | jq -r '.daemon.export_error // ""'; }

# 1. the directory itself swapped for a symlink by its owner's user
start_daemon textfile_dir="$T/prom/textfile" interval_s=1
wait_for 30 test -s "$T/prom/textfile/uringtune.prom" || fail "no export to begin with"
as_owner mv "$T/prom/textfile" "$T/prom/textfile.real"
as_owner ln -s "$T/victim" "$T/prom/textfile"
refused() { export_error | grep -q "'textfile' is a symbolic link in a directory that uid 65534 (mode 0755) can write: not followed"; }
wait_for 30 refused || fail "export_error: $(export_error)"
echo "1. export_error: $(export_error)"
sleep 1.2
victim_intact "directory swapped for a symlink"
# the stop removes the file it wrote, not what the symlink points at
stop_daemon
victim_intact "stop with the directory swapped"
grep -q 'cannot remove .*uringtune.prom (stopping): textfile_dir .*is a symbolic link' "$T/daemon.log" ||
	fail "the stop does not say why it left the file"
[ -s "$T/prom/textfile.real/uringtune.prom" ] || fail "the real directory lost its file"
echo "1. directory swapped for a symlink: nothing written or removed in $T/victim"

# 2. a symlink above it, planted before the start (a stale-file sweep would run there)
as_owner rm "$T/prom/textfile"
as_owner mv "$T/prom/textfile.real" "$T/prom/textfile"
as_owner rmdir "$T/prom/sub/textfile"
as_owner rmdir "$T/prom/sub"
as_owner ln -s "$T/victim" "$T/prom/sub"
start_daemon textfile_dir="$T/prom/sub/textfile" interval_s=1
above() { export_error | grep -q "'sub' is a symbolic link in a directory that uid 65534"; }
wait_for 30 above || fail "export_error: $(export_error)"
echo "2. export_error: $(export_error)"
sleep 1.2
stop_daemon
victim_intact "a symlink above the directory"
echo "2. symlink above the directory: refused, nothing touched"

# 3. symlinks inside the directory: replaced or removed, never followed
as_owner ln -s "$T/victim/uringtune.prom" "$T/prom/textfile/uringtune.prom.tmp-not-ours"
as_owner rm -f "$T/prom/textfile/uringtune.prom"
as_owner ln -s "$T/victim/uringtune.prom" "$T/prom/textfile/uringtune.prom"
as_owner ln -s "$T/victim/.uringtune.prom.AAAAAA" "$T/prom/textfile/.uringtune.prom.BBBBBB"
start_daemon textfile_dir="$T/prom/textfile" interval_s=1
regular() { [ -f "$T/prom/textfile/uringtune.prom" ] && [ ! -L "$T/prom/textfile/uringtune.prom" ]; }
wait_for 30 regular || fail "the planted symlink was not replaced by the file"
[ ! -L "$T/prom/textfile/.uringtune.prom.BBBBBB" ] || fail "the stale-looking symlink is still there"
[ -z "$(export_error)" ] || fail "export_error: $(export_error)"
stop_daemon
[ ! -e "$T/prom/textfile/uringtune.prom" ] || fail "the file is left after the stop"
victim_intact "symlinks inside the directory"
echo "3. symlinks inside the directory: replaced and removed as names, targets untouched"
