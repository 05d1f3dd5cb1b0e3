#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs inside the test VM as /test.sh (busybox sh, after vm/guest-lib.sh),
# for vm/vmtest.sh: the
# NVMe disk's poll queue, uringtuned in observe mode, and iopoll_load on an
# IOPOLL ring, classic at QD1 and QD8, then hybrid (refused before 6.13).
# It only gathers; the host judges. Every report is one console line:
#
#   UTVM: KERNEL <uname -r>
#   UTVM: IO_POLL <0|1> ...             /sys/block/nvme0n1/queue/io_poll
#   UTVM: BTF <yes|no> ...
#   UTVM: DAEMON up_s=<s> | DAEMON FAILED ...
#   UTVM: RING <case> ring pid=.. fd=.. flags=0x..     iopoll_load's lines
#   UTVM: RESULT <case> iopoll completed=.. p50_us=.. ...
#   UTVM: JSON <case> {...}             uringtune status --json, ring still open
#   UTVM: CASE <case> rc=<iopoll_load's exit code> [err=<its first stderr line>]
#   UTVM: LOG <daemon log line>         warnings and errors only
SECS=${SECS:-3}
# IOPOLL state reaches status at the daemon's next tick (tick_ms below)
TICK_MS=200

say "KERNEL $(uname -r)"
wait_disk
say "IO_POLL $(cat /sys/block/nvme0n1/queue/io_poll) io_poll_delay=$(cat /sys/block/nvme0n1/queue/io_poll_delay 2>/dev/null)" \
    "queues=$(ls -d /sys/block/nvme0n1/mq/* 2>/dev/null | wc -l)"
if [ -r /sys/kernel/btf/vmlinux ]; then
	say "BTF yes size=$(stat -c %s /sys/kernel/btf/vmlinux)"
else
	say "BTF no"
fi

write_conf observe $TICK_MS -e "s|^iopoll_stats = .*|iopoll_stats = always|"
start_daemon && say "DAEMON up_s=$(since "$t0")"

# run_case NAME ARGS...: iopoll_load with --linger, status while it lingers
run_case() {
	name=$1
	shift
	out=/tmp/$name.out
	err=/tmp/$name.err
	iopoll_load --dev $DEV --seconds "$SECS" --random --linger 120 "$@" >"$out" 2>"$err" &
	pid=$!
	i=0
	# the result line comes before the linger; a refusal ends the process
	while ! grep -q '^iopoll ' "$out" && kill -0 $pid 2>/dev/null &&
	      [ $i -lt $(((SECS + 60) * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	ring=$(grep -m1 '^ring ' "$out")
	[ -z "$ring" ] || say "RING $name $ring"
	if grep -q '^iopoll ' "$out"; then
		sleep $(((TICK_MS * 3 + 999) / 1000))
		say "RESULT $name $(grep -m1 '^iopoll ' "$out")"
		if [ -n "$up" ]; then
			say "JSON $name $(uringtune --socket $SOCK status --json 2>&1 | tr -d '\n')"
		fi
		kill -TERM $pid 2>/dev/null
	fi
	wait $pid
	rc=$?
	if [ -s "$err" ]; then
		say "CASE $name rc=$rc err=$(head -n 1 "$err")"
	else
		say "CASE $name rc=$rc"
	fi
	return $rc
}

run_case classic-qd1 --qd 1
run_case classic-qd8 --qd 8
# hybrid: Linux 6.13+; an older kernel refuses the setup flag (exit 3)
if run_case hybrid-qd1 --qd 1 --hybrid; then
	run_case hybrid-qd8 --qd 8 --hybrid
fi

finish
