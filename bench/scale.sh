#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark part 8, scale (issue 13; not a test): what an observe-mode
# uringtuned (shipped configuration: 1 s ticks, textfile export on) costs on
# a large host. A cell is a host size (FILES open files in all, held by
# build/fdhold: opens of /dev/null in as many processes as RLIMIT_NOFILE
# needs) times RINGS idle rings (build/ringhold --idle: 4 entries, no
# traffic). Per cell, a fresh daemon with the fd holders already there, then
# the rings (they arrive as creation events), seen in the textfile export,
# SCALE_SETTLE seconds, and then in turn:
#   cpu     utime+stime of the daemon (/proc/PID/stat) over SCALE_WINDOW s, as
#           % of one core (the threads' schedstat run time beside it: the
#           ticks are 10 ms); no query during it
#   rss     VmRSS before any query (only the export was read so far)
#   probe   the loop's stalls seen from outside: one client sends the
#           smallest request the control socket answers every SCALE_PROBE_MS
#           for SCALE_WINDOW s and times each round trip (p50, p99, max). The
#           request is {"cmd":"reset"}, refused at once in observe mode: its
#           answer costs the daemon nothing that grows with the rings, so its
#           round trip is the wait for the loop (a status request would time
#           the reply's building instead: ~0.5 s with 10 000 rings before
#           issue 13)
#   status  SCALE_STATUS_RUNS times `uringtune status` and `status --json`,
#           alternated, each timed (median, max); the daemon's own
#           daemon.loop.longest_us (when its status has it, "-"
#           otherwise) and daemon.last_sweep_us from the first and the last
#           --json reply; VmRSS after them
# Knobs (defaults; QUICK=1 in brackets):
#   SCALE_FILES "0 100000 700000" ["0 100000"]   host sizes, open files held
#   SCALE_RINGS "0 1000 10000" ["0 1000"]        idle rings per cell
#   SCALE_WINDOW 20 [10] s, SCALE_PROBE_MS 100, SCALE_STATUS_RUNS 20,
#   SCALE_SETTLE 3 s, SCALE_ROUNDS 1 (cells repeated; the table takes medians)
#   EXPORT_S (bench/lib.sh)  how often the daemon writes the export waited on
#   DAEMON_BIN, CLI_BIN   the uringtuned and uringtune measured (default
#                         build/...): DAEMON_BIN=/work/wt-before/build/uringtuned
#                         CLI_BIN=/work/wt-before/build/uringtune measures another build
#   SCALE_BEFORE          a scale.csv of another build, plotted beside this run
#                         (default docs/data/scale_before.csv; "" for none),
#                         SCALE_BEFORE_LABEL its name in the plot
#   SCALE_LABEL           this run's name in the plot (default: the revision)
#   SCALE_FROM            a scale.csv: no measurement, its table, targets and plot
#                         (the cells and window are that file's)
# CSV: RESULTS/scale.csv (a row per cell and round), scale_status.csv (every
# timed status), scale_probe.csv (every probe round trip); plot scale.png.
# bench/scale_table.sh BEFORE.csv [AFTER.csv] makes docs/BENCHMARKS.md's tables.
. "$(dirname "$0")/lib.sh"
# Ctrl-C or a kill: the EXIT trap (tests/lib.sh) ends the holders and the daemon
trap 'exit 130' INT
trap 'exit 143' TERM

PART=scale
SCALE_FILES=${SCALE_FILES:-$(quick "0 100000" "0 100000 700000")}
SCALE_RINGS=${SCALE_RINGS:-$(quick "0 1000" "0 1000 10000")}
SCALE_WINDOW=${SCALE_WINDOW:-$(quick 10 20)}
SCALE_PROBE_MS=${SCALE_PROBE_MS:-100}
SCALE_STATUS_RUNS=${SCALE_STATUS_RUNS:-20}
SCALE_SETTLE=${SCALE_SETTLE:-3}
SCALE_ROUNDS=${SCALE_ROUNDS:-1}
SCALE_BEFORE=${SCALE_BEFORE-docs/data/scale_before.csv}
SCALE_BEFORE_LABEL=${SCALE_BEFORE_LABEL:-before issue 13}
SCALE_LABEL=${SCALE_LABEL:-$(git describe --always --dirty 2>/dev/null || echo this run)}
CLI_BIN=${CLI_BIN:-$B/uringtune}
DAEMON_BIN=${DAEMON_BIN:-$B/uringtuned}
out=$RESULTS/scale.csv
st=$RESULTS/scale_status.csv
pr=$RESULTS/scale_probe.csv

part_banner "SCALE_FILES=\"$SCALE_FILES\" SCALE_RINGS=\"$SCALE_RINGS\" SCALE_WINDOW=$SCALE_WINDOW" \
	"SCALE_PROBE_MS=$SCALE_PROBE_MS SCALE_STATUS_RUNS=$SCALE_STATUS_RUNS SCALE_ROUNDS=$SCALE_ROUNDS" \
	"DAEMON_BIN=$DAEMON_BIN CLI_BIN=$CLI_BIN${EXPORT_S:+ EXPORT_S=$EXPORT_S}"
targets_begin
for x in "$B/fdhold" "$B/ringhold" "$DAEMON_BIN" "$CLI_BIN"; do
	[ -x "$x" ] || fail "$x is not built (make)"
done
command -v python3 >/dev/null || fail "python3 is missing (the loop probe)"
if [ -n "${SCALE_FROM:-}" ]; then
	[ -f "$SCALE_FROM" ] || fail "SCALE_FROM: no file $SCALE_FROM"
	SCALE_FILES=$(awk -F, 'NR > 1 && !s[$2]++ {print $2}' "$SCALE_FROM" | xargs)
	SCALE_RINGS=$(awk -F, 'NR > 1 && !s[$3]++ {print $3}' "$SCALE_FROM" | xargs)
	SCALE_WINDOW=$(csv_col "$SCALE_FROM" 8 | median)
	SCALE_ROUNDS=$(csv_col "$SCALE_FROM" 1 | sort -un | wc -l)
	echo "scale: from $SCALE_FROM (no measurement): files $SCALE_FILES, rings $SCALE_RINGS"
fi
read -ra files_list <<<"$SCALE_FILES"
read -ra rings_list <<<"$SCALE_RINGS"
echo "scale: RLIMIT_NOFILE hard $(ulimit -Hn) (fdhold and ringhold raise theirs to it)," \
	"fs.nr_open $(cat /proc/sys/fs/nr_open), fs.file-max $(cat /proc/sys/fs/file-max)," \
	"open files now $(cut -f1 /proc/sys/fs/file-nr)"

# --- holders -------------------------------------------------------------------

FD_PID=
# hold_files N: N open files on the host (none for 0), ready
hold_files() {
	FD_PID=
	[ "$1" -gt 0 ] || return 0
	bg "$B/fdhold" --files "$1" >"$T/fdhold.out"
	FD_PID=${BG_PIDS[-1]}
	wait_line "$T/fdhold.out" '^ready' 300
	log "fdhold: $(grep '^ready' "$T/fdhold.out")"
}

RING_PID=
# hold_rings N: N idle rings (none for 0), ready
hold_rings() {
	RING_PID=
	[ "$1" -gt 0 ] || return 0
	bg "$B/ringhold" --idle "$1" >"$T/rings.out"
	RING_PID=${BG_PIDS[-1]}
	wait_line "$T/rings.out" '^ready' 300
}

# end PID: TERM, wait (its holders are reaped by then), forget
end() {
	[ -n "$1" ] || return 0
	kill -TERM "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
	bg_forget "$1"
}

# --- measurements ----------------------------------------------------------------

# probe: one round trip in ms per line, every SCALE_PROBE_MS for SCALE_WINDOW s
# (a request that comes back late delays the next one: no backlog of probes)
probe() {
	python3 - "$SOCK" "$SCALE_WINDOW" "$SCALE_PROBE_MS" <<'EOF'
import socket, sys, time
path, secs, period = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]) / 1000
req = b'{"cmd":"reset"}\n'
end = time.monotonic() + secs
due = time.monotonic()
while True:
    now = time.monotonic()
    if now >= end:
        break
    if due > now:
        time.sleep(due - now)
    due = max(due + period, time.monotonic())
    t0 = time.monotonic_ns()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(path)
    s.sendall(req)
    buf = b''
    while not buf.endswith(b'\n'):
        d = s.recv(65536)
        if not d:
            break
        buf += d
    s.close()
    t1 = time.monotonic_ns()
    if b'"error"' not in buf and b'"ok"' not in buf:
        sys.exit('probe: unexpected reply %r' % buf[:200])
    print('%.3f' % ((t1 - t0) / 1e6))
EOF
}

# ms since $1 (an EPOCHREALTIME)
ms_since() {
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", (b - a) * 1000}'
}

# dkey FILE FILTER: a number of a saved --json reply, "-" when absent
dkey() {
	jq -r "($2) // \"-\"" "$1" 2>/dev/null || echo -
}

# status_runs ROUND FILES RINGS: the timed queries; sets JSON_BYTES and the
# first and last --json replies ($T/first.json, $T/last.json)
status_runs() {
	local i t view
	for i in $(seq 1 "$SCALE_STATUS_RUNS"); do
		for view in table json; do
			t=$EPOCHREALTIME
			if [ "$view" = json ]; then
				"$CLI_BIN" --socket "$SOCK" status --json >"$T/status.out"
			else
				"$CLI_BIN" --socket "$SOCK" status >"$T/status.out"
			fi
			echo "$1,$2,$3,$view,$i,$(ms_since "$t")" >>"$st"
			if [ "$view" = json ]; then
				[ "$i" != 1 ] || cp "$T/status.out" "$T/first.json"
				JSON_BYTES=$(wc -c <"$T/status.out")
			fi
		done
	done
	mv "$T/status.out" "$T/last.json"
}

# cell ROUND FILES RINGS: one row of scale.csv (the fd holders are up)
cell() {
	local r=$1 f=$2 n=$3 cpu cpu_ns rss0 rss1 p sv jv
	bench_daemon max_rings=$((n + 2048 > 16384 ? n + 2048 : 16384))
	hold_rings "$n"
	wait_for 120 seen "$n" || fail "the daemon did not see $n rings (export says $(prom_rings))"
	sleep "$SCALE_SETTLE"
	read -r cpu cpu_ns < <(idle_cpu "$SCALE_WINDOW")
	rss0=$(rss_kb "$DAEMON_PID")
	probe >"$T/probe.txt" || fail "the loop probe failed"
	awk -v c="$r,$f,$n" '{print c "," NR "," $1}' "$T/probe.txt" >>"$pr"
	p=$(cat "$T/probe.txt")
	status_runs "$r" "$f" "$n"
	rss1=$(rss_kb "$DAEMON_PID")
	sv=$(csv_col "$st" 6 1 "$r" 2 "$f" 3 "$n" 4 table)
	jv=$(csv_col "$st" 6 1 "$r" 2 "$f" 3 "$n" 4 json)
	row="$r,$f,$n,$(cut -f1 /proc/sys/fs/file-nr),$(prom_rings),$cpu,$cpu_ns,$SCALE_WINDOW"
	row+=",$(wc -l <<<"$p"),$(pct 50 <<<"$p"),$(pct 99 <<<"$p"),$(maximum <<<"$p")"
	row+=",$(dkey "$T/first.json" .daemon.loop.longest_us)"
	row+=",$(dkey "$T/last.json" .daemon.loop.longest_us)"
	row+=",$(median <<<"$sv"),$(maximum <<<"$sv"),$(median <<<"$jv"),$(maximum <<<"$jv"),$JSON_BYTES"
	row+=",$rss0,$rss1,$(dkey "$T/first.json" .daemon.last_sweep_us)"
	row+=",$(dkey "$T/last.json" .daemon.last_sweep_us),$(cut -d' ' -f1 /proc/loadavg)"
	echo "$row" >>"$out"
	printf 'files %7s rings %5s: CPU %6s%% (schedstat %s%%), probe max %s ms, --json %s ms, RSS %s -> %s kB, load %s\n' \
		"$f" "$n" "$cpu" "$cpu_ns" "$(maximum <<<"$p")" "$(median <<<"$jv")" "$rss0" "$rss1" \
		"$(cut -d' ' -f1 /proc/loadavg)"
	end "$RING_PID"
	stop_daemon
}

# the cells, round after round: each host size's fd holders serve its ring counts
measure() {
	local r f n
	echo "round,files,rings,host_files,daemon_rings,cpu_pct,cpu_pct_schedstat,window_s,probe_n,probe_p50_ms,probe_p99_ms,probe_max_ms,loop_longest_us,loop_longest_after_us,status_p50_ms,status_max_ms,json_p50_ms,json_max_ms,json_bytes,rss_kb_before,rss_kb_after,last_sweep_us,last_sweep_us_after,loadavg" >"$out"
	echo "round,files,rings,view,run,ms" >"$st"
	echo "round,files,rings,n,ms" >"$pr"
	for r in $(seq 1 "$SCALE_ROUNDS"); do
		for f in "${files_list[@]}"; do
			hold_files "$f"
			for n in "${rings_list[@]}"; do
				cell "$r" "$f" "$n"
			done
			end "$FD_PID"
		done
	done
}

if [ -n "${SCALE_FROM:-}" ]; then
	cp "$SCALE_FROM" "$out"
else
	measure
fi

# --- summary -----------------------------------------------------------------------

echo
echo "uringtuned (observe mode) on a large host: $SCALE_ROUNDS round(s), medians over rounds"
bash bench/scale_table.sh --columns "$out"
if [ -n "$SCALE_BEFORE" ] && [ -f "$SCALE_BEFORE" ]; then
	echo
	echo "against $SCALE_BEFORE ($SCALE_BEFORE_LABEL):"
	bash bench/scale_table.sh --columns "$SCALE_BEFORE" "$out" | head -n 40
fi
echo

# cellv COL FILES RINGS: the median over rounds of a column of a cell, "" if absent
cellv() {
	local v
	v=$(csv_col "$out" "$1" 2 "$2" 3 "$3" | grep -v '^-$' || true)
	[ -z "$v" ] || median <<<"$v"
}
fmax=${files_list[-1]}
for f in "${files_list[@]}"; do [ "$f" -le "$fmax" ] || fmax=$f; done
has_ring() { printf '%s\n' "${rings_list[@]}" | grep -qx "$1"; }
if has_ring 0; then
	target "idle CPU % with $fmax files; no ring" "$(cellv 6 "$fmax" 0)" '<=' 0.5
	v=$(awk -v a="$(cellv 16 "$fmax" 0)" -v b="$(cellv 18 "$fmax" 0)" 'BEGIN {print (a + 0 > b + 0 ? a : b)}')
	target "slowest status ms with $fmax files; no ring" "$v" '<=' 50 "table or --json"
	target "longest loop stall ms with $fmax files" "$(cellv 12 "$fmax" 0)" '<=' 20 \
		"probe round trip; no ring"
	v=$(cellv 13 "$fmax" 0)
	[ -z "$v" ] || target "daemon's longest dispatch ms; $fmax files" \
		"$(awk -v v="$v" 'BEGIN {printf "%.1f", v / 1000}')" '<=' 20 "its own measure; no ring"
fi
f0=${files_list[0]}
for f in "${files_list[@]}"; do [ "$f" -ge "$f0" ] || f0=$f; done
if has_ring 1000; then
	target "idle CPU % with 1000 rings" "$(cellv 6 "$f0" 1000)" '<=' 0.2 "$f0 files"
fi
if has_ring 10000; then
	target "idle CPU % with 10000 rings" "$(cellv 6 "$f0" 10000)" '<=' 1 "$f0 files"
	target "status --json ms with 10000 rings" "$(cellv 17 "$f0" 10000)" '<=' 150 "median"
	target "status (table) ms with 10000 rings" "$(cellv 15 "$f0" 10000)" '<=' 150 "median"
	target "RSS MB with 10000 rings after queries" \
		"$(awk -v v="$(cellv 21 "$f0" 10000)" 'BEGIN {printf "%.1f", v / 1024}')" '<=' 48 \
		"after $((2 * SCALE_STATUS_RUNS)) status queries"
fi

# --- plot ---------------------------------------------------------------------------

# one line per cell of this run: label, then (CPU, --json p50, --json max, probe max)
# of the earlier build and of this run ("NaN" where it has no such cell)
dat=$T/scale_plot.csv
{
	for f in "${files_list[@]}"; do
		for n in "${rings_list[@]}"; do
			line="$(awk -v f="$f" 'BEGIN {print (f >= 1000 ? f / 1000 "k" : f)}')"
			line+=" / $(awk -v n="$n" 'BEGIN {print (n >= 1000 ? n / 1000 "k" : n)}')"
			for src in "${SCALE_BEFORE:-/nonexistent}" "$out"; do
				for c in 6 17 18 12; do
					v=
					[ ! -f "$src" ] || v=$(csv_col "$src" "$c" 2 "$f" 3 "$n" | grep -v '^-$' | median 2>/dev/null || true)
					line+=",${v:-NaN}"
				done
			done
			echo "$line"
		done
	done
} >"$dat"
# the earlier build's bars only where it has a cell of this run
have_before=0
[ -n "$SCALE_BEFORE" ] && [ -f "$SCALE_BEFORE" ] &&
	awk -F, '$2 != "NaN" || $3 != "NaN" {f = 1} END {exit !f}' "$dat" && have_before=1
# plot_cols COLOR BEFORE_USING THIS_USING: one panel's plot command
plot_cols() {
	if [ "$have_before" = 1 ]; then
		echo "plot '$dat' using $2:xtic(1) lc rgb '#9090a0' title '$SCALE_BEFORE_LABEL', '' using $3 lc rgb '$1' title '$SCALE_LABEL'"
	else
		echo "plot '$dat' using $3:xtic(1) lc rgb '$1' title '$SCALE_LABEL'"
	fi
}
title=$SCALE_LABEL
[ "$have_before" = 0 ] || title="$SCALE_BEFORE_LABEL vs $SCALE_LABEL"
plot "$RESULTS/scale.png" 1300 900 <<EOF
set multiplot layout 3,1 title 'uringtuned on a large host (observe mode, shipped configuration): $title'
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set logscale y
set key top left
set xtics nomirror
set xlabel 'open files on the host / idle rings' offset 0,0.5
set title 'idle CPU over ${SCALE_WINDOW} s, % of one core (log scale; 0 shows as 0.01)'
set yrange [0.005:*]
$(plot_cols '#2060c0' '($2 < 0.01 ? 0.01 : $2)' '($6 < 0.01 ? 0.01 : $6)')
set title 'uringtune status --json, ms: median (bar) and max (error bar) of $SCALE_STATUS_RUNS runs (log scale)'
set style histogram errorbars gap 1 lw 1
set yrange [0.5:*]
$(plot_cols '#c04020' '3:3:4' '7:7:8')
set style histogram clustered gap 1
set title 'longest loop stall seen from outside: slowest probe round trip, ms (log scale)'
set yrange [0.1:*]
$(plot_cols '#208040' '5' '9')
unset multiplot
EOF
if [ -n "${SCALE_FROM:-}" ]; then
	echo "csv: $out (a copy of $SCALE_FROM)"
else
	echo "csv: $out $st $pr"
fi
