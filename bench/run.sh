#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `make bench` (QUICK=1: `make bench QUICK=1`, a few minutes): every part in
# turn, each printing its table and writing CSV and a PNG under RESULTS
# (default bench/results); then every target, measured against its limit,
# in RESULTS/targets.csv. Numbers, not verdicts: a missed target does not
# fail the run, a part that cannot run does.
#   PARTS (default "pinning rtt overhead prog_cost reaction footprint bursty accuracy deadlines agent scale oracle patterns")
#   QUICK, PIN, RESULTS and each part's own knobs pass through (see bench/*.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

PARTS=${PARTS:-pinning rtt overhead prog_cost reaction footprint bursty accuracy deadlines agent scale oracle patterns}
export QUICK=${QUICK:-0}
if [ -z "${RESULTS:-}" ]; then
	RESULTS=$PWD/bench/results
elif [[ $RESULTS != /* ]]; then
	RESULTS=$PWD/$RESULTS
fi
export RESULTS
mkdir -p "$RESULTS"

# the build that is measured
rev=$(git describe --always --dirty 2>/dev/null || echo unknown)
{
	echo "key,value"
	echo "date,$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "revision,$rev"
	echo "kernel,$(uname -r)"
	echo "nproc,$(nproc)"
	echo "cpu,$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1 | tr , ' ')"
	echo "virtualization,$(systemd-detect-virt 2>/dev/null || echo unknown)"
	echo "quick,$QUICK"
	echo "pin,${PIN:-1}"
	echo "loadavg_start,$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "cpu_pressure_some_avg60_start,$(sed -n 's/^some .*avg60=\([0-9.]*\).*/\1/p' /proc/pressure/cpu 2>/dev/null)"
} >"$RESULTS/machine.csv"
# a shared machine: what else was running shows in the load and CPU pressure
echo "bench: $(nproc) CPUs, $(uname -r), revision $rev, load $(cut -d' ' -f1-3 /proc/loadavg)"

start=$SECONDS
times=()
failed=()
for p in $PARTS; do
	[ -f "bench/$p.sh" ] || { echo "bench: no part '$p' (bench/$p.sh)" >&2; exit 2; }
	echo
	t0=$SECONDS
	# a part that fails says so, and the run ends in failure (after the others)
	bash "bench/$p.sh" 2>&1
	rc=$?
	[ "$rc" = 0 ] || { echo "bench: part $p failed (exit $rc)"; failed+=("$p (exit $rc)"); }
	times+=("$p $((SECONDS - t0))s")
done

{
	echo "loadavg_end,$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "cpu_pressure_some_avg60_end,$(sed -n 's/^some .*avg60=\([0-9.]*\).*/\1/p' /proc/pressure/cpu 2>/dev/null)"
	echo "seconds,$((SECONDS - start))"
} >>"$RESULTS/machine.csv"

echo
echo "== targets (revision $rev, QUICK=$QUICK)"
out=$RESULTS/targets.csv
echo "part,target,measured,op,limit,verdict,note" >"$out"
for p in $PARTS; do
	[ ! -f "$RESULTS/targets_$p.csv" ] || tail -n +2 "$RESULTS/targets_$p.csv" >>"$out"
done
column -t -s, "$out"
echo
echo "time per part: ${times[*]}; total $((SECONDS - start))s"
echo "results: $RESULTS"
if [ ${#failed[@]} -gt 0 ]; then
	echo "bench: parts that failed: ${failed[*]}"
	exit 1
fi
