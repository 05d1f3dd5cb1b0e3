#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 2f: a ring whose process exits leaves status (the time it took
# is printed; bench/reaction.sh's "ring gone from status after close" target
# holds it to 2 s); 1000 rings opened and closed leave no registry entry and
# no BPF map entry.
# Twice, with room for 1024 rings: a slot not given back would make the
# second round drop rings.
. "$(dirname "$0")/../lib.sh"

start_daemon max_rings=1024

# 1. process exit
"$B/ringhold" --hold 2 >"$T/hold.out" &
hold=$!
BG_PIDS+=($hold)
wait_line "$T/hold.out" '^ready'
r=$(grep '^ring ' "$T/hold.out")
pid=$(field pid "$r")
fd=$(field fd "$r")
expect_ring "$pid" "$fd" '.comm == "ringhold"'
wait "$hold"
gone() { [ -z "$(ring "$pid" "$fd")" ]; }
# (measured here: 0.03-0.04 s)
wait_for_timed 30 "ring gone from status (its process exited)" gone ||
	fail "ring pid=$pid fd=$fd still listed 30 s after its process exited: $(ring "$pid" "$fd")"

# 2. churn: 1000 rings created and closed by a process that stays alive.
# Idle rings have no map entry yet. Other tests' rings on this host may come
# and go meanwhile: while the set of the others is as before, the registry
# and the BPF map must be exactly as before; if it changed, every map entry
# must still belong to a listed ring (1000 leaked entries could not).
others() { status_json | jq -c '[.rings[] | "\(.pid):\(.fd)"] | sort'; }
others0=$(others)
baseline=$(status_json | jq '.daemon.rings')
map_baseline=$(status_json | jq '.daemon.ring_map_entries')
HOST_QUIET=1
clean() {
	local s
	s=$(status_json)
	# no ring of the churning process
	[ "$(jq --argjson p "$churn_pid" '[.rings[] | select(.pid == $p)] | length' <<<"$s")" = 0 ] || return 1
	if [ "$(jq -c '[.rings[] | "\(.pid):\(.fd)"] | sort' <<<"$s")" = "$others0" ]; then
		HOST_QUIET=1
		[ "$(jq '.daemon.rings' <<<"$s")" = "$baseline" ] &&
		[ "$(jq '.daemon.ring_map_entries' <<<"$s")" = "$map_baseline" ]
	else
		HOST_QUIET=0
		jq -e '.daemon.ring_map_entries <= (.rings | length)' <<<"$s" >/dev/null
	fi
}
for round in 1 2; do
	bg "$B/ringhold" --churn 1000 --hold 60 >"$T/churn$round.out"
	churn_pid=${BG_PIDS[-1]}
	wait_line "$T/churn$round.out" '^churned count=1000' 60
	# (measured here: 0.1 s)
	wait_for_timed 30 "churn $round: registry and BPF map as before" clean || {
		status_json | jq .daemon
		fail "churn $round: not clean within 30 s: $(status_json | jq -c --argjson p "$churn_pid" \
			'{rings_of_churner: [.rings[] | select(.pid == $p)] | length, rings: .daemon.rings,
			  ring_map_entries: .daemon.ring_map_entries}'), expected rings $baseline, ring_map_entries $map_baseline (or, other rings having changed, entries <= rings listed)"
	}
	[ "$HOST_QUIET" = 1 ] || log "churn $round: other rings on the host changed meanwhile: checked map entries <= rings listed"
done
untraced=$(status_json | jq .daemon.rings_untraced)
[ "$untraced" = 0 ] || fail "$untraced rings found no free BPF slot: slots are not given back"

# bpftool here cannot name a map's owner: find the map among the daemon's fds
map_id=null
for id in $(sed -n 's/^map_id:\t*//p' /proc/"$DAEMON_PID"/fdinfo/* 2>/dev/null | sort -u); do
	if [ "$(bpftool -j map show id "$id" | jq -r .name)" = ring_slots ]; then
		map_id=$id
	fi
done
[ "$map_id" != null ] || fail "cannot find the daemon's ring_slots map with bpftool"
# the kernel's map as the daemon counts it (both read again if other rings moved between)
map_agrees() {
	entries=$(bpftool -j map dump id "$map_id" | jq length)
	counted=$(status_json | jq .daemon.ring_map_entries)
	[ "$entries" = "$counted" ]
}
wait_for 30 map_agrees ||
	fail "BPF map holds $entries entries, the daemon counts $counted ($map_baseline before the churn)"
echo "after 1000 rings: BPF map $entries entries, as the daemon counts ($map_baseline before the churn)"
