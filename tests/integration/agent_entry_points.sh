#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every door the agent guards: a ring set up through libc's syscall(), through
# liburing's io_uring_setup(), io_uring_queue_init(), io_uring_queue_init_params()
# and io_uring_queue_init_mem() (liburing 2.5+, from a stand-in library:
# build/libut_uring25.so) gets the daemon's decision: NAPI on a DEFER_TASKRUN
# ring, HYBRID_IOPOLL on an IOPOLL ring. Status names the entry point; the
# program sees its own flags (build/ringentry says so on stderr otherwise)
# and its entry point's own return value.
. "$(dirname "$0")/../lib.sh"

start_daemon mode=tune include_comm=ringentry

# entry_name VIA: what status calls that entry point
entry_name() {
	case $1 in
	syscall) echo syscall ;;
	setup) echo io_uring_setup ;;
	*) echo io_uring_queue_init ;;
	esac
}

for via in syscall setup queue_init queue_init_params queue_init_mem; do
	log "$via"
	bg "${AGENT_EXEC[@]}" --napi -- "$B/ringentry" --via "$via" >"$T/$via-dt.out" 2>"$T/$via-dt.err"
	bg "${AGENT_EXEC[@]}" --hybrid on -- "$B/ringentry" --via "$via" --flags 0x1 \
		>"$T/$via-iop.out" 2>"$T/$via-iop.err"
	wait_line "$T/$via-dt.out" '^ready'
	wait_line "$T/$via-iop.out" '^ready'
	read -r pid fd < <(ring_of "$T/$via-dt.out")
	expect_napi "$pid" "$fd" '^enabled/dynamic/50000/false$'
	expect_ring "$pid" "$fd" ".managed_via == \"agent\" and .agent.entry == \"$(entry_name "$via")\"
		and .agent.napi_at_setup == \"registered\""
	read -r ipid ifd < <(ring_of "$T/$via-iop.out")
	expect_ring "$ipid" "$ifd" "(.setup_flags | index(\"HYBRID_IOPOLL\")) and
		.agent.hybrid == \"added\" and .agent.entry == \"$(entry_name "$via")\""
	# the program saw its own flags, and what its entry point returns
	for k in dt iop; do
		[ ! -s "$T/$via-$k.err" ] || fail "$via $k: $(cat "$T/$via-$k.err")"
	done
	ret=$(field ret "$(grep '^ring ' "$T/$via-dt.out")")
	case $via in
	syscall|setup) want=$fd ;;
	queue_init_mem) want=4096 ;;
	*) want=0 ;;
	esac
	[ "$ret" = "$want" ] || fail "$via returned $ret to the program, expected $want"
	echo "$via: $(ring "$pid" "$fd" | jq -c '{setup_flags, napi: .napi.busy_poll_us, agent: .agent.entry}') ret=$ret"
	kill_bg
done
