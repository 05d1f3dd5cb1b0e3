#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Crash consistency: a tune-mode daemon, rings churning (ringholds starting
# in bursts and exiting, a create/close churn, some killed), and the daemon
# SIGKILLed at a random point of a tuning burst (or of its own start),
# CRASH_ITERATIONS times (100). After each kill, with no daemon running, no
# ring may have NAPI on without a journal entry on disk, and every entry must
# hold a ring's original state (NAPI off: no ringhold here switches it on).
# After each restart every ring that was on is re-adopted (on, journaled,
# managed by uringtune, never taken for the application's), or restored. At
# the end SIGTERM puts every ring back and leaves the journal empty.
# CRASH_SEED replays a run (the seed is printed).
. "$(dirname "$0")/../lib.sh"

ITERATIONS=${CRASH_ITERATIONS:-100}
SEED=${CRASH_SEED:-$((($$ + SECONDS) % 32768))}
RANDOM=$SEED
log "seed $SEED, $ITERATIONS iterations"

# include_comm: only this test's rings; tick 100 ms: gone rings are found quickly
start_daemon mode=tune tick_ms=100 include_comm=ringhold iopoll_stats=off
JOURNAL=$T/state/journal

RH=()		# ringholds started by this test
# rings held the whole run: re-adopted after every restart
bg "$B/ringhold" --count 20 --hold 600 >"$T/long.out"
RH+=("${BG_PIDS[-1]}")
wait_line "$T/long.out" '^ready'

# the journal on disk: J[pid:fd:ino] = the original "enabled" it records
declare -A J
read_journal() {
	local tag rest kv pid fd ino en
	J=()
	[ -f "$JOURNAL" ] || return 0
	while read -r tag rest; do
		[ "$tag" = ring ] || continue
		for kv in $rest; do
			case $kv in
			pid=*) pid=${kv#pid=} ;;
			fd=*) fd=${kv#fd=} ;;
			ino=*) ino=${kv#ino=} ;;
			enabled=*) en=${kv#enabled=} ;;
			esac
		done
		J[$pid:$fd:$ino]=$en
	done <"$JOURNAL"
}

# fdinfo FILE: NAPI ("enabled"/"disabled"; "unknown" when fdinfo omits it
# while the ring is locked, after 100 reads) and ino of a ring, in NAPI and
# INO; fails if the fd is closed. Bash only: hundreds of rings per check.
RE_NAPI=$'NAPI:\t*([a-z]+)'
RE_INO=$'(^|\n)ino:\t*([0-9]+)'
fdinfo_read() {
	local info='' try
	NAPI=unknown INO=
	for ((try = 0; try < 100; try++)); do
		info=
		IFS= read -r -d '' info 2>/dev/null <"$1" || true
		[ -n "$info" ] || return 1
		[[ $info =~ $RE_INO ]] && INO=${BASH_REMATCH[2]}
		if [[ $info =~ $RE_NAPI ]]; then
			NAPI=${BASH_REMATCH[1]}
			return 0
		fi
	done
	return 0
}

# every ring of this test's live ringholds: "pid:fd:ino NAPI" lines
rings_now() {
	local p fd
	for p in "${RH[@]}"; do
		[ -d "/proc/$p/fd" ] || continue
		for fd in $(ls -l "/proc/$p/fd" 2>/dev/null |
			    sed -n 's/.* \([0-9]*\) -> anon_inode:\[io_uring\]$/\1/p'); do
			fdinfo_read "/proc/$p/fdinfo/$fd" || continue	# closed meanwhile
			echo "$p:$fd:$INO $NAPI"
		done
	done
}

# ring_state pid:fd:ino: that ring's NAPI in NAPI; fails if it is gone
ring_state() {
	local pid=${1%%:*} rest=${1#*:}
	local fd=${rest%%:*} ino=${rest#*:}
	fdinfo_read "/proc/$pid/fdinfo/$fd" && [ "$INO" = "$ino" ]
}

CHECKED=0 ON_AT_KILL=0 MIDWAY=0 READOPTED=0
declare -A AT_KILL	# the rings at the last kill and their NAPI state

# no daemon runs: the kernel's rings against the journal on disk
check_after_kill() {
	local key napi k n=0 on=0 midway=0
	read_journal
	AT_KILL=()
	while read -r key napi; do
		[ -n "$key" ] || continue
		n=$((n + 1))
		AT_KILL[$key]=$napi
		case $napi in
		enabled)
			on=$((on + 1))
			[ -n "${J[$key]+x}" ] ||
				fail "iteration $i: ring $key has NAPI on and no journal entry"
			;;
		disabled)
			# journaled, not changed yet: the kill came between the two
			[ -z "${J[$key]+x}" ] || midway=$((midway + 1))
			;;
		*)
			! ring_state "$key" || [ "$NAPI" != unknown ] ||
				fail "iteration $i: ring $key: no NAPI line in fdinfo"
			;;
		esac
	done < <(rings_now)
	for k in "${!J[@]}"; do
		[ "${J[$k]}" = 0 ] ||
			fail "iteration $i: journal entry $k records NAPI on as the original: $(grep "pid=${k%%:*} " "$JOURNAL")"
	done
	CHECKED=$((CHECKED + n))
	ON_AT_KILL=$((ON_AT_KILL + on))
	MIDWAY=$((MIDWAY + midway))
}

# The restarted daemon is ready (settled): the rings that were on at the
# kill are on and journaled (re-adopted), or off (restored), and never the
# application's. fdinfo is read before the journal and the ring looked at
# again after it: an entry is dropped only once its ring is gone.
check_after_restart() {
	local key by st
	local -A now=() managed=()
	for key in "${!AT_KILL[@]}"; do
		[ "${AT_KILL[$key]}" = enabled ] || continue
		ring_state "$key" && now[$key]=$NAPI
	done
	read_journal
	st=$(status_json | jq -r '.rings[] | "\(.pid):\(.fd):\(.inode) \(.managed_by)"') ||
		fail "iteration $i: no status from the restarted daemon"
	# managed[pid:fd:ino] = the ring's managed_by (bash: no fork per ring)
	while read -r key by; do
		[ -z "$key" ] || managed[$key]=$by
	done <<<"$st"
	for key in "${!now[@]}"; do
		[ "${now[$key]}" = enabled ] || continue
		READOPTED=$((READOPTED + 1))
		[ -n "${J[$key]+x}" ] || ! ring_state "$key" ||
			fail "iteration $i: ring $key on after the restart without a journal entry"
		[ "${managed[$key]:-}" != app ] ||
			fail "iteration $i: ring $key taken for the application's after the restart"
	done
}

restart() {
	"$B/uringtuned" -c "$CONF" >>"$T/daemon.log" 2>&1 &
	DAEMON_PID=$!
}

kill_daemon() {
	kill -KILL "$DAEMON_PID"
	wait "$DAEMON_PID" 2>/dev/null || true
}

# a live ringhold of this test, at random
kill_some_ringhold() {
	local p=${RH[1 + RANDOM % (${#RH[@]} - 1)]}
	[ "$p" != "${RH[0]}" ] && kill -KILL "$p" 2>/dev/null || true
}

# the restarted daemon answers, or is gone, within 15 s: polled every 20 ms
# (wait_for's 100 ms steps added ~50 ms to each of the iterations)
wait_restarted() {
	local deadline=$((SECONDS + 15))
	until daemon_up_or_gone; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.02
	done
}

START_KILLS=0
t0=$SECONDS
for i in $(seq "$ITERATIONS"); do
	# a burst of new rings (exiting by themselves 1-3 s later), sometimes a churn
	"$B/ringhold" --count $((10 + RANDOM % 30)) --hold $((1 + RANDOM % 3)) >/dev/null &
	RH+=($!)
	BG_PIDS+=($!)
	[ $((i % 5)) != 0 ] || { "$B/ringhold" --churn 300 >/dev/null & RH+=($!); BG_PIDS+=($!); }
	[ $((i % 7)) != 0 ] || [ ${#RH[@]} -lt 3 ] || kill_some_ringhold
	# 0-59 ms into the burst: journal writes, register calls, or between
	sleep "0.0$((RANDOM % 6))$((RANDOM % 10))"
	kill_daemon
	check_after_kill
	restart
	if [ $((RANDOM % 4)) = 0 ]; then
		# killed again while it starts: settling, re-adopting, taking
		sleep "0.$((RANDOM % 4))$((RANDOM % 10))"
		kill_daemon
		START_KILLS=$((START_KILLS + 1))
		check_after_kill
		restart
	fi
	wait_restarted || true
	kill -0 "$DAEMON_PID" 2>/dev/null || fail "iteration $i: the daemon did not start again"
	status_json >/dev/null || fail "iteration $i: the restarted daemon does not answer"
	check_after_restart
	# forget ringholds that are done
	live=()
	for p in "${RH[@]}"; do kill -0 "$p" 2>/dev/null && live+=("$p"); done
	RH=("${live[@]}")
done
log "$ITERATIONS iterations in $((SECONDS - t0)) s ($START_KILLS more kills during a start):" \
    "$CHECKED rings checked after kills, $ON_AT_KILL with NAPI on (all journaled)," \
    "$MIDWAY journaled but not yet changed, $READOPTED re-adopted after a restart"
[ "$MIDWAY" -gt 0 ] || log "note: no kill landed between a journal write and its register call"

# a clean stop puts every ring back and leaves nothing journaled
stop_daemon
while read -r key napi; do
	[ "$napi" = disabled ] || ! ring_state "$key" || [ "$NAPI" = disabled ] ||
		fail "ring $key left with NAPI $NAPI after SIGTERM"
done < <(rings_now)
read_journal
[ ${#J[@]} = 0 ] || fail "journal not empty after SIGTERM: $(cat "$JOURNAL")"
log "SIGTERM: every ring restored, journal empty"
