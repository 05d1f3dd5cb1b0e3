#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 4c: the textfile export passes `promtool check metrics`; a real
# prometheus-node-exporter on a loopback port serves the uringtune_ metrics
# with node_textfile_scrape_error 0; the histograms it serves have monotonic
# cumulative buckets and +Inf == _count; a gone ring leaves the file.
. "$(dirname "$0")/../lib.sh"

command -v promtool >/dev/null || fail "promtool missing (Debian package prometheus)"
command -v prometheus-node-exporter >/dev/null ||
	fail "prometheus-node-exporter missing (Debian package prometheus-node-exporter)"

mkdir -p "$T/textfile"
PROM=$T/textfile/uringtune.prom
netns_setup
start_daemon textfile_dir="$T/textfile"

bg ip netns exec "$NS_B" "$B/pingpong" server --bind 198.18.0.2:7000 \
	--napi-busy-poll-us 50 >"$T/server.out"
wait_line "$T/server.out" '^ring '
bg ip netns exec "$NS_A" "$B/pingpong" client --connect 198.18.0.2:7000 \
	--count 20000 --napi-busy-poll-us 50 --linger 60 >"$T/client.out"
wait_line "$T/client.out" '^rtt ' 60
read -r cpid cfd < <(ring_of "$T/client.out")
bg "$B/ringhold" >"$T/hold.out"
wait_line "$T/hold.out" '^ready'
read -r hpid hfd < <(ring_of "$T/hold.out")

has_hist() {
	grep -E "^uringtune_ring_busy_poll_paid_window_seconds_count\{pid=\"$cpid\",[^}]*fd=\"$cfd\"\} [1-9]" "$PROM"
}
wait_for 5 has_hist || {
	grep -E "pid=\"$cpid\",[^}]*fd=\"$cfd\"" "$PROM" | grep -vE '_bucket|_info'
	fail "no histogram for the client ring in $PROM (its series above; $(grep -m1 '^rtt ' "$T/client.out"))"
}
# the file is rewritten every tick: the ring created last is in the next one
exported() { grep -q "^uringtune_ring_info{pid=\"$hpid\"" "$PROM"; }
wait_for 5 exported || fail "ringhold's ring not exported"

promtool check metrics <"$PROM" || fail "promtool check metrics failed"
echo "promtool: ok ($(grep -c '^uringtune_' "$PROM") samples)"

port=$((20000 + $$ % 20000))
bg prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$T/textfile"
scrape() { curl -sf "http://127.0.0.1:$port/metrics" >"$T/served"; }
wait_for 10 scrape || fail "node_exporter did not answer on 127.0.0.1:$port"
grep -q '^node_textfile_scrape_error 0$' "$T/served" ||
	fail "node_exporter: $(grep node_textfile_scrape_error "$T/served")"
n=$(grep -c '^uringtune_' "$T/served")
[ "$n" -gt 10 ] || fail "node_exporter serves only $n uringtune_ samples"
echo "node_exporter serves $n uringtune_ samples, scrape error 0"

# every histogram series: cumulative buckets never fall, +Inf equals _count
awk '
/^uringtune_[a-z_]*_bucket\{/ {
	name = $1; sub(/_bucket\{.*/, "", name)
	labels = $1; sub(/^[^{]*\{/, "", labels); sub(/\}$/, "", labels)
	le = labels; sub(/.*le="/, "", le); sub(/".*/, "", le)
	key = labels; gsub(/,?le="[^"]*"/, "", key); key = name "{" key "}"
	v = $2 + 0
	if ((key in last) && v < last[key]) { print "not monotonic: " $0; bad = 1 }
	last[key] = v
	if (le == "+Inf") inf[key] = v
	next
}
/^uringtune_[a-z_]*_count\{/ {
	name = $1; sub(/_count\{.*/, "", name)
	labels = $1; sub(/^[^{]*\{/, "", labels); sub(/\}$/, "", labels)
	count[name "{" labels "}"] = $2 + 0
}
END {
	n = 0
	for (k in count) {
		n++
		if (!(k in inf)) { print "no +Inf bucket: " k; bad = 1 }
		else if (inf[k] != count[k]) { print "+Inf " inf[k] " != _count " count[k] ": " k; bad = 1 }
	}
	if (n == 0) { print "no histogram served"; bad = 1 }
	print n " histogram series checked"
	exit bad
}' "$T/served" || fail "histograms served by node_exporter are inconsistent"

# a ring that is gone leaves the file
kill -TERM "$hpid"
gone() { ! grep -q "pid=\"$hpid\"" "$PROM"; }
wait_for 3 gone || fail "ring of exited pid $hpid still in $PROM"
echo "gone ring left the file"
