#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 16, item 4: every series the Grafana dashboard (contrib/grafana/
# uringtune.json) and the Prometheus rules (contrib/prometheus/
# uringtune.rules.yml) read is one the export writes. A real uringtuned
# (observe mode, [export] ring_histograms = yes) watches real rings: a
# ping-pong pair that busy-polls (its own NAPI registration: bill and
# histograms) and a pair that does not (observe mode's advice). The metric
# names of the samples of its uringtune.prom, and up and ALERTS (which
# Prometheus records itself), are the known names; tests/tools/promql_names.py
# parses the metric names out of every PromQL expression of both files
# (recording rules' own names count as known) and names any other. A name
# broken on purpose in a copy of each file makes it fail, naming it. The
# dashboard's frame: schemaVersion 36 or later, a Prometheus datasource
# variable that every panel and query uses, unique panel ids, its rows.
. "$(dirname "$0")/../lib.sh"

command -v python3 >/dev/null || fail "python3 missing"
DASH=contrib/grafana/uringtune.json
RULES=contrib/prometheus/uringtune.rules.yml
CHECK=(python3 tests/tools/promql_names.py)
PROM=$T/textfile/uringtune.prom

# the dashboard's frame
jq -e '.schemaVersion >= 36' "$DASH" >/dev/null || fail "$DASH: schemaVersion $(jq .schemaVersion "$DASH") < 36"
jq -e '[.templating.list[] | select(.type == "datasource" and .name == "datasource" and
	.query == "prometheus")] | length == 1' "$DASH" >/dev/null ||
	fail "$DASH: no datasource variable \"datasource\" of type prometheus"
bad=$(jq -r '[.panels[] | select(.type != "row") | .title as $t |
	(select(.datasource.uid != "${datasource}") | $t),
	(.targets[] | select(.datasource.uid != "${datasource}") | $t)] | unique | .[]' "$DASH")
[ -z "$bad" ] || fail "$DASH: panels not on the datasource variable: $bad"
jq -e '[.panels[].id] | length == (unique | length)' "$DASH" >/dev/null || fail "$DASH: panel ids not unique"
for r in "Host overview" "Busy-poll payoff" "Per-ring tuning" "Errors" "daemon health"; do
	jq -e --arg r "$r" '[.panels[] | select(.type == "row" and (.title | contains($r)))] |
		length == 1' "$DASH" >/dev/null || fail "$DASH: no row \"$r\""
done
echo "dashboard: schemaVersion $(jq .schemaVersion "$DASH"), $(jq '[.panels[] | select(.type != "row")] | length' "$DASH") panels in $(jq '[.panels[] | select(.type == "row")] | length' "$DASH") rows, all on \${datasource}"

# a real export, every family with samples
netns_setup
start_daemon textfile_dir="$T/textfile" interval_s=1 ring_histograms=yes
busy_pingpong
# a pair that leaves NAPI to uringtune, pinging every 5 ms: observe mode advises it
bg ip netns exec "$NS_B" "$B/pingpong" server --bind 198.18.0.2:7001 >"$T/server2.out"
wait_line "$T/server2.out" '^ring '
bg ip netns exec "$NS_A" "$B/pingpong" client --connect 198.18.0.2:7001 \
	--count 6000 --burst 1 --gap-ms 5 --linger 60 >"$T/client2.out"
wait_line "$T/client2.out" '^ring '
read -r spid sfd < <(ring_of "$T/server.out")
read -r cpid cfd < <(ring_of "$T/client2.out")
ready() {
	grep -qE "^uringtune_ring_busy_poll_paid_window_sampled_seconds_count\{ring=\"$spid:$sfd\",[^}]*\} [1-9]" "$PROM" &&
	grep -qE "^uringtune_ring_advice_busy_poll_seconds\{ring=\"$cpid:$cfd\"," "$PROM" &&
	grep -qE '^uringtune_host_busy_poll_paid_window_sampled_seconds_count [1-9]' "$PROM"
}
wait_for 30 ready || {
	grep -E "ring=\"($spid:$sfd|$cpid:$cfd)\"" "$PROM" | grep -v _bucket
	fail "the export has not the server's histogram, the client's advice and the host's histogram yet (above)"
}
cp "$PROM" "$T/snap.prom"
{ grep -v '^#' "$T/snap.prom" | sed -E 's/[{ ].*//' | sort -u; echo up; echo ALERTS; } >"$T/known"
echo "the export wrote $(grep -c . "$T/known") metric names (up and ALERTS added)"

"${CHECK[@]}" --known "$T/known" --rules "$RULES" --dashboard "$DASH" ||
	fail "the dashboard or the rules read series the export does not write (above)"

# broken once on purpose: each file's check must fail and name the broken name
sed 's/uringtune_ring_waits_total/uringtune_ring_wait_total/g' "$DASH" >"$T/dash.json"
sed 's/uringtune_config_last_reload_success/uringtune_config_last_reload_ok/g' "$RULES" >"$T/rules.yml"
for f in "--dashboard $T/dash.json:uringtune_ring_wait_total" "--rules $T/rules.yml:uringtune_config_last_reload_ok"; do
	args=${f%%:*} name=${f#*:}
	# shellcheck disable=SC2086 # two words: the option and the file
	if out=$("${CHECK[@]}" --known "$T/known" $args); then
		fail "the check passed with $name in ${args#* }"
	fi
	grep -q "^unknown metric $name in " <<<"$out" || fail "the check did not name $name: $out"
	echo "broken on purpose: $(grep -m1 "^unknown metric $name" <<<"$out")"
done
