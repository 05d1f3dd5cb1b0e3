#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The systemd unit, checked offline (PID 1 need not be systemd): `make
# install` into a staging root (man pages included, checked with groff; bash
# completion; the sysusers file, run by systemd-sysusers into that root, makes
# the group the unit's SupplementaryGroups= and status_group name), `systemd-analyze verify` of the installed
# unit against the installed binary, `systemd-analyze security` under an
# exposure of 3.0, and the daemon run with exactly the unit's capabilities:
# it starts, answers, and tunes a ring owned by another user; then each
# capability beyond what every BPF program needs is shown necessary by
# running without it.
. "$(dirname "$0")/../lib.sh"
need_untuned_host

ROOT=$T/root
B=$PWD/build

# -- make install, as a packager would (DESTDIR: no root needed)
make -s install DESTDIR="$ROOT" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install"; }
UNIT=$(find "$ROOT" -name uringtune.service -path '*/systemd/system/*')
[ -n "$UNIT" ] || fail "make install installed no uringtune.service"
for f in usr/sbin/uringtuned usr/bin/uringtune usr/lib/uringtune/liburingtune-agent.so \
	 etc/uringtune/uringtune.ini \
	 usr/share/man/man8/uringtuned.8.gz usr/share/man/man8/uringtune.8.gz \
	 usr/share/man/man5/uringtune.ini.5.gz \
	 usr/share/bash-completion/completions/uringtune usr/lib/sysusers.d/uringtune.conf; do
	[ -f "$ROOT/$f" ] || fail "make install did not install /$f"
done
# the read-only group: the sysusers file creates the group the unit joins
# (SupplementaryGroups=: the daemon, without CAP_CHOWN, can give its socket
# only to a group it belongs to) and the configuration names by default
sysgroup=$(awk '$1 == "g" { print $2 }' "$ROOT/usr/lib/sysusers.d/uringtune.conf")
[ "$sysgroup" = uringtune ] || fail "sysusers.d/uringtune.conf creates group '$sysgroup'"
[ "$(sed -n 's/^SupplementaryGroups=//p' "$UNIT")" = "$sysgroup" ] ||
	fail "the unit's SupplementaryGroups= is not $sysgroup"
[ "$(sed -n 's/^status_group = //p' "$ROOT/etc/uringtune/uringtune.ini")" = "$sysgroup" ] ||
	fail "the shipped status_group is not $sysgroup"
# systemd-sysusers reads it as it would at package installation (into the
# staging root, not the host's group file)
mkdir -p "$ROOT/etc"
touch "$ROOT/etc/group" "$ROOT/etc/passwd" "$ROOT/etc/shadow" "$ROOT/etc/gshadow"
systemd-sysusers --root="$ROOT" >"$T/sysusers.out" 2>&1 || { cat "$T/sysusers.out"; fail "systemd-sysusers"; }
grep -q '^uringtune:x:[0-9]*:$' "$ROOT/etc/group" || { cat "$ROOT/etc/group"; fail "systemd-sysusers made no group uringtune"; }
echo "sysusers: $(grep '^uringtune:' "$ROOT/etc/group") (the unit's SupplementaryGroups=, the default status_group)"
echo "installed: $(cd "$ROOT" && find . -type f | sed 's|^\.||' | sort | tr '\n' ' ')"
# an existing configuration is kept; the shipped one goes next to it
echo "# edited by the operator" >>"$ROOT/etc/uringtune/uringtune.ini"
make -s install DESTDIR="$ROOT" >"$T/install2.log" 2>&1 || { cat "$T/install2.log"; fail "second make install"; }
tail -n 1 "$ROOT/etc/uringtune/uringtune.ini" | grep -q '^# edited by the operator$' ||
	fail "make install overwrote an existing uringtune.ini"
cmp -s config/uringtune.ini "$ROOT/etc/uringtune/uringtune.ini.dist" ||
	fail "make install did not put the shipped uringtune.ini next to the existing one as .dist"
grep -h '^install: kept' "$T/install2.log"
# the man pages render without a single groff warning
groff -man -Tutf8 -ww -z man/*.8 man/*.5 >"$T/groff.out" 2>&1 || true
[ ! -s "$T/groff.out" ] || { cat "$T/groff.out"; fail "groff warns about the man pages"; }
echo "man pages: $(cd man && echo *) render cleanly"

# -- systemd-analyze verify, inside the staging root so that ExecStart=
# resolves to the installed binary. The root holds only our files, so it
# gets what systemd and an Essential package would bring on a real host:
# the targets a service's default dependencies name and /bin/sh
# (ExecReload=: the shell's kill builtin sends SIGHUP).
# Documentation= is checked with man(1) on the host: MANPATH points it at the
# installed pages.
unitdir=$(dirname "$UNIT")
hostunits=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
for u in sysinit.target basic.target shutdown.target; do
	cp "$hostunits/$u" "$unitdir/"
done
mkdir -p "$ROOT/bin"
cp /bin/sh "$ROOT/bin/sh"
verify() {
	MANPATH=$ROOT/usr/share/man systemd-analyze --root="$ROOT" verify "$UNIT" >"$T/verify.out" 2>&1
}
verify || { cat "$T/verify.out"; fail "systemd-analyze verify"; }
[ ! -s "$T/verify.out" ] || { cat "$T/verify.out"; fail "systemd-analyze verify said something"; }
echo "systemd-analyze verify: clean"
# and it does look at the binary: without it, verify fails
mv "$ROOT/usr/sbin/uringtuned" "$T/uringtuned.moved"
if verify; then
	fail "systemd-analyze verify passed without the ExecStart binary: it checks nothing"
fi
grep -q 'uringtuned is not executable' "$T/verify.out" || { cat "$T/verify.out"; fail "unexpected verify error"; }
mv "$T/uringtuned.moved" "$ROOT/usr/sbin/uringtuned"

# -- ExecReload=: the file is checked first (`uringtuned --check-config -c`
# on ExecStart='s file), then SIGHUP; systemd runs them in order and stops at
# the first that fails, so a broken file fails `systemctl reload` and no
# signal goes out. Both commands run here from the staging root.
mapfile -t reload < <(sed -n 's/^ExecReload=//p' "$UNIT")
[ "${#reload[@]}" = 2 ] || fail "expected two ExecReload= lines, got ${#reload[@]}: ${reload[*]}"
conf=$(sed -nE 's/^ExecStart=.* -c ([^ ]+).*/\1/p' "$UNIT")
[ "${reload[0]}" = "/usr/sbin/uringtuned --check-config -c $conf" ] ||
	fail "the first ExecReload= is not the check of $conf: ${reload[0]}"
[ "${reload[1]}" = "/bin/sh -c 'kill -HUP \"\$\$MAINPID\"'" ] || fail "the second ExecReload= is not the SIGHUP: ${reload[1]}"
read -ra check <<<"${reload[0]}"
out=$("$ROOT${check[0]}" "${check[@]:1:2}" "$ROOT$conf" 2>&1) || fail "ExecReload= check of the installed file: $out"
[ "$out" = "$ROOT$conf: ok" ] || fail "ExecReload= check said: $out"
echo "ExecReload= check: $out"
sed -i 's/^tick_ms = .*/tick_ms = 5/' "$ROOT$conf"
rc=0
out=$("$ROOT${check[0]}" "${check[@]:1:2}" "$ROOT$conf" 2>&1) || rc=$?
[ "$rc" = 1 ] || fail "ExecReload= check of a broken file exited $rc: $out"
[ "$out" = "$ROOT$conf: [daemon] tick_ms: expected an integer from 50 to 60000, got '5'" ] ||
	fail "ExecReload= check of a broken file said: $out"
echo "ExecReload= check of a broken file: exit 1: $out"
cp config/uringtune.ini "$ROOT$conf"

# -- systemd-analyze security. systemd 252 takes the threshold in tenths
# (an integer 0-100: 30 is an exposure of 3.0; "3.0" does not parse).
if ! systemd-analyze security --offline=yes --threshold=30 "$UNIT" >"$T/security.out" 2>&1; then
	grep -E '^✗|Overall' "$T/security.out" || cat "$T/security.out"
	fail "systemd-analyze security: exposure above 3.0"
fi
exposure=$(sed -nE 's/.*Overall exposure level for [^:]*: ([0-9.]+).*/\1/p' "$T/security.out")
[ -n "$exposure" ] || { cat "$T/security.out"; fail "no overall exposure level in the report"; }
echo "systemd-analyze security: overall exposure $exposure (threshold 3.0)"

# -- the unit's capabilities
unit_list() { sed -n "s/^$1=//p" "$UNIT" | tr ' ' '\n' | grep . | sort; }
[ "$(unit_list CapabilityBoundingSet)" = "$(unit_list AmbientCapabilities)" ] ||
	fail "CapabilityBoundingSet= and AmbientCapabilities= differ"
mapfile -t CAPS < <(unit_list CapabilityBoundingSet)
echo "unit capabilities: ${CAPS[*]}"
for c in CAP_BPF CAP_PERFMON CAP_SYS_PTRACE; do
	[[ " ${CAPS[*]} " == *" $c "* ]] || fail "the unit lacks $c"
done

# setpriv's list for CAP_NAME ...: "+name,..."
setpriv_caps() {
	local c out=
	for c in "$@"; do
		c=${c#CAP_}
		out+=",+${c,,}"
	done
	echo "${out#,}"
}
# CapEff mask of CAP_NAME ...
cap_mask() {
	local c n mask=0
	for c in "$@"; do
		n=$(sed -nE "s/^#define ${c}[[:space:]]+([0-9]+).*/\\1/p" /usr/include/linux/capability.h)
		[ -n "$n" ] || fail "unknown capability $c"
		mask=$((mask | (1 << n)))
	done
	printf '%016x\n' "$mask"
}
without() {
	local c
	for c in "${CAPS[@]}"; do
		[ "$c" = "$1" ] || echo "$c"
	done
}

# start_capped CAP... -- [key=value...]: the daemon as root with only those
# capabilities, tune mode, touching only rings of user nobody (other tests
# on this host may have rings of their own)
start_capped() {
	local caps=()
	while [ "$1" != -- ]; do
		caps+=("$1")
		shift
	done
	shift
	write_config mode=tune include_uid=nobody "$@"
	grep -q '^include_uid = nobody$' "$CONF" || fail "cannot select user nobody in $CONF"
	setpriv --bounding-set=-all,"$(setpriv_caps "${caps[@]}")" --inh-caps=-all -- \
		"$B/uringtuned" -c "$CONF" -v >>"$T/daemon.log" 2>&1 &
	DAEMON_PID=$!
	wait_for 30 status_json || fail "uringtuned with ${caps[*]} did not answer within 30 s"
	local eff
	eff=$(sed -n 's/^CapEff:\t*//p' "/proc/$DAEMON_PID/status")
	[ "$eff" = "$(cap_mask "${caps[@]}")" ] ||
		fail "uringtuned runs with CapEff $eff, expected $(cap_mask "${caps[@]}") (${caps[*]})"
	log "uringtuned pid $DAEMON_PID, CapEff $eff: ${caps[*]}"
}

# hold_ring NAME: a ring of user nobody; sets NAME_PID and NAME_FD
early_PID='' early_FD='' newer_PID='' newer_FD='' traced_PID='' traced_FD=''
hold_ring() {
	bg setpriv --reuid=nobody --regid=nogroup --clear-groups "$B/ringhold" --hold 120 >"$T/$1.out"
	wait_line "$T/$1.out" '^ready$'
	local pid fd
	read -r pid fd < <(ring_of "$T/$1.out")
	[ "$(stat -c %U "/proc/$pid")" = nobody ] || fail "ring $1 does not belong to nobody"
	printf -v "${1}_PID" %s "$pid"
	printf -v "${1}_FD" %s "$fd"
}

# rings are the host's: another tune-mode daemon (someone else's test) would
# take this test's rings too, and ours would then see them as the app's
others=$(pgrep -x uringtuned | tr '\n' ' ' || true)
[ -z "$others" ] || log "note: other uringtuned running ($others): they may touch this test's rings"

# 1. exactly the unit's capabilities: a ring found by the first sweep and one
# announced by its io_uring_create event, both of user nobody, both tuned.
# tick_ms = 60000: no sweep fills in what the event path could not learn.
hold_ring early
start_capped "${CAPS[@]}" -- tick_ms=60000
hold_ring late
for r in early late; do
	pid=${r}_PID fd=${r}_FD
	expect_ring "${!pid}" "${!fd}" '.managed_by == "uringtune" and .tuning.error == null and .inode > 0'
	expect_napi "${!pid}" "${!fd}" '^enabled/'
	echo "ring of nobody ($r) pid=${!pid} fd=${!fd}: $(napi_state "${!pid}" "${!fd}"), inode $(ring_jq "${!pid}" "${!fd}" .inode)"
done
# and a DEFER_TASKRUN ring of nobody, through the agent: nobody reaches the
# 0666 agent socket (the directory above it must let it through, as the
# unit's 0711 /run/uringtune does) and gets the page as a read-only fd
chmod 0711 "$T"
bg setpriv --reuid=nobody --regid=nogroup --clear-groups "$B/uringtune" exec \
	--agent-socket "$AGENT_SOCK" --napi -- "$B/ringhold" --flags defer-taskrun --hold 120 \
	>"$T/agent-ring.out"
wait_line "$T/agent-ring.out" '^ready'
read -r apid afd < <(ring_of "$T/agent-ring.out")
expect_napi "$apid" "$afd" '^enabled/'
expect_ring "$apid" "$afd" '.managed_via == "agent" and .agent.napi_at_setup == "registered"'
echo "ring of nobody through the agent pid=$apid fd=$afd: $(napi_state "$apid" "$afd")"
[ "$(stat -c %a "$AGENT_SOCK")" = 666 ] || fail "agent socket mode $(stat -c %a "$AGENT_SOCK")"
# the page reaches agents as a descriptor: on disk it is root's alone (issue 12)
[ "$(stat -c %a "$T/agent.page")" = 600 ] || fail "agent page mode $(stat -c %a "$T/agent.page")"
"$B/uringtune" --socket "$SOCK" status
stop_daemon
for r in early late; do
	pid=${r}_PID fd=${r}_FD
	expect_napi "${!pid}" "${!fd}" '^disabled$'
done
echo "stopped: exit 0, both rings restored"

# 2. without CAP_SYS_PTRACE: pidfd_getfd on nobody's ring is refused (EPERM),
# and status says so
if [[ " ${CAPS[*]} " == *" CAP_SYS_PTRACE "* ]]; then
	mapfile -t less < <(without CAP_SYS_PTRACE)
	start_capped "${less[@]}" --
	expect_ring "$early_PID" "$early_FD" \
		'.managed_by == "none" and (.tuning.error | test("pidfd_getfd.*Operation not permitted"))'
	echo "without CAP_SYS_PTRACE: tuning.error = $(ring_jq "$early_PID" "$early_FD" .tuning.error)"
	[ "$(napi_state "$early_PID" "$early_FD")" = disabled ] || fail "the ring changed anyway"
	stop_daemon
fi

# 3. no CAP_DAC_READ_SEARCH needed: a new ring of another user is announced
# with its inode by the io_uring_create program itself (/proc/PID/fd is its
# owner's to search), so the identity check before pidfd_getfd has it at
# once, long before any sweep (one a minute here)
[[ " ${CAPS[*]} " != *" CAP_DAC_READ_SEARCH "* ]] ||
	fail "the unit grants CAP_DAC_READ_SEARCH, which the daemon no longer needs"
start_capped "${CAPS[@]}" -- tick_ms=60000
hold_ring newer
expect_ring "$newer_PID" "$newer_FD" '.inode > 0'
want=$(stat -L -c %i "/proc/$newer_PID/fd/$newer_FD")
[ "$(ring_jq "$newer_PID" "$newer_FD" .inode)" = "$want" ] ||
	fail "inode $(ring_jq "$newer_PID" "$newer_FD" .inode), the fd says $want"
echo "without CAP_DAC_READ_SEARCH: the new ring of nobody has its inode ($want) from the event"
stop_daemon

# 4. the kernel's word on CAP_BPF and CAP_PERFMON: loading the programs with
# either alone fails, with both it works (bpftool, not the daemon, which
# refuses to start without both). A private bpffs in a private mount
# namespace: nothing stays pinned.
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
load_with() {
	mkdir -p "$T/bpffs"
	# shellcheck disable=SC2016 # $1 is the inner shell's
	unshare -m --propagation private sh -c '
		mount -t bpf bpf "$1" || exit 99
		shift
		exec "$@"' _ "$T/bpffs" \
		setpriv --bounding-set=-all,"$(setpriv_caps "$@")" --inh-caps=-all -- \
		"$BPFTOOL" prog loadall "$B/napi_trace.bpf.o" "$T/bpffs/p" >"$T/bpftool.out" 2>&1
}
load_with CAP_BPF CAP_PERFMON || { tail -5 "$T/bpftool.out"; fail "BPF programs do not load with CAP_BPF and CAP_PERFMON"; }
for c in CAP_BPF CAP_PERFMON; do
	if load_with "$c"; then
		fail "the BPF programs load with $c alone"
	fi
	echo "$c alone: $(grep -m1 -E 'not permitted|Operation' "$T/bpftool.out" | sed 's/^libbpf: //')"
done

# 5. the system call filter: every system call the daemon makes while it
# starts, tunes, reloads, answers, resets and stops, and those of
# ExecReload='s --check-config, is allowed by SystemCallFilter= (needs strace)
if command -v strace >/dev/null; then
	expand() {
		local g
		for g in "$@"; do
			if [[ $g == @* ]]; then
				# shellcheck disable=SC2046
				expand $(systemd-analyze syscall-filter "$g" | sed -nE 's/^    ([^# ][^ ]*)$/\1/p')
			else
				echo "$g"
			fi
		done
	}
	# shellcheck disable=SC2046
	expand $(sed -n 's/^SystemCallFilter=//p' "$UNIT") | sort -u >"$T/allowed"
	write_config mode=tune include_uid=nobody
	strace -f -qq -o "$T/strace.out" \
		setpriv --bounding-set=-all,"$(setpriv_caps "${CAPS[@]}")" --inh-caps=-all -- \
		env NOTIFY_SOCKET="$T/notify.sock" WATCHDOG_USEC=400000 \
		"$B/uringtuned" -c "$CONF" >>"$T/daemon.log" 2>&1 &
	DAEMON_PID=$!
	wait_for 30 status_json || fail "uringtuned under strace did not answer"
	hold_ring traced
	expect_ring "$traced_PID" "$traced_FD" '.managed_by == "uringtune"' 10
	# strace's child: setpriv, then env, then uringtuned, one pid
	pid=$(pgrep -P "$DAEMON_PID")
	[ "$(cat "/proc/$pid/comm")" = uringtuned ] || fail "strace's child $pid is not uringtuned"
	kill -HUP "$pid"
	sleep 0.5
	"$B/uringtune" --socket "$SOCK" reset >/dev/null
	kill -TERM "$pid"
	wait "$DAEMON_PID" || fail "uringtuned under strace exited $?"
	DAEMON_PID=
	# from the exec of uringtuned on, that process's calls only
	awk -v p="$pid" '$1 == p' "$T/strace.out" |
		awk '/execve\(.*uringtuned/ { on = 1 } on { sub(/^[0-9]+ +/, ""); sub(/\(.*/, ""); print }' |
		grep -vE '^(\+\+\+|---|<\.\.\.)' | sort -u >"$T/used"
	[ -s "$T/used" ] || fail "strace saw no system calls"
	# ExecReload='s check runs under the same filter
	strace -f -qq -o "$T/strace-check.out" "$B/uringtuned" --check-config -c "$CONF" >/dev/null ||
		fail "uringtuned --check-config under strace failed"
	awk '/execve\(.*uringtuned/ { on = 1 } on { sub(/^[0-9]+ +/, ""); sub(/\(.*/, ""); print }' \
		"$T/strace-check.out" | grep -vE '^(\+\+\+|---|<\.\.\.)' >>"$T/used"
	sort -u -o "$T/used" "$T/used"
	denied=$(comm -23 "$T/used" "$T/allowed")
	[ -z "$denied" ] || fail "system calls outside SystemCallFilter=: $denied"
	echo "SystemCallFilter= allows all $(wc -l <"$T/used") system calls uringtuned made"
else
	echo "strace not installed: SystemCallFilter= not checked against the daemon's calls"
fi
