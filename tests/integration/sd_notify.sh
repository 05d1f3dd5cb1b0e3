#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What uringtuned tells the service manager (systemd Type=notify), seen
# through build/notify_listen standing in for systemd's NOTIFY_SOCKET:
# READY=1 with a STATUS= naming the mode once it is up (and STATUS= again
# when the ring count changes, never unchanged), WATCHDOG=1 well within
# WATCHDOG_USEC (sd-event's watchdog: at 1/2 to 3/4 of it), RELOADING=1 then
# READY=1 around SIGHUP, STOPPING=1 on SIGTERM and exit 0. Without WATCHDOG_USEC (or with a
# WATCHDOG_PID that is not the daemon's) no WATCHDOG=1 is sent.
#
# The watchdog's deadline is WATCHDOG_USEC between pings; sd-event computes
# the interval (1/2 to 3/4 of it) and sends from the loop's own wait,
# uringtune nothing (the full sweep runs in its worker thread, never in the
# loop). What holds on any machine is asserted: WATCHDOG=1 repeats, from the
# daemon's pid, after READY=1. The gaps are printed; the only time bound,
# WD_BOUND_S, is 10 x WATCHDOG_USEC (gaps here: 0.5-0.75 s), so only pings that
# stopped or slowed tenfold fail it.
. "$(dirname "$0")/../lib.sh"

NSOCK=$T/notify.sock
NOUT=$T/notify.out
WATCHDOG_USEC=1000000
WD_BOUND_S=10

# notify_listen's lines, each prefixed with the time it was read (seconds,
# EPOCHREALTIME): $! is notify_listen itself, killing it ends the reader
bg "$B/notify_listen" "$NSOCK" > >(while IFS= read -r line; do
	printf '%s %s\n' "$EPOCHREALTIME" "$line"
done >"$NOUT")
wait_line "$NOUT" ' listening$'

# one line per datagram: "N<TAB>TIME<TAB>LINE|LINE|...<TAB>PID", N counting
# from 1, PID the sender's
datagrams() {
	awk '{ ts = $1; sub(/^[^ ]* /, "") }
	     /^-- pid=/ { sub(/^-- pid=/, "")
			  printf "%d\t%s\t%s\t%s\n", ++n, ts, msg, $0; msg = ""; next }
	     $0 != "listening" { msg = msg (msg == "" ? "" : "|") $0 }' "$NOUT"
}
count() { datagrams | wc -l; }
# after N [REGEX]: the datagrams numbered above N (with a line matching all
# of REGEX, such as READY=1 or STATUS=.*)
after() {
	datagrams | awk -F '\t' -v a="$1" -v re="${2:-}" '
		function has(text, i, n, l) {
			n = split(text, l, "|")
			for (i = 1; i <= n; i++)
				if (l[i] ~ ("^(" re ")$"))
					return 1
			return 0
		}
		$1 > a && (re == "" || has($3))'
}

# next_datagram N REGEX [SECONDS]: wait for the first datagram numbered above
# N with a line matching REGEX, print it; else say what came, on stderr, and
# fail
next_datagram() {
	local secs=${3:-10}
	# reads all its input: no SIGPIPE upstream under pipefail
	first() { after "$1" "$2" | awk 'NR == 1 { print } END { exit NR == 0 }'; }
	if ! wait_for "$secs" first "$1" "$2"; then
		{ datagrams; echo "FAIL: no datagram /$2/ after datagram $1 within $secs s"; } >&2
		exit 1
	fi
	first "$1" "$2"
}

# start_notified [VAR=VALUE ...]: a private uringtuned with that environment
# and NOTIFY_SOCKET, registered in DAEMON_PID for cleanup
start_notified() {
	env NOTIFY_SOCKET="$NSOCK" "$@" "$B/uringtuned" -c "$CONF" -v >>"$T/daemon.log" 2>&1 &
	DAEMON_PID=$!
}

# stop_notified N: SIGTERM; STOPPING=1 comes after datagram N, exit status 0
stop_notified() {
	local rc=0 msg
	kill -TERM "$DAEMON_PID"
	msg=$(next_datagram "$1" 'STOPPING=1')
	echo "after SIGTERM: $(cut -f3 <<<"$msg")"
	wait "$DAEMON_PID" || rc=$?
	DAEMON_PID=
	[ "$rc" -eq 0 ] || fail "uringtuned exited $rc after SIGTERM, expected 0"
}

# fields N TIME TEXT of a datagram line into the named variables
n_ready='' t_ready='' ready='' n_rel='' reloading=''
split3() { IFS=$'\t' read -r "$2" "$3" "$4" _ <<<"$1"; }

write_config

log "with WATCHDOG_USEC=$WATCHDOG_USEC"
start_notified WATCHDOG_USEC=$WATCHDOG_USEC
msg=$(next_datagram 0 'READY=1' 20)
split3 "$msg" n_ready t_ready ready
echo "at start: $ready"
[[ "|$ready|" =~ \|STATUS=observe\ mode:\ [0-9]+\ rings?,[^|]*\| ]] ||
	fail "READY=1 without a STATUS= naming the mode: $ready"
# READY=1 means up: the control socket answers
status_json >/dev/null || fail "READY=1 sent but status does not answer"

# the watchdog: WATCHDOG=1 comes after READY=1 and repeats (3 of them: 2 gaps),
# each from the daemon's pid (systemd ignores another's); READY=1 came from it
[ "$(datagrams | awk -F '\t' -v n="$n_ready" '$1 == n { print $4 }')" = "$DAEMON_PID" ] ||
	fail "READY=1 not from the daemon (pid $DAEMON_PID): $(datagrams | grep READY=1)"
pings_at_least() { [ "$(after "$n_ready" 'WATCHDOG=1' | wc -l)" -ge "$1" ]; }
wait_for "$((3 * WD_BOUND_S))" pings_at_least 3 ||
	fail "WATCHDOG=1 did not repeat: $(after "$n_ready" 'WATCHDOG=1' | wc -l) after READY=1 (datagram $n_ready) within $((3 * WD_BOUND_S)) s"
early=$(after 0 'WATCHDOG=1' | awk -F '\t' -v n="$n_ready" '$1 < n' | wc -l)
[ "$early" -eq 0 ] || fail "$early WATCHDOG=1 before READY=1"
after "$n_ready" 'WATCHDOG=1' | awk -F '\t' -v t0="$t_ready" -v pid="$DAEMON_PID" \
	-v usec="$WATCHDOG_USEC" -v bound="$WD_BOUND_S" '
	{
		gap = $2 - (NR == 1 ? t0 : prev)
		if (NR == 1)
			first = gap
		else if (gap > worst)
			worst = gap
		gaps = gaps sprintf(" %.0f", gap * 1e3)
		prev = $2
		if ($4 != pid) {
			printf "FAIL: datagram %d WATCHDOG=1 from pid %s, the daemon is %s\n", $1, $4, pid
			bad = 1
		}
	}
	END {
		printf "WATCHDOG=1: %d from pid %s; first %.0f ms after READY=1, max gap %.0f ms " \
		       "(WATCHDOG_USEC %d ms, bound %d s); ms since READY=1, then apart:%s\n",
		       NR, pid, first * 1e3, worst * 1e3, usec / 1e3, bound, gaps
		if (first > bound || worst > bound) {
			printf "FAIL: a WATCHDOG=1 more than %d s late\n", bound
			bad = 1
		}
		exit bad
	}' || fail "watchdog (notify_listen output: $NOUT)"

# STATUS= follows the ring count on the next tick: a ring of ours comes and
# goes (other rings on the host may too: the counts are not asserted)
before=$(count)
bg "$B/ringhold" --hold 60 >"$T/ringhold.out"
wait_line "$T/ringhold.out" '^ready$'
msg=$(next_datagram "$before" 'STATUS=.*' 5)
echo "ring opened: $(cut -f3 <<<"$msg")"
before=$(count)
kill -TERM "${BG_PIDS[-1]}"
msg=$(next_datagram "$before" 'STATUS=.*' 5)
echo "ring closed: $(cut -f3 <<<"$msg")"

# SIGHUP: RELOADING=1, then READY=1 with STATUS= again
before=$(count)
kill -HUP "$DAEMON_PID"
msg=$(next_datagram "$before" 'RELOADING=1')
split3 "$msg" n_rel _ reloading
echo "after SIGHUP: $reloading"
msg=$(next_datagram "$n_rel" 'READY=1')
split3 "$msg" _ _ ready
echo "then: $ready"
[[ "|$ready|" == *"|STATUS=observe mode: "* ]] ||
	fail "READY=1 after the reload without STATUS=: $ready"

stop_notified "$(count)"

# a tick sends STATUS= only when it changed: every STATUS= but those sent
# with READY=1 / RELOADING=1 / STOPPING=1 differs from the one before it
after 0 'STATUS=.*' | awk -F '\t' '
	{
		status = ""
		n = split($3, l, "|")
		for (i = 1; i <= n; i++)
			if (l[i] ~ /^STATUS=/)
				status = l[i]
	}
	n == 1 && status == prev {
		print "FAIL: datagram " $1 " repeats " status
		bad = 1
	}
	{ prev = status; sent++ }
	END {
		printf "%d STATUS= sent, none repeated on a tick\n", sent
		exit bad
	}' || fail "STATUS= resent unchanged"

# the watchdog is the service manager's to ask for: none without
# WATCHDOG_USEC, none when WATCHDOG_PID names another process
for env in "" "WATCHDOG_USEC=$WATCHDOG_USEC WATCHDOG_PID=1"; do
	what=${env:-no WATCHDOG_USEC}
	log "with $what"
	before=$(count)
	# shellcheck disable=SC2086
	start_notified $env
	msg=$(next_datagram "$before" 'READY=1' 20)
	sleep 1.5
	n=$(after "$before" 'WATCHDOG=1' | wc -l)
	[ "$n" -eq 0 ] || fail "$what: $n WATCHDOG=1 sent"
	echo "$what: no WATCHDOG=1 within 1.5 s of READY=1"
	stop_notified "$(cut -f1 <<<"$msg")"
done
