#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The test inside the systemd guest (vm/run-systemd.sh puts it on the
# payload disk as test.sh; utvm.service runs it once the system is up):
# the package under test installed with dpkg and run by the real systemd,
# PID 1. Each check prints one line
#
#   UTVM: CHECK <name> ok|FAIL <what was seen>
#
# and the exit code is the number of failed checks (0: all passed). What it
# proves, in order: dpkg -i works and the postinst enables and starts the
# unit; `systemctl start` returns with the unit active (Type=notify: after
# READY=1) and StatusText set; the daemon's effective capabilities are
# exactly CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE; an unmodified ping-pong pair
# over veth (two network namespaces) is tuned (status and fdinfo); a reload
# the daemon cannot honour in full warns; `systemctl reload` of a broken
# file fails and the daemon keeps running (same MainPID), and a broken file
# behind its back (SIGHUP) is refused by the daemon itself; with
# WatchdogSec=5s a SIGSTOPped daemon is killed and restarted by systemd and
# the new instance re-adopts the tuned rings from its journal; `systemctl
# stop` restores the rings; `journalctl -u uringtune -p warning` shows the
# daemon's warnings and errors with their priorities; `dpkg -r` stops the
# service and the rings are restored.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
P=/utvm
CONF=/etc/uringtune/uringtune.ini
UNIT=uringtune.service
NS_A=ut-a
NS_B=ut-b
fails=0

# each check line ends with when it was decided: [at N s] of the test
pass() { local n=$1; shift; echo "UTVM: CHECK $n ok $* [at $(since "$t_test") s]"; }
bad() { local n=$1; shift; echo "UTVM: CHECK $n FAIL $* [at $(since "$t_test") s]"; fails=$((fails + 1)); }
note() { echo "UTVM: NOTE $*"; }
now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
t_test=$(now)
prop() { systemctl show -P "$1" "$UNIT" 2>/dev/null; }
status_json() { uringtune status --json 2>/dev/null; }

# wait_for SECONDS CMD...: until CMD succeeds (every 0.2 s)
wait_for() {
	local end=$(( $(date +%s) + $1 ))
	shift
	while ! "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# napi_state PID FD: "disabled", "enabled/<tracking>/<dt ns>/<prefer>" from
# the ring's fdinfo (6.12 prints no tracking line: "enabled//<dt>/<prefer>"),
# "gone" without the ring. fdinfo is a trylock: a read without the ring's
# lines is retried.
napi_state() {
	local info
	for _ in $(seq 100); do
		info=$(cat "/proc/$1/fdinfo/$2" 2>/dev/null) || { echo gone; return; }
		grep -q '^NAPI:' <<<"$info" && break
	done
	awk -F '\t' '
		$1 == "NAPI:" { on = $2 }
		$1 == "napi tracking:" { track = $2 }
		$1 == "napi_busy_poll_dt:" { dt = $2 }
		$1 == "napi_prefer_busy_poll:" { prefer = $2 }
		END { if (on == "") print "no-napi-lines"; else if (on == "enabled") print on "/" track "/" dt "/" prefer; else print on }' <<<"$info"
}

# ring_json PID FD: the ring's object in the daemon's status
ring_json() {
	status_json | jq -c --argjson p "$1" --argjson f "$2" '.rings[]? | select(.pid == $p and .fd == $f)'
}
ring_tuned() {
	ring_json "$1" "$2" | jq -e '.managed_by == "uringtune" and .napi.enabled == true' >/dev/null 2>&1
}
both_tuned() { ring_tuned "$sp" "$sf" && ring_tuned "$cp" "$cf"; }
fdinfo_enabled() { case $(napi_state "$1" "$2") in enabled/*) return 0 ;; esac; return 1; }
both_fdinfo_enabled() { fdinfo_enabled "$sp" "$sf" && fdinfo_enabled "$cp" "$cf"; }
both_restored() { [ "$(napi_state "$sp" "$sf")" = "$before_s" ] && [ "$(napi_state "$cp" "$cf")" = "$before_c" ]; }
rings_state() { echo "server $(napi_state "$sp" "$sf"), client $(napi_state "$cp" "$cf")"; }
active_running() { [ "$(prop ActiveState)/$(prop SubState)" = active/running ]; }

echo "UTVM: KERNEL $(uname -r)"

# -- the system: systemd is PID 1
comm=$(cat /proc/1/comm)
state=$(systemctl is-system-running 2>/dev/null)
if [ "$comm" = systemd ]; then
	pass pid1 "PID 1 is $(readlink /proc/1/exe) ($(systemctl --version | head -n 1)), system $state"
else
	bad pid1 "PID 1 is '$comm', not systemd"
fi
failed_units=$(systemctl --failed --plain --no-legend | awk '{ print $1 }' | paste -sd' ')
[ -z "$failed_units" ] || note "failed units: $failed_units"
if modprobe veth 2>/tmp/modprobe.err; then
	pass veth-module "veth loaded from /lib/modules/$(uname -r) ($(modinfo -F vermagic veth | cut -d' ' -f1))"
else
	bad veth-module "modprobe veth: $(cat /tmp/modprobe.err)"
fi

# -- dpkg -i; the postinst enables and starts the unit (Debian policy)
deb=$(ls "$P"/*.deb 2>/dev/null | head -n 1)
t0=$(now)
if out=$(dpkg -i "$deb" 2>&1); then
	pass dpkg-install "$(basename "$deb") installed in $(since "$t0") s: $(dpkg-query -W -f '${Package} ${Version} ${Status}' uringtune)"
else
	bad dpkg-install "dpkg -i $(basename "$deb"): $(tail -n 3 <<<"$out" | paste -sd'|')"
fi
en=$(systemctl is-enabled "$UNIT" 2>&1)
ac=$(systemctl is-active "$UNIT" 2>&1)
if [ "$en" = enabled ] && [ "$ac" = active ]; then
	pass postinst "the unit is $en and $ac after dpkg -i (mode $(status_json | jq -r .daemon.mode))"
else
	bad postinst "after dpkg -i the unit is '$en' and '$ac', expected enabled and active"
fi
note "systemd-analyze security: $(systemd-analyze security "$UNIT" 2>/dev/null | tail -n 1)"

# -- mode = tune, WatchdogSec=5s, and a ping-pong pair before the daemon
systemctl stop "$UNIT"
cp "$CONF" /tmp/uringtune.ini.orig
sed -i 's/^mode = observe$/mode = tune/' "$CONF"
grep -q '^mode = tune$' "$CONF" || bad config "no 'mode = observe' line in $CONF to switch to tune"
cp "$CONF" /tmp/uringtune.ini.tune
mkdir -p /etc/systemd/system/$UNIT.d
printf '[Service]\nWatchdogSec=5s\n' >/etc/systemd/system/$UNIT.d/watchdog.conf
systemctl daemon-reload

ip netns add $NS_A && ip netns add $NS_B &&
ip link add ut-va netns $NS_A type veth peer name ut-vb netns $NS_B &&
ip -n $NS_A addr add 198.18.0.1/30 dev ut-va &&
ip -n $NS_B addr add 198.18.0.2/30 dev ut-vb &&
ip netns exec $NS_A ethtool -K ut-va tso off gro on >/dev/null &&
ip netns exec $NS_B ethtool -K ut-vb tso off gro on >/dev/null &&
ip -n $NS_A link set lo up && ip -n $NS_B link set lo up &&
ip -n $NS_A link set ut-va up && ip -n $NS_B link set ut-vb up ||
	bad veth "the veth pair between two namespaces could not be set up"
ip netns exec $NS_B "$P/pingpong" server --bind 198.18.0.2:7000 >/tmp/server.out 2>&1 &
wait_for 10 grep -q '^ring ' /tmp/server.out
# light and endless: 10 pings, 50 ms idle, for the whole test
ip netns exec $NS_A "$P/pingpong" client --connect 198.18.0.2:7000 --count 100000000 \
	--burst 10 --gap-ms 50 >/tmp/client.out 2>&1 &
wait_for 10 grep -q '^ring ' /tmp/client.out
ring_of() { local l; l=$(grep -m1 '^ring ' "$1"); sed -nE 's/.* pid=([0-9]+) fd=([0-9]+).*/\1 \2/p' <<<"$l"; }
read -r sp sf < <(ring_of /tmp/server.out)
read -r cp cf < <(ring_of /tmp/client.out)
if [ -z "${sp:-}" ] || [ -z "${cp:-}" ]; then
	bad pingpong "no ring line from pingpong: server '$(head -n 2 /tmp/server.out | paste -sd'|')' client '$(head -n 2 /tmp/client.out | paste -sd'|')'"
	sp=${sp:-0} sf=${sf:-0} cp=${cp:-0} cf=${cf:-0}
	before_s=gone before_c=gone
else
	before_s=$(napi_state "$sp" "$sf")
	before_c=$(napi_state "$cp" "$cf")
	pass pingpong "server ring pid=$sp fd=$sf, client ring pid=$cp fd=$cf over veth; before the daemon: server $before_s, client $before_c"
fi

# -- systemctl start: returns once READY=1 came (Type=notify)
t0=$(now)
if systemctl start "$UNIT"; then
	st="$(prop ActiveState)/$(prop SubState)"
	if [ "$st" = active/running ]; then
		pass start "systemctl start returned after $(since "$t0") s with $st (Type=$(prop Type), READY=1)"
	else
		bad start "systemctl start returned with $st, expected active/running"
	fi
else
	bad start "systemctl start failed: $(systemctl status "$UNIT" --no-pager 2>&1 | tail -n 5 | paste -sd'|')"
fi
stext=$(prop StatusText)
if [ -n "$stext" ]; then pass status-text "StatusText=$stext"; else bad status-text "StatusText is empty"; fi
wd=$(prop WatchdogUSec)
[ "$wd" = 5s ] || bad watchdog-dropin "WatchdogUSec=$wd, expected 5s from the drop-in"
pid=$(prop MainPID)
nr0=$(prop NRestarts)

# -- capabilities: exactly CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE
capeff=$(awk '/^CapEff:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
names=$(capsh --decode="$capeff" 2>/dev/null | sed 's/.*=//')
[ -n "$names" ] || names=$(awk -v h="$capeff" 'BEGIN {
	split("chown dac_override dac_read_search fowner fsetid kill setgid setuid setpcap linux_immutable net_bind_service net_broadcast net_admin net_raw ipc_lock ipc_owner sys_module sys_rawio sys_chroot sys_ptrace sys_pacct sys_admin sys_boot sys_nice sys_resource sys_time sys_tty_config mknod lease audit_write audit_control setfcap mac_override mac_admin syslog wake_alarm block_suspend audit_read perfmon bpf checkpoint_restore", n, " ")
	for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	for (b = 0; b < 41; b++) { if (int(v / 2 ^ b) % 2) s = s (s ? "," : "") "cap_" n[b + 1] }
	print s }')
# bits 19 (sys_ptrace), 38 (perfmon), 39 (bpf)
if [ "$capeff" = 000000c000080000 ]; then
	pass capabilities "CapEff of MainPID $pid is $capeff = $names"
else
	bad capabilities "CapEff of MainPID $pid is ${capeff:-unreadable} = $names, expected 000000c000080000 (cap_sys_ptrace,cap_perfmon,cap_bpf)"
fi

# -- the pair is tuned
t0=$(now)
if wait_for 30 both_tuned && wait_for 10 both_fdinfo_enabled; then
	pass tuned "both rings managed_by uringtune with NAPI after $(since "$t0") s: $(ring_json "$sp" "$sf" | jq -c '{pid, fd, managed_by, napi: .napi | {enabled, busy_poll_us}}'); fdinfo $(rings_state)"
else
	bad tuned "not both rings tuned within 40 s: status $(ring_json "$sp" "$sf" | jq -c '{managed_by, napi, tuning}') / $(ring_json "$cp" "$cf" | jq -c '{managed_by, napi, tuning}'); fdinfo $(rings_state)"
fi

# -- a multishot server (one recvmsg over a buffer ring, armed before the
# first packet): taken, and the NAPI IDs seen on its sockets are the ones
# the kernel busy-polls once traffic has flowed (issue 24)
ip netns exec $NS_B "$P/mshot" server --pattern udp-multishot --bind 198.18.0.2:7001 --quiet \
	>/tmp/ms-server.out 2>&1 &
ms_server=$!
wait_for 10 grep -q '^ring ' /tmp/ms-server.out
ip netns exec $NS_A "$P/mshot" client --pattern udp-multishot --connect 198.18.0.2:7001 --quiet \
	--seconds 600 >/tmp/ms-client.out 2>&1 &
ms_client=$!
read -r msp msf < <(ring_of /tmp/ms-server.out)
ms_ids_polled() {
	ring_json "${msp:-0}" "${msf:-0}" | jq -e '.managed_by == "uringtune" and (.napi_ids | length) > 0 and
		(.napi_ids | sort) == (.kernel_napi_ids | sort)' >/dev/null 2>&1
}
t0=$(now)
if [ -n "${msp:-}" ] && wait_for 60 ms_ids_polled; then
	pass multishot-ids "multishot server ring pid=$msp fd=$msf: after $(since "$t0") s $(ring_json "$msp" "$msf" | jq -c '{napi_ids, kernel_napi_ids, napi_list_by, windows: .busy_poll.windows}')"
else
	bad multishot-ids "multishot server ring pid=${msp:-?} fd=${msf:-?}: $(ring_json "${msp:-0}" "${msf:-0}" | jq -c '{managed_by, napi_ids, kernel_napi_ids, napi_list_by, napi_ids_not_polled, decisions: [.tuning.decisions[]?.why]}') ($(head -n 2 /tmp/ms-server.out /tmp/ms-client.out | paste -sd'|'))"
fi
kill "$ms_client" "$ms_server" 2>/dev/null
wait "$ms_client" "$ms_server" 2>/dev/null

# -- a reload the daemon cannot honour in full: it warns (mode changes
# at the next start only)
sed -i 's/^mode = tune$/mode = observe/' "$CONF"
if systemctl reload "$UNIT" && wait_for 5 sh -c 'journalctl -u uringtune -p warning -o cat | grep -q "mode change to observe"'; then
	pass reload-warns "systemctl reload with mode = observe: exit 0, the daemon warns: $(journalctl -u uringtune -p warning -o cat | grep -m1 'mode change')"
else
	bad reload-warns "no warning about the mode change after systemctl reload"
fi
cp /tmp/uringtune.ini.tune "$CONF"
systemctl reload "$UNIT" || bad reload "systemctl reload of the tune configuration failed"

# -- systemctl reload of a broken file: fails visibly, the daemon stays
sed -i 's/^tick_ms = .*/tick_ms = 5/' "$CONF"
jcur=$(journalctl -u uringtune --show-cursor -n 0 2>/dev/null | sed -n 's/^-- cursor: //p')
out=$(systemctl reload "$UNIT" 2>&1)
rrc=$?
# the check's error reaches the journal about when reload returns (an
# event, up to 5 s, instead of a fixed 0.5 s)
journal_tick_ms() { journalctl -u uringtune --after-cursor="$jcur" -o cat 2>/dev/null | grep -q 'tick_ms'; }
wait_for 5 journal_tick_ms
jerr=$(journalctl -u uringtune --after-cursor="$jcur" -o cat 2>/dev/null | grep -m1 'tick_ms')
if [ $rrc -ne 0 ] && [ -n "$jerr" ] && [ "$(prop MainPID)" = "$pid" ] && active_running; then
	pass reload-broken "systemctl reload exit $rrc ($(head -n 1 <<<"$out")); journal: '$jerr'; MainPID $pid still $(prop ActiveState)/$(prop SubState)"
else
	bad reload-broken "systemctl reload exit $rrc (expected non-zero), journal '${jerr:-nothing}', MainPID $(prop MainPID) (was $pid), $(prop ActiveState)/$(prop SubState)"
fi
# the same file behind systemd's back (SIGHUP): the daemon refuses it itself
systemctl kill -s HUP --kill-who=main "$UNIT"
if wait_for 5 sh -c 'uringtune status --json | jq -e ".daemon.reload.last == \"refused\"" >/dev/null' &&
   [ "$(prop MainPID)" = "$pid" ] && active_running; then
	pass reload-refused "SIGHUP with the broken file: daemon.reload $(status_json | jq -c .daemon.reload); MainPID $pid still active"
else
	bad reload-refused "after SIGHUP with a broken file: daemon.reload $(status_json | jq -c .daemon.reload), MainPID $(prop MainPID) (was $pid), $(prop ActiveState)"
fi
cp /tmp/uringtune.ini.tune "$CONF"
systemctl reload "$UNIT" || bad reload "systemctl reload of the repaired file failed"
both_tuned || bad tuned-after-reload "the rings are no longer tuned after the reloads: $(rings_state)"

# -- the watchdog: a stopped daemon is killed and restarted, the new
# instance re-adopts the rings from its journal
t0=$(now)
kill -STOP "$pid"
restarted() { local p; p=$(prop MainPID); [ -n "$p" ] && [ "$p" != 0 ] && [ "$p" != "$pid" ] && active_running; }
if wait_for 60 restarted; then
	npid=$(prop MainPID)
	nr=$(prop NRestarts)
	wdmsg=$(journalctl -u uringtune -o cat | grep -m1 -i 'watchdog timeout')
	readopt=$(journalctl -u uringtune _PID="$npid" -o cat | grep -m1 're-adopted')
	if wait_for 20 sh -c "uringtune status --json | jq -e '.daemon.pid == $npid' >/dev/null" && wait_for 20 both_tuned &&
	   [ "$nr" -gt "$nr0" ] && [ -n "$wdmsg" ] && [ -n "$readopt" ]; then
		pass watchdog "SIGSTOP of $pid: '$wdmsg'; new MainPID $npid active after $(since "$t0") s, NRestarts $nr0 -> $nr; journal of $npid: '$readopt'; status daemon.pid $npid, both rings $(ring_json "$sp" "$sf" | jq -r .managed_by) with NAPI; fdinfo $(rings_state)"
	else
		bad watchdog "restarted as $npid (NRestarts $nr0 -> $nr), watchdog message '${wdmsg:-none}', re-adoption '${readopt:-none}', status daemon.pid $(status_json | jq -c .daemon.pid), rings $(rings_state)"
	fi
	pid=$npid
else
	bad watchdog "no restart within 60 s of SIGSTOP: MainPID $(prop MainPID), $(prop ActiveState)/$(prop SubState), NRestarts $(prop NRestarts)"
	kill -CONT "$pid" 2>/dev/null
fi

# -- journalctl -p warning: the daemon's warnings with their priorities
warn_lines=$(journalctl -u uringtune -p warning -o cat --no-pager 2>/dev/null)
prios=$(journalctl -u uringtune -p warning -o json --no-pager 2>/dev/null |
	jq -r 'select(.SYSLOG_IDENTIFIER == "uringtuned") | "<\(.PRIORITY)> \(.MESSAGE)"' 2>/dev/null)
# the guest has no node_exporter: its missing textfile directory is a
# notice (<5>), never among the warnings
export_notice=$(journalctl -u uringtune -p notice -o json --no-pager 2>/dev/null |
	jq -r 'select(.SYSLOG_IDENTIFIER == "uringtuned") | "<\(.PRIORITY)> \(.MESSAGE)"' 2>/dev/null |
	grep -m1 '^<5> metrics export: .*no directory')
if grep -q '^<4> reload: mode change' <<<"$prios" && grep -q '^<3> reload refused' <<<"$prios" &&
   grep -q 'mode change' <<<"$warn_lines" && grep -q 'reload refused' <<<"$warn_lines" &&
   ! grep -q 'metrics export' <<<"$warn_lines" && [ -n "$export_notice" ]; then
	pass journal-priorities "journalctl -u uringtune -p warning: $(grep -c . <<<"$warn_lines") lines, the daemon's by priority: $(cut -c1-3 <<<"$prios" | sort | uniq -c | awk '{ printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1 }'); $(grep -m1 '^<4> reload: mode change' <<<"$prios" | cut -c1-100) | $(grep -m1 '^<3> reload refused' <<<"$prios" | cut -c1-100)"
else
	bad journal-priorities "expected the daemon's <4> mode-change warning and <3> refused reload, and the missing export directory as a <5> notice only ('${export_notice:-none}'); got: $(sort -u <<<"$prios" | head -n 8 | cut -c1-140 | paste -sd'|')"
fi

# -- systemctl stop restores the rings
t0=$(now)
if systemctl stop "$UNIT"; then
	if wait_for 5 both_restored; then
		pass stop-restores "systemctl stop in $(since "$t0") s; fdinfo back to before tuning: $(rings_state)"
	else
		bad stop-restores "after systemctl stop fdinfo says $(rings_state), before tuning: server $before_s, client $before_c"
	fi
else
	bad stop-restores "systemctl stop failed"
fi

# -- dpkg -r stops the service, which restores the rings
systemctl start "$UNIT"
if wait_for 30 both_tuned; then
	t0=$(now)
	out=$(dpkg -r uringtune 2>&1)
	drc=$?
	ac=$(systemctl is-active "$UNIT" 2>&1)
	if [ $drc -eq 0 ] && [ "$ac" != active ] && [ ! -e /usr/sbin/uringtuned ] &&
	   wait_for 5 both_restored; then
		pass dpkg-remove "dpkg -r in $(since "$t0") s: unit $ac, binaries gone, fdinfo $(rings_state)"
	else
		bad dpkg-remove "dpkg -r exit $drc ($(tail -n 2 <<<"$out" | paste -sd'|')), unit $ac, fdinfo $(rings_state) (before: $before_s)"
	fi
else
	bad dpkg-remove "the rings were not tuned again before dpkg -r: $(rings_state)"
fi

kill %1 %2 2>/dev/null
echo "UTVM: DONE fails=$fails test_s=$(since "$t_test")"
# for the console log: what systemd and the daemon said
journalctl -u uringtune -o short-monotonic --no-pager | tail -n 80
exit $fails
