#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmark (not a test): time from a ring's creation (the io_uring_create
# tracepoint) to uringtune's NAPI registration on it, p50/p99, over
# RINGS rings (default 1000) created by BATCH-ring processes (default 10)
# started GAP_MS apart (default 20): a steady arrival, not one burst.
# CSV: bench/results/reaction.csv (one line per ring, microseconds).
. "$(dirname "$0")/../tests/lib.sh"

RINGS=${RINGS:-1000}
BATCH=${BATCH:-10}
GAP_MS=${GAP_MS:-20}
out=bench/results/reaction.csv
mkdir -p bench/results

start_daemon mode=tune max_rings=$((RINGS + 1024))
for i in $(seq 1 $((RINGS / BATCH))); do
	bg "$B/ringhold" --count "$BATCH" --hold 120 >"$T/h$i.out"
	sleep "$(awk -v g="$GAP_MS" 'BEGIN{print g/1000}')"
done
for i in $(seq 1 $((RINGS / BATCH))); do
	wait_line "$T/h$i.out" '^ready' 30
done
taken() { [ "$(status_json | jq '[.rings[] | select(.comm == "ringhold" and .managed_by == "uringtune")] | length')" -ge "$RINGS" ]; }
wait_for 10 taken || fail "not every ring was tuned"

echo "reaction_us" >"$out"
status_json | jq -r '.rings[] | select(.comm == "ringhold") | .tuning.reaction_us' |
	sort -n >>"$out"
pct() { tail -n +2 "$out" | awk -v p="$1" '{a[NR]=$1} END {i=int((NR*p+99)/100); if (i<1) i=1; print a[i]}'; }
printf 'ring creation -> NAPI registered, %s rings: p50 %s us, p99 %s us, max %s us\n' \
	"$(($(wc -l <"$out") - 1))" "$(pct 50)" "$(pct 99)" "$(pct 100)"
echo "csv: $out"
