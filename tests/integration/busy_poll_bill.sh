#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 14, item 1: the bill's unpaid spin is what busy polling costs a ring
# that waits for nothing. A sparse ping-pong (one ping per 5 ms) across veth
# namespaces, uringtuned observing: the server's ring busy-polls at a fixed
# 200 us (its own registration; the client has none), so nearly every one of
# its waits spins 200 us for a request still ~5 ms away. Its CPU time
# (sum_exec_runtime of its threads, /proc/PID/task/*/schedstat) is measured
# over the same length of time in two runs, without NAPI and with; the
# daemon's unpaid spin over the NAPI run must be within +-30% of the
# difference. An accuracy check: both numbers are printed, the rate of the
# runs does not matter.
. "$(dirname "$0")/../lib.sh"

RUN_S=${BILL_RUN_S:-20}
NAPI_US=200
# server and client on CPUs of their own where there are two: the server's
# busy loop is then not preempted by the client it waits for
PIN_SERVER=() PIN_CLIENT=()
if [ "$(nproc)" -ge 2 ]; then
	PIN_SERVER=(taskset -c 1)
	PIN_CLIENT=(taskset -c 0)
fi

netns_setup
start_daemon mode=observe include_comm=pingpong

# the server's CPU time so far, ns: every thread's sum_exec_runtime
cpu_ns() {
	cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%d\n", s }'
}

# ... and the time its threads waited for a CPU while runnable (run_delay), ns:
# a busy loop preempted on a loaded host spins its timeout in wall time with less CPU
wait_ns() {
	cat /proc/"$1"/task/*/schedstat | awk '{ s += $2 } END { printf "%d\n", s }'
}

# the host's steal time so far (the hypervisor ran something else), ns
steal_ns() {
	awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%d\n", $9 * 1e9 / hz }' /proc/stat
}

now_ns() { date +%s%N; }

# run NAME [server options...]: one sparse pair; sets RES to "<cpu ns>
# <wall ns> <unpaid ns> <paid ns> <windows>" of the server over RUN_S seconds
run() {
	local name=$1 pid fd c0 c1 d0 d1 s0 s1 t0 t1 b0 b1 u0 p0 w0 u1 p1 w1
	shift
	bg ip netns exec "$NS_B" "${PIN_SERVER[@]}" "$B/pingpong" server --bind 198.18.0.2:7000 "$@" \
		>"$T/$name.server"
	wait_line "$T/$name.server" '^ring '
	bg ip netns exec "$NS_A" "${PIN_CLIENT[@]}" "$B/pingpong" client --connect 198.18.0.2:7000 \
		--count 1000000 --burst 1 --gap-ms 5 >"$T/$name.client"
	wait_line "$T/$name.client" '^ring '
	read -r pid fd < <(ring_of "$T/$name.server")
	# warmed up: the ring seen, its first windows counted
	sleep 2
	expect_ring "$pid" "$fd" '.busy_poll.windows >= 0' 10
	b0=$(ring_jq "$pid" "$fd" '.busy_poll | "\(.spin_ns.unpaid) \(.spin_ns.paid) \(.windows)"' |
		tr -d '"')
	c0=$(cpu_ns "$pid")
	d0=$(wait_ns "$pid")
	s0=$(steal_ns)
	t0=$(now_ns)
	sleep "$RUN_S"
	c1=$(cpu_ns "$pid")
	d1=$(wait_ns "$pid")
	s1=$(steal_ns)
	t1=$(now_ns)
	b1=$(ring_jq "$pid" "$fd" '.busy_poll | "\(.spin_ns.unpaid) \(.spin_ns.paid) \(.windows)"' |
		tr -d '"')
	# what an operator sees of it: the table (BP_HIT, EFF, SPIN%, the host's line)
	"$B/uringtune" --socket "$SOCK" status | tee "$T/$name.status"
	kill_bg
	read -r u0 p0 w0 <<<"$b0"
	read -r u1 p1 w1 <<<"$b1"
	RES="$((c1 - c0)) $((t1 - t0)) $((u1 - u0)) $((p1 - p0)) $((w1 - w0))"
	log "$name: the server waited $(((d1 - d0) / 1000)) us for a CPU;" \
	    "host steal $(((s1 - s0) / 1000)) us"
}

run off
read -r cpu_off wall_off unpaid_off _ _ <<<"$RES"
log "no NAPI: server CPU $((cpu_off / 1000)) us in $((wall_off / 1000000)) ms, unpaid spin $unpaid_off ns"
[ "$unpaid_off" = 0 ] || fail "the bill counts unpaid spin on a ring without NAPI: $unpaid_off ns"

run napi --napi-busy-poll-us "$NAPI_US"
read -r cpu_on wall_on unpaid paid windows <<<"$RES"
log "NAPI ${NAPI_US} us: server CPU $((cpu_on / 1000)) us in $((wall_on / 1000000)) ms," \
    "$windows windows, spin unpaid $((unpaid / 1000)) us, paid $((paid / 1000)) us"
[ "$windows" -gt 1000 ] || fail "the server's ring had $windows busy-poll windows in ${RUN_S} s"

# the run without NAPI scaled to the NAPI run's length
python3 - "$cpu_off" "$wall_off" "$cpu_on" "$wall_on" "$unpaid" <<'PY' || fail "unpaid spin off by more than 30%"
import sys
cpu_off, wall_off, cpu_on, wall_on, unpaid = map(int, sys.argv[1:])
diff = cpu_on - cpu_off * wall_on / wall_off
ratio = unpaid / diff if diff > 0 else float("inf")
print(f"bill: CPU difference {diff / 1e6:.1f} ms, estimated unpaid spin {unpaid / 1e6:.1f} ms, "
      f"ratio {ratio:.2f}")
sys.exit(0 if 0.7 <= ratio <= 1.3 else 1)
PY
grep -q '^busy polling, host: ' "$T/napi.status" || fail "no host bill line in the status table"
