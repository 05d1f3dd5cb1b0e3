#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs inside the test VM as /test.sh (busybox sh, after vm/guest-lib.sh),
# for vm/vmtest.sh, with the fio layer (vm/run.sh with UT_VM_FIO=1), after
# guest-iopoll.sh in the same boot (THEN=agent-fio) or alone (a hybrid
# re-measurement): programs under `uringtune exec`, with uringtuned in
# mode = tune answering the agent. Each case is WORKLOAD-MODE[N]:
#
#   WORKLOAD  fio              fio (unmodified; ioengine=io_uring, hipri=1),
#                              QD1 4 KiB random reads
#             iopoll_qd1       iopoll_load, QD1 4 KiB random reads
#             iopoll_qd8       iopoll_load, QD8 4 KiB random reads
#             iopoll_seq128k   iopoll_load, QD1 128 KiB sequential reads
#             warmup           iopoll_load as iopoll_qd1, a program of its own
#                              run once each way first: the daemon learns the
#                              host's hybrid sleep from it (no CSV row)
#   MODE      classic          uringtune exec --hybrid off
#             hybrid           uringtune exec --hybrid on (the agent adds
#                              HYBRID_IOPOLL at setup; a kernel before 6.13
#                              refuses it with EINVAL and the agent sets the
#                              ring up with the program's own flags)
#             auto             uringtune exec --hybrid auto (uringtuned
#                              decides from what it measured of the program)
#   N         a repeat (classic2: the second classic run of the workload)
#
# iopoll_load runs as a copy named after the workload (/tmp/bin/iopoll_qd1,
# ...): uringtuned keeps its hybrid verdicts per program (comm and
# executable), and each workload is a program of its own here.
#
# It only gathers; the host judges. Every report is one console line:
#
#   UTVM: KERNEL <uname -r>
#   UTVM: IO_POLL <0|1>
#   UTVM: FIO <fio --version> | FIO missing
#   UTVM: AGENT <path> | AGENT missing
#   UTVM: EXEC yes | EXEC no <why>       uringtune exec --help
#   UTVM: DAEMON up_s=<s> agent_socket=<yes|no> | DAEMON FAILED ...
#   UTVM: RING <case> ring pid=.. fd=.. flags=0x..   iopoll_load's first line
#   UTVM: RESULT <case> iopoll completed=.. p50_us=.. ...   iopoll_load's result
#   UTVM: JSON <case> {...}              uringtune status --json while it runs
#   UTVM: WINDOW <case> seen_s=<s>|none  when status first showed a closed window
#   UTVM: EXECLOG <case> <line>          stderr of uringtune exec -v and the program
#   UTVM: FIOJSON <case> {...}           fio's --output-format=json, on one line
#   UTVM: CASE <case> rc=<exit code> run_s=<wall time of uringtune exec>
#   UTVM: LOG <daemon log line>          warnings and errors only
#
# Environment (the host prepends it): SECS the runtime of each run (3),
# CASES the cases to run, in order ("fio-classic fio-hybrid").
SECS=${SECS:-3}
CASES=${CASES:-fio-classic fio-hybrid}
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
mkdir -p /tmp/bin
for w in warmup iopoll_qd1 iopoll_qd8 iopoll_seq128k; do
	cp /bin/iopoll_load /tmp/bin/$w
done

# a fresh state directory: after guest-iopoll.sh in the same boot, nothing
# of its observe-mode daemon is carried over
rm -rf /tmp/uringtune /tmp/textfile
write_conf tune $TICK_MS
if start_daemon; then
	s=no
	[ -S $AGENT_SOCK ] && s=yes
	say "DAEMON up_s=$(since "$t0") agent_socket=$s"
fi

# status_during NAME PID: uringtune status --json into /tmp/NAME.status
# while the program runs, late enough that the daemon has closed a
# measurement window of the ring (iopoll.window, the advice's input: it
# closes after 1 s and 200 reads, at a tick), and asked the same way in
# every mode: under TCG both vCPUs share one host thread, and whatever runs
# beside the program slows it, so status is asked once, twice at most.
status_during() {
	f=/tmp/$1.status
	# the ring's setup: iopoll_load prints it, the agent (-v) says it for
	# fio, which takes ~1 s to load its 60-odd libraries first
	i=0
	while [ $i -lt 100 ] && kill -0 "$2" 2>/dev/null; do
		case $1 in
		fio-*) grep -q 'ring fd' "/tmp/$1.err" && break ;;
		*) grep -q '^ring ' "/tmp/$1.out" && break ;;
		esac
		sleep 0.1
		i=$((i + 1))
	done
	t=$(now)
	sleep "$(awk -v s="$SECS" 'BEGIN { print (s - 0.8 > 1.2 ? s - 0.8 : 1.2) }')"
	seen=none
	for try in 1 2; do
		kill -0 "$2" 2>/dev/null || break
		uringtune --socket $SOCK status --json >$f 2>&1
		if grep -q '"window":{[^}]*"reads":[1-9]' $f; then
			seen=$(since "$t")
			break
		fi
		[ $try = 2 ] || sleep 0.3
	done
	say "WINDOW $1 seen_s=$seen tries=$try"
}

# run_case CASE: one run, as the header says
run_case() {
	name=$1
	wl=${name%-*}
	mode=${name##*-}
	case $mode in
	classic*) want=off ;;
	hybrid*) want=on ;;
	auto*) want=auto ;;
	*) say "ERROR unknown case $name"; return ;;
	esac
	case $wl in
	fio)	set -- fio --name="$name" --filename=$DEV --ioengine=io_uring --hipri=1 \
			--direct=1 --rw=randread --bs=4k --iodepth=1 --runtime="$SECS" \
			--time_based --lat_percentiles=1 --output-format=json ;;
	iopoll_qd1|warmup) set -- /tmp/bin/$wl --dev $DEV --seconds "$SECS" --random --qd 1 ;;
	iopoll_qd8) set -- /tmp/bin/$wl --dev $DEV --seconds "$SECS" --random --qd 8 ;;
	iopoll_seq128k) set -- /tmp/bin/$wl --dev $DEV --seconds "$SECS" --qd 1 --bs 131072 ;;
	*) say "ERROR unknown workload in $name"; return ;;
	esac
	tc=$(now)
	uringtune exec --hybrid $want --agent-socket $AGENT_SOCK -v -- "$@" \
		>"/tmp/$name.out" 2>"/tmp/$name.err" &
	pid=$!
	[ -z "$up" ] || status_during "$name" $pid
	[ -z "$up" ] || say "JSON $name $(tr -d '\n' </tmp/$name.status 2>/dev/null)"
	wait $pid
	rc=$?
	head -n 20 /tmp/$name.err | while IFS= read -r l; do say "EXECLOG $name $l"; done
	if [ "$wl" = fio ]; then
		say "FIOJSON $name $(tr -d '\n' </tmp/$name.out | tr -s ' \t' ' ')"
	else
		l=$(grep -m1 '^ring ' "/tmp/$name.out")
		[ -z "$l" ] || say "RING $name $l"
		l=$(grep -m1 '^iopoll ' "/tmp/$name.out")
		[ -z "$l" ] || say "RESULT $name $l"
	fi
	say "CASE $name rc=$rc run_s=$(since "$tc")"
}

for c in $CASES; do
	run_case "$c"
done

finish
