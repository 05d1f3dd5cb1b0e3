#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The scale part's tables (bench/scale.sh), from its CSV files:
#   scale_table.sh [--columns] RUN.csv
#       one run, a row per cell (medians over rounds)
#   scale_table.sh [--columns] BEFORE.csv AFTER.csv|pending
#       issue 13's targets, before and after, then every cell of BEFORE with
#       its row from each build: the tables of docs/BENCHMARKS.md ("scale").
#       "pending" (or an AFTER without that cell) leaves the after column to fill.
# Markdown on stdout; --columns: aligned plain columns instead (the terminal).
set -euo pipefail

columns=0
if [ "${1:-}" = --columns ]; then
	columns=1
	shift
fi
[ $# = 1 ] || [ $# = 2 ] || { echo "usage: $0 [--columns] RUN.csv | BEFORE.csv AFTER.csv|pending" >&2; exit 2; }
for f in "$@"; do
	[ "$f" = pending ] || [ -f "$f" ] || { echo "$0: no file $f" >&2; exit 1; }
done

# v CSV COL FILES RINGS [SCALE [DIGITS]]: the median over rounds of a column of
# a cell, times SCALE, rounded; "-" if the cell or the value is absent, and
# "pending" for the CSV "pending"
v() {
	local csv=$1 col=$2 f=$3 n=$4 s=${5:-1} d=${6:-2}
	if [ "$csv" = pending ]; then
		echo pending
		return
	fi
	awk -F, -v c="$col" -v f="$f" -v n="$n" -v s="$s" -v d="$d" '
		NR > 1 && $2 == f && $3 == n && $c != "-" && $c != "" { a[++k] = $c }
		END {
			if (!k) { print "-"; exit }
			# the median of k values (insertion sort: a few rounds)
			for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j-1]; a[j-1] = t
			}
			m = k % 2 ? a[(k+1)/2] : (a[k/2] + a[k/2+1]) / 2
			printf "%.*f\n", d, m * s
		}' "$csv"
}

# cells CSV: "files rings" of every cell, in the order of the run
cells() {
	awk -F, 'NR > 1 && !seen[$2 " " $3]++ {print $2, $3}' "$1"
}

# k N: 700000 -> 700k
k() { awk -v n="$1" 'BEGIN {print (n >= 1000 && n % 1000 == 0 ? n / 1000 "k" : n)}'; }

# row CSV FILES RINGS: a cell's figures, "|"-separated (no cell name)
row() {
	local c=$1 f=$2 n=$3
	echo "$(v "$c" 6 "$f" "$n" 1 2) ($(v "$c" 7 "$f" "$n" 1 2)) |" \
		"$(v "$c" 10 "$f" "$n" 1 1) / $(v "$c" 12 "$f" "$n" 1 1) |" \
		"$(v "$c" 13 "$f" "$n" 0.001 1) |" \
		"$(v "$c" 15 "$f" "$n" 1 1) / $(v "$c" 16 "$f" "$n" 1 1) |" \
		"$(v "$c" 17 "$f" "$n" 1 1) / $(v "$c" 18 "$f" "$n" 1 1) |" \
		"$(v "$c" 19 "$f" "$n" 0.000001 2) |" \
		"$(v "$c" 20 "$f" "$n" 0.0009765625 1) / $(v "$c" 21 "$f" "$n" 0.0009765625 1) |" \
		"$(v "$c" 22 "$f" "$n" 0.001 1) |" \
		"$(v "$c" 24 "$f" "$n" 1 2)"
}

HEAD="idle CPU % (schedstat) | probe p50 / max ms | daemon's longest dispatch ms | status p50 / max ms | --json p50 / max ms | --json MB | RSS MB before / after queries | sweep ms | load"

# emit: markdown as is, or aligned columns without the separator line
emit() {
	if [ "$columns" = 1 ]; then
		grep -v '^| ---' | sed -e 's/^| //' -e 's/ |$//' | column -t -s '|'
	else
		cat
	fi
}

if [ $# = 1 ]; then
	{
		echo "| files | rings | $HEAD |"
		echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		cells "$1" | while read -r f n; do
			echo "| $(k "$f") | $(k "$n") | $(row "$1" "$f" "$n") |"
		done
	} | emit
	exit 0
fi

before=$1 after=$2
# the largest host and the smallest, as in the run
fmax=$(cells "$before" | awk '{print $1}' | sort -n | tail -n 1)
f0=$(cells "$before" | awk '{print $1}' | sort -n | head -n 1)
both() { echo "$(v "$before" "$@") | $(v "$after" "$@")"; }
slowest() {
	local c=$1 a b
	[ "$c" != pending ] || { echo pending; return; }
	a=$(v "$c" 16 "$fmax" 0 1 1)
	b=$(v "$c" 18 "$fmax" 0 1 1)
	awk -v a="$a" -v b="$b" 'BEGIN {if (a == "-") print b; else if (b == "-") print a; else print (a + 0 > b + 0 ? a : b)}'
}
pair() {
	local c=$1
	shift
	[ "$c" != pending ] || { echo pending; return; }
	echo "$(v "$c" "$@")"
}
{
	echo "| measured (observe mode, shipped configuration) | before | after | target |"
	echo "| --- | --- | --- | --- |"
	echo "| idle CPU, $(k "$fmax") open files, no ring, % of a core | $(both 6 "$fmax" 0 1 2) | <= 0.5 |"
	echo "| one inventory sweep at that size (daemon.last_sweep_us), ms | $(both 22 "$fmax" 0 0.001 1) | never on the loop |"
	echo "| slowest \`uringtune status\` (table or --json) at that size, ms | $(slowest "$before") | $(slowest "$after") | <= 50 |"
	echo "| longest loop stall at that size: slowest probe round trip, ms | $(both 12 "$fmax" 0 1 1) | <= 20 |"
	echo "| same, the daemon's own daemon.loop.longest_dispatch_us, ms | $(both 13 "$fmax" 0 0.001 1) | <= 20 |"
	echo "| \`status --json\`, 10 000 rings, median / max, ms | $(pair "$before" 17 "$f0" 10000 1 0) / $(v "$before" 18 "$f0" 10000 1 0) | $(pair "$after" 17 "$f0" 10000 1 0) / $(pair "$after" 18 "$f0" 10000 1 0) | <= 150 |"
	echo "| \`status\` (table), 10 000 rings, median / max, ms | $(pair "$before" 15 "$f0" 10000 1 0) / $(v "$before" 16 "$f0" 10000 1 0) | $(pair "$after" 15 "$f0" 10000 1 0) / $(pair "$after" 16 "$f0" 10000 1 0) | <= 150 |"
	echo "| daemon RSS, 10 000 rings, before any query / after the status queries, MB | $(pair "$before" 20 "$f0" 10000 0.0009765625 1) / $(v "$before" 21 "$f0" 10000 0.0009765625 1) | $(pair "$after" 20 "$f0" 10000 0.0009765625 1) / $(pair "$after" 21 "$f0" 10000 0.0009765625 1) | after: <= 48 |"
	echo "| idle CPU, 1 000 / 10 000 idle rings, % of a core | $(pair "$before" 6 "$f0" 1000 1 2) / $(v "$before" 6 "$f0" 10000 1 2) | $(pair "$after" 6 "$f0" 1000 1 2) / $(pair "$after" 6 "$f0" 10000 1 2) | <= 0.2 / <= 1 |"
} | emit
echo
{
	echo "| files | rings | build | $HEAD |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	cells "$before" | while read -r f n; do
		echo "| $(k "$f") | $(k "$n") | before | $(row "$before" "$f" "$n") |"
		if [ "$after" = pending ]; then
			echo "| | | after | pending |"
		else
			echo "| | | after | $(row "$after" "$f" "$n") |"
		fi
	done
} | emit
