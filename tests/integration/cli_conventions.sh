#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The CLI's conventions (issue 16, item 6): a ring is PID:FD everywhere
# (set, reset, status --ring; the older "PID FD" still read), every option
# takes its value as "--opt VALUE" or "--opt=VALUE", bad forms say what was
# given and what was expected; status --pid and --comm keep only the rings
# they name (table and --json, the reply's shape unchanged); the table is cut
# to the width of the terminal it is printed on (a real pty: its TIOCGWINSZ,
# or $COLUMNS), whole with --wide, and never cut through a pipe.
. "$(dirname "$0")/../lib.sh"
need_untuned_host

ut() { "$B/uringtune" --socket "$SOCK" "$@"; }

# -- bad forms: exit 2, one line naming what was given and what was expected
expect_error 2 "set: expected the ring as PID:FD .*e\.g\. 21249:4\), got the process id '12' alone" \
	"$B/uringtune" set 12 --busy-poll-us 30
expect_error 2 "set: expected the ring as PID:FD .*, got '12:x'" "$B/uringtune" set 12:x --busy-poll-us 30
expect_error 2 "reset: expected the ring as PID:FD .*, got ':4'" "$B/uringtune" reset :4
expect_error 2 "set: expected a file descriptor number after the process id, got 'x'" \
	"$B/uringtune" set 12 x --busy-poll-us 30
expect_error 2 "unexpected argument '5'" "$B/uringtune" reset 12 4 5
expect_error 2 "uringtune: --ring: expected PID:FD .*, got '12'" "$B/uringtune" status --ring=12
expect_error 2 "uringtune: --busy-poll-us: expected an integer from 1 to 10000, got '0'" \
	"$B/uringtune" set 1:2 --busy-poll-us=0
expect_error 2 "option '--json' takes no value, got '--json=yes'" "$B/uringtune" status --json=yes
expect_error 2 "option '--socket' needs an argument: --socket PATH" "$B/uringtune" --socket= status
expect_error 2 "option '--pid' needs an argument: --pid PID" "$B/uringtune" status --pid
expect_error 2 "uringtune: --pid: expected a process id \(an integer from 1\), got 'abc'" "$B/uringtune" status --pid=abc
expect_error 2 "uringtune: --comm: expected a process name of at most 15 bytes .*, got '0123456789abcdef'" \
	"$B/uringtune" status --comm 0123456789abcdef
expect_error 2 "status: --ring names one ring; --pid and --comm go without it" \
	"$B/uringtune" status --ring 1:2 --comm x
expect_error 2 "uringtune: --ring, --pid, --comm, --wide and --watch go with status only" \
	"$B/uringtune" reset --wide
expect_error 2 "unknown option '--bogus=1'" "$B/uringtune" status --bogus=1
# exec's own options the same way
expect_error 2 "option '--napi' takes no value, got '--napi=1'" "$B/uringtune" exec --napi=1 -- true
expect_error 2 "uringtune: --hybrid: expected on, off or auto, got 'sometimes'" \
	"$B/uringtune" exec --hybrid=sometimes -- true

# -- a tune-mode daemon, two processes with rings: ringhold (two) and ut-other
start_daemon mode=tune
bg "$B/ringhold" --count 2 >"$T/h.out"
wait_line "$T/h.out" '^ready'
read -r pid fd1 < <(ring_n_of "$T/h.out" 1)
read -r _ fd2 < <(ring_n_of "$T/h.out" 2)
bg "$B/ringhold" --comm ut-other >"$T/o.out"
wait_line "$T/o.out" '^ready'
read -r opid ofd < <(ring_of "$T/o.out")
expect_ring "$pid" "$fd2" '.pid > 0'
expect_ring "$opid" "$ofd" '.comm == "ut-other"'

# set PID:FD with --busy-poll-us=N, --socket=PATH: pinned
out=$("$B/uringtune" --socket="$SOCK" set "$pid:$fd1" --busy-poll-us=120 --prefer)
echo "$out"
[ "$out" = "ring $pid:$fd1: NAPI busy polling pinned at 120 us, prefer" ] || fail "set said: $out"
expect_napi "$pid" "$fd1" '^enabled/dynamic/120000/true$' 2
# reset PID FD (the older form) and PID:FD
out=$(ut reset "$pid" "$fd1")
[ "$out" = "ring $pid:$fd1: original NAPI settings restored" ] || fail "reset said: $out"
expect_napi "$pid" "$fd1" '^disabled$' 2
ut set "$pid" "$fd2" --busy-poll-us 40
expect_napi "$pid" "$fd2" '^enabled/dynamic/40000/false$' 2
ut reset "$pid:$fd2"
expect_napi "$pid" "$fd2" '^disabled$' 2
echo "set/reset: PID:FD and PID FD, --opt=value and --opt value"
# status --ring=PID:FD, and a ring that is not there named the same way
[ "$(ut status --ring="$pid:$fd1" --json | jq -r '"\(.pid):\(.fd)"')" = "$pid:$fd1" ] ||
	fail "status --ring=PID:FD --json"
expect_error 1 "no ring $opid:999 \(pid $opid fd 999\)" "$B/uringtune" --socket "$SOCK" status --ring "$opid:999"

# -- filters. The reply keeps its shape: daemon.rings is still the host's count
all=$(ut status --json)
total=$(jq '.rings | length' <<<"$all")
[ "$total" -ge 3 ] || fail "expected at least 3 rings, status lists $total"
j=$(ut status --json --pid "$pid")
[ "$(jq -c '[.rings[] | "\(.pid):\(.fd)"] | sort' <<<"$j")" = "$(jq -nc --arg a "$pid:$fd1" --arg b "$pid:$fd2" '[$a, $b] | sort')" ] ||
	fail "--pid $pid --json: $(jq -c '[.rings[] | "\(.pid):\(.fd)"]' <<<"$j")"
[ "$(jq -c 'keys' <<<"$j")" = "$(jq -c 'keys' <<<"$all")" ] || fail "--pid changed the reply's members"
[ "$(jq .daemon.rings <<<"$j")" = "$(jq .daemon.rings <<<"$all")" ] || fail "--pid changed daemon.rings"
j=$(ut status --json --comm=ut-other)
[ "$(jq -c '[.rings[] | "\(.pid):\(.fd)"]' <<<"$j")" = "[\"$opid:$ofd\"]" ] ||
	fail "--comm ut-other --json: $(jq -c '[.rings[] | "\(.pid):\(.fd)"]' <<<"$j")"
[ "$(ut status --json --comm ut-other --pid "$pid" | jq '.rings | length')" = 0 ] ||
	fail "--comm and --pid of different processes matched"
[ "$(ut status --json --comm ut-othe | jq '.rings | length')" = 0 ] || fail "--comm matched a prefix"
# the table: only those rows
ut status --comm ut-other >"$T/table"
cat "$T/table"
rows=$(awk '/^PID +COMM +FD/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { print $1 ":" $3 }' "$T/table")
[ "$rows" = "$opid:$ofd" ] || fail "status --comm ut-other table rows: $rows"
rows=$(ut status --pid="$pid" | awk '/^PID +COMM +FD/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { print $1 ":" $3 }' | sort | tr '\n' ' ')
[ "$rows" = "$(printf '%s\n' "$pid:$fd1" "$pid:$fd2" | sort | tr '\n' ' ')" ] || fail "status --pid table rows: $rows"
ut status --pid 999999 | grep -q '^no io_uring rings$' || fail "status --pid of no process: not 'no io_uring rings'"
echo "filters: --pid and --comm, table and --json"

# -- width. The table of this test's rings (ringhold's: idle, so two
# renders agree; rings of other programs on this host change between two
# reads), whole: wider than 60 columns (checked, else cutting at 60 would
# prove nothing)
ut status --comm ringhold --wide >"$T/whole"
widest=$(awk '/^PID +COMM +FD/ { on = 1 } on { if (length($0) > w) w = length($0) } END { print w + 0 }' "$T/whole")
[ "$widest" -gt 60 ] || fail "the table's widest line is $widest columns: nothing to cut at 60"

# on_pty COLS CMD...: CMD's output on a pseudo-terminal COLS wide (set in the
# child before exec, so CMD sees it at once), newlines as in a pipe
on_pty() {
	python3 - "$@" <<'PY'
import fcntl, os, pty, struct, sys, termios
cols, argv = int(sys.argv[1]), sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 40, cols, 0, 0))
    os.execvp(argv[0], argv)
out = b""
while True:
    try:
        b = os.read(fd, 65536)
    except OSError:
        break
    if not b:
        break
    out += b
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.replace(b"\r\n", b"\n").decode("utf-8", "replace"))
sys.exit(os.waitstatus_to_exitcode(st))
PY
}
# table_widest FILE: the widest line of the table (the summary lines above it are never cut)
table_widest() {
	awk '/^PID +COMM +FD/ { on = 1 } on { if (length($0) > w) w = length($0) } END { print w + 0 }' "$1"
}

(unset COLUMNS; on_pty 60 "$B/uringtune" --socket "$SOCK" status --comm ringhold) >"$T/pty60" || fail "status on a pty failed"
w=$(table_widest "$T/pty60")
[ "$w" = 60 ] || { cat "$T/pty60"; fail "on a 60-column pty the table's widest line is $w columns"; }
# cut, not rewrapped: each line is the start of the whole one
diff <(awk '/^PID +COMM +FD/ { on = 1 } on { print substr($0, 1, 60) }' "$T/whole") \
	<(awk '/^PID +COMM +FD/ { on = 1 } on' "$T/pty60") >/dev/null ||
	fail "the cut table is not the whole one's first 60 columns"
echo "pty, 60 columns: table lines cut at $w"
(export COLUMNS=45; on_pty 60 "$B/uringtune" --socket "$SOCK" status --comm ringhold) >"$T/pty45"
w=$(table_widest "$T/pty45")
[ "$w" = 45 ] || fail "COLUMNS=45 on a 60-column pty: widest line $w"
echo "pty, 60 columns, COLUMNS=45: cut at $w"
(unset COLUMNS; on_pty 60 "$B/uringtune" --socket "$SOCK" status --comm ringhold --wide) >"$T/ptywide"
w=$(table_widest "$T/ptywide")
[ "$w" -gt 60 ] || fail "--wide on a 60-column pty: widest line $w"
echo "pty, 60 columns, --wide: $w columns"
# a pipe: never cut, even with COLUMNS set
COLUMNS=40 "$B/uringtune" --socket "$SOCK" status --comm ringhold | cat >"$T/pipe"
w=$(table_widest "$T/pipe")
[ "$w" -gt 60 ] || fail "through a pipe the table was cut ($w columns)"
echo "pipe, COLUMNS=40: $w columns, not cut"
