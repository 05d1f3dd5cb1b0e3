#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A refused reload is visible, not only a log line: `uringtuned
# --check-config` says so without privileges and without touching anything;
# after SIGHUP with a broken file, status (daemon.reload), the metrics
# (uringtune_config_*) and the status table say "refused" with the reason;
# a good file then reads "ok" again.
. "$(dirname "$0")/../lib.sh"

ut() { "$B/uringtune" --socket "$SOCK" "$@"; }
PROM=$T/textfile/uringtune.prom
metric() { sed -n "s/^$1 //p" "$PROM"; }

start_daemon mode=observe
status_json | jq -e '.daemon.reload == {"last":"never","time":null,"error":null,"count_ok":0,"count_refused":0}' >/dev/null ||
	fail "daemon.reload at start: $(status_json | jq -c .daemon.reload)"
wait_for 30 test -s "$PROM" || fail "no $PROM"
[ "$(metric uringtune_config_last_reload_success)" = 1 ] || fail "success at start: $(metric uringtune_config_last_reload_success)"
[ "$(metric uringtune_config_last_reload_timestamp_seconds)" = 0 ] || fail "timestamp at start"

# --check-config as nobody, on a copy nobody can read: the daemon's message
mkdir -m 0755 "$T/pub"
chmod 0711 "$T"
cp "$CONF" "$T/pub/good.ini"
sed 's/^tracking = .*/tracking = sometimes/' "$CONF" >"$T/pub/bad.ini"
chmod 0644 "$T/pub/good.ini" "$T/pub/bad.ini"
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
out=$(nobody "$B/uringtuned" --check-config -c "$T/pub/good.ini") || fail "--check-config of a good file as nobody"
[ "$out" = "$T/pub/good.ini: ok" ] || fail "--check-config said: $out"
rc=0
nobody "$B/uringtuned" --check-config -c "$T/pub/bad.ini" >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" = 1 ] ||
	fail "--check-config of a bad file: exit $rc, out '$(cat "$T/out")', err '$(cat "$T/err")'"
grep -qx "$T/pub/bad.ini: \[napi\] tracking: expected dynamic, static or auto, got 'sometimes'" "$T/err" ||
	fail "--check-config message: $(cat "$T/err")"
echo "--check-config as nobody: '$out'; broken: exit 1: $(cat "$T/err")"
# what a start says about the same file: the same words
"$B/uringtuned" -c "$T/pub/bad.ini" 2>"$T/start.err" && fail "a start with the bad file worked"
grep -qF "$(cat "$T/err")" "$T/start.err" || fail "a start says otherwise: $(cat "$T/start.err")"

# SIGHUP with the broken file: refused, and everyone can see it
cp "$T/pub/bad.ini" "$CONF"
before=$(date +%s)
kill -HUP "$DAEMON_PID"
refused() { status_json | jq -e '.daemon.reload.last == "refused"' >/dev/null; }
wait_for 30 refused || fail "daemon.reload not refused: $(status_json | jq -c .daemon.reload)"
r=$(status_json | jq -c .daemon.reload)
echo "daemon.reload: $r"
jq -e --argjson t "$before" '.count_refused == 1 and .count_ok == 0 and .time >= $t and
	(.error | test("tracking: expected dynamic, static or auto"))' <<<"$r" >/dev/null ||
	fail "daemon.reload after a refusal: $r"
fresh() { [ "$(metric uringtune_config_last_reload_success)" = 0 ]; }
wait_for 30 fresh || fail "metrics: success $(metric uringtune_config_last_reload_success)"
[ "$(metric 'uringtune_config_reloads_total{result="refused"}')" = 1 ] || fail "refused count in metrics"
[ "$(metric uringtune_config_last_reload_timestamp_seconds)" -ge "$before" ] || fail "timestamp in metrics"
grep '^uringtune_config' "$PROM"
ut status >"$T/table"
# among the summary lines above the table (the host's busy-polling line
# comes first when rings of other programs on this host busy-poll)
summary() { awk '/^PID +COMM +FD/ { exit } { print }' "$T/table"; }
summary | grep '^last reload '
summary | grep -q '^last reload refused at .*, the previous configuration still runs: .*tracking: expected dynamic' ||
	fail "the status table does not say the reload was refused: $(summary)"

# a good file again: ok
cp "$T/pub/good.ini" "$CONF"
kill -HUP "$DAEMON_PID"
ok() { status_json | jq -e '.daemon.reload | .last == "ok" and .error == null and .count_ok == 1 and .count_refused == 1' >/dev/null; }
wait_for 30 ok || fail "daemon.reload after a good reload: $(status_json | jq -c .daemon.reload)"
fresh() { [ "$(metric uringtune_config_last_reload_success)" = 1 ]; }
wait_for 30 fresh || fail "metrics after a good reload"
ut status | grep -q 'last reload refused' && fail "the table still says refused"
echo "reload refused, then ok: status, metrics and table follow"
