# SPDX-License-Identifier: GPL-2.0-only
# What the pattern tests (tests/integration/pattern_*.sh) share: a ping-pong
# of build/mshot in one receive pattern (a single-shot recv before every
# wait, a multishot recvmsg over a buffer ring, multishot accept and
# receive, receive bundles) on one ring kind and wait mode, across veth
# namespaces, under an observe-mode or a tune-mode uringtuned. Sourced after
# tests/lib.sh. What it asserts holds on any machine, however loaded:
#   observe (the programs register NAPI 50 us themselves):
#     - the NAPI IDs seen on the server ring's sockets are the kernel's list;
#     - the ring had busy-poll windows, and windows of the sample were timed;
#     - the ring's bill over a period (paid + unpaid spin) is at most what
#       its waiting thread ran on a CPU over that period (schedstat, read
#       around the two status reads), and the bound is known;
#   tune (nothing registered by the programs; uringtuned does):
#     - the server ring is taken, busy-polls, and its windows are timed;
#     - its IDs are polled: seen on its sockets = the kernel's list (by the
#       kernel's dynamic tracking, or by the static list uringtune set when
#       that tracking missed one);
#     - the tuner sizes the timeout from timed windows (a decision that
#       names the paid windows' quantile);
#     - a stop puts both rings back as they were (NAPI disabled).
# How much the bill differs from the thread's CPU, and RTT or CPU per ping
# by pattern, are bench/patterns.sh's (docs/BENCHMARKS.md, patterns).

PT_PORT=7000

# pt_server ARGS... / pt_client ARGS...: the two sides, pinned to CPUs of
# their own where there are two (the server's busy loop is then not
# preempted by the client it waits for); outputs in $T/server.out and
# $T/client.out
PT_PIN_SERVER=() PT_PIN_CLIENT=()
if [ "$(nproc)" -ge 2 ]; then
	PT_PIN_SERVER=(taskset -c 1)
	PT_PIN_CLIENT=(taskset -c 0)
fi
pt_server() {
	bg ip netns exec "$NS_B" "${PT_PIN_SERVER[@]}" "${PT_WRAP[@]}" "$B/mshot" server \
		--bind "198.18.0.2:$PT_PORT" --quiet "$@" >"$T/server.out" 2>"$T/server.err"
	wait_line "$T/server.out" '^ring ' 10
}
pt_client() {
	bg ip netns exec "$NS_A" "${PT_PIN_CLIENT[@]}" "${PT_WRAP[@]}" "$B/mshot" client \
		--connect "198.18.0.2:$PT_PORT" --quiet "$@" >"$T/client.out" 2>"$T/client.err"
	wait_line "$T/client.out" '^ring ' 10
}
# a command to run each side under (uringtune exec for the agent), empty: none
PT_WRAP=()

# the bundle pattern needs 6.10+: mshot exits 3 with the reason
pt_need_bundles() {
	local err=$T/bundle-probe.err
	ip netns exec "$NS_B" "$B/mshot" server --pattern tcp-bundle --bind 198.18.0.2:7999 \
		--quiet >/dev/null 2>"$err" &
	local pid=$!
	sleep 0.3
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid"
		[ $? != 3 ] || skip "$(cat "$err")"
	fi
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# thread_cpu_ns PID TID: what that thread ran on a CPU so far
thread_cpu_ns() {
	awk '{ print $1 }' "/proc/$1/task/$2/schedstat"
}

# pt_tid FILE: the ring thread's tid from mshot's ring line
pt_tid() {
	sed -n 's/^ring .* tid=\([0-9]*\).*/\1/p' "$1" | head -n 1
}

# ids_equal PID FD: the ring's seen IDs are the kernel's list (as sets), not empty
ids_equal() {
	ring_jq "$1" "$2" '(.napi_ids | length) > 0 and (.napi_ids | sort) == (.kernel_napi_ids | sort)' \
		>/dev/null
}

# pt_bill_bounded NAME PID FD TID: over PERIOD_S seconds of traffic, the
# ring's bill against its waiting thread's CPU time
pt_bill_bounded() {
	local name=$1 pid=$2 fd=$3 tid=$4 c0 c1 s0 s1 spin cpu
	c0=$(thread_cpu_ns "$pid" "$tid")
	s0=$(ring "$pid" "$fd")
	sleep "${PERIOD_S:-2}"
	s1=$(ring "$pid" "$fd")
	c1=$(thread_cpu_ns "$pid" "$tid")
	spin=$(jq -n --argjson a "$s0" --argjson b "$s1" \
		'($b.busy_poll.spin_ns.paid + $b.busy_poll.spin_ns.unpaid) -
		 ($a.busy_poll.spin_ns.paid + $a.busy_poll.spin_ns.unpaid)')
	cpu=$((c1 - c0))
	log "$name: the server ring's bill $((spin / 1000)) us of spin over ${PERIOD_S:-2} s," \
	    "its thread ran $((cpu / 1000)) us ($(jq -c '.busy_poll | {windows, sample, unknown_windows, capped_ns, cpu_bound}' <<<"$s1"))"
	[ "$spin" -le "$cpu" ] ||
		fail "$name: the bill says the server ring spun $spin ns while its thread ran $cpu ns: more than it ran"
	jq -e '.busy_poll.cpu_bound == "known" and .busy_poll.wait_tid == '"$tid" <<<"$s1" >/dev/null ||
		fail "$name: the bill's bound is not the server thread's ($tid) CPU: $(jq -c .busy_poll <<<"$s1")"
}

# pt_observe NAME SERVER_ARGS -- CLIENT_ARGS: both programs register NAPI
# 50 us themselves, an observe-mode daemon watches
pt_observe() {
	local name=$1 sargs=() cargs=() pid fd tid
	shift
	while [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	cargs=("$@")
	log "$name, observe"
	start_daemon mode=observe include_comm=mshot
	pt_server "${sargs[@]}" --napi-busy-poll-us 50
	pt_client "${cargs[@]}" --napi-busy-poll-us 50 --seconds 3600
	read -r pid fd < <(ring_of "$T/server.out")
	tid=$(pt_tid "$T/server.out")
	wait_for_timed 20 "$name: the server ring's NAPI IDs = the kernel's list" ids_equal "$pid" "$fd" ||
		fail "$name: seen $(ring "$pid" "$fd" | jq -c .napi_ids), the kernel's list $(ring "$pid" "$fd" | jq -c .kernel_napi_ids)"
	expect_ring "$pid" "$fd" '.busy_poll.windows > 0 and
		(.busy_poll.sample.paid_timed + .busy_poll.sample.unpaid_timed) > 0' 20
	pt_bill_bounded "$name" "$pid" "$fd" "$tid"
	kill_bg
	stop_daemon
	PT_PORT=$((PT_PORT + 1))
}

# decided_from_windows PID FD: a decision of the tuner sized from timed windows
decided_from_windows() {
	ring_jq "$1" "$2" 'any(.tuning.decisions[]; .why | test("paid windows"))' >/dev/null
}

# pt_tune NAME SERVER_ARGS -- CLIENT_ARGS: nothing registered by the
# programs; a tune-mode daemon takes both rings (from outside, or through
# the agent when PT_WRAP is uringtune exec)
pt_tune() {
	local name=$1 sargs=() cargs=() pid fd cpid cfd
	shift
	while [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	cargs=("$@")
	log "$name, tune"
	# the timeout starts at its maximum: windows as long as a ping-pong's
	# would have to be well over 100 us for the tuner to keep it
	start_daemon mode=tune include_comm=mshot min_windows=200 settle_s=1 initial_busy_poll_us=200
	pt_server "${sargs[@]}"
	pt_client "${cargs[@]}" --seconds 3600
	read -r pid fd < <(ring_of "$T/server.out")
	read -r cpid cfd < <(ring_of "$T/client.out")
	expect_ring "$pid" "$fd" '.managed_by == "uringtune" and .napi.enabled' 10
	wait_for_timed 30 "$name: the server ring's NAPI IDs polled (seen = the kernel's list)" \
		ids_equal "$pid" "$fd" ||
		fail "$name: seen $(ring "$pid" "$fd" | jq -c .napi_ids), the kernel's list $(ring "$pid" "$fd" | jq -c .kernel_napi_ids) ($(ring "$pid" "$fd" | jq -c '[.tuning.decisions[].why]'))"
	log "$name: $(ring "$pid" "$fd" | jq -r '"polled by \(.napi_list_by): \(.kernel_napi_ids)"')"
	expect_ring "$pid" "$fd" '.busy_poll.windows > 0 and
		(.busy_poll.sample.paid_timed + .busy_poll.sample.unpaid_timed) > 0' 20
	wait_for_timed 30 "$name: a decision from timed windows" decided_from_windows "$pid" "$fd" ||
		fail "$name: no decision from the windows: $(ring "$pid" "$fd" | jq -c '[.tuning.decisions[].why]')"
	log "$name: $(ring "$pid" "$fd" | jq -r '[.tuning.decisions[].why] | join(" | ")')"
	stop_daemon
	# from outside at once; an agent's ring at its program's next call
	expect_napi "$pid" "$fd" '^disabled$' 10
	expect_napi "$cpid" "$cfd" '^disabled$' 10
	log "$name: both rings put back (NAPI disabled) after the stop"
	kill_bg
	PT_PORT=$((PT_PORT + 1))
}
