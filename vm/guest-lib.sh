#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# What the guest scripts share (busy box sh). vm/vmtest.sh puts this file in
# front of the guest script it boots (guest-iopoll.sh, guest-agent-fio.sh):
# the console lines, the NVMe disk, the configuration and uringtuned's start.
DEV=/dev/nvme0n1
SOCK=/run/uringtune/uringtune.sock
AGENT_SOCK=/run/uringtune/agent.sock
CONF=/tmp/uringtune.ini

say() { echo "UTVM: $*"; }
now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# wait_disk: the NVMe disk appears (it may take a moment after /init), else exit 1
wait_disk() {
	i=0
	while [ ! -b $DEV ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ ! -b $DEV ]; then
		say "ERROR no $DEV (block devices: $(ls /sys/block | tr '\n' ' '))"
		exit 1
	fi
}

# write_conf MODE TICK_MS [SED_EXPR ...]: the shipped configuration with the
# sockets in /run and the state in /tmp. Its two sockets are told apart by
# section ([daemon] socket is the CLI's, [agent] socket the agents'): two
# sockets at one path would take each other's place.
write_conf() {
	mode=$1
	tick=$2
	shift 2
	mkdir -p /tmp/uringtune/state /tmp/textfile
	sed -e "/^\[daemon\]/,/^\[/ s|^socket = .*|socket = $SOCK|" \
	    -e "/^\[agent\]/,/^\[/ s|^socket = .*|socket = $AGENT_SOCK|" \
	    -e "s|^state_dir = .*|state_dir = /tmp/uringtune/state|" \
	    -e "s|^textfile_dir = .*|textfile_dir = /tmp/textfile|" \
	    -e "s|^tick_ms = .*|tick_ms = $tick|" \
	    -e "s|^mode = .*|mode = $mode|" \
	    "$@" /etc/uringtune/uringtune.ini >$CONF
}

# the whole daemon log goes to the console log (verifier logs are long), its
# warnings and errors also as UTVM: LOG lines
daemon_log() {
	echo "--- uringtuned log"
	cat /tmp/daemon.log
	echo "--- end of uringtuned log"
	grep -E 'warning:|error:' /tmp/daemon.log | head -n 20 |
		while IFS= read -r l; do say "LOG $l"; done
}

# start_daemon: uringtuned on $CONF, in the background (dpid); up=1 once it
# answers on $SOCK (up to 60 s), else up empty. t0 is its start.
start_daemon() {
	t0=$(now)
	uringtuned -c $CONF --foreground -v >/tmp/daemon.log 2>&1 &
	dpid=$!
	up=
	i=0
	while [ $i -lt 600 ]; do
		if uringtune --socket $SOCK status --json >/dev/null 2>&1; then
			up=1
			break
		fi
		kill -0 $dpid 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	if [ -z "$up" ]; then
		say "DAEMON FAILED (not answering on $SOCK after $((i / 10)) s): $(grep -m1 'error:' /tmp/daemon.log)"
		return 1
	fi
}

# stop_daemon: stop uringtuned (if it is up), its log to the console log
stop_daemon() {
	if [ -n "$up" ]; then
		kill -TERM $dpid
		wait $dpid
		say "DAEMON stopped rc=$?"
	fi
	up=
	daemon_log
}

# finish: stop uringtuned, then its log and the kernel's own complaints (NVMe
# timeouts, BPF, warnings: "quiet" keeps them off the console while the test
# runs) go to the console log; exit 0 (the host judges)
finish() {
	stop_daemon
	echo "--- dmesg (nvme, warnings, errors)"
	dmesg | grep -iE 'nvme|timeout|abort|reset|warn|error|bug|bpf|io_uring' | grep -v 'command line'
	echo "--- end of dmesg"
	exit 0
}
