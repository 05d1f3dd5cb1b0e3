# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Shared helpers of the integration tests: a private daemon per test, network
# namespaces joined by veth with NAPI on, JSON queries, cleanup on exit.
# Source it from a test: `. "$(dirname "$0")/../lib.sh"`.

set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

B=build
T=$(mktemp -d /tmp/uringtune-test.XXXXXX)
SOCK=$T/uringtune.sock
AGENT_SOCK=$T/agent.sock
CONF=$T/uringtune.ini
DAEMON_PID=
BG_PIDS=()
NETNS=()

log() { echo "# $*"; }
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }

cleanup() {
	local rc=$?
	local p
	for p in "${BG_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
	done
	if [ -n "$DAEMON_PID" ]; then
		kill -TERM "$DAEMON_PID" 2>/dev/null || true
		wait "$DAEMON_PID" 2>/dev/null || true
		# (not on a skip: its reason must stay the last line)
		if [ $rc -ne 0 ] && [ $rc -ne 77 ] && [ -f "$T/daemon.log" ]; then
			echo "--- daemon log (last 30 lines)"
			tail -n 30 "$T/daemon.log"
		fi
	fi
	for p in "${BG_PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	for p in "${NETNS[@]}"; do
		ip netns del "$p" 2>/dev/null || true
	done
	# mounts a test made under its directory (tmpfs for read-only cases)
	awk -v t="$T/" 'index($2, t) == 1 {print $2}' /proc/mounts | sort -r |
		while read -r m; do umount -l "$m" 2>/dev/null || true; done
	rm -rf "$T"
	exit $rc
}
trap cleanup EXIT

# run a command in the background, remembered for cleanup
bg() {
	"$@" &
	BG_PIDS+=($!)
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds
wait_for() {
	local secs=$1
	shift
	local deadline=$((SECONDS + secs))
	while ! "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.1
	done
}

# wait_for_timed SECONDS LABEL CMD...: wait_for, and say how long it took:
# "# LABEL after 0.42 s (bound 30 s)", or "# LABEL: not within 30 s" (then
# returns 1). The time waited, in ms, is left in WAITED_MS. For waits on an
# event whose timing is a bench target: the bound only says "it came".
WAITED_MS=
wait_for_timed() {
	local secs=$1 label=$2 t0 rc=0
	shift 2
	t0=$(date +%s%N)
	wait_for "$secs" "$@" || rc=$?
	WAITED_MS=$((($(date +%s%N) - t0) / 1000000))
	if [ $rc = 0 ]; then
		log "$label after $((WAITED_MS / 1000)).$(printf %02d $((WAITED_MS % 1000 / 10))) s (bound $secs s)"
	else
		log "$label: not within $secs s"
	fi
	return $rc
}

# the shipped configuration with this test's socket, state and export
# directories (never the host's)
# The process names of this suite's own programs. A tune-mode daemon started
# by a test takes only their rings unless the test gives [select] rules of
# its own: a host running the suite may run io_uring services of its own,
# and a test must never tune them (nor count on their absence).
TEST_COMMS="pingpong ringhold mshot fdhold ringpass ringentry agent_hostile iopoll_load nopbench fio true ut-other"

write_config() {
	local tune=0 own_select=0 arg
	for arg in "$@"; do
		case $arg in
		mode=tune) tune=1 ;;
		include_*=* | exclude_*=*) own_select=1 ;;
		esac
	done
	if [ "$tune" = 1 ] && [ "$own_select" = 0 ]; then
		set -- "$@" include_comm="$TEST_COMMS"
	fi
	mkdir -p "$T/textfile"
	# [daemon] socket is the first "socket =" line, [agent]'s the second
	sed -e "0,/^socket = .*/s||socket = $SOCK|" \
	    -e "s|^socket = /run/uringtune/agent.sock|socket = $AGENT_SOCK|" \
	    -e "s|^page = .*|page = $T/agent.page|" \
	    -e "s|^state_dir = .*|state_dir = $T/state|" \
	    -e "s|^textfile_dir = .*|textfile_dir = $T/textfile|" \
	    config/uringtune.ini >"$CONF"
	local kv k v
	for kv in "$@"; do
		k=${kv%%=*}
		v=${kv#*=}
		if grep -q "^$k = " "$CONF"; then
			sed -i "s|^$k = .*|$k = $v|" "$CONF"
		elif grep -q "^# $k = " "$CONF"; then
			# the shipped file shows optional keys commented out
			sed -i "0,/^# $k = .*/s||$k = $v|" "$CONF"
		else
			fail "write_config: no key $k in config/uringtune.ini"
		fi
	done
}

# the pid of the uringtuned that tunes this host (it holds the fixed
# /run/uringtune/tune.lock, see /proc/locks), empty if none
host_tuner() {
	local dev ino
	read -r dev ino < <(stat -c '%Hd %Ld %i' /run/uringtune/tune.lock 2>/dev/null |
		awk '{ printf "%02x:%02x %s\n", $1, $2, $3 }') || return 0
	awk -v f="$dev:$ino" '$2 == "FLOCK" && $4 == "WRITE" && $6 == f { print $5 }' /proc/locks
}

# need_untuned_host: a test whose rings must stay as it made them (or that
# starts tune-mode daemons itself) skips where another daemon tunes this host
need_untuned_host() {
	local pid
	pid=$(host_tuner)
	[ -z "$pid" ] ||
		skip "uringtuned (pid $pid) tunes this host and would change this test's rings (one tuning daemon per host)"
}

# the daemon answers, or is gone (nothing to wait for then)
daemon_up_or_gone() {
	"$B/uringtune" --socket "$SOCK" status --json >/dev/null 2>&1 ||
		! kill -0 "$DAEMON_PID" 2>/dev/null
}

# start_daemon [key=value ...]: a private uringtuned, ready when it answers.
# One daemon per host tunes: a tune-mode one refused because another (a
# service) tunes this host skips the test, with the daemon's line as reason.
start_daemon() {
	local refused
	write_config "$@"
	"$B/uringtuned" -c "$CONF" -v >"$T/daemon.log" 2>&1 &
	DAEMON_PID=$!
	wait_for 15 daemon_up_or_gone || true
	if ! kill -0 "$DAEMON_PID" 2>/dev/null; then
		refused=$(grep -m1 'is tuning this host' "$T/daemon.log" || true)
		[ -z "$refused" ] || skip "$refused"
		fail "uringtuned exited at start"
	fi
	status_json >/dev/null || fail "uringtuned did not answer on $SOCK within 15 s"
}

stop_daemon() {
	kill -TERM "$DAEMON_PID"
	wait "$DAEMON_PID"
	DAEMON_PID=
}

status_json() {
	"$B/uringtune" --socket "$SOCK" status --json
}

# ring PID FD: that ring's JSON object, empty if absent
ring() {
	status_json | jq -c --argjson pid "$1" --argjson fd "$2" \
		'.rings[] | select(.pid == $pid and .fd == $fd)'
}

# wait_ring_json SELECT: the first ring of status for which the jq SELECT
# holds, as compact JSON, within 10 s; returns 1 if none came
wait_ring_json() {
	local r
	for _ in $(seq 100); do
		r=$(status_json | jq -c "[.rings[] | select($1)][0] // empty")
		[ -z "$r" ] || { echo "$r"; return 0; }
		sleep 0.1
	done
	return 1
}

# ring_jq PID FD FILTER: FILTER applied to that ring; fails if the ring is absent
ring_jq() {
	local r
	r=$(ring "$1" "$2")
	[ -n "$r" ] || return 1
	jq -e "$3" <<<"$r"
}

# expect_ring PID FD FILTER [SECONDS]: wait until FILTER holds for the ring
expect_ring() {
	local secs=${4:-5}
	if ! wait_for "$secs" ring_jq "$1" "$2" "$3"; then
		echo "ring pid=$1 fd=$2 does not satisfy: $3"
		echo "ring is: $(ring "$1" "$2")"
		fail "expectation on ring pid=$1 fd=$2"
	fi
}

# expect_error EXPECTED_RC REGEX CMD...: exactly one stderr line matching REGEX
expect_error() {
	local want=$1 re=$2 rc=0
	shift 2
	"$@" >"$T/out" 2>"$T/err" || rc=$?
	echo "\$ $* -> exit $rc: $(cat "$T/err")"
	[ "$rc" = "$want" ] || fail "exit status $rc, expected $want"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "expected one line on stderr, got: $(cat "$T/err")"
	grep -qE "$re" "$T/err" || fail "stderr does not match /$re/"
	[ ! -s "$T/out" ] || fail "unexpected stdout: $(cat "$T/out")"
}

# wait_line FILE REGEX [SECONDS]: wait until a line of FILE matches
wait_line() {
	wait_for "${3:-10}" grep -qE "$2" "$1" || { cat "$1"; fail "no line /$2/ in $1"; }
}

# field KEY LINE: value of key=value in a tool's output line
field() {
	sed -nE "s/.*(^| )$1=([^ ]*).*/\\2/p" <<<"$2"
}

# Two namespaces joined by veth, NAPI on (KERNEL_NOTES: GRO on, TSO off).
# Addresses are namespace-local: 198.18.0.1 (NS_A) and 198.18.0.2 (NS_B).
netns_setup() {
	NS_A=ut-a-$$
	NS_B=ut-b-$$
	ip netns add "$NS_A" || skip "cannot create network namespaces"
	NETNS+=("$NS_A")
	ip netns add "$NS_B"
	NETNS+=("$NS_B")
	ip link add ut-va netns "$NS_A" type veth peer name ut-vb netns "$NS_B"
	ip -n "$NS_A" addr add 198.18.0.1/30 dev ut-va
	ip -n "$NS_B" addr add 198.18.0.2/30 dev ut-vb
	ip netns exec "$NS_A" ethtool -K ut-va tso off gro on >/dev/null
	ip netns exec "$NS_B" ethtool -K ut-vb tso off gro on >/dev/null
	ip -n "$NS_A" link set lo up
	ip -n "$NS_B" link set lo up
	ip -n "$NS_A" link set ut-va up
	ip -n "$NS_B" link set ut-vb up
}

# fdinfo_snapshot PID FD: the ring's /proc/PID/fdinfo/FD, read whole once.
# The kernel prints the NAPI lines only when it gets the ring's lock: a ring
# that busy-polls holds it often (measured: 44 of 200 reads of a ping-pong
# ring at 30 us prefer had none). So take the first read (of up to 100) that
# has them; the last read if none does (the ring is then gone or locked).
fdinfo_snapshot() {
	local info i
	for i in $(seq 100); do
		info=$(cat "/proc/$1/fdinfo/$2" 2>/dev/null) || return 1
		grep -q '^NAPI:' <<<"$info" && break
	done
	printf '%s\n' "$info"
}

# fdinfo PID FD KEY: a field of that snapshot ("NAPI", "napi tracking",
# "napi_busy_poll_dt", "napi_prefer_busy_poll")
fdinfo() {
	fdinfo_snapshot "$1" "$2" | sed -n "s/^$3:\t*//p"
}

# napi_state PID FD: "disabled", or "enabled/<tracking>/<dt ns>/<prefer>", all
# from one snapshot
napi_state() {
	local info
	info=$(fdinfo_snapshot "$1" "$2") || return 0
	awk -F '\t' '
		$1 == "NAPI:" { on = $2 }
		$1 == "napi tracking:" { track = $2 }
		$1 == "napi_busy_poll_dt:" { dt = $2 }
		$1 == "napi_prefer_busy_poll:" { prefer = $2 }
		END { if (on == "enabled") print on "/" track "/" dt "/" prefer; else print on }' <<<"$info"
}

# expect_napi PID FD REGEX [SECONDS]: wait until napi_state matches
expect_napi() {
	local secs=${4:-5}
	napi_matches() { [[ "$(napi_state "$1" "$2")" =~ $3 ]]; }
	wait_for "$secs" napi_matches "$1" "$2" "$3" ||
		fail "ring pid=$1 fd=$2: fdinfo NAPI state '$(napi_state "$1" "$2")', expected /$3/"
}

# ring_line FILE: the first "ring pid=.. fd=.." line of a tool's output, as "PID FD"
ring_of() {
	ring_n_of "$1" 1
}

# ring_n_of FILE N: "PID FD" of the Nth "ring pid=.. fd=.." line of a tool's
# output (ringhold --count N prints one per ring)
ring_n_of() {
	local l
	l=$(grep '^ring ' "$1" | sed -n "$2p")
	echo "$(field pid "$l") $(field fd "$l")"
}

# busy_pingpong [LINGER]: a UDP ping-pong over the test's veth pair
# (netns_setup), both rings busy-polling 50 us, 20000 pings; the client then
# keeps its ring open LINGER seconds (60). Returns once the client printed
# its RTT; outputs in $T/server.out and $T/client.out.
busy_pingpong() {
	bg ip netns exec "$NS_B" "$B/pingpong" server --bind 198.18.0.2:7000 \
		--napi-busy-poll-us 50 >"$T/server.out"
	wait_line "$T/server.out" '^ring '
	bg ip netns exec "$NS_A" "$B/pingpong" client --connect 198.18.0.2:7000 \
		--count 20000 --napi-busy-poll-us 50 --linger "${1:-60}" >"$T/client.out"
	wait_line "$T/client.out" '^rtt ' 60
}

# AGENT_EXEC ARGS... -- CMD...: uringtune exec against this test's daemon's
# agent socket (an array, so that `ip netns exec NS "${AGENT_EXEC[@]}" ...` works)
AGENT_EXEC=("$B/uringtune" exec --agent-socket "$AGENT_SOCK")

# kill_bg: end every background command (and forget them)
kill_bg() {
	local p
	for p in "${BG_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
	done
	wait "${BG_PIDS[@]}" 2>/dev/null || true
	BG_PIDS=()
}

# NOBODY CMD...: run CMD as an unprivileged user (an array, like AGENT_EXEC)
NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups)

# HOSTILE ARGS...: tests/tools/agent_hostile against this test's agent socket
HOSTILE=("$B/agent_hostile" --socket "$AGENT_SOCK")

# spawn_at_pid PID CMD...: CMD in the background as process PID, through the
# init namespace's ns_last_pid (PID must be free); fails after 50 misses
spawn_at_pid() {
	local want=$1 i
	shift
	for i in $(seq 50); do
		echo $((want - 1)) >/proc/sys/kernel/ns_last_pid
		"$@" &
		if [ "$!" = "$want" ]; then
			BG_PIDS+=($!)
			return 0
		fi
		kill -KILL $! 2>/dev/null || true
		wait $! 2>/dev/null || true
	done
	return 1
}

# agent_backlog: connections queued on the agent socket, not yet accepted
agent_backlog() {
	ss -xlH src "$AGENT_SOCK" | awk '{ print $3 }'
}
