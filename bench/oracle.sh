#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark part 9, oracle (not a test; issue 14 item 6): a mixed host, and
# how close tune mode comes to the best busy-poll setting per ring, found by
# trying them all. Ping-pong pairs (tests/tools/README.md) between two
# namespaces (veth, NAPI on), all at once, every client on CPU 0 and every
# server on CPU 1 (PIN=1), one port each:
#   fast    back to back
#   sparse  one ping per SPARSE_GAP_MS (5) ms (--burst 1 --gap-ms)
#   slow    back to back, the server waits SLOW_US (1000) us before each echo
#           (pingpong server --reply-delay-us: a timer in io_uring)
#   sqpoll  back to back, both rings SQPOLL (--ring sqpoll)
# PAIRS (default "fast sparse slow sqpoll") lists them; a kind may repeat.
# One pair of each: two vCPUs here, and one SQPOLL pair alone keeps two SQ
# threads spinning (sq_thread_idle 1 s); more pairs measure the scheduler.
#
# Stage 1, the sweep: every pair at one setting per phase, the application
# registering NAPI itself (pingpong --napi-busy-poll-us, --napi-prefer) on
# both of its rings: none, sN, sNp for N in STATIC (10 25 50 100 200) and
# PREFER (0 1): 11 phases per round. The per-pair oracle then picks, from
# the sweep's medians over rounds, each pair's best setting:
#   fast pairs          the lowest p50; among settings within 2% of it, the
#                       lowest CPU
#   every other pair    the lowest CPU among settings whose p50 is within 5%
#                       of the pair's best p50
# (a setting per pair, both rings alike; tune sets each ring on its own).
# Stage 2, the comparison, in interleaved rounds (order rotated):
#   none    no NAPI busy polling anywhere
#   s50     every application at 50 us, its own registration
#   oracle  every pair at its own pick
#   tune    the unmodified pairs under uringtuned --mode tune, measured after
#           TUNE_WAIT_S of convergence
# Each phase: the pairs start, WARMUP_S (TUNE_WAIT_S for tune) pass, then
# MEASURE_S are measured: per pair the client's RTT p50/p99 (pingpong
# --seconds --warmup-s: pings after the warm-up only) and the CPU of its two
# processes (schedstat run time of every thread, SQPOLL threads included,
# /proc/PID/task/*/schedstat), as % of one core and per ping (a back-to-back
# pair takes whatever CPU it gets: per ping is its efficiency); per phase the
# daemon's CPU (tune) and the host's (/proc/stat, all CPUs busy). A phase's
# total CPU is the pairs' plus the daemon's.
# Targets (issue 14): fast pairs' tune/oracle p50 and p99 <= 1.05; total CPU
# tune/oracle <= 1.10; sparse and slow pairs' CPU tune/s50 <= 0.5; SQPOLL
# pairs' p50 and CPU tune/none <= 1.02.
#   ROUNDS (default 2; QUICK 1), MEASURE_S (10; QUICK 4), WARMUP_S (2; QUICK
#   1), TUNE_WAIT_S (30; QUICK 12), STATIC, PREFER, PAIRS, SPARSE_GAP_MS,
#   SLOW_US
# CSV: RESULTS/oracle.csv (every pair in every phase), oracle_phases.csv
# (totals per phase), oracle_pick.csv (the oracle's picks),
# oracle_summary.csv (stage 2, medians over rounds); plot oracle.png.
# bench/oracle_table.sh RESULTS prints the tables of docs/BENCHMARKS.md;
# ORACLE_FROM=DIR (below) redoes the summary, targets and plot from DIR's CSV.
. "$(dirname "$0")/lib.sh"

PART=oracle
ROUNDS=${ROUNDS:-$(quick 1 2)}
MEASURE_S=${MEASURE_S:-$(quick 4 10)}
WARMUP_S=${WARMUP_S:-$(quick 1 2)}
TUNE_WAIT_S=${TUNE_WAIT_S:-$(quick 12 30)}
STATIC=${STATIC:-10 25 50 100 200}
PREFER=${PREFER:-0 1}
PAIRS=${PAIRS:-fast sparse slow sqpoll}
SPARSE_GAP_MS=${SPARSE_GAP_MS:-5}
SLOW_US=${SLOW_US:-1000}
BASE_PORT=7100
# clients run this long past the window: the last one starts after the first
# (ip netns exec under load), and each must outlive the window measured
MARGIN_S=${MARGIN_S:-6}
out=$RESULTS/oracle.csv
phs=$RESULTS/oracle_phases.csv
pick=$RESULTS/oracle_pick.csv
sum=$RESULTS/oracle_summary.csv

# ORACLE_FROM=DIR: no measurement; the summary, targets and plot again
# from DIR's oracle.csv, oracle_phases.csv and oracle_pick.csv (e.g.
# docs/data/oracle), copied into RESULTS
from=${ORACLE_FROM:-}
if [ -n "$from" ]; then
	for f in oracle.csv oracle_phases.csv oracle_pick.csv; do
		[ -f "$from/$f" ] || fail "ORACLE_FROM: no $from/$f"
		[ "$from/$f" -ef "$RESULTS/$f" ] || cp "$from/$f" "$RESULTS/$f"
	done
	PAIRS=$(awk -F, 'NR > 1 {printf "%s ", $2}' "$from/oracle_pick.csv")
	ROUNDS=$(awk -F, 'NR > 1 && $1 > r {r = $1} END {print r}' "$from/oracle.csv")
	MEASURE_S=$(awk -F, 'NR > 1 {printf "%.0f\n", $8}' "$from/oracle_phases.csv" | median)
	PAIRS=${PAIRS% }
fi
part_banner "ROUNDS=$ROUNDS MEASURE_S=$MEASURE_S WARMUP_S=$WARMUP_S TUNE_WAIT_S=$TUNE_WAIT_S" \
	"STATIC=\"$STATIC\" PREFER=\"$PREFER\" PAIRS=\"$PAIRS\"${from:+ (from $from)}"
[ -n "$from" ] || netns_setup
targets_begin

# the pairs: names (kind and a number) and kinds
names=()
kinds=()
declare -A nkind=()
for k in $PAIRS; do
	case $k in fast | sparse | slow | sqpoll) ;; *) fail "PAIRS: no pair kind '$k'" ;; esac
	nkind[$k]=$((${nkind[$k]:-0} + 1))
	names+=("$k${nkind[$k]}")
	kinds+=("$k")
done
np=${#names[@]}

settings=(none)
for p in $PREFER; do
	for s in $STATIC; do
		if [ "$p" = 1 ]; then settings+=("s${s}p"); else settings+=("s$s"); fi
	done
done

kind_client() {
	case $1 in
	sparse) echo "--burst 1 --gap-ms $SPARSE_GAP_MS" ;;
	sqpoll) echo "--ring sqpoll" ;;
	esac
}
kind_server() {
	case $1 in
	slow) echo "--reply-delay-us $SLOW_US" ;;
	sqpoll) echo "--ring sqpoll" ;;
	esac
}
# setting_args SETTING: pingpong's own NAPI options (none and tune: none)
setting_args() {
	case $1 in
	s*p) echo "--napi-busy-poll-us ${1:1:-1} --napi-prefer" ;;
	s*) echo "--napi-busy-poll-us ${1#s}" ;;
	esac
}

# host_busy_ms: every CPU's non-idle time so far, ms (/proc/stat)
host_busy_ms() {
	awk -v hz="$CLK_TCK" '$1 == "cpu" {printf "%.0f\n", ($2 + $3 + $4 + $7 + $8 + $9) * 1000 / hz}' /proc/stat
}

# short_napi STATE: napi_state's "enabled/<track>/<dt ns>/<prefer>" as 50 or
# 50p, "disabled" as off
short_napi() {
	awk -F/ '$1 == "enabled" {printf "%d%s\n", $3 / 1000, $4 == "true" ? "p" : ""; next} {print $1 == "disabled" ? "off" : $1}' <<<"$1"
}

# per_ping NS WALL_NS COUNT COUNT_S: CPU us per ping, the pings in WALL_NS
# estimated from the client's rate (COUNT in its counted COUNT_S seconds)
per_ping() {
	awk -v n="$1" -v w="$2" -v c="$3" -v s="$4" 'BEGIN{printf "%.2f", n / 1000 / (c / s * w / 1e9)}'
}

# running PID: alive and not a zombie (an ended child stays one until waited for)
running() {
	local st
	st=$(sed -E 's/^.*\) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# ring_napi FILE: short_napi of the ring a tool's output names
ring_napi() {
	local p f
	read -r p f < <(ring_of "$1")
	short_napi "$(napi_state "$p" "$f" 2>/dev/null || echo gone)"
}

# core_pct NS WALL_NS: NS as % of one core over WALL_NS
core_pct() { awk -v n="$1" -v w="$2" 'BEGIN{printf "%.2f", 100 * n / w}'; }

# run_phase STAGE PHASE ROUND SETTING...: every pair at once, pair i at
# SETTING i; one row per pair to oracle.csv, one to oracle_phases.csv
run_phase() {
	local stage=$1 phase=$2 r=$3 w=$WARMUP_S i spid=() cpid=() c0=() c1=()
	local d0=0 d1=0 h0 h1 t0 t1 psi0 psi1 cn sn line tot=0 dcpu late=
	shift 3
	local sets=("$@")
	if [ "$phase" = tune ]; then
		bench_daemon mode=tune include_comm=pingpong
		w=$TUNE_WAIT_S
	fi
	for i in $(seq 0 $((np - 1))); do
		# shellcheck disable=SC2046 # word splitting of the options is meant
		bg ip netns exec "$NS_B" "${PIN_SERVER[@]}" "$B/pingpong" server \
			--bind 198.18.0.2:$((BASE_PORT + i)) --quiet $(kind_server "${kinds[i]}") \
			$(setting_args "${sets[i]}") >"$T/s$i.out"
		spid[i]=${BG_PIDS[-1]}
	done
	for i in $(seq 0 $((np - 1))); do wait_line "$T/s$i.out" '^ring '; done
	for i in $(seq 0 $((np - 1))); do
		# shellcheck disable=SC2046
		bg ip netns exec "$NS_A" "${PIN_CLIENT[@]}" "$B/pingpong" client \
			--connect 198.18.0.2:$((BASE_PORT + i)) --quiet \
			--seconds $((w + MEASURE_S + MARGIN_S)) --warmup-s "$w" $(kind_client "${kinds[i]}") \
			$(setting_args "${sets[i]}") >"$T/c$i.out"
		cpid[i]=${BG_PIDS[-1]}
	done
	for i in $(seq 0 $((np - 1))); do wait_line "$T/c$i.out" '^ring '; done
	sleep "$w"
	t0=$(date +%s%N)
	for i in $(seq 0 $((np - 1))); do c0[i]=$(run_ns "${spid[i]}" "${cpid[i]}"); done
	[ "$phase" != tune ] || d0=$(run_ns "$DAEMON_PID")
	h0=$(host_busy_ms)
	psi0=$(psi_us)
	sleep "$MEASURE_S"
	t1=$(date +%s%N)
	for i in $(seq 0 $((np - 1))); do c1[i]=$(run_ns "${spid[i]}" "${cpid[i]}"); done
	[ "$phase" != tune ] || d1=$(run_ns "$DAEMON_PID")
	h1=$(host_busy_ms)
	psi1=$(psi_us)
	# every client must have run through the window measured (a client that
	# ended before it leaves only its idle server's CPU to count)
	for i in $(seq 0 $((np - 1))); do
		running "${cpid[i]}" || late="${names[i]}"
	done
	for i in $(seq 0 $((np - 1))); do
		# what each ring runs with now (tune: what the tuner set)
		cn[i]=$(ring_napi "$T/c$i.out")
		sn[i]=$(ring_napi "$T/s$i.out")
	done
	for i in $(seq 0 $((np - 1))); do
		wait "${cpid[i]}" || fail "$phase: client of ${names[i]} failed: $(cat "$T/c$i.out")"
		bg_forget "${cpid[i]}"
		kill -TERM "${spid[i]}"
	done
	for i in $(seq 0 $((np - 1))); do
		wait "${spid[i]}" || true
		bg_forget "${spid[i]}"
	done
	[ "$phase" != tune ] || stop_daemon
	if [ -n "$late" ]; then
		echo "round $r $stage $phase: the client of $late ended before the window did (a slow start?): again"
		return 1
	fi
	for i in $(seq 0 $((np - 1))); do
		line=$(grep '^rtt ' "$T/c$i.out") || fail "$phase: no rtt line from ${names[i]}"
		[ "$(field count "$line")" -gt 0 ] || fail "$phase: no ping of ${names[i]} measured"
		tot=$((tot + c1[i] - c0[i]))
		echo "$r,$stage,$phase,${names[i]},${kinds[i]},${sets[i]},$(field count "$line"),$(field p50_us "$line"),$(field p99_us "$line"),$(field avg_us "$line"),$(core_pct $((c1[i] - c0[i])) $((t1 - t0))),$(per_ping $((c1[i] - c0[i])) $((t1 - t0)) "$(field count "$line")" $((MEASURE_S + MARGIN_S))),${cn[i]},${sn[i]}" >>"$out"
	done
	dcpu=$(core_pct $((d1 - d0)) $((t1 - t0)))
	echo "$r,$stage,$phase,$(core_pct "$tot" $((t1 - t0))),$dcpu,$(core_pct $(((h1 - h0) * 1000000)) $((t1 - t0))),$(((psi1 - psi0) / 1000)),$(awk -v d=$((t1 - t0)) 'BEGIN{printf "%.2f", d / 1e9}')" >>"$phs"
	printf 'round %s %-6s %-6s' "$r" "$stage" "$phase"
	tail -n "$np" "$out" | awk -F, '{printf "  %s %s/%s us %s%%", $4, $8, $9, $11}'
	tail -n 1 "$phs" | awk -F, '{printf "  pairs %s%% daemon %s%% host %s%% (of one core), CPU pressure %s ms\n", $4, $5, $6, $7}'
}

# med STAGE PHASE PAIR COL: the median over rounds
med() {
	awk -F, -v s="$1" -v p="$2" -v n="$3" -v c="$4" '$2 == s && $3 == p && $4 == n {print $c}' "$out" |
		median
}

# measure: both stages, into the CSV files (not with ORACLE_FROM)
measure() {
	echo "round,stage,phase,pair,kind,setting,count,p50_us,p99_us,avg_us,cpu_pct,cpu_us_per_ping,client_napi,server_napi" >"$out"
	echo "round,stage,phase,pairs_cpu_pct,daemon_cpu_pct,host_cpu_pct,cpu_pressure_ms,seconds" >"$phs"

	# --- stage 1: the sweep ------------------------------------------------------
	ns=${#settings[@]}
	for r in $(seq 1 "$ROUNDS"); do
		for k in $(seq 0 $((ns - 1))); do
			s=${settings[$(((k + r * 5) % ns))]}
			sets=()
			for i in $(seq 0 $((np - 1))); do sets+=("$s"); done
			run_phase sweep "$s" "$r" "${sets[@]}" || run_phase sweep "$s" "$r" "${sets[@]}" ||
				run_phase sweep "$s" "$r" "${sets[@]}" ||
				fail "sweep $s: a client ended before the window three times"
		done
	done

	# the oracle's pick per pair (see the top of this file)
	echo "pair,kind,setting,p50_us,cpu_pct,best_p50_us,rule" >"$pick"
	picks=()
	for i in $(seq 0 $((np - 1))); do
		for s in "${settings[@]}"; do
			echo "$s $(med sweep "$s" "${names[i]}" 8) $(med sweep "$s" "${names[i]}" 11)"
		done >"$T/sweep_$i"
		if [ "${kinds[i]}" = fast ]; then
			tol=1.02
			rule="lowest p50; within 2% of it: lowest CPU"
		else
			tol=1.05
			rule="lowest CPU with p50 within 5% of the best"
		fi
		read -r s p50 cpu best < <(awk -v t="$tol" '
			{s[NR] = $1; p[NR] = $2; c[NR] = $3; if (NR == 1 || $2 < b) b = $2}
			END {for (i = 1; i <= NR; i++) if (p[i] <= b * t && (!k || c[i] < c[k])) k = i
				print s[k], p[k], c[k], b}' "$T/sweep_$i")
		picks+=("$s")
		echo "${names[i]},${kinds[i]},$s,$p50,$cpu,$best,$rule" >>"$pick"
	done
	echo
	echo "the oracle's picks (sweep medians over $ROUNDS rounds):"
	column -t -s, "$pick"
	echo

	# --- stage 2: none, s50, oracle, tune ---------------------------------------
	for r in $(seq 1 "$ROUNDS"); do
		for k in 0 1 2 3; do
			ph=${phases[$(((k + r) % 4))]}
			sets=()
			for i in $(seq 0 $((np - 1))); do
				case $ph in
				oracle) sets+=("${picks[i]}") ;;
				*) sets+=("$ph") ;;
				esac
			done
			run_phase final "$ph" "$r" "${sets[@]}" || run_phase final "$ph" "$r" "${sets[@]}" ||
				run_phase final "$ph" "$r" "${sets[@]}" ||
				fail "$ph: a client ended before the window three times"
		done
	done
}

phases=(none s50 oracle tune)
if [ -z "$from" ]; then
	measure
fi

# --- summary -----------------------------------------------------------------

# pmed PHASE COL: a column of oracle_phases.csv, median over stage 2's rounds
pmed() {
	awk -F, -v p="$1" -v c="$2" '$2 == "final" && $3 == p {print $c}' "$phs" | median
}
# the rings' NAPI at the end of each round: "client/server" per round
napi_seen() {
	awk -F, -v p="$1" -v n="$2" '$2 == "final" && $3 == p && $4 == n {printf "%s%s/%s", k++ ? " " : "", $13, $14}' "$out"
}
echo "phase,pair,kind,rounds,p50_us,p99_us,cpu_pct,cpu_us_per_ping,napi_client_server" >"$sum"
for ph in "${phases[@]}"; do
	for i in $(seq 0 $((np - 1))); do
		n=${names[i]}
		echo "$ph,$n,${kinds[i]},$ROUNDS,$(med final "$ph" "$n" 8),$(med final "$ph" "$n" 9),$(med final "$ph" "$n" 11),$(med final "$ph" "$n" 12),$(napi_seen "$ph" "$n")" >>"$sum"
	done
	echo "$ph,total,total,$ROUNDS,,,$(awk -v a="$(pmed "$ph" 4)" -v b="$(pmed "$ph" 5)" 'BEGIN{printf "%.2f", a + b}'),,daemon $(pmed "$ph" 5) host $(pmed "$ph" 6) pressure $(pmed "$ph" 7) ms" >>"$sum"
done
bash bench/oracle_table.sh --columns "$RESULTS"

sv() { awk -F, -v p="$1" -v n="$2" -v c="$3" '$1 == p && $2 == n {print $c}' "$sum"; }
echo
for i in $(seq 0 $((np - 1))); do
	n=${names[i]}
	case ${kinds[i]} in
	fast)
		target "$n tune/oracle p50" "$(ratio "$(sv tune "$n" 5)" "$(sv oracle "$n" 5)")" '<=' 1.05
		target "$n tune/oracle p99" "$(ratio "$(sv tune "$n" 6)" "$(sv oracle "$n" 6)")" '<=' 1.05
		;;
	sparse | slow)
		target "$n tune/s50 CPU" "$(ratio "$(sv tune "$n" 7)" "$(sv s50 "$n" 7)")" '<=' 0.5
		;;
	sqpoll)
		target "$n tune/none p50" "$(ratio "$(sv tune "$n" 5)" "$(sv none "$n" 5)")" '<=' 1.02
		target "$n tune/none CPU" "$(ratio "$(sv tune "$n" 7)" "$(sv none "$n" 7)")" '<=' 1.02
		;;
	esac
done
target "total CPU tune/oracle" "$(ratio "$(sv tune total 7)" "$(sv oracle total 7)")" '<=' 1.10 \
	"pairs + daemon; daemon $(pmed tune 5)% of a core"

# --- plot: per pair p50 and CPU by phase; total CPU by phase -------------------
dat=$T/oracle_plot.csv
{
	# pair, p50 by phase (2-5), CPU us per ping (6-9), p99 (10-13), CPU % (14-17)
	for n in "${names[@]}" total; do
		printf '%s' "$n"
		for c in 5 8 6 7; do
			for ph in "${phases[@]}"; do printf ',%s' "$(sv "$ph" "$n" "$c")"; done
		done
		echo
	done
} >"$dat"
plot "$RESULTS/oracle.png" 1500 480 <<EOF
set multiplot layout 1,4 title 'oracle: a mixed host ($PAIRS), $ROUNDS rounds of $MEASURE_S s per phase (medians)'
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top left
set xtics rotate by -30
set title 'RTT p50, us (log)'
set logscale y
plot '< head -n -1 $dat' using 2:xtic(1) title 'none' lc rgb '#909090', '' using 3 title 's50' lc rgb '#c04020', '' using 4 title 'oracle' lc rgb '#2060c0', '' using 5 title 'tune' lc rgb '#20a040'
set title 'RTT p99, us (log)'
plot '< head -n -1 $dat' using 10:xtic(1) title 'none' lc rgb '#909090', '' using 11 title 's50' lc rgb '#c04020', '' using 12 title 'oracle' lc rgb '#2060c0', '' using 13 title 'tune' lc rgb '#20a040'
unset logscale y
set yrange [0:*]
set title 'CPU of the pair per ping, us'
plot '< head -n -1 $dat' using 6:xtic(1) title 'none' lc rgb '#909090', '' using 7 title 's50' lc rgb '#c04020', '' using 8 title 'oracle' lc rgb '#2060c0', '' using 9 title 'tune' lc rgb '#20a040'
set title 'CPU, % of one core (total: pairs + daemon)'
plot '$dat' using 14:xtic(1) title 'none' lc rgb '#909090', '' using 15 title 's50' lc rgb '#c04020', '' using 16 title 'oracle' lc rgb '#2060c0', '' using 17 title 'tune' lc rgb '#20a040'
unset multiplot
EOF
echo "csv: $out $phs $pick $sum"
