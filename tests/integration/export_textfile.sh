#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 4c: the textfile export passes `promtool check metrics`; a real
# prometheus-node-exporter on a loopback port serves the uringtune_ metrics
# with node_textfile_scrape_error 0; the histograms it serves have monotonic
# cumulative buckets and +Inf == _count; a gone ring leaves the file.
# Cardinality (issue 16): by default no ring has a histogram, the host's
# (_sampled_, every ring's summed) counts the client's paid windows, and its
# _count stays below the exact uringtune_host_busy_poll_paid_total (a 1-in-16
# sample); after SIGHUP with [export] ring_histograms = yes the client ring
# has its own, labelled ring="PID:FD" and comm, no pid or fd. With
# 2000 rings more the file is written in several steps of the event loop and
# still passes promtool; the loop's own metrics (dispatch histogram, longest
# dispatch and its source) are in it.
. "$(dirname "$0")/../lib.sh"

command -v promtool >/dev/null || fail "promtool missing (Debian package prometheus)"
command -v prometheus-node-exporter >/dev/null ||
	fail "prometheus-node-exporter missing (Debian package prometheus-node-exporter)"

mkdir -p "$T/textfile"
PROM=$T/textfile/uringtune.prom
netns_setup
# every second, as it was every tick: the test needs no 15 s waits
start_daemon textfile_dir="$T/textfile" interval_s=1

busy_pingpong
read -r cpid cfd < <(ring_of "$T/client.out")
bg "$B/ringhold" >"$T/hold.out"
wait_line "$T/hold.out" '^ready'
read -r hpid hfd < <(ring_of "$T/hold.out")

CLIENT="ring=\"$cpid:$cfd\",comm=\"pingpong\""
HOST_HIST=uringtune_host_busy_poll_paid_window_sampled_seconds
RING_HIST=uringtune_ring_busy_poll_paid_window_sampled_seconds
host_hist() { grep -qE "^${HOST_HIST}_count [1-9]" "$PROM"; }
wait_for 30 host_hist || {
	grep -E "^$HOST_HIST|$CLIENT" "$PROM" | grep -vE '_info'
	fail "the host's histogram counts no paid window in $PROM (above; $(grep -m1 '^rtt ' "$T/client.out"))"
}
! grep -q "^$RING_HIST" "$PROM" || fail "a ring histogram without [export] ring_histograms"
# the sample, below the exact count (which also grows: read it after)
sampled=$(awk -v n="${HOST_HIST}_count" '$1 == n {print $2}' "$PROM")
exact=$(awk '$1 == "uringtune_host_busy_poll_paid_total" {print $2}' "$PROM")
[ "${exact:-0}" -gt "$sampled" ] ||
	fail "host: sampled _count $sampled, exact paid windows '${exact:-}': the sample is not below"
echo "host histogram: $sampled paid windows timed of $exact (1 in $((exact / sampled)))"
# pid and fd apart only on ring_info
grep -q "^uringtune_ring_info{$CLIENT,pid=\"$cpid\",fd=\"$cfd\"," "$PROM" ||
	fail "ring_info: $(grep "^uringtune_ring_info{ring=\"$cpid:" "$PROM")"
extra=$(grep -v '^uringtune_ring_info{' "$PROM" | grep -m1 -E '[{,](pid|fd)="' || true)
[ -z "$extra" ] || fail "pid or fd labels beside ring_info: $extra"

# per-ring histograms on: the client ring gets one, at the next write after SIGHUP
write_config textfile_dir="$T/textfile" interval_s=1 ring_histograms=yes
kill -HUP "$DAEMON_PID"
has_hist() { grep -qE "^${RING_HIST}_count\{$CLIENT\} [1-9]" "$PROM"; }
wait_for 30 has_hist || {
	grep -E "$CLIENT" "$PROM" | grep -vE '_bucket|_info'
	fail "no histogram for the client ring after ring_histograms = yes (its series above)"
}
# the file is rewritten every interval_s: the ring created last is in the next one
exported() { grep -q "^uringtune_ring_info{ring=\"$hpid:$hfd\"" "$PROM"; }
wait_for 30 exported || fail "ringhold's ring not exported"

# the bill (issue 14): the client ring's paid spin, and the host's, above zero
bill() {
	grep -qE "^uringtune_busy_poll_spin_seconds_total\{$CLIENT,outcome=\"paid\"\} [0-9.e-]*[1-9]" "$PROM" &&
	grep -qE '^uringtune_host_busy_poll_spin_seconds_total\{outcome="paid"\} [0-9.e-]*[1-9]' "$PROM" &&
	grep -qE "^uringtune_busy_poll_wakeups_avoided_total\{$CLIENT\} [1-9]" "$PROM"
}
wait_for 30 bill || {
	grep -E 'busy_poll_(spin|saved|wakeups)' "$PROM"
	fail "the bill's families are missing or zero for the client ring (above)"
}
promtool check metrics <"$PROM" || fail "promtool check metrics failed"
echo "promtool: ok ($(grep -c '^uringtune_' "$PROM") samples)"

port=$((20000 + $$ % 20000))
bg prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$T/textfile"
scrape() { curl -sf "http://127.0.0.1:$port/metrics" >"$T/served"; }
wait_for 30 scrape || fail "node_exporter did not answer on 127.0.0.1:$port"
grep -q '^node_textfile_scrape_error 0$' "$T/served" ||
	fail "node_exporter: $(grep node_textfile_scrape_error "$T/served")"
n=$(grep -c '^uringtune_' "$T/served")
[ "$n" -gt 10 ] || fail "node_exporter serves only $n uringtune_ samples"
echo "node_exporter serves $n uringtune_ samples, scrape error 0"

# every histogram series: cumulative buckets never fall, +Inf equals _count
# (labels "" for the host's and the loop's, which have none but le)
awk '
/^uringtune_[a-z_]*_bucket\{/ {
	name = $1; sub(/_bucket\{.*/, "", name)
	labels = $1; sub(/^[^{]*\{/, "", labels); sub(/\}$/, "", labels)
	le = labels; sub(/.*le="/, "", le); sub(/".*/, "", le)
	key = labels; gsub(/,?le="[^"]*"/, "", key); sub(/^,/, "", key); key = name "{" key "}"
	v = $2 + 0
	if ((key in last) && v < last[key]) { print "not monotonic: " $0; bad = 1 }
	last[key] = v
	if (le == "+Inf") inf[key] = v
	next
}
/^uringtune_[a-z_]*_count[{ ]/ {
	name = $1; sub(/_count($|\{.*)/, "", name)
	labels = ""
	if ($1 ~ /\{/) { labels = $1; sub(/^[^{]*\{/, "", labels); sub(/\}$/, "", labels) }
	count[name "{" labels "}"] = $2 + 0
}
END {
	n = 0
	for (k in count) {
		n++
		if (!(k in inf)) { print "no +Inf bucket: " k; bad = 1 }
		else if (inf[k] != count[k]) { print "+Inf " inf[k] " != _count " count[k] ": " k; bad = 1 }
	}
	if (n < 3) { print n " histograms served, expected the loop'"'"'s, the host'"'"'s, a ring'"'"'s"; bad = 1 }
	print n " histogram series checked"
	exit bad
}' "$T/served" || fail "histograms served by node_exporter are inconsistent"

# a ring that is gone leaves the file
kill -TERM "$hpid"
gone() { ! grep -q "ring=\"$hpid:" "$PROM"; }
wait_for 30 gone || fail "ring of exited pid $hpid still in $PROM"
echo "gone ring left the file"

# many rings: written in steps (the daemon's debug line says how many), whole
ulimit -n 4096 2>/dev/null || true
bg "$B/ringhold" --count 2000 >"$T/many.out"
mpid=${BG_PIDS[-1]}
wait_line "$T/many.out" '^ready' 60
many() { [ "$(grep -c "^uringtune_ring_info{ring=\"$mpid:" "$PROM")" = 2000 ]; }
wait_for 30 many || fail "$(grep -c "^uringtune_ring_info{ring=\"$mpid:" "$PROM") of 2000 rings of pid $mpid in $PROM"
promtool check metrics <"$PROM" || fail "promtool check metrics failed with 2000 rings more"
steps=$(grep -o 'metrics export: [0-9]* rings in [0-9]* steps' "$T/daemon.log" | tail -1)
read -r _ _ nrings _ _ nsteps _ <<<"$steps"
[ "${nrings:-0}" -ge 2000 ] && [ "${nsteps:-0}" -gt 1 ] ||
	fail "the last export: '$steps' (expected 2000 rings or more, in more than one step)"
echo "2000 rings more: promtool ok, $steps"

# the event loop's own metrics
grep '^uringtune_loop' "$PROM"
count=$(awk '$1 == "uringtune_loop_dispatch_seconds_count" {print $2}' "$PROM")
inf=$(awk '$1 == "uringtune_loop_dispatch_seconds_bucket{le=\"+Inf\"}" {print $2}' "$PROM")
[ "${count:-0}" -gt 0 ] && [ "$count" = "$inf" ] || fail "loop histogram: count '$count', +Inf '$inf'"
grep -qE '^uringtune_loop_longest_dispatch_seconds\{source="(tick|ring-events|export|export-timer|control-conn|control-listen|SIGHUP)"\} [0-9.e-]+$' "$PROM" ||
	fail "longest dispatch: $(grep '^uringtune_loop_longest' "$PROM")"
echo "loop: $count dispatches, $(grep '^uringtune_loop_longest' "$PROM")"
