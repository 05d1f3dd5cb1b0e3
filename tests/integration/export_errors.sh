#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 4e: export directory missing or read-only: one clear line, no
# repetition, and the daemon keeps observing and tuning; export resumes by
# itself once the directory is writable. A read-only directory is an error;
# a missing one a notice (a host without node_exporter, where the package's
# shipped config still exports, must not show an error at every start).
. "$(dirname "$0")/../lib.sh"

for kind in missing readonly; do
	dir=$T/$kind
	if [ "$kind" = readonly ]; then
		mkdir -p "$dir"
		mount -t tmpfs -o ro,size=64k none "$dir" || fail "cannot mount a read-only tmpfs"
	fi
	start_daemon mode=tune textfile_dir="$dir" interval_s=1
	bg "$B/ringhold" >"$T/$kind.out"
	wait_line "$T/$kind.out" '^ready'
	read -r pid fd < <(ring_of "$T/$kind.out")
	# still tuning, still answering
	expect_napi "$pid" "$fd" '^enabled/' 5
	expect_ring "$pid" "$fd" '.managed_by == "uringtune"'
	# a few failed writes (interval_s 1: measured 2 after ~1-2 s), one line about them
	errors_at_least() { status_json | jq -e --argjson n "$1" '.daemon.export_errors >= $n'; }
	wait_for_timed 30 "$kind: 3 failed exports" errors_at_least 3 ||
		fail "$kind: status counts $(status_json | jq .daemon.export_errors) export errors after 30 s, expected 3 (interval_s 1)"
	prio=error
	[ "$kind" = missing ] && prio=notice
	errs=$(grep -c "$prio: .*$dir" "$T/daemon.log" || true)
	grep "$prio: .*$dir" "$T/daemon.log"
	[ "$errs" = 1 ] || fail "$kind: $errs $prio lines about $dir, expected exactly 1"
	if [ "$kind" = missing ]; then
		grep -q "error: .*$dir" "$T/daemon.log" && fail "missing: an error line about $dir"
		grep -q "no directory $dir (is node_exporter's textfile collector installed?)" \
			"$T/daemon.log" || fail "missing: the notice does not name the directory"
	fi
	status_json | jq -e '.daemon.export_errors > 0' >/dev/null || fail "status does not count export errors"

	# writable again: the export resumes on its own
	if [ "$kind" = readonly ]; then
		umount "$dir"
	else
		mkdir -p "$dir"
	fi
	wait_for 30 test -s "$dir/uringtune.prom" || fail "$kind: export did not resume"
	grep -q 'resumed' "$T/daemon.log" || fail "$kind: resumption not logged"
	stop_daemon
	[ ! -e "$dir/uringtune.prom" ] || fail "stopped daemon left stale metrics in $dir"
	echo "$kind: one error line, kept tuning, resumed, file removed at stop"
	kill -TERM "$pid"
done
