#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# uringtune status --ring PID:FD and --watch: the one-ring view shows the
# ring's header; with real NAPI traffic its histogram of paid-off busy-poll
# windows has non-empty slots; --ring --json is that ring's object; --watch
# draws a frame a second, exits 0 on SIGINT and keeps going while the daemon
# is away; an unknown ring and a bad --ring are one line each, exit 1 and 2.
. "$(dirname "$0")/../lib.sh"
need_untuned_host

U=("$B/uringtune" --socket "$SOCK")

# has FILE REGEX: FILE has a line matching REGEX
has() {
	grep -qE "$2" "$1" || { cat "$1"; fail "no line /$2/ in $1"; }
}

# count FILE REGEX: lines of FILE matching REGEX
count() { grep -cE "$2" "$1" || true; }
at_least() { [ "$(count "$1" "$2")" -ge "$3" ]; }

# watch_stop LABEL FILE REGEX N SIGNAL: the --watch started in the
# background (WATCH, its pid) drew N lines matching REGEX (it draws a frame a
# second: 30 s is only "it came"), then SIGNAL stops it; its exit status in rc
watch_stop() {
	wait_for_timed 30 "$1: $4 frames" at_least "$2" "$3" "$4" ||
		fail "$1: $(count "$2" "$3") frames (lines /$3/) in 30 s, expected $4 (one a second): $(head -c 300 "$2")"
	rc=0
	kill "-$5" "$WATCH"
	wait "$WATCH" || rc=$?
}

netns_setup
start_daemon

# --- a quiet ring: the header
bg "$B/ringhold" --flags single-issuer >"$T/hold.out"
wait_line "$T/hold.out" '^ready'
read -r pid fd <<<"$(ring_of "$T/hold.out")"
expect_ring "$pid" "$fd" '.comm == "ringhold"'
"${U[@]}" status --ring "$pid:$fd" >"$T/view"
cat "$T/view"
has "$T/view" "^pid $pid  comm ringhold  fd $fd\$"
has "$T/view" '^setup flags +SINGLE_ISSUER$'
has "$T/view" '^NAPI +off$'
has "$T/view" '^managed by +none$'
has "$T/view" '^tunable +no: .*SINGLE_ISSUER'
has "$T/view" '^waits +0 blocked$'
has "$T/view" '^busy polling +no window yet$'

# --json: that ring's object, nothing else
"${U[@]}" status --ring "$pid:$fd" --json >"$T/one.json"
jq -e --argjson pid "$pid" --argjson fd "$fd" \
	'.pid == $pid and .fd == $fd and .comm == "ringhold" and has("busy_poll") and
	 (has("rings") | not)' "$T/one.json" >/dev/null ||
	fail "--ring --json is not the ring's object: $(cat "$T/one.json")"

# --- errors: one line each
expect_error 1 "^uringtune: no ring $pid:999 \\(pid $pid fd 999\\)\$" "${U[@]}" status --ring "$pid:999"
expect_error 2 "^uringtune: --ring: expected PID:FD \(.*\), got 'x'" "${U[@]}" status --ring x
expect_error 2 "^uringtune: --ring: expected PID:FD \(.*\), got '1:-2'" "${U[@]}" status --ring=1:-2
expect_error 2 "go with status only" "${U[@]}" reset --watch

# --- real traffic: a ping-pong busy-polling 50 us on both rings
busy_pingpong
read -r cpid cfd <<<"$(ring_of "$T/client.out")"
expect_ring "$cpid" "$cfd" '.busy_poll.paid_off > 0 and (.busy_poll.hist_log2_ns | add) > 0'

COLUMNS=100 "${U[@]}" status --ring "$cpid:$cfd" >"$T/view"
cat "$T/view"
has "$T/view" "^pid $cpid  comm pingpong  fd $cfd\$"
has "$T/view" '^NAPI +on, timeout 50us, prefer off, tracking dynamic$'
has "$T/view" '^managed by +app$'
has "$T/view" '^waits +[1-9][0-9]* blocked'
has "$T/view" '^  no sleep +[0-9]+ +[0-9.]+% \|#+ *\|$'
has "$T/view" '^busy polling +[1-9][0-9]* windows: [1-9][0-9]* paid off'
has "$T/view" 'did not pay off'
has "$T/view" '1-in-16 sample'
# slot lines: "8.2us-16.4us :  1200 |****   |", at least one with a count
slot='^ *[0-9.]+[num]?s-[0-9.]+[num]?s : +[0-9]+ \|[* ]+\|$'
has "$T/view" "$slot"
grep -E "$slot" "$T/view" | grep -qE ': +[1-9][0-9]* \|\*' ||
	fail "no histogram line with a count"
# the bars fit the width asked for, and the largest count fills its bar
awk 'length($0) > 100 && /\|$/ { exit 1 }' "$T/view" || fail "a bar line is wider than 100"
grep -E "$slot" "$T/view" | grep -qE '\|\*+\|$' || fail "no full-width bar"

# --- --watch: frames, redrawn (2 at least), SIGINT exits 0
"${U[@]}" status --watch >"$T/watch" 2>"$T/watch.err" &
WATCH=$!
BG_PIDS+=("$WATCH")
header='^uringtune status - [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}$'
# (measured here: 2 frames after 1.0 s)
watch_stop "status --watch" "$T/watch" "$header" 2 INT
cat "$T/watch"
[ "$rc" = 0 ] || fail "status --watch stopped by SIGINT exited $rc: $(cat "$T/watch.err")"
[ ! -s "$T/watch.err" ] || fail "status --watch wrote to stderr: $(cat "$T/watch.err")"
frames=$(count "$T/watch" "$header")
log "status --watch: $frames frames drawn before SIGINT"
grep -qE '^PID +COMM' "$T/watch" || fail "no table (a line /^PID +COMM/) in the $frames --watch frames"
# not a terminal: no escape sequences, a blank line after each frame
! grep -q $'\033' "$T/watch" || fail "escape sequences in --watch output to a file"
blank=$(grep -c '^$' "$T/watch" || true)
[ "$blank" -ge "$frames" ] || fail "frames not separated by blank lines: $blank blank lines, $frames frames"

# --ring --watch --json: one line of JSON per frame, each that ring
"${U[@]}" status --watch --json --ring "$cpid:$cfd" >"$T/watch.json" &
WATCH=$!
BG_PIDS+=("$WATCH")
watch_stop "status --watch --json --ring" "$T/watch.json" '^\{' 2 INT
[ "$rc" = 0 ] || fail "status --watch --json stopped by SIGINT exited $rc"
jq -e --argjson pid "$cpid" '.pid == $pid' "$T/watch.json" >/dev/null ||
	fail "a --watch --json line is not the ring pid $cpid: $(head -c 300 "$T/watch.json")"

# SIGTERM stops it too
"${U[@]}" status --watch --ring "$cpid:$cfd" >"$T/watch" &
WATCH=$!
BG_PIDS+=("$WATCH")
watch_stop "status --watch --ring" "$T/watch" "^uringtune status --ring $cpid:$cfd - " 1 TERM
[ "$rc" = 0 ] || fail "status --watch stopped by SIGTERM exited $rc"
has "$T/watch" "^uringtune status --ring $cpid:$cfd - "
has "$T/watch" "^pid $cpid  comm pingpong"

# --- the daemon goes away: --watch says so and keeps trying
"${U[@]}" status --watch >"$T/watch" 2>"$T/watch.err" &
watch_pid=$!
BG_PIDS+=("$watch_pid")
# (each of these comes within a frame or two: 1-2 s measured here)
wait_for_timed 30 "status --watch: a table" at_least "$T/watch" '^PID +COMM' 1 ||
	fail "status --watch drew no table (a line /^PID +COMM/) in 30 s: $(head -c 300 "$T/watch")"
stop_daemon
retrying="cannot connect to $SOCK: .*\\(retrying\\)\$"
wait_for_timed 30 "status --watch: 2 retries with the daemon away" at_least "$T/watch" "$retrying" 2 ||
	fail "status --watch did not keep retrying: $(count "$T/watch" "$retrying") lines /$retrying/ in 30 s, expected 2"
kill -0 "$watch_pid" || fail "status --watch (pid $watch_pid) exited when the daemon went away"
start_daemon
n=$(count "$T/watch" '^PID +COMM')
wait_for_timed 30 "status --watch: a table again with the daemon back" at_least "$T/watch" '^PID +COMM' $((n + 1)) ||
	fail "status --watch did not pick the daemon up again: still $n tables after 30 s: $(tail -c 300 "$T/watch")"
rc=0
kill -INT "$watch_pid"
wait "$watch_pid" || rc=$?
[ "$rc" = 0 ] || fail "status --watch exited $rc on SIGINT"
[ ! -s "$T/watch.err" ] || fail "status --watch wrote to stderr: $(cat "$T/watch.err")"
echo "ok: --ring header and histogram, --watch frames, retry and SIGINT"
