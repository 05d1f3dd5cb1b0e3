#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# uringtune exec without a daemon: a bad command line, a command it cannot
# start and a missing agent are one line on stderr each with the shell's exit
# status; a command the agent cannot reach and a daemon that does not answer
# are warnings, and the command runs; its exit status is exec's; the
# environment it sees has the agent first in LD_PRELOAD and exactly the
# policy asked for.
. "$(dirname "$0")/../lib.sh"

U=$B/uringtune
NONE=$T/none.sock
# what the command prints of the environment exec gave it
# shellcheck disable=SC2016 # the command's shell expands it
SHOW_ENV='echo "$LD_PRELOAD|$URINGTUNE_AGENT_POLICY|$URINGTUNE_AGENT_SOCKET|$URINGTUNE_AGENT_DEBUG"'

# run [VAR=value ...] ARGS...: `uringtune exec ARGS` in a clean agent
# environment plus VARs; sets $rc, stdout in $T/out, stderr in $T/err
run() {
	local vars=()
	while [[ $# -gt 0 && $1 == *=* && $1 != -* ]]; do
		vars+=("$1")
		shift
	done
	rc=0
	env -u LD_PRELOAD -u URINGTUNE_AGENT_POLICY -u URINGTUNE_AGENT_SOCKET \
		-u URINGTUNE_AGENT_DEBUG "${vars[@]}" "$U" exec "$@" >"$T/out" 2>"$T/err" || rc=$?
	echo "\$ ${vars[*]} uringtune exec $* -> exit $rc"
	sed 's/^/  stdout: /' "$T/out"
	sed 's/^/  stderr: /' "$T/err"
}

# expect_warning LINE: that exact line is on stderr
expect_warning() {
	grep -qxF -- "$1" "$T/err" || fail "no warning: $1"
}

# expect_env EXPECTED [VAR=value ...] ARGS...: the command, sh -c "$SHOW_ENV",
# prints EXPECTED and exits 0
expect_env() {
	local want=$1
	shift
	run "$@" -- sh -c "$SHOW_ENV"
	[ "$rc" = 0 ] || fail "exit status $rc, expected 0"
	[ "$(cat "$T/out")" = "$want" ] || fail "environment '$(cat "$T/out")', expected '$want'"
}

log "bad command lines: exit 2"
expect_error 2 "^uringtune: --hybrid: expected on, off or auto, got 'x' \(see uringtune --help\)$" \
	"$U" exec --hybrid x -- true
expect_error 2 "^uringtune: --hybrid: expected on, off or auto, got 'ON' \(see uringtune --help\)$" \
	"$U" exec --hybrid=ON -- true
expect_error 2 "^uringtune: option '--hybrid' needs an argument \(see uringtune --help\)$" \
	"$U" exec --hybrid
expect_error 2 "^uringtune: exec: expected -- CMD \[ARGS\.\.\.\] \(see uringtune --help\)$" \
	"$U" exec
expect_error 2 "^uringtune: exec: expected -- CMD \[ARGS\.\.\.\] \(see uringtune --help\)$" \
	"$U" exec --napi --
expect_error 2 "^uringtune: unknown option '--bogus' \(see uringtune --help\)$" \
	"$U" exec --bogus -- true
expect_error 2 "^uringtune: option '--agent-lib' needs an argument \(see uringtune --help\)$" \
	"$U" exec --agent-lib
expect_error 2 "^uringtune: option '--agent-socket' needs an argument \(see uringtune --help\)$" \
	"$U" exec --agent-socket "" -- true
expect_error 2 "^uringtune: exec: .*only --socket may come before" "$U" --json exec -- true

log "a command it cannot start: 127 not found, 126 not executable"
# CMD's own options are CMD's, with or without --
expect_error 127 "^uringtune exec: no-such-command-$$: command not found$" \
	"$U" exec --agent-socket "$NONE" no-such-command-$$ --bogus
expect_error 127 "^uringtune exec: $T/missing: No such file or directory$" \
	"$U" exec --agent-socket "$NONE" -- "$T/missing"
printf 'echo should not run\n' >"$T/noexec"
chmod 644 "$T/noexec"
expect_error 126 "^uringtune exec: $T/noexec: Permission denied$" "$U" exec -- "$T/noexec"
expect_error 126 "^uringtune exec: noexec: Permission denied$" env PATH="$T" "$U" exec -- noexec
expect_error 126 "^uringtune exec: $T: Is a directory$" "$U" exec -- "$T"

log "no agent: exit 1"
expect_error 1 "^uringtune exec: agent /nonexistent: No such file or directory$" \
	"$U" exec --agent-lib /nonexistent -- true
expect_error 1 "^uringtune exec: agent /etc/passwd: not an ELF shared library$" \
	"$U" exec --agent-lib /etc/passwd -- true
# a uringtune with no agent beside it looks in the install directory next
mkdir "$T/bin"
cp "$U" "$T/bin/uringtune"
installed=$("$U" exec --help | grep -o '/[^ ]*/liburingtune-agent\.so')
if [ ! -e "$installed" ]; then
	expect_error 1 "^uringtune exec: no agent: tried $T/bin/liburingtune-agent.so and $installed \(see --agent-lib\)$" \
		"$T/bin/uringtune" exec -- true
else
	log "$installed is installed: the lookup past the build tree is not checked"
fi

# from here on the agent of the build tree, found beside build/uringtune
[ -r "$B/liburingtune-agent.so" ] || fail "$B/liburingtune-agent.so is missing: build it first (make)"
AGENT=$(realpath "$B/liburingtune-agent.so")

log "CMD's exit status is exec's; a daemon that does not answer is a warning"
run --agent-socket "$NONE" -- sh -c 'exit 7'
[ "$rc" = 7 ] || fail "exit status $rc, expected 7"
expect_warning "uringtune exec: no uringtuned answers on $NONE (No such file or directory): sh runs without uringtune's changes"
[ "$(grep -c . "$T/err")" = 1 ] || fail "expected only the warning on stderr"
run --agent-socket "$NONE" sh -c 'exit 5'
[ "$rc" = 5 ] || fail "without --: exit status $rc, expected 5"
# the global --socket is accepted on either side of exec, and ignored
run --socket "$T/ctl.sock" --agent-socket "$NONE" -- sh -c 'exit 3'
[ "$rc" = 3 ] || fail "with --socket: exit status $rc, expected 3"
rc=0
"$U" --socket "$T/ctl.sock" exec --agent-socket "$NONE" -- true 2>/dev/null || rc=$?
[ "$rc" = 0 ] || fail "--socket before exec: exit status $rc, expected 0"

log "what the agent cannot reach is a warning; the command runs"
if [ ! -x /bin/busybox ] || ldd /bin/busybox >/dev/null 2>&1; then
	fail "/bin/busybox is not a static binary here (Debian's busybox-static)"
fi
run --agent-socket "$NONE" -- /bin/busybox true
[ "$rc" = 0 ] || fail "exit status $rc, expected 0"
expect_warning "uringtune exec: /bin/busybox is statically linked: the agent cannot be loaded into it (LD_PRELOAD needs the dynamic loader); running it unchanged"
expect_warning "uringtune exec: no uringtuned answers on $NONE (No such file or directory): /bin/busybox runs without uringtune's changes"
# the dynamic loader run as a program does preload: no warning for it
ldso=$(sed -n 's/^[[:space:]]*\(\/[^ ]*ld-linux[^ ]*\) (.*/\1/p' < <(ldd /bin/true) | head -n 1)
if [ -n "$ldso" ]; then
	run --agent-socket "$NONE" -- "$ldso" /bin/true
	[ "$rc" = 0 ] || fail "exit status $rc, expected 0"
	! grep -q "statically linked" "$T/err" || fail "$ldso taken for a static program"
fi
# set-user-ID to another user: secure-execution mode (not on a nosuid mount)
if ! findmnt -no OPTIONS -T "$T" | grep -qw nosuid; then
	cp /bin/true "$T/suid"
	chown nobody "$T/suid"
	chmod 4755 "$T/suid"
	run --agent-socket "$NONE" -- "$T/suid"
	[ "$rc" = 0 ] || fail "exit status $rc, expected 0"
	expect_warning "uringtune exec: $T/suid is set-user-ID: the dynamic loader ignores LD_PRELOAD for it (secure-execution mode); running it unchanged"
fi
# a script is fine: its interpreter loads the agent
printf '#!/bin/sh\nexit 4\n' >"$T/script"
chmod 755 "$T/script"
run --agent-socket "$NONE" -- "$T/script"
[ "$rc" = 4 ] || fail "script: exit status $rc, expected 4"
[ "$(grep -c . "$T/err")" = 1 ] || fail "script: expected only the no-daemon warning"

log "the environment CMD sees"
gcc -shared -fPIC -o "$T/other.so" -x c /dev/null
# no policy flag: no policy, even one left in the environment
expect_env "$AGENT||$NONE|" URINGTUNE_AGENT_POLICY=hybrid=off --agent-socket "$NONE"
expect_warning "uringtune exec: no uringtuned answers on $NONE (No such file or directory): sh runs without uringtune's changes"
expect_env "$AGENT|hybrid=on,napi=on|$NONE|" --hybrid on --napi --agent-socket "$NONE"
expect_env "$AGENT|hybrid=auto|$NONE|" --hybrid auto --agent-socket "$NONE"
expect_env "$AGENT|hybrid=off|$NONE|" --hybrid=off --agent-socket="$NONE"
expect_env "$AGENT|napi=on|$NONE|1" --napi -v --agent-socket "$NONE"
# the environment's socket is kept, and it is the one asked
expect_env "$AGENT||$T/env.sock|" URINGTUNE_AGENT_SOCKET="$T/env.sock"
expect_warning "uringtune exec: no uringtuned answers on $T/env.sock (No such file or directory): sh runs without uringtune's changes"
# prepended to an existing LD_PRELOAD, never added twice
expect_env "$AGENT:$T/other.so||$NONE|" LD_PRELOAD="$T/other.so" --agent-socket "$NONE"
expect_env "$AGENT||$NONE|" LD_PRELOAD="$AGENT" --agent-socket "$NONE"
expect_env "$T/other.so:$AGENT||$NONE|" LD_PRELOAD="$T/other.so:$AGENT" --agent-socket "$NONE"
# and the dynamic loader did load it into the command
# shellcheck disable=SC2016 # the command's shell expands it
run --agent-socket "$NONE" -- sh -c 'grep -qF "$LD_PRELOAD" /proc/$$/maps'
[ "$rc" = 0 ] || fail "the agent is not mapped in the command"
