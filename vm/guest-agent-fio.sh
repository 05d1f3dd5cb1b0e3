#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs inside the test VM as /test.sh (busybox sh, after vm/guest-lib.sh),
# for vm/vmtest.sh, in a
# boot of its own with the fio layer (vm/run.sh with UT_VM_FIO=1): an
# unmodified program, fio, under `uringtune exec`, with uringtuned in
# mode = tune answering the agent. fio reads the NVMe disk through an IOPOLL
# ring (ioengine=io_uring, hipri=1) at QD1, once per case:
#
#   classic  uringtune exec --hybrid off -- fio ...
#   hybrid   uringtune exec --hybrid on  -- fio ...   (the agent adds
#            HYBRID_IOPOLL at setup; a kernel before 6.13 refuses it with
#            EINVAL and the agent sets the ring up with fio's own flags)
#
# It only gathers; the host judges. Every report is one console line:
#
#   UTVM: KERNEL <uname -r>
#   UTVM: IO_POLL <0|1>
#   UTVM: FIO <fio --version> | FIO missing
#   UTVM: AGENT <path> | AGENT missing
#   UTVM: EXEC yes | EXEC no <why>       uringtune exec --help
#   UTVM: DAEMON up_s=<s> agent_socket=<yes|no> | DAEMON FAILED ...
#   UTVM: JSON <case> {...}              uringtune status --json while fio runs
#   UTVM: EXECLOG <case> <line>          stderr of uringtune exec -v and fio
#   UTVM: FIOJSON <case> {...}           fio's --output-format=json, on one line
#   UTVM: CASE <case> rc=<exit code> run_s=<wall time of uringtune exec>
#   UTVM: LOG <daemon log line>          warnings and errors only
#
# Environment (the host prepends it): SECS fio's runtime (3), CASES the
# cases to run, in order ("classic hybrid").
SECS=${SECS:-3}
CASES=${CASES:-classic hybrid}
TICK_MS=500

say "KERNEL $(uname -r)"

wait_disk
say "IO_POLL $(cat /sys/block/nvme0n1/queue/io_poll)"

# what the host needs to tell "not built" from "broken"
if [ -x /usr/bin/fio ]; then
	say "FIO $(fio --version 2>&1 | head -n 1)"
else
	say "FIO missing"
fi
agent=
for a in /bin/liburingtune-agent.so /usr/lib/uringtune/liburingtune-agent.so; do
	[ -f $a ] && { agent=$a; break; }
done
say "AGENT ${agent:-missing}"
if uringtune exec --help >/tmp/exec-help 2>&1; then
	say "EXEC yes"
else
	say "EXEC no $(head -n 1 /tmp/exec-help)"
fi

write_conf tune $TICK_MS
if start_daemon; then
	s=no
	[ -S $AGENT_SOCK ] && s=yes
	say "DAEMON up_s=$(since "$t0") agent_socket=$s"
fi

# run_case NAME HYBRID: fio under uringtune exec; uringtune status while
# fio's ring is open. Status is asked as little as possible (once the ring
# is listed, once more a tick later): under TCG both vCPUs share one host
# thread, and whatever runs beside fio slows it down.
run_case() {
	name=$1
	t=$(now)
	uringtune exec --hybrid "$2" --agent-socket $AGENT_SOCK -v -- \
		fio --name="$name" --filename=$DEV --ioengine=io_uring --hipri=1 --direct=1 \
		--rw=randread --bs=4k --iodepth=1 --runtime="$SECS" --time_based \
		--output-format=json >"/tmp/$name.json" 2>"/tmp/$name.err" &
	pid=$!
	# fio takes about a second to load its 60-odd libraries here
	sleep 1
	i=0
	seen=
	while [ -n "$up" ] && kill -0 $pid 2>/dev/null && [ $i -lt $((SECS * 10 + 100)) ]; do
		if uringtune --socket $SOCK status --json >/tmp/$name.status 2>&1 &&
		   grep -q '"comm": *"fio"' /tmp/$name.status; then
			seen=1
			break
		fi
		sleep 0.2
		i=$((i + 2))
	done
	if [ -n "$seen" ]; then
		# a tick later: what the daemon made of the agent's report
		sleep "$(awk -v t=$TICK_MS 'BEGIN { print t / 1000 + 0.1 }')"
		uringtune --socket $SOCK status --json >/tmp/$name.status 2>&1
	fi
	[ -z "$up" ] || say "JSON $name $(tr -d '\n' </tmp/$name.status 2>/dev/null)"
	wait $pid
	rc=$?
	head -n 20 /tmp/$name.err | while IFS= read -r l; do say "EXECLOG $name $l"; done
	say "FIOJSON $name $(tr -d '\n' </tmp/$name.json | tr -s ' \t' ' ')"
	say "CASE $name rc=$rc run_s=$(since "$t")"
}

for c in $CASES; do
	case $c in
	classic) run_case classic off ;;
	hybrid) run_case hybrid on ;;
	*) say "ERROR unknown case $c" ;;
	esac
done

finish
