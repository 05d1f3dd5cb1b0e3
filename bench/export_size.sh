#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark part "export_size" (issue 16; not a test): how big the textfile
# export is, in series (sample lines) and bytes, with EXPORT_RINGS idle rings
# (build/ringhold --idle) and one ping-pong pair that busy-polls, so that a
# busy-polling ring's series (its histogram, when exported) are measured too.
# Prints one line per figure:
#   file       the whole file: series, bytes
#   idle_ring  per idle ring (the ringhold rings' lines / EXPORT_RINGS)
#   busy_ring  the ping-pong client's ring alone
#   worst      EXPORT_RINGS rings that all busy-polled (busy_ring times
#              EXPORT_RINGS plus the file's lines of no ring): extrapolated
# Knobs: EXPORT_RINGS (1000), DAEMON_BIN (build/uringtuned: e.g. an older
# build, to compare), EXPORT_KEYS (key=value ... for the daemon's
# configuration, e.g. "ring_histograms=yes").
. "$(dirname "$0")/lib.sh"

EXPORT_RINGS=${EXPORT_RINGS:-1000}
PROM=$T/textfile/uringtune.prom
netns_setup
# shellcheck disable=SC2086 # EXPORT_KEYS is a list of words
bench_daemon interval_s=1 ${EXPORT_KEYS:-}

busy_pingpong 600
read -r cpid cfd < <(ring_of "$T/client.out")
ulimit -n $((EXPORT_RINGS + 64)) 2>/dev/null || true
bg "$B/ringhold" --idle "$EXPORT_RINGS" --per-process "$EXPORT_RINGS" >"$T/hold.out"
wait_line "$T/hold.out" '^ready' 60
hpid=${BG_PIDS[-1]}

# the client ring's lines: pid and fd labels (older builds), or ring="PID:FD"
client_re="(pid=\"$cpid\",[^}]*fd=\"$cfd\"[,}]|ring=\"$cpid:$cfd\")"
all() { [ "$(grep -c 'comm="ringhold"' "$PROM")" -ge "$EXPORT_RINGS" ] 2>/dev/null; }
wait_for 30 all || fail "$(grep -c 'comm="ringhold"' "$PROM") lines of ringhold's rings in $PROM"
# the bill and the histogram follow the client's traffic: wait for both
busy() {
	grep -E '^uringtune_busy_poll_wakeups_avoided_total\{' "$PROM" | grep -E "$client_re" |
		grep -qE ' [1-9][0-9]*$'
}
wait_for 10 busy || { grep -E "$client_re" "$PROM"; fail "the client ring's bill is still empty in $PROM"; }
sleep 2
cp "$PROM" "$T/snap.prom"

series() { grep -vc '^#' "$@" || true; }
file_series=$(series "$T/snap.prom")
file_bytes=$(stat -c %s "$T/snap.prom")
idle_series=$(grep -c 'comm="ringhold"' "$T/snap.prom")
idle_bytes=$(grep 'comm="ringhold"' "$T/snap.prom" | wc -c)
busy_series=$(grep -cE "$client_re" "$T/snap.prom")
busy_bytes=$(grep -E "$client_re" "$T/snap.prom" | wc -c)
ring_series=$(grep -cE 'comm="' "$T/snap.prom")
ring_bytes=$(grep -E 'comm="' "$T/snap.prom" | wc -c)
[ "$hpid" ] && [ "$idle_series" -ge "$EXPORT_RINGS" ] || fail "no ringhold rings measured"

echo "daemon: ${DAEMON_BIN:-$B/uringtuned} ${EXPORT_KEYS:-}"
awk -v n="$EXPORT_RINGS" -v fs="$file_series" -v fb="$file_bytes" \
    -v is="$idle_series" -v ib="$idle_bytes" -v bs="$busy_series" -v bb="$busy_bytes" \
    -v rs="$ring_series" -v rb="$ring_bytes" 'BEGIN {
	printf "file       %d series, %d bytes (%d rings)\n", fs, fb, n + 2
	printf "idle_ring  %.1f series, %.0f bytes\n", is / n, ib / n
	printf "busy_ring  %d series, %d bytes\n", bs, bb
	printf "worst      %d series, %d bytes (%d rings that all busy-polled: extrapolated)\n",
		fs - rs + n * bs, fb - rb + n * bb, n
}'
