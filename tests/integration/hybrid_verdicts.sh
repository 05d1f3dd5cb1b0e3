#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 15, item 3: the hybrid verdicts survive restarts. These hosts have no
# pollable block device, so a verdict is seeded through the file a previous
# daemon would have written (state_dir/hybrid-verdicts.json): the next daemon
# shows it with the same numbers in status (top-level hybrid_verdicts, and
# iopoll.verdict on fio's ring), in the export (promtool passes) and in
# `status --ring`; `uringtune exec --hybrid auto` gets classic rings for a
# program whose hybrid rings lost more than [agent] hybrid_max_loss, and
# hybrid ones once the bound allows the loss (a restart with another bound).
# The file is rewritten when a verdict changed; a corrupt file is logged and
# moved aside, never fatal. The VM matrix (vm_kernel_7) covers the measured
# path on a real IOPOLL device.
. "$(dirname "$0")/../lib.sh"

command -v fio >/dev/null || fail "fio is missing (scripts/deps.sh installs it)"
command -v promtool >/dev/null || fail "promtool missing (Debian package prometheus)"
FIO=$(readlink -f "$(command -v fio)")
FILE=$T/state/hybrid-verdicts.json
PROM=$T/textfile/uringtune.prom
head -c 4M /dev/zero >"$T/data"
mkdir -p "$T/state"
chmod 0700 "$T/state"

# fio measured: classic 1000 ns of CPU a read at 10000 IOPS, hybrid 500 ns at
# 6000 (CPU per read -50%, IOPS -40%); another program predicted only
cat >"$FILE" <<EOF
{"format":"uringtune-hybrid-verdicts","version":1,"programs":[
 {"comm":"fio","exe":"$FIO","updated":1800000000,
  "classic":{"reads":40000,"cpu_ns":40000000,"wall_ns":4000000000,"windows":4,"rings":1},
  "hybrid":{"reads":24000,"cpu_ns":12000000,"wall_ns":4000000000,"windows":4,"rings":2},
  "predicted":null,"verdict":"classic","why":"seeded"},
 {"comm":"db","exe":"/opt/db/bin/db","updated":1800000100,
  "classic":{"reads":5000,"cpu_ns":5000000,"wall_ns":1000000000,"windows":1,"rings":1},
  "hybrid":{"reads":0,"cpu_ns":0,"wall_ns":0,"windows":0,"rings":0},
  "predicted":{"cpu_per_read_saving":0.3,"iops_change":-0.05,"at":1800000100},
  "verdict":"unjudged","why":"seeded"}]}
EOF
chmod 0600 "$FILE"

# fio_ring NAME ARGS...: fio under `uringtune exec ARGS`, 20 s; FIO_PID, FIO_FD
fio_ring() {
	local name=$1 r
	shift
	bg "${AGENT_EXEC[@]}" "$@" -- fio --name="$name" --filename="$T/data" --size=4M \
		--direct=1 --ioengine=io_uring --hipri=1 --rw=randread --bs=4k --iodepth=1 \
		--time_based --runtime=20 --continue_on_error=all --ignore_error=95,95 \
		--output="$T/$name.fio"
	r=$(wait_ring_json '.comm == "fio" and (.setup_flags | index("IOPOLL")) and .agent != null') ||
		fail "$name: no fio IOPOLL ring set up through the agent in status"
	FIO_PID=$(jq .pid <<<"$r")
	FIO_FD=$(jq .fd <<<"$r")
	echo "$name: $(jq -c '{pid, fd, setup_flags, agent: .agent.decision}' <<<"$r")"
}

start_daemon mode=tune interval_s=1
grep -q "hybrid verdicts: 2 programs from $FILE" "$T/daemon.log" ||
	fail "the seeded file was not loaded: $(grep -i verdict "$T/daemon.log")"

log "status: the seeded numbers, judged by the default bounds"
v=$(status_json | jq -c --arg exe "$FIO" '.hybrid_verdicts[] | select(.comm == "fio" and .exe == $exe)')
[ -n "$v" ] || fail "no fio verdict in status: $(status_json | jq -c .hybrid_verdicts)"
echo "$v"
jq -e '.verdict == "classic" and .classic.reads == 40000 and .classic.windows == 4 and
	.classic.rings == 1 and .classic.cpu_per_read_ns == 1000 and .classic.iops == 10000 and
	.hybrid.reads == 24000 and .hybrid.cpu_per_read_ns == 500 and .hybrid.iops == 6000 and
	.measured.cpu_per_read_saving == 0.5 and .measured.iops_change == -0.4 and
	.predicted == null and .updated == 1800000000 and
	(.why | test("^classic: hybrid lost 40% IOPS on 4 windows \\(bound 10%\\)$"))' <<<"$v" >/dev/null ||
	fail "fio's verdict is not the seeded one judged by the default bounds"
status_json | jq -e '.hybrid_verdicts | length == 2 and .[0].comm == "db" and
	.[0].verdict == "unjudged" and .[0].measured == null and
	.[0].predicted.cpu_per_read_saving == 0.3 and .[0].hybrid.iops == null' >/dev/null ||
	fail "db's record: $(status_json | jq -c '.hybrid_verdicts[0]')"
status_json | jq -e --arg f "$FILE" '.hybrid_verdicts_file == {"path": $f, "write_errors": 0, "error": null}' \
	>/dev/null || fail "hybrid_verdicts_file: $(status_json | jq -c .hybrid_verdicts_file)"

log "export: one verdict series a program, promtool passes"
has_verdicts() { grep -q "^uringtune_hybrid_verdict{comm=\"fio\",exe=\"$FIO\",verdict=\"classic\"} 1$" "$PROM"; }
wait_for 30 has_verdicts || fail "no fio verdict in $PROM: $(grep hybrid "$PROM")"
grep -q "^uringtune_hybrid_measured_iops_change{comm=\"fio\",exe=\"$FIO\"} -0.4$" "$PROM" ||
	fail "measured IOPS change: $(grep measured_iops "$PROM")"
grep -q '^uringtune_hybrid_predicted_cpu_per_read_saving{comm="db",exe="/opt/db/bin/db"} 0.3$' "$PROM" ||
	fail "db's prediction: $(grep predicted "$PROM")"
promtool check metrics <"$PROM" || fail "promtool check metrics failed"

log "hybrid = auto: fio's hybrid rings lost 40% > 10%: classic"
fio_ring auto-classic --hybrid auto
expect_ring "$FIO_PID" "$FIO_FD" '(.setup_flags | index("HYBRID_IOPOLL") | not) and
	(.agent.decision | test("hybrid: classic, measured on 4 hybrid windows: -40% IOPS \\(bound 10%\\)")) and
	.iopoll.verdict.verdict == "classic" and .iopoll.verdict.classic.reads == 40000'
"$B/uringtune" --socket "$SOCK" status --ring "$FIO_PID:$FIO_FD" | tee "$T/ring.txt" | grep -E '^(hybrid verdict|  (classic|hybrid)) '
grep -q '^hybrid verdict classic: hybrid lost 40% IOPS on 4 windows (bound 10%)$' "$T/ring.txt" &&
	grep -q '^  hybrid       500ns CPU per read, 6000 IOPS (4 windows, 2 rings)$' "$T/ring.txt" ||
	fail "status --ring does not show the verdict"
kill_bg
stop_daemon
jq -e '.programs[0].classic.reads == 40000 and .programs[0].hybrid.cpu_ns == 12000000' "$FILE" \
	>/dev/null || fail "the file lost the seeded numbers: $(cat "$FILE")"

log "restart with hybrid_max_loss = 0.5: the same numbers, judged hybrid; the file follows"
start_daemon mode=tune hybrid_max_loss=0.5
status_json | jq -e --arg exe "$FIO" '.hybrid_verdicts[] | select(.comm == "fio" and .exe == $exe) |
	.verdict == "hybrid" and .classic.reads == 40000 and .hybrid.reads == 24000' >/dev/null ||
	fail "fio under the wider bound: $(status_json | jq -c .hybrid_verdicts)"
fio_ring auto-hybrid --hybrid auto
expect_ring "$FIO_PID" "$FIO_FD" '(.setup_flags | index("HYBRID_IOPOLL")) and
	(.agent.decision | test("hybrid: added, measured on 4 hybrid windows: 50% less CPU per read, -40% IOPS"))'
kill_bg
stop_daemon
jq -e --arg exe "$FIO" '.programs[] | select(.comm == "fio" and .exe == $exe) |
	.verdict == "hybrid" and .classic.reads == 40000 and .classic.cpu_ns == 40000000 and
	.hybrid.wall_ns == 4000000000 and .updated == 1800000000' "$FILE" >/dev/null ||
	fail "the file after the new verdict: $(cat "$FILE")"
[ "$(stat -c %a "$FILE")" = 600 ] || fail "the file's mode is $(stat -c %a "$FILE")"

log "a corrupt file: logged with what is wrong, moved aside, an empty table"
printf '{"format":"uringtune-hybrid-verdicts",\n"version":1,\n"programs":[{"comm": }\n' >"$FILE"
start_daemon mode=tune
grep -q "hybrid verdicts: $FILE: line 3: not JSON.*moved to $FILE.bad" "$T/daemon.log" ||
	fail "no log line for the corrupt file: $(grep -i verdict "$T/daemon.log")"
[ -f "$FILE.bad" ] && [ ! -e "$FILE" ] || fail "the corrupt file was not moved aside"
status_json | jq -e '.hybrid_verdicts == []' >/dev/null || fail "verdicts from a corrupt file"
echo "ok"
