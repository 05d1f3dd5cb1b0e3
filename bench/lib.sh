# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Shared by the benchmarks (not tests): where results go, the statistics
# (medians and min-max over interleaved rounds), CPU and memory of a
# process, pinned ping-pong runs, and the plots. Source it from a benchmark:
# `. "$(dirname "$0")/lib.sh"`. It sources tests/lib.sh (set -euo pipefail,
# a private temp directory, namespaces, cleanup on exit).
#
# Environment, for every benchmark:
#   RESULTS  directory for CSV, PNG and summaries (default bench/results;
#            relative to where the benchmark was started)
#   QUICK=1  smaller defaults, for `make bench QUICK=1`
#   PIN      1 (default): ping-pong client on CPU 0, server on CPU 1;
#            0: the scheduler places them (see docs/BENCHMARKS.md)
#   DAEMON_BIN  the uringtuned to measure (default build/uringtuned)
#   EXPORT_S    the daemons' [export] interval_s (default: the shipped 15 s).
#               footprint and scale wait for their rings in the textfile
#               export: up to one interval per cell. The smoke test
#               (tests/integration/bench_smoke.sh) sets 1; the daemon then
#               writes its export every second, which its CPU includes.

_bench_cwd=$PWD
. "$(dirname "${BASH_SOURCE[0]}")/../tests/lib.sh"

if [ -z "${RESULTS:-}" ]; then
	RESULTS=$PWD/bench/results
elif [[ $RESULTS != /* ]]; then
	RESULTS=$_bench_cwd/$RESULTS
fi
mkdir -p "$RESULTS"
QUICK=${QUICK:-0}
PIN=${PIN:-1}

command -v gnuplot >/dev/null ||
	fail "gnuplot is missing: the benchmarks plot with it (scripts/deps.sh installs gnuplot-nox)"

# quick Q FULL: Q under QUICK=1, else FULL (for parameter defaults)
quick() {
	if [ "$QUICK" = 1 ]; then echo "$1"; else echo "$2"; fi
}

# --- statistics over numbers on stdin, one a line --------------------------

median() {
	sort -g | awk '{a[NR]=$1} END {if (!NR) exit 1; print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'
}

# "lo-hi"
range() {
	sort -g | awk 'NR==1{lo=$1} {hi=$1} END {if (!NR) exit 1; printf "%s-%s\n", lo, hi}'
}

minimum() { sort -g | head -n 1; }
maximum() { sort -g | tail -n 1; }

# pct P: nearest-rank percentile (the tools' definition)
pct() {
	sort -g | awk -v p="$1" '{a[NR]=$1} END {if (!NR) exit 1; i=int((NR*p+99)/100); if (i<1) i=1; print a[i]}'
}

# ratio A B [DIGITS]: A/B
ratio() {
	awk -v a="$1" -v b="$2" -v d="${3:-3}" 'BEGIN{if (b == 0) print "nan"; else printf "%.*f\n", d, a/b}'
}

# le A B: A <= B (decimals)
le() { awk -v a="$1" -v b="$2" 'BEGIN{exit !(a <= b)}'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN{exit !(a >= b)}'; }

# csv_col FILE COL [FILTER_COL VALUE]...: column COL (1-based) of FILE's data
# rows whose FILTER_COLs equal VALUEs
csv_col() {
	local file=$1 col=$2
	shift 2
	awk -F, -v c="$col" -v f="$*" '
		BEGIN {n = split(f, kv, " ")}
		NR > 1 {
			for (i = 1; i < n; i += 2)
				if ($kv[i] != kv[i+1]) next
			print $c
		}' "$file"
}

# target NAME MEASURED OP LIMIT [NOTE]: one line of RESULTS/targets_PART.csv
# (PART from $PART) and of the printed summary; OP is <= or >=; commas in
# NAME and NOTE become semicolons (CSV)
target() {
	local name=${1//,/;} v=$2 op=$3 limit=$4 note=${5:-} met
	note=${note//,/;}
	case $op in
	'<=') if le "$v" "$limit"; then met=met; else met=missed; fi ;;
	'>=') if ge "$v" "$limit"; then met=met; else met=missed; fi ;;
	*) fail "target: bad operator $op" ;;
	esac
	[ -f "$RESULTS/targets_$PART.csv" ] ||
		echo "part,target,measured,op,limit,verdict,note" >"$RESULTS/targets_$PART.csv"
	echo "$PART,$name,$v,$op,$limit,$met,$note" >>"$RESULTS/targets_$PART.csv"
	printf 'target %-34s measured %-10s %s %-8s %s%s\n' "$name" "$v" "$op" "$limit" "$met" \
		"${note:+ ($note)}"
}

# targets_begin: a fresh targets file for this part
targets_begin() {
	rm -f "$RESULTS/targets_$PART.csv"
}

# --- processes ---------------------------------------------------------------

CLK_TCK=$(getconf CLK_TCK)

# cpu_ticks PID: utime+stime of the whole process (all threads), in clock ticks
cpu_ticks() {
	# the comm field may hold spaces: count fields after its closing paren
	sed -E 's/^.*\) //' "/proc/$1/stat" | awk '{print $12 + $13}'
}

# psi_us: the host's CPU pressure so far ("some" total, us): the time some
# runnable task waited for a CPU. Two pinned ends of a ping-pong alone keep it
# near 0; anything else competing for their CPUs (another VM, a build) raises
# it, so a run's delta flags runs the shared machine disturbed.
psi_us() {
	awk '$1 == "some" {for (i = 2; i <= NF; i++) if ($i ~ /^total=/) {sub("total=", "", $i); print $i}}' \
		/proc/pressure/cpu 2>/dev/null || echo 0
}

# rss_kb PID: VmRSS in kB
rss_kb() {
	awk '/^VmRSS:/ {print $2}' "/proc/$1/status"
}

# bench_daemon [key=value ...]: a private uringtuned without -v (logging every
# ring would be part of what is measured), ready when it answers. DAEMON_BIN
# (default build/uringtuned) measures another build, e.g. an older revision.
# Tune-mode benchmarks pass include_comm=pingpong (or ringhold): the daemon
# then leaves other io_uring users on a shared host alone; the tools' rings
# are taken exactly as with the default "everyone". EXPORT_S (above) sets
# its [export] interval_s; keys given win.
bench_daemon() {
	local keys=()
	[ -z "${EXPORT_S:-}" ] || keys=("interval_s=$EXPORT_S")
	write_config "${keys[@]}" "$@"
	"${DAEMON_BIN:-$B/uringtuned}" -c "$CONF" >>"$T/daemon.log" 2>&1 &
	DAEMON_PID=$!
	wait_for 15 "$B/uringtune" --socket "$SOCK" status --json ||
		fail "uringtuned did not answer on $SOCK within 15 s"
}

# prom_rings: the daemon's ring count from its textfile export (cheaper than
# a status query, which also grows the daemon's heap), written every
# [export] interval_s (EXPORT_S)
prom_rings() {
	awk '$1 == "uringtune_rings" {print $2}' "$T/textfile/uringtune.prom" 2>/dev/null
}

# the daemon has seen at least N rings (in its export: see prom_rings)
seen() { [ "$(prom_rings)" -ge "$1" ] 2>/dev/null; }

# run time in ns of every thread of the processes given (schedstat's first field)
run_ns() {
	local p
	for p in "$@"; do cat /proc/"$p"/task/*/schedstat 2>/dev/null || true; done |
		awk '{s += $1} END {printf "%.0f\n", s}'
}

# idle_cpu SECONDS: "ticks_pct schedstat_pct" of the daemon over SECONDS
idle_cpu() {
	local t0 t1 n0 n1 w0 w1
	w0=$(date +%s%N)
	t0=$(cpu_ticks "$DAEMON_PID")
	n0=$(run_ns "$DAEMON_PID")
	sleep "$1"
	t1=$(cpu_ticks "$DAEMON_PID")
	n1=$(run_ns "$DAEMON_PID")
	w1=$(date +%s%N)
	awk -v t="$((t1 - t0))" -v hz="$CLK_TCK" -v n="$((n1 - n0))" -v w="$((w1 - w0))" \
		'BEGIN {printf "%.3f %.3f\n", 100 * t / hz / (w / 1e9), 100 * n / w}'
}

# --- ping-pong ------------------------------------------------------------------

PORT=7000
SRV_PID=

# pinning prefixes: client CPU 0, server CPU 1 (PIN=1 and at least 2 CPUs)
PIN_CLIENT=()
PIN_SERVER=()
if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ]; then
	PIN_CLIENT=(taskset -c 0)
	PIN_SERVER=(taskset -c 1)
fi

# pp_server ARGS...: a ping-pong server in NS_B (netns_setup first), pinned,
# ready when it printed its ring; its output in $T/server.out
pp_server() {
	bg ip netns exec "$NS_B" "${PIN_SERVER[@]}" "$B/pingpong" server \
		--bind 198.18.0.2:$PORT --quiet "$@" >"$T/server.out"
	SRV_PID=${BG_PIDS[-1]}
	wait_line "$T/server.out" '^ring '
}

# bg_forget PID: a background process that was waited for leaves BG_PIDS
# (cleanup must not signal a recycled PID)
bg_forget() {
	local p keep=()
	for p in "${BG_PIDS[@]}"; do
		[ "$p" = "$1" ] || keep+=("$p")
	done
	BG_PIDS=("${keep[@]}")
}

# pp_server_stop: SIGTERM, wait (its summary lines are then in server.out)
pp_server_stop() {
	kill -TERM "$SRV_PID"
	wait "$SRV_PID" || true
	bg_forget "$SRV_PID"
	SRV_PID=
}

# pp_client ARGS...: a ping-pong client in NS_A, pinned; its stdout
pp_client() {
	ip netns exec "$NS_A" "${PIN_CLIENT[@]}" "$B/pingpong" client \
		--connect 198.18.0.2:$PORT --quiet "$@"
}

# server_napi: the server ring's NAPI state now ("disabled" or
# "enabled/<tracking>/<dt ns>/<prefer>"), to record who set what
server_napi() {
	local p f
	read -r p f < <(ring_of "$T/server.out")
	napi_state "$p" "$f" 2>/dev/null || echo gone
}

# --- plots -------------------------------------------------------------------

# plot FILE.png [WIDTH HEIGHT]: gnuplot reads the rest of the script on stdin
plot() {
	local png=$1 w=${2:-900} h=${3:-500} term
	if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
		term="pngcairo size $w,$h font 'sans,10' noenhanced"
	else
		term="png size $w,$h noenhanced"
	fi
	{
		echo "set terminal $term"
		echo "set output '$png'"
		echo "set datafile separator ','"
		echo "set key noautotitle"
		echo "set grid ytics lc rgb '#dddddd'"
		cat
	} | gnuplot 2>"$T/gnuplot.err" || { cat "$T/gnuplot.err"; fail "gnuplot failed on $png"; }
	png_ok "$png" || { cat "$T/gnuplot.err"; fail "gnuplot wrote no PNG: $png"; }
	echo "png: $png"
}

# png_ok FILE: FILE starts with the PNG signature
png_ok() {
	[ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}

# a banner: which part, with which parameters
part_banner() {
	echo "== $PART: $* (QUICK=$QUICK PIN=$PIN, results in $RESULTS)"
}
