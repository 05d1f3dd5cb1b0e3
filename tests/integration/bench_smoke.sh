#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The benchmark harness itself, not its numbers: `make bench` (bench/run.sh)
# with every part at tiny sizes, into a private RESULTS directory. Each part
# must print its table and write its CSV files (expected header, at least
# one data row) and its PNG plot (a real PNG); the run ends with the targets
# table. gnuplot missing is a failure: scripts/deps.sh installs it.
. "$(dirname "$0")/../lib.sh"
need_untuned_host

command -v gnuplot >/dev/null || fail "gnuplot is missing (scripts/deps.sh installs gnuplot-nox)"
[ -x "$B/nopbench" ] || fail "$B/nopbench is not built (make)"

res=$T/results
# every part's knobs at their smallest useful values (see bench/*.sh); the
# daemons export every second (EXPORT_S), so that footprint and scale see
# their rings at once; the oracle's clients outlive its 1 s windows by 2 s
env RESULTS="$res" QUICK=1 ROUNDS=1 COUNT=200 STATIC=50 PREFER="0 1" RING_KINDS="plain sqpoll" \
	NOP_SECONDS=1 NOP_OPS=20000 UDP_COUNT=2000 UDP_WINDOW=8 \
	RINGS=100 RING_COUNTS="0 100" INTERVAL=1 STATUS_RINGS=200 STATUS_RUNS=2 \
	FOOTPRINT_SETTLE=0.2 EXPORT_S=1 \
	BURST=20 GAP_MS=1 GONE=2 \
	SCALE_FILES=1000 SCALE_RINGS=100 SCALE_WINDOW=1 SCALE_STATUS_RUNS=2 SCALE_SETTLE=0.5 \
	MEASURE_S=1 WARMUP_S=0 TUNE_WAIT_S=1 MARGIN_S=2 \
	RUN_S=1 WAKE_COUNT=2000 SPARSE_COUNT=50 NOSLEEP_COUNT=2000 \
	PATTERNS=udp-multishot WARM_S=1 \
	bash bench/run.sh >"$T/bench.out" 2>&1 ||
	{ tail -n 40 "$T/bench.out"; fail "bench/run.sh failed: $(grep -B12 '^bench: part .* failed' "$T/bench.out" | head -20)"; }
cat "$T/bench.out"

# csv FILE HEADER: that header, then at least one row with as many fields
csv() {
	local f=$res/$1 n
	[ -f "$f" ] || fail "no $1"
	[ "$(head -n 1 "$f")" = "$2" ] || fail "$1: header '$(head -n 1 "$f")', expected '$2'"
	n=$(awk -F, '{print NF}' <<<"$2")
	[ "$(tail -n +2 "$f" | wc -l)" -ge 1 ] || fail "$1: no data row"
	awk -F, -v n="$n" 'NR > 1 && NF != n {exit 1}' "$f" || fail "$1: a row without $n fields"
	echo "ok $1 ($(($(wc -l <"$f") - 1)) rows)"
}

png() {
	local f=$res/$1
	[ -s "$f" ] || fail "no $1"
	[ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$1 is not a PNG"
	echo "ok $1"
}

# table REGEX: a line of the output matches
table() {
	grep -qE "$1" "$T/bench.out" || fail "no table line /$1/ in the output"
	echo "ok table /$1/"
}

csv pinning.csv "round,mode,pinned,p50_us,avg_us,p99_us"
csv pinning_summary.csv "mode,pinned,rounds,p50_median,p50_min,p50_max,spread,avg_median"
png pinning.png
table '^mode +pinned +median +min +max +spread'

csv rtt.csv "round,ring,mode,min_us,avg_us,max_us,mdev_us,p50_us,p99_us,server_napi,cpu_pressure_ms"
csv rtt_summary.csv "ring,mode,rounds,min_us,avg_us,max_us,mdev_us,p50_us,p50_lo,p50_hi,p99_us"
png rtt.png
table '^ring +mode +min +avg +max +mdev +p50 +p50_range +p99'
table '^sqpoll +tune '
for m in none s50 s50p tune; do
	[ "$(awk -F, -v m="$m" '$2 == m' "$res/rtt_summary.csv" | wc -l)" = 2 ] ||
		fail "rtt_summary.csv: mode $m not there for both rings"
done

csv overhead.csv "round,daemon,rtt_min_us,rtt_p50_us,rtt_avg_us,rtt_p99_us,nop_ops_per_s,udp_pps,udp_p50_us,udp_p99_us,cpu_pressure_ms"
csv overhead_summary.csv "metric,none,none_lo,none_hi,observe,observe_lo,observe_hi,ratio,round_ratio_lo,round_ratio_hi"
png overhead.png
table '^metric +none +range +observe +range +ratio'
table '^nop_ops_per_s +[0-9]'
table '^udp_pps +[0-9]'

csv prog_cost.csv "workload,program,runs,avg_ns,runs_per_op,ns_per_op"
png prog_cost.png
table '^workload +program +runs +avg_ns'

csv reaction.csv "round,reaction_us"
csv reaction_summary.csv "round,rings,p50_us,p99_us,max_us"
csv reaction_gone.csv "round,kind,gone_ms"
png reaction.png
table '^round +rings +p50_us +p99_us +max_us'

csv footprint.csv "round,rings,rss_kb,cpu_pct,cpu_pct_schedstat,interval_s"
csv footprint_status.csv "run,rings,view,ms,bytes"
csv footprint_big.csv "rings,rss_kb_before_status,rss_kb_after_status,cpu_pct,cpu_pct_schedstat,interval_s"
png footprint.png
table '^ +rings +RSS_MB +range +CPU_%'
table '^status with [0-9]+ rings'

csv bursty.csv "round,mode,pings,wall_s,client_cpu_us,server_cpu_us,cpu_us_per_ping,cpu_pct,p50_us,p99_us,avg_us,server_napi,cpu_pressure_ms"
csv bursty_summary.csv "mode,rounds,cpu_us_per_ping,cpu_lo,cpu_hi,cpu_pct,vs_none_us_per_ping,p50_us,p50_lo,p50_hi,p99_us,p99_lo,p99_hi"
png bursty.png
table '^mode +cpu/ping +range +cpu% +vs_none'

csv accuracy_bill.csv "round,mode,wall_ms,server_cpu_ms,windows,unpaid_ms,paid_ms,server_napi,cpu_pressure_ms"
csv accuracy_wakeup.csv "round,shape,mode,rtt_avg_us,rtt_p50_us,measured_us,server_napi,cpu_pressure_ms"
csv accuracy_nosleep.csv "round,ring,waits,no_sleep,share"
csv accuracy.csv "round,metric,estimate,reference,ratio"
csv accuracy_summary.csv "metric,rounds,median,lo,hi"
png accuracy.png
table '^metric +rounds +median +range'
table '^bill unpaid/cpu-difference +1 '
for m in off napi; do
	awk -F, -v m="$m" '$2 == m' "$res/accuracy_bill.csv" | grep -q . || fail "accuracy_bill.csv: no $m run"
done
for s in b2b sparse; do
	[ "$(awk -F, -v s="$s" '$2 == s' "$res/accuracy_wakeup.csv" | wc -l)" = 2 ] ||
		fail "accuracy_wakeup.csv: shape $s lacks its run without or with NAPI"
done

csv agent.csv "round,workload,mode,value,p50_us,p99_us,server_napi"
csv agent_summary.csv "workload,mode,metric,median,lo,hi,vs,ratio,round_ratio_lo,round_ratio_hi"
png agent.png
table '^work +mode +metric +median'
table '^nop +idle +ops_per_s +[0-9]'

csv scale.csv "round,files,rings,host_files,daemon_rings,cpu_pct,cpu_pct_schedstat,window_s,probe_n,probe_p50_ms,probe_p99_ms,probe_max_ms,loop_longest_us,loop_longest_after_us,status_p50_ms,status_max_ms,json_p50_ms,json_max_ms,json_bytes,rss_kb_before,rss_kb_after,last_sweep_us,last_sweep_us_after,loadavg"
csv scale_status.csv "round,files,rings,view,run,ms"
csv scale_probe.csv "round,files,rings,n,ms"
png scale.png
table '^files +rings +idle CPU % \(schedstat\)'
# the cell asked for: 1000 open files held, 100 idle rings seen by the daemon
awk -F, 'NR == 2 && $2 == 1000 && $3 == 100 && $5 >= 100 && $9 >= 1 {ok = 1} END {exit !ok}' \
	"$res/scale.csv" || fail "scale.csv: no row of 1000 files and 100 rings seen: $(sed -n 2p "$res/scale.csv")"
echo "ok scale.csv: 1000 files, 100 rings seen, probed"

csv oracle.csv "round,stage,phase,pair,kind,setting,count,p50_us,p99_us,avg_us,cpu_pct,cpu_us_per_ping,client_napi,server_napi"
csv oracle_phases.csv "round,stage,phase,pairs_cpu_pct,daemon_cpu_pct,host_cpu_pct,cpu_pressure_ms,seconds"
csv oracle_pick.csv "pair,kind,setting,p50_us,cpu_pct,best_p50_us,rule"
csv oracle_summary.csv "phase,pair,kind,rounds,p50_us,p99_us,cpu_pct,cpu_us_per_ping,napi_client_server"
png oracle.png
csv patterns.csv "round,pattern,config,pings,p50_us,p99_us,pings_per_s,client_cpu_us_per_ping,server_bill_ms,server_bill_capped_ms,server_thread_cpu_ms"
csv patterns_summary.csv "pattern,config,p50_us,p50_range,p99_us,pings_per_s,client_cpu_us_per_ping,bill_over_cpu,capped_share"
png patterns.png
# each configuration ran and pinged
for cfg in none s50 observe tune; do
	awk -F, -v c="$cfg" 'NR > 1 && $2 == "udp-multishot" && $3 == c && $4 > 0 { ok = 1 } END { exit !ok }' \
		"$res/patterns.csv" || fail "patterns.csv: no udp-multishot $cfg run with pings: $(cat "$res/patterns.csv")"
done
table '^ +pair +phase +p50 us +p99 us +CPU % of a core'
# every pair of the default mix in every phase of the comparison, and the
# sweep's settings (STATIC=50, PREFER="0 1": none, s50, s50p)
for ph in none s50 oracle tune; do
	[ "$(awk -F, -v p="$ph" '$1 == p && $2 != "total"' "$res/oracle_summary.csv" | wc -l)" = 4 ] ||
		fail "oracle_summary.csv: phase $ph lacks a pair"
done
[ "$(awk -F, '$2 == "sweep" {print $3}' "$res/oracle.csv" | sort -u | tr '\n' ' ')" = "none s50 s50p " ] ||
	fail "oracle.csv: the sweep's settings are not none s50 s50p"
# the server of the slow pair waits 1 ms before each echo: its RTT shows it
awk -F, '$4 == "slow1" && $8 < 1000 {exit 1}' "$res/oracle.csv" ||
	fail "oracle.csv: a slow pair's p50 under 1 ms (no reply delay?)"
echo "ok oracle: every phase has the four pairs; the slow pair's RTT includes its 1 ms"

csv machine.csv "key,value"
csv targets.csv "part,target,measured,op,limit,verdict,note"
table '^== targets'
table '^part +target +measured'
for p in rtt overhead reaction footprint accuracy deadlines agent oracle patterns; do
	grep -q "^$p," "$res/targets.csv" || fail "targets.csv: nothing from $p"
done
echo "bench harness: every part printed its table, wrote its CSV and its PNG"
