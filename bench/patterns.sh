#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark part 13, patterns (not a test): what uringtune sees and gains on
# the receive patterns servers use (build/mshot), next to the single-shot
# recv our own ping-pong uses. Per pattern (PATTERNS), ROUNDS interleaved
# rounds of RUN_S seconds of ping-pong each, client and server pinned:
#   none     no daemon, no NAPI
#   s50      no daemon, both programs register NAPI 50 us themselves
#   observe  s50 under an observe-mode uringtuned: its overhead (RTT p50
#            and pings per second against s50), and the server ring's bill
#            over the run against what its waiting thread ran (schedstat)
#   tune     no NAPI of their own, a tune-mode uringtuned takes both rings
#            (include_comm=mshot); the first WARM_S seconds not counted
# and for each: RTT p50/p99, pings per second, the client thread's CPU per
# ping (over the counted seconds: a tune run's warm-up is left out pro
# rata). The tcp-bundle pattern is left out, with the kernel's reason, where
# the kernel has no receive bundles (before 6.10).
# A pattern may name its ring kind, its wait and the agent after it, with
# slashes: udp-multishot/sqpoll, udp-multishot/coop-taskrun/timeout:1000
# (mshot --ring and --wait), tcp-multishot/defer-taskrun/agent (tune mode
# reaches the rings through `uringtune exec --napi`: SINGLE_ISSUER rings
# refuse register calls from outside; none, s50 and observe run the
# programs as they are).
#   PATTERNS (default "recv udp-multishot tcp-multishot tcp-bundle
#   udp-multishot/sqpoll udp-multishot/coop-taskrun/timeout:1000
#   tcp-multishot/defer-taskrun/agent"),
#   ROUNDS (default 3; QUICK 1), RUN_S (6; QUICK 2), WARM_S (3; QUICK 1)
# CSV: RESULTS/patterns.csv (every run), patterns_summary.csv (per pattern
# and configuration, medians over rounds with min-max); plot patterns.png.
. "$(dirname "$0")/lib.sh"

PART=patterns
PATTERNS=${PATTERNS:-recv udp-multishot tcp-multishot tcp-bundle udp-multishot/sqpoll udp-multishot/coop-taskrun/timeout:1000 tcp-multishot/defer-taskrun/agent}
ROUNDS=${ROUNDS:-$(quick 1 3)}
RUN_S=${RUN_S:-$(quick 2 6)}
WARM_S=${WARM_S:-$(quick 1 3)}
out=$RESULTS/patterns.csv
sum=$RESULTS/patterns_summary.csv

part_banner "PATTERNS=\"$PATTERNS\" ROUNDS=$ROUNDS RUN_S=$RUN_S WARM_S=$WARM_S"
netns_setup
targets_begin
PORT=7100

# does this kernel have receive bundles (mshot exits 3 without)
bundles_ok() {
	local err=$T/bundle.err pid rc=0
	ip netns exec "$NS_B" "$B/mshot" server --pattern tcp-bundle --bind 198.18.0.2:7099 \
		--quiet >/dev/null 2>"$err" &
	pid=$!
	sleep 0.3
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid" || rc=$?
		[ "$rc" != 3 ] || { BUNDLE_WHY=$(cat "$err"); return 1; }
	fi
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null || true
	return 0
}
pats=()
for p in $PATTERNS; do
	if [ "${p%%/*}" = tcp-bundle ] && ! bundles_ok; then
		echo "tcp-bundle left out: $BUNDLE_WHY"
		continue
	fi
	pats+=("$p")
done

# spec_args SPEC: mshot's options for a pattern spec (PATTERN[/RING][/WAIT][/agent]),
# one per line; SPEC_AGENT=1 if it names the agent
spec_args() {
	local part first=1
	SPEC_AGENT=0
	for part in ${1//\// }; do
		if [ "$first" = 1 ]; then
			printf '%s\n' --pattern "$part"
			first=0
			continue
		fi
		case $part in
		agent) SPEC_AGENT=1 ;;
		plain | coop-taskrun | single-issuer | defer-taskrun | sqpoll) printf '%s\n' --ring "$part" ;;
		timeout:* | min-wait:*) printf '%s\n' --wait "$part" ;;
		*) fail "PATTERNS: '$1': '$part' is no ring kind (plain, coop-taskrun, single-issuer, defer-taskrun, sqpoll), wait (timeout:US, min-wait:US) or 'agent'" ;;
		esac
	done
}

# one PATTERN CONFIG ROUND: one run; a line of the CSV
one() {
	local pat=$1 cfg=$2 round=$3 napi=() daemon=0 warm=0 spid sfd stid c0 c1 b0 b1 line
	local args=() wrap=()
	mapfile -t args < <(spec_args "$pat")
	spec_args "$pat" >/dev/null
	case $cfg in
	none) ;;
	s50) napi=(--napi-busy-poll-us 50) ;;
	observe) napi=(--napi-busy-poll-us 50); daemon=1
		bench_daemon mode=observe include_comm=mshot ;;
	tune) daemon=1; warm=$WARM_S
		bench_daemon mode=tune include_comm=mshot
		[ "$SPEC_AGENT" = 0 ] || wrap=("$B/uringtune" exec --agent-socket "$AGENT_SOCK" --napi --) ;;
	esac
	PORT=$((PORT + 1))
	bg ip netns exec "$NS_B" "${PIN_SERVER[@]}" "${wrap[@]}" "$B/mshot" server "${args[@]}" \
		--bind "198.18.0.2:$PORT" --quiet "${napi[@]}" >"$T/server.out"
	SRV_PID=${BG_PIDS[-1]}
	wait_line "$T/server.out" '^ring '
	read -r spid sfd < <(ring_of "$T/server.out")
	stid=$(sed -n 's/^ring .* tid=\([0-9]*\).*/\1/p' "$T/server.out")
	c0=$(awk '{ print $1 }' "/proc/$spid/task/$stid/schedstat")
	b0='{"busy_poll":{"spin_ns":{"paid":0,"unpaid":0},"capped_ns":0}}'
	[ "$daemon" = 0 ] || b0=$(ring "$spid" "$sfd" || echo "$b0")
	[ -n "$b0" ] || b0='{"busy_poll":{"spin_ns":{"paid":0,"unpaid":0},"capped_ns":0}}'
	ip netns exec "$NS_A" "${PIN_CLIENT[@]}" "${wrap[@]}" "$B/mshot" client "${args[@]}" \
		--connect "198.18.0.2:$PORT" --quiet --cpu "${napi[@]}" \
		--seconds $((RUN_S + warm)) --warmup-s "$warm" >"$T/client.out"
	c1=$(awk '{ print $1 }' "/proc/$spid/task/$stid/schedstat")
	b1=$b0
	[ "$daemon" = 0 ] || b1=$(ring "$spid" "$sfd" || echo "$b0")
	[ -n "$b1" ] || b1=$b0
	pp_server_stop
	[ "$daemon" = 0 ] || { stop_daemon; }
	# the client's CPU covers its warm-up too: counted pings get their share of it
	line=$(awk -v pat="$pat" -v cfg="$cfg" -v r="$round" -v secs="$RUN_S" -v all_s=$((RUN_S + warm)) \
		-v sc=$((c1 - c0)) \
		-v spin="$(jq -n --argjson a "$b0" --argjson b "$b1" \
			'($b.busy_poll.spin_ns.paid + $b.busy_poll.spin_ns.unpaid) -
			 ($a.busy_poll.spin_ns.paid + $a.busy_poll.spin_ns.unpaid)')" \
		-v capped="$(jq -n --argjson a "$b0" --argjson b "$b1" \
			'($b.busy_poll.capped_ns // 0) - ($a.busy_poll.capped_ns // 0)')" '
		/^rtt / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		/^cpu / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		END {
			n = v["count"] + 0
			printf "%s,%s,%s,%d,%s,%s,%.0f,%.2f,%.1f,%.1f,%.1f\n", r, pat, cfg, n,
				v["p50_us"], v["p99_us"], n / secs, n ? v["thread_cpu_us"] * secs / all_s / n : 0,
				spin / 1e6, capped / 1e6, sc / 1e6
		}' "$T/client.out")
	echo "$line" >>"$out"
	echo "$line" | awk -F, '{ printf "%-6s %-14s %-8s p50 %7s us  p99 %8s us  %7s pings/s  %5s us CPU/ping  bill %7s ms (capped %s) of %7s ms run\n",
		$1, $2, $3, $5, $6, $7, $8, $9, $10, $11 }'
}

echo "round,pattern,config,pings,p50_us,p99_us,pings_per_s,client_cpu_us_per_ping,server_bill_ms,server_bill_capped_ms,server_thread_cpu_ms" >"$out"
for ((r = 1; r <= ROUNDS; r++)); do
	for pat in "${pats[@]}"; do
		# the order turns with the round: drift on a shared host spreads evenly
		cfgs=(none s50 observe tune)
		for ((k = 0; k < 4; k++)); do
			one "$pat" "${cfgs[$(((k + r) % 4))]}" "$r"
		done
	done
done

# per pattern and configuration: medians over rounds, min-max
echo "pattern,config,p50_us,p50_range,p99_us,pings_per_s,client_cpu_us_per_ping,bill_over_cpu,capped_share" >"$sum"
for pat in "${pats[@]}"; do
	for cfg in none s50 observe tune; do
		sel() { awk -F, -v p="$pat" -v c="$cfg" -v k="$1" 'NR > 1 && $2 == p && $3 == c { print $k }' "$out"; }
		p50=$(sel 5 | median)
		p99=$(sel 6 | median)
		pps=$(sel 7 | median)
		cpp=$(sel 8 | median)
		boc=$(awk -F, -v p="$pat" -v c="$cfg" 'NR > 1 && $2 == p && $3 == c && $11 > 0 { print $9 / $11 }' "$out" | median || true)
		cap=$(awk -F, -v p="$pat" -v c="$cfg" 'NR > 1 && $2 == p && $3 == c && ($9 + $10) > 0 { print $10 / ($9 + $10) }' "$out" | median || true)
		echo "$pat,$cfg,$p50,$(sel 5 | range),$p99,$pps,$cpp,${boc:-},${cap:-}" >>"$sum"
	done
done
echo
column -t -s, "$sum"
echo
for pat in "${pats[@]}"; do
	get() { awk -F, -v p="$pat" -v c="$1" -v k="$2" '$1 == p && $2 == c { print $k }' "$sum"; }
	target "$pat observe/s50 p50" "$(ratio "$(get observe 3)" "$(get s50 3)")" '<=' 1.10 \
		"the observe-mode daemon's RTT cost with its hooks on"
	target "$pat s50/observe pings per s" "$(ratio "$(get s50 6)" "$(get observe 6)")" '<=' 1.10
	target "$pat tune/none p50" "$(ratio "$(get tune 3)" "$(get none 3)")" '<=' 0.8 \
		"what tune mode gains without the program doing anything"
	target "$pat bill share capped" "$(get observe 9)" '<=' 0.1 \
		"the estimate over what the thread ran, cut to it"
done

# plot: p50 per pattern and configuration
dat=$T/patterns_plot.dat
awk -F, 'NR > 1 { v[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
	END { for (i = 1; i <= n; i++) { p = order[i]
		printf "%s,%s,%s,%s,%s\n", p, v[p, "none"], v[p, "s50"], v[p, "observe"], v[p, "tune"] } }' \
	"$sum" >"$dat"
plot "$RESULTS/patterns.png" <<EOF
set title "RTT p50 by receive pattern (median over $ROUNDS rounds)"
set ylabel "us"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top left
set yrange [0:*]
plot "$dat" using 2:xtic(1) title "none", "" using 3 title "static 50 us", \
	"" using 4 title "static 50 us, observed", "" using 5 title "tune"
EOF
echo "csv: $out $sum"
