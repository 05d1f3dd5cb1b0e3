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
#   UTVM: STATUS_WAIT <case> s=<s> polls=<n>  how long until status had the run's count
#   UTVM: CASE <case> rc=<iopoll_load's exit code> [err=<its first stderr line>]
#   UTVM: PHASE agent-fio ...           THEN=agent-fio: guest-agent-fio.sh follows
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
		res=$(grep -m1 '^iopoll ' "$out")
		say "RESULT $name $res"
		if [ -n "$up" ]; then
			# status once the daemon's tick has read the ring's last
			# completion (an event, not a sleep: the ring's completions
			# equal the run's count; 0.2-0.6 s here); after 10 s as it is
			# (the host then names the difference)
			n=$(echo "$res" | sed -n 's/.* completed=\([0-9]*\).*/\1/p')
			ts=$(now)
			i=0
			while :; do
				j=$(uringtune --socket $SOCK status --json 2>&1 | tr -d '\n')
				case $j in *"\"completions\":$n,"*) break ;; esac
				[ $i -lt 100 ] || break
				sleep 0.1
				i=$((i + 1))
			done
			say "JSON $name $j"
			say "STATUS_WAIT $name s=$(since "$ts") polls=$((i + 1))"
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

# THEN=agent-fio: vm/vmtest.sh appended vm/guest-agent-fio.sh to this script
# (one boot per kernel, with the fio layer): this daemon stops here, its log
# goes to the console, and the agent part starts its own in tune mode after
# the PHASE line (where the host splits the boot's lines in two)
if [ "${THEN:-}" = agent-fio ]; then
	stop_daemon
	say "PHASE agent-fio uptime_s=$(now)"
else
	finish
fi
