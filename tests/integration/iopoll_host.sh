#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 5d (host, 6.18): the IOPOLL programs load and attach next to
# napi_trace; IOPOLL rings show their mode (classic or hybrid), completion
# statistics, an empty window and no prediction yet in status, and the
# hybrid model's host figures from the start-up sleep probe. (The host has no pollable
# device: completion times are checked in the VM harness, make vmtest.)
. "$(dirname "$0")/../lib.sh"

start_daemon
status_json | jq -e '.daemon.iopoll_stats == "auto" and (.daemon.iopoll_tracing | not)' >/dev/null ||
	fail "auto mode must start with the IOPOLL hooks off: $(status_json | jq -c .daemon)"

# the kernel's view: the daemon holds the iopoll programs, attached
names=()
for id in $(sed -n 's/^prog_id:\t*//p' /proc/"$DAEMON_PID"/fdinfo/* | sort -u); do
	names+=("$(bpftool -j prog show id "$id" | jq -r .name)")
done
echo "daemon's programs: ${names[*]}"
for want in on_cqring_wait on_poll_arm iop_submit iop_complete; do
	[[ " ${names[*]} " == *" $want "* ]] || fail "program $want not loaded"
done
links=$(bpftool -j link show | jq '[.[] | select(.prog_id != null)] | length')
[ "$links" -gt 0 ] || fail "no BPF links"

for kind in iopoll hybrid-iopoll; do
	bg "$B/ringhold" --flags "$kind" >"$T/$kind.out"
	wait_line "$T/$kind.out" '^ready'
	read -r pid fd < <(ring_of "$T/$kind.out")
	mode=classic why="no measurement window"
	[ "$kind" = hybrid-iopoll ] && mode=hybrid why="a hybrid ring"
	# no reads: no window, no prediction, and the advice says why
	expect_ring "$pid" "$fd" ".iopoll.mode == \"$mode\" and .iopoll.completions == 0 and
		.iopoll.window == null and (.iopoll.advice.predicted | not) and
		.iopoll.advice.cpu_per_read_saving == null and
		(.iopoll.advice.why | test(\"$why\")) and (.tunable | not)"
	# auto: the first IOPOLL ring switched the hooks on, after it was made
	status_json | jq -e '.daemon.iopoll_tracing' >/dev/null || fail "hooks still off"
	[ "$kind" = hybrid-iopoll ] || expect_ring "$pid" "$fd" '.iopoll.partial'
	"$B/uringtune" --socket "$SOCK" status | grep -q "^  iopoll $mode: 0 completions" ||
		fail "the table has no iopoll line for the $kind ring"
	echo "$kind: $(ring "$pid" "$fd" | jq -c '.iopoll | {mode, completions, advice: .advice.why}')"
done
# always: hooks on from the start; a ring made afterwards is counted whole
stop_daemon
start_daemon iopoll_stats=always
status_json | jq -e '.daemon.iopoll_tracing' >/dev/null || fail "always: hooks off"
bg "$B/ringhold" --flags iopoll >"$T/always.out"
wait_line "$T/always.out" '^ready'
read -r pid fd < <(ring_of "$T/always.out")
expect_ring "$pid" "$fd" '(.iopoll.partial | not)'

# a plain ring has no iopoll section
bg "$B/ringhold" >"$T/plain.out"
wait_line "$T/plain.out" '^ready'
read -r pid fd < <(ring_of "$T/plain.out")
expect_ring "$pid" "$fd" '.iopoll == null'

# the hybrid model's host figures: the start-up probe's short sleeps, real ones
probe_done() { status_json | jq -e '.daemon.sleep_probe.done'; }
wait_for 30 probe_done || fail "the sleep probe did not finish in 30 s"
probe=$(status_json | jq -c .daemon.sleep_probe)
echo "sleep probe: $probe; model: $(status_json | jq -c .daemon.hybrid_sleep)"
jq -e '.samples >= 128 and .asked_ns == 4000 and .overshoot_ns > 0 and
	.overshoot_p90_ns >= .overshoot_ns and .cpu_ns > 0 and .syscall_ns > 0' <<<"$probe" >/dev/null ||
	fail "the sleep probe's figures: $probe"
status_json | jq -e '.daemon.hybrid_sleep.source == "probe" and .daemon.hybrid_sleep.pairs == 0 and
	.daemon.hybrid_sleep.tied_ns == null' >/dev/null ||
	fail "no pair seen, the model must take the probe alone: $(status_json | jq -c .daemon.hybrid_sleep)"
