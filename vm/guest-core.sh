#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs inside the test VM as /test.sh (busybox sh, after vm/guest-lib.sh),
# for tests/integration/vm_core_build.sh: uringtuned built against this
# kernel's own vmlinux.h loads and attaches its BPF programs here, and lists
# rings with their setup flags and NAPI settings, read by those programs:
#
#   pre    ringhold, COOP_TASKRUN, NAPI 40 us with prefer (where the kernel
#          has io_uring NAPI), made before the daemon: found by the
#          inventory iterator
#   post   ringhold, DEFER_TASKRUN, NAPI 25 us, made after the daemon: seen
#          by io_uring_create and io_uring_register
#   iopoll iopoll_load on the NVMe disk: IOPOLL, its completions counted
#   pp     a UDP ping-pong over loopback (no NAPI there): waits and sleeps
#
# It only gathers; the host judges. Lines (besides guest-lib's):
#   UTVM: KERNEL <uname -r>
#   UTVM: BTF yes|no
#   UTVM: RING <case> <the tool's ring line>
#   UTVM: RESULT <case> <the tool's result line>
#   UTVM: DAEMON up_s=<s> | DAEMON FAILED ...
#   UTVM: JSON {...}                    uringtune status --json, rings open
SECS=1
TICK_MS=200

say "KERNEL $(uname -r)"
# /init leaves the loopback down: the ping-pong needs it
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
if [ -r /sys/kernel/btf/vmlinux ]; then say "BTF yes"; else say "BTF no"; fi
wait_disk

# ring_tool NAME OUT ARGS...: ringhold in the background; its ring line
ring_tool() {
	name=$1
	out=$2
	shift 2
	ringhold --comm "$name" "$@" >"$out" 2>&1 &
	i=0
	while ! grep -q '^ready' "$out" && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	say "RING $name $(grep -m1 '^ring ' "$out")"
}

# NAPI registration is refused before 6.9 (ringhold says napi=EINVAL and holds the ring)
ring_tool utcore_pre /tmp/pre.out --flags coop-taskrun --napi-busy-poll-us 40 --napi-prefer

write_conf observe $TICK_MS -e "s|^iopoll_stats = .*|iopoll_stats = always|"
start_daemon && say "DAEMON up_s=$(since "$t0")"

ring_tool utcore_post /tmp/post.out --flags defer-taskrun --napi-busy-poll-us 25

iopoll_load --dev $DEV --seconds $SECS --qd 1 --linger 60 >/tmp/iopoll.out 2>&1 &
pingpong server --bind 127.0.0.1:7000 --ring defer-taskrun --linger 60 >/tmp/pps.out 2>&1 &
i=0
while ! grep -q '^ring ' /tmp/pps.out && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
pingpong client --connect 127.0.0.1:7000 --count 2000 --linger 60 >/tmp/ppc.out 2>&1 &
i=0
while { ! grep -q '^iopoll ' /tmp/iopoll.out || ! grep -q '^rtt ' /tmp/ppc.out; } && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
say "RING iopoll $(grep -m1 '^ring ' /tmp/iopoll.out)"
say "RESULT iopoll $(grep -m1 '^iopoll ' /tmp/iopoll.out)"
say "RING pps $(grep -m1 '^ring ' /tmp/pps.out)"
say "RING ppc $(grep -m1 '^ring ' /tmp/ppc.out)"
say "RESULT ppc $(grep -m1 '^rtt ' /tmp/ppc.out || tail -n 2 /tmp/ppc.out | tr '\n' ' ')"

# the ticks that carry IOPOLL and wait counters into status
sleep $(((TICK_MS * 3 + 999) / 1000))
if [ -n "$up" ]; then
	say "JSON $(uringtune --socket $SOCK status --json 2>&1 | tr -d '\n')"
fi
finish
