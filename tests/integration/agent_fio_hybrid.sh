#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 6a, host half: fio (Debian's, ioengine=io_uring, hipri=1: an
# IOPOLL ring set up through libc's syscall()) under `uringtune exec
# --hybrid on`: its ring carries HYBRID_IOPOLL in status, set up through
# the agent; `--hybrid off` and no agent leave it classic; a config rule by
# process name ([agent] hybrid_comm) does what the flag does. These hosts
# have no pollable block device, so fio's reads fail (EOPNOTSUPP);
# fio 3.33 stops at that error despite continue_on_error unless it is told
# to ignore it (ignore_error=95,95, by number): then the ring lives for the
# run. (It used to be listed anyway until the next host sweep; rings now
# leave status when they go.) The VM test (vm_kernel_7) runs the same under
# real I/O.
. "$(dirname "$0")/../lib.sh"

command -v fio >/dev/null || fail "fio is missing (scripts/deps.sh installs it)"
head -c 4M /dev/zero >"$T/data"

# fio_ring NAME [exec ARGS...]: run fio for 20 s in the background; FIO_PID, FIO_FD
# of its io_uring ring once uringtuned lists it
# no_fio_ring: uringtuned lists no ring of a fio any more (the last one was killed)
no_fio_ring() {
	[ "$(status_json | jq '[.rings[] | select(.comm == "fio")] | length')" = 0 ]
}

fio_ring() {
	local name=$1 run=()
	shift
	wait_for 30 no_fio_ring || fail "the last fio's ring is still listed"
	[ $# -eq 0 ] || run=("${AGENT_EXEC[@]}" "$@" --)
	bg "${run[@]}" fio --name="$name" --filename="$T/data" --size=4M --direct=1 \
		--ioengine=io_uring --hipri=1 --rw=randread --bs=4k --iodepth=1 \
		--time_based --runtime=20 --continue_on_error=all --ignore_error=95,95 \
		--output="$T/$name.fio"
	FIO_PID= FIO_FD=
	local r
	r=$(wait_ring_json '.comm == "fio" and (.setup_flags | index("IOPOLL"))') ||
		fail "$name: no fio IOPOLL ring in status: $(status_json | jq -c '[.rings[] | {pid,comm,setup_flags}]')"
	FIO_PID=$(jq .pid <<<"$r")
	FIO_FD=$(jq .fd <<<"$r")
	echo "$name: $(jq -c '{pid, fd, setup_flags, managed_by, managed_via, agent}' <<<"$r")"
}

start_daemon mode=tune

fio_ring hybrid --hybrid on
expect_ring "$FIO_PID" "$FIO_FD" '(.setup_flags | index("HYBRID_IOPOLL")) and
	.agent.entry == "syscall" and .agent.hybrid == "added" and
	.managed_by == "uringtune" and .managed_via == "agent" and .iopoll.mode == "hybrid"'
"$B/uringtune" --socket "$SOCK" status | grep -E "^$FIO_PID +fio " | tee "$T/row"
grep -q 'HYBRID_IOPOLL' "$T/row" && grep -q 'uringtune (agent)' "$T/row" ||
	fail "the table does not show it: $(cat "$T/row")"
kill_bg

fio_ring classic --hybrid off
expect_ring "$FIO_PID" "$FIO_FD" '(.setup_flags | index("HYBRID_IOPOLL") | not) and
	.agent.hybrid == "not added" and .managed_by == "none"'
kill_bg

fio_ring plain
expect_ring "$FIO_PID" "$FIO_FD" '(.setup_flags | index("HYBRID_IOPOLL") | not) and .agent == null'
kill_bg

log "[agent] hybrid_comm = fio: the same without the flag"
stop_daemon
start_daemon mode=tune hybrid_comm=fio
fio_ring rule -v
expect_ring "$FIO_PID" "$FIO_FD" '(.setup_flags | index("HYBRID_IOPOLL")) and .agent.hybrid == "added"'
kill_bg
a=$(status_json | jq -c '.daemon.agent | {hybrid_added, hybrid_fallback}')
[ "$a" = '{"hybrid_added":1,"hybrid_fallback":0}' ] || fail "counts: $a"
