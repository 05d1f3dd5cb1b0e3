#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The read-only group (issue 16, item 6), with real users made for the test
# (and removed at its end): the control socket is root's and the status
# group's (0660); a member, by a supplementary group (SO_PEERGROUPS) or its
# primary one (SO_PEERCRED), reads status (table, --json, --ring, --watch);
# a member's set and reset are refused by the daemon, naming why; anyone
# else cannot connect, and is refused by the daemon itself when the socket
# is opened up; root does all. No group (empty key, or no such group):
# root only. Run as the unit runs it (only CAP_BPF, CAP_PERFMON,
# CAP_SYS_PTRACE: no CAP_CHOWN), the daemon gives the socket to the group
# only when it is a member (the unit's SupplementaryGroups=).
. "$(dirname "$0")/../lib.sh"
need_untuned_host

G=utro$$	# the status group
M=utm$$		# a member through a supplementary group
P=utp$$		# a member through its primary group
N=utn$$		# not a member

remove_accounts() {
	local u
	for u in "$M" "$P" "$N"; do
		userdel "$u" 2>/dev/null || true
	done
	groupdel "$G" 2>/dev/null || true
}
# then lib.sh's cleanup, with the test's exit status (set -e off: the
# accounts' removal must not end the trap early)
trap 'rc=$?; set +e; remove_accounts; (exit $rc); cleanup' EXIT

groupadd --system "$G" || fail "groupadd $G"
nologin=$(command -v nologin || echo /usr/sbin/nologin)
useradd --system --no-create-home --shell "$nologin" -G "$G" "$M" || fail "useradd $M"
useradd --system --no-create-home --shell "$nologin" -g "$G" "$P" || fail "useradd $P"
useradd --system --no-create-home --shell "$nologin" "$N" || fail "useradd $N"
gid=$(getent group "$G" | cut -d: -f3)
log "group $G ($gid); $M: $(id "$M"); $P: $(id "$P"); $N: $(id "$N")"

# as USER CMD...: CMD as that user, with the groups the user database gives it
as() {
	local u=$1
	shift
	runuser -u "$u" -- "$@"
}
# as_exec USER CMD...: the same, CMD in this process (exec: a pid to signal)
as_exec() {
	local u=$1
	shift
	exec setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups "$@"
}
# lines_at_least FILE N
lines_at_least() { [ "$(wc -l <"$1")" -ge "$2" ]; }
# the socket's directory must let them through, as the unit's 0711 /run/uringtune does
chmod 0711 "$T"

# -- 1. root, with the group: the socket is the group's, members read, changes stay root's
start_daemon mode=tune status_group="$G"
[ "$(stat -c '%a %G' "$SOCK")" = "660 $G" ] || fail "control socket is $(stat -c '%a %U:%G' "$SOCK")"
grep -q "control socket $SOCK: root's, and group $G's (gid $gid) to read status" "$T/daemon.log" ||
	fail "the daemon did not say the socket is the group's"
echo "socket: $(stat -c '%A %U:%G' "$SOCK")"
bg "$B/ringhold" >"$T/h.out"
wait_line "$T/h.out" '^ready'
read -r rpid rfd < <(ring_of "$T/h.out")
expect_ring "$rpid" "$rfd" '.managed_by == "uringtune"'

for u in "$M" "$P"; do
	as "$u" "$B/uringtune" --socket "$SOCK" status --json >"$T/$u.json" || fail "$u: status --json failed"
	jq -e --argjson p "$rpid" --argjson f "$rfd" 'any(.rings[]; .pid == $p and .fd == $f)' \
		"$T/$u.json" >/dev/null || fail "$u: status --json does not list ring $rpid:$rfd"
	as "$u" "$B/uringtune" --socket "$SOCK" status >"$T/$u.table" || fail "$u: status failed"
	grep -qE "^$rpid +ringhold +$rfd " "$T/$u.table" || { cat "$T/$u.table"; fail "$u: the table lacks the ring"; }
	as "$u" "$B/uringtune" --socket "$SOCK" status --ring "$rpid:$rfd" --json | jq -e .napi >/dev/null ||
		fail "$u: status --ring failed"
	# --watch, stopped by SIGINT once it drew 2 frames (a frame a second:
	# measured 1.0 s; 30 s is only "they came"): exit 0, each frame one JSON line
	(as_exec "$u" "$B/uringtune" --socket "$SOCK" status --watch --json) >"$T/$u.watch" &
	watch=$!
	BG_PIDS+=("$watch")
	wait_for_timed 30 "$u: status --watch --json: 2 frames" lines_at_least "$T/$u.watch" 2 ||
		fail "$u: status --watch --json: $(wc -l <"$T/$u.watch") lines in 30 s, expected 2: $(head -c 300 "$T/$u.watch")"
	rc=0
	kill -INT "$watch"
	wait "$watch" || rc=$?
	[ "$rc" = 0 ] || fail "$u: status --watch stopped by SIGINT exited $rc"
	jq -e .rings "$T/$u.watch" >/dev/null ||
		fail "$u: status --watch --json: a line without .rings: $(head -c 300 "$T/$u.watch")"
	uid=$(id -u "$u")
	expect_error 1 "uringtune: daemon: set: permission denied: changes are root's; uid $uid may read status only \(a member of group $G\)" \
		as "$u" "$B/uringtune" --socket "$SOCK" set "$rpid:$rfd" --busy-poll-us 77
	expect_error 1 "uringtune: daemon: reset: permission denied: changes are root's; uid $uid may read status only \(a member of group $G\)" \
		as "$u" "$B/uringtune" --socket "$SOCK" reset
	echo "$u (member): status, --json, --ring, --watch read; set and reset refused"
done
# nothing they asked was done
expect_ring "$rpid" "$rfd" '.managed_by == "uringtune" and (.tuning.pinned | not) and .napi.busy_poll_us != 77'

# not a member: the socket's mode refuses it, and the CLI says who may
uid=$(id -u "$N")
expect_error 1 "uringtune: cannot connect to $SOCK: Permission denied \(reading status needs root or membership of group $G; changes need root\)" \
	as "$N" "$B/uringtune" --socket "$SOCK" status
# the socket opened to all: the daemon refuses it by its credentials
chmod 0666 "$SOCK"
expect_error 1 "uringtune: daemon: permission denied: uid $uid is neither root nor a member of group $G \(who may read status\)" \
	as "$N" "$B/uringtune" --socket "$SOCK" status --json
expect_error 1 "uringtune: daemon: permission denied: uid $uid is neither root nor a member of group $G" \
	as "$N" "$B/uringtune" --socket "$SOCK" set "$rpid:$rfd" --busy-poll-us 77
wait_line "$T/daemon.log" "refused client pid [0-9]+ uid $uid: permission denied"
chmod 0660 "$SOCK"
echo "$N (not a member): refused by the socket's mode, and by the daemon"

# root: everything
"$B/uringtune" --socket "$SOCK" set "$rpid:$rfd" --busy-poll-us 77
expect_napi "$rpid" "$rfd" '^enabled/dynamic/77000/false$' 2
"$B/uringtune" --socket "$SOCK" reset "$rpid:$rfd"
expect_napi "$rpid" "$rfd" '^disabled$' 2
echo "root: set and reset"
stop_daemon

# -- 2. no group: root only, whatever the users' groups
for g in "" "utnone$$"; do
	start_daemon status_group="$g"
	[ "$(stat -c %a "$SOCK")" = 600 ] || fail "status_group '$g': socket mode $(stat -c %a "$SOCK")"
	if [ -z "$g" ]; then
		grep -q "control socket $SOCK: root's only (\[daemon\] status_group is empty)" "$T/daemon.log" ||
			fail "no line on the empty status_group"
	else
		grep -q "control socket $SOCK: root's only: group $g does not exist" "$T/daemon.log" ||
			fail "no line on the missing group"
	fi
	expect_error 1 "uringtune: cannot connect to $SOCK: Permission denied \(the socket is root-only: run as root\)" \
		as "$M" "$B/uringtune" --socket "$SOCK" status
	chmod 0666 "$SOCK"
	expect_error 1 "uringtune: daemon: permission denied: uid $(id -u "$M") is not root, and no group may read status" \
		as "$M" "$B/uringtune" --socket "$SOCK" status
	"$B/uringtune" --socket "$SOCK" status >/dev/null || fail "root's status refused"
	stop_daemon
	echo "status_group '$g': root only"
done

# -- 3. the unit's capabilities (no CAP_CHOWN): the group only through membership
# start_unit_like [setpriv args]: the daemon with only the unit's capabilities
start_unit_like() {
	write_config status_group="$G"
	setpriv "$@" --bounding-set=-all,+bpf,+perfmon,+sys_ptrace --inh-caps=-all -- \
		"$B/uringtuned" -c "$CONF" -v >>"$T/daemon.log" 2>&1 &
	DAEMON_PID=$!
	wait_for 15 status_json || fail "uringtuned with the unit's capabilities did not answer"
	# CAP_CHOWN is bit 0: not in the daemon's effective set
	(( (0x$(sed -n 's/^CapEff:\t*//p' "/proc/$DAEMON_PID/status") & 1) == 0 )) ||
		fail "the daemon holds CAP_CHOWN"
}
: >"$T/daemon.log"
start_unit_like --clear-groups
[ "$(stat -c %a "$SOCK")" = 600 ] || fail "without CAP_CHOWN nor the group: socket mode $(stat -c %a "$SOCK")"
wait_line "$T/daemon.log" "control socket $SOCK: cannot give it to group $G: Operation not permitted"
expect_error 1 "Permission denied" as "$M" "$B/uringtune" --socket "$SOCK" status
stop_daemon
echo "unit's capabilities, not in the group: the socket stays root's (logged)"
start_unit_like --groups "$gid"
[ "$(stat -c '%a %G' "$SOCK")" = "660 $G" ] ||
	fail "with SupplementaryGroups: socket is $(stat -c '%a %U:%G' "$SOCK")"
as "$M" "$B/uringtune" --socket "$SOCK" status --json | jq -e .rings >/dev/null || fail "member's status"
stop_daemon
echo "unit's capabilities and SupplementaryGroups=$G: the socket is the group's, members read"
