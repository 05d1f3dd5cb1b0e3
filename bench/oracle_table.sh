#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The oracle part's tables (bench/oracle.sh), from its CSV files in DIR
# (oracle_summary.csv, oracle_pick.csv, oracle.csv, targets_oracle.csv):
#   oracle_table.sh [--columns] DIR
# Markdown on stdout (the tables of docs/BENCHMARKS.md, "oracle"); --columns:
# aligned plain columns instead (the terminal). Measures nothing.
set -euo pipefail

columns=0
if [ "${1:-}" = --columns ]; then
	columns=1
	shift
fi
[ $# = 1 ] || { echo "usage: $0 [--columns] DIR" >&2; exit 2; }
dir=$1
for f in oracle_summary.csv oracle_pick.csv oracle.csv; do
	[ -f "$dir/$f" ] || { echo "$0: no file $dir/$f" >&2; exit 1; }
done

# show: CSV rows on stdin (the first one the header) as markdown or columns;
# numbers with more than 2 decimals (medians of 2 rounds) rounded to 2
show() {
	awk -F, -v OFS=, '{for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9][0-9][0-9]+$/) $i = sprintf("%.2f", $i)
		print}' | show_raw
}

show_raw() {
	if [ "$columns" = 1 ]; then
		column -t -s, | sed 's/^/  /'
	else
		awk -F, 'NR == 1 {h = "|"; s = "|"; for (i = 1; i <= NF; i++) {h = h " " $i " |"; s = s " --- |"}
				print h; print s; next}
			{l = "|"; for (i = 1; i <= NF; i++) l = l " " ($i == "" ? "-" : $i) " |"; print l}'
	fi
	echo
}

echo "Per pair, medians over the rounds of the comparison (NAPI: client/server ring at the end of each round):"
echo
{
	echo "pair,phase,p50 us,p99 us,CPU % of a core,CPU us per ping,NAPI (client/server)"
	awk -F, 'NR > 1 && $2 != "total" {print $2 "," $1 "," $5 "," $6 "," $7 "," $8 "," $9}' "$dir/oracle_summary.csv" |
		sort -t, -s -k1,1
	awk -F, 'NR > 1 && $2 == "total" {print "total (pairs + daemon)," $1 ",,," $7 ",," $9}' "$dir/oracle_summary.csv"
} | show

echo "The oracle's pick per pair, from the sweep (medians over its rounds):"
echo
{
	echo "pair,pick,p50 us,CPU %,best p50 us (any setting),rule"
	awk -F, 'NR > 1 {print $1 "," $3 "," $4 "," $5 "," $6 "," $7}' "$dir/oracle_pick.csv"
} | show

echo "The sweep: p50 us / CPU % per pair and setting (median over rounds):"
echo
awk -F, '
	function med(k,   n, i, j, t, a) {
		n = split(v[k], a, " ")
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j-1]; a[j-1] = t
		}
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	function key(x,   n) {
		if (x == "none") return 0
		n = substr(x, 2) + 0
		return x ~ /p$/ ? 100000 + n : n
	}
	NR > 1 && $2 == "sweep" {
		if (!($3 in seen_s)) { seen_s[$3] = 1; s[++ns] = $3 }
		if (!($4 in seen_p)) { seen_p[$4] = 1; p[++np] = $4 }
		v[$3 SUBSEP $4 SUBSEP "p50"] = v[$3 SUBSEP $4 SUBSEP "p50"] " " $8
		v[$3 SUBSEP $4 SUBSEP "cpu"] = v[$3 SUBSEP $4 SUBSEP "cpu"] " " $11
	}
	END {
		# none, sN, sNp: in that order, N ascending
		for (i = 2; i <= ns; i++) for (j = i; j > 1 && key(s[j-1]) > key(s[j]); j--) {
			t = s[j]; s[j] = s[j-1]; s[j-1] = t
		}
		h = "setting"
		for (j = 1; j <= np; j++) h = h "," p[j]
		print h
		for (i = 1; i <= ns; i++) {
			l = s[i]
			for (j = 1; j <= np; j++)
				l = l "," sprintf("%.2f / %.2f", med(s[i] SUBSEP p[j] SUBSEP "p50"), med(s[i] SUBSEP p[j] SUBSEP "cpu"))
			print l
		}
	}' "$dir/oracle.csv" | show

if [ -f "$dir/targets_oracle.csv" ]; then
	echo "Targets:"
	echo
	{
		echo "target,measured,limit,verdict,note"
		awk -F, 'NR > 1 {print $2 "," $3 "," $4 " " $5 "," $6 "," $7}' "$dir/targets_oracle.csv"
	} | show_raw
fi
