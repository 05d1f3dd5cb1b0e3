#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 15, item 4, host half: on this kernel (6.18, IORING_REGISTER_QUERY)
# uringtuned asks once at start whether io_uring_setup takes HYBRID_IOPOLL:
# daemon.hybrid_support says {"supported": true, "source": "query"} with
# the kernel's setup-flag mask, the log says so, the export has
# uringtune_hybrid_supported{source="query"} 1. The agent asked for hybrid
# behaves as before: nothing on a ring without IOPOLL, HYBRID_IOPOLL added on
# an IOPOLL one (no fallback). The VM test judges the kernels without QUERY.
. "$(dirname "$0")/../lib.sh"

start_daemon mode=tune interval_s=1

hs=$(status_json | jq -c '.daemon.hybrid_support')
echo "daemon.hybrid_support: $hs"
jq -e '.supported == true and .source == "query" and
	(.setup_flags_known | type) == "number"' <<<"$hs" >/dev/null ||
	fail "daemon.hybrid_support is $hs"
mask=$(jq .setup_flags_known <<<"$hs")
# IOPOLL (bit 0) and HYBRID_IOPOLL (bit 17): the kernel's own mask, not a constant
[ $((mask & 1)) = 1 ] && [ $((mask & (1 << 17))) != 0 ] || fail "setup_flags_known $mask"
grep -E "info: hybrid IOPOLL: supported \(IORING_REGISTER_QUERY: setup flags 0x$(printf %x "$mask")\)" \
	"$T/daemon.log" || fail "no start line: $(grep -i hybrid "$T/daemon.log")"

prom=$T/textfile/uringtune.prom
wait_for 30 grep -q '^uringtune_hybrid_supported{source="query"} 1$' "$prom" ||
	fail "export: $(grep hybrid_supported "$prom")"
grep '^uringtune_hybrid_supported' "$prom"

log "the agent asked for hybrid, as before: not an IOPOLL ring, then an IOPOLL one"
bg "${AGENT_EXEC[@]}" --hybrid on -- "$B/ringhold" --flags plain >"$T/plain.out"
bg "${AGENT_EXEC[@]}" --hybrid on -- "$B/ringhold" --flags iopoll >"$T/iop.out"
wait_line "$T/plain.out" '^ready'
wait_line "$T/iop.out" '^ready'
read -r pid fd < <(ring_of "$T/plain.out")
expect_ring "$pid" "$fd" '.setup_flags == [] and .agent.hybrid == "not an IOPOLL ring"'
read -r pid fd < <(ring_of "$T/iop.out")
expect_ring "$pid" "$fd" '.setup_flags == ["IOPOLL","HYBRID_IOPOLL"] and .agent.hybrid == "added"'
a=$(status_json | jq -c '[.daemon.agent.hybrid_added, .daemon.agent.hybrid_fallback,
	.daemon.hybrid_support.source]')
[ "$a" = '[1,0,"query"]' ] || fail "counts and source: $a"
kill_bg
