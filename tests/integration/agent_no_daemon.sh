#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 6c: the agent loaded with no daemon to answer it, or with a
# missing or corrupted policy page: the program behaves exactly as without
# the agent. Each case runs the same programs with and without the agent and
# compares what they print and how they exit, and what a daemon that does
# not answer the agent (it only watches) sees of their rings: the setup
# flags (no HYBRID_IOPOLL added) and NAPI (not registered).
. "$(dirname "$0")/../lib.sh"

# a fixed run of each program: its output without the pid (and timings)
run_plain() { # NAME CMD...
	local name=$1
	shift
	"$@" >"$T/$name.out" 2>"$T/$name.err"
	echo "rc=$?" >>"$T/$name.out"
	sed -i -E 's/pid=[0-9]+ //; s/(ops=|seconds=|ops_per_s=)[0-9.]+/\1N/g' "$T/$name.out"
}

# compare NAME: the agent's run against the plain one
same() {
	diff -u "$T/$1-plain.out" "$T/$1-agent.out" || fail "$1: the program behaved differently under the agent"
	# the agent itself says nothing; only uringtune exec may warn, on its own line
	{ grep -v '^uringtune exec: ' "$T/$1-agent.err" || true; } | diff -u "$T/$1-plain.err" - ||
		fail "$1: different stderr under the agent"
}

# check CASE: programs under the agent (uringtune exec ... with AGENT_ARGS)
check() {
	local c=$1
	log "$c"
	run_plain "nop-$c-plain" "$B/nopbench" --ring defer-taskrun --ops 100000
	run_plain "nop-$c-agent" "${AGENT_EXEC[@]}" --napi -- "$B/nopbench" --ring defer-taskrun \
		--ops 100000
	same "nop-$c"
	run_plain "hold-$c-plain" "$B/ringhold" --flags iopoll,single-issuer --hold 0
	run_plain "hold-$c-agent" "${AGENT_EXEC[@]}" --hybrid on --napi -- "$B/ringhold" \
		--flags iopoll,single-issuer --hold 0
	same "hold-$c"

	# what the kernel made of the rings: flags as asked, NAPI off
	bg "${AGENT_EXEC[@]}" --hybrid on -- "$B/ringhold" --flags iopoll >"$T/$c-iop.out"
	bg "${AGENT_EXEC[@]}" --napi -- "$B/ringhold" --flags defer-taskrun >"$T/$c-dt.out"
	wait_line "$T/$c-iop.out" '^ready'
	wait_line "$T/$c-dt.out" '^ready'
	read -r pid fd < <(ring_of "$T/$c-iop.out")
	expect_ring "$pid" "$fd" '.setup_flags == ["IOPOLL"] and .agent == null and
		.managed_by == "none"'
	read -r pid fd < <(ring_of "$T/$c-dt.out")
	expect_ring "$pid" "$fd" '.setup_flags == ["SINGLE_ISSUER","DEFER_TASKRUN"] and
		.agent == null and (.napi.enabled | not)'
	[ "$(napi_state "$pid" "$fd")" = disabled ] || fail "$c: NAPI was registered"
	kill_bg
}

log "no daemon answers the agent (the daemon here has [agent] enabled = no)"
start_daemon mode=tune enabled=no
[ ! -e "$AGENT_SOCK" ] || fail "$AGENT_SOCK exists"
check no-daemon
grep -q "no uringtuned answers on $AGENT_SOCK" "$T/nop-no-daemon-agent.err" ||
	fail "uringtune exec did not warn: $(cat "$T/nop-no-daemon-agent.err")"
stop_daemon

log "a daemon without a policy page (it cannot create it)"
mkdir -p "$T/ro"
mount -t tmpfs -o ro,size=1m none "$T/ro"
start_daemon mode=tune page="$T/ro/agent.page"
status_json | jq -e '.daemon.agent.page == null and (.daemon.agent.page_error | test("Read-only"))' \
	>/dev/null || fail "status: $(status_json | jq -c .daemon.agent)"
check no-page
grep -q 'uringtune exec: uringtuned: agent page' "$T/nop-no-page-agent.err" ||
	fail "uringtune exec did not say why: $(cat "$T/nop-no-page-agent.err")"
stop_daemon

for what in magic version size; do
	log "a corrupted policy page: $what"
	start_daemon mode=tune
	case $what in
	magic) printf 'XXXX' | dd of="$T/agent.page" conv=notrunc status=none ;;
	version) printf '\x63\x00\x00\x00' | dd of="$T/agent.page" bs=1 seek=4 conv=notrunc status=none ;;
	# the header's size field, not the file's: a shrunk file would fault the daemon
	size) printf '\x10\x00\x00\x00' | dd of="$T/agent.page" bs=1 seek=8 conv=notrunc status=none ;;
	esac
	check "corrupt-$what"
	stop_daemon
	rm -f "$T/agent.page"
done
