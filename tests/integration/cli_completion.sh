#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bash completion (completion/uringtune.bash), sourced in bash as
# bash-completion would: for a few command lines (COMP_WORDS, COMP_CWORD as
# bash splits them, ':' and '=' apart) _uringtune gives the right COMPREPLY:
# commands, each command's options, --hybrid's values, and the rings, pids and
# names of a running daemon (asked on the --socket of the line); nothing,
# and not a word on stderr, when no daemon answers.
. "$(dirname "$0")/../lib.sh"

# comp WORD...: COMPREPLY for that line, the cursor at the end of its last
# word, one line, space-separated and sorted
comp() {
	bash -c '
		. completion/uringtune.bash
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_uringtune
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " " | sed "s/ $//"
	' _ "$@" 2>"$T/comp.err"
	[ ! -s "$T/comp.err" ] || fail "completion of '$*' wrote to stderr: $(cat "$T/comp.err")"
}

# expect_comp "WANT" WORD...: COMPREPLY is exactly WANT
expect_comp() {
	local want=$1 got
	shift
	got=$(comp "$@")
	echo "[$*] -> $got"
	[ "$got" = "$want" ] || fail "completing '$*': got '$got', expected '$want'"
}

U=$B/uringtune
expect_comp "exec reset set status" "$U" ""
expect_comp "set status" "$U" s
expect_comp "--help --socket --version" "$U" --
expect_comp "--comm --json --pid --ring --watch --wide" "$U" status --
expect_comp "--busy-poll-us --force --prefer --static" "$U" set 1:2 --
expect_comp "auto off on" "$U" exec --hybrid ""
expect_comp "auto" "$U" exec --hybrid = a
expect_comp "--agent-lib --agent-socket" "$U" exec --agent-

# no daemon: nothing for the rings, silently
expect_comp "" "$U" --socket "$T/none.sock" status --ring ""
expect_comp "" "$U" --socket "$T/none.sock" set ""

# a daemon with rings of two processes
start_daemon
bg "$B/ringhold" --count 2 >"$T/h.out"
wait_line "$T/h.out" '^ready'
read -r pid fd1 < <(ring_n_of "$T/h.out" 1)
read -r _ fd2 < <(ring_n_of "$T/h.out" 2)
bg "$B/ringhold" --comm ut-compl >"$T/o.out"
wait_line "$T/o.out" '^ready'
read -r opid ofd < <(ring_of "$T/o.out")
expect_ring "$pid" "$fd2" '.pid > 0'
expect_ring "$opid" "$ofd" '.comm == "ut-compl"'

S=(--socket "$SOCK")
# every ring as PID:FD (other rings of this host may be listed too)
got=$(comp "$U" "${S[@]}" status --ring "")
for r in "$pid:$fd1" "$pid:$fd2" "$opid:$ofd"; do
	[[ " $got " == *" $r "* ]] || fail "status --ring: $r not offered: $got"
done
echo "status --ring: $got"
# the pid typed: that process's rings; bash replaces what follows the ':'
expect_comp "$pid:$fd1 $pid:$fd2" "$U" "${S[@]}" set "$pid"
expect_comp "$(printf '%s\n' "$fd1" "$fd2" | sort | tr '\n' ' ' | sed 's/ $//')" \
	"$U" "${S[@]}" reset "$pid" : ""
expect_comp "$ofd" "$U" "${S[@]}" status --ring "$opid" : ""
# --ring=PID:FD: after the '='
expect_comp "$opid:$ofd" "$U" "${S[@]}" status --ring = "$opid"
# --socket=PATH on the line is the socket asked
expect_comp "$opid:$ofd" "$U" --socket = "$SOCK" status --ring "$opid"
# --pid and --comm: the daemon's pids and names
expect_comp "$opid" "$U" "${S[@]}" status --pid "$opid"
expect_comp "ut-compl" "$U" "${S[@]}" status --comm ut-c
# the ring is named once: nothing more after it
expect_comp "" "$U" "${S[@]}" reset "$opid:$ofd" ""
echo "completion: commands, options, values and rings"
