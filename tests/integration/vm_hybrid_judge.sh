#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The hybrid part of `make vmtest` judged on a made-up guest (no VM, no
# kernel): vm/hybrid-judge.sh reads the guest's lines as vm/vmtest.sh hands
# them over and must
#   - measure each workload by the median of its pairs (the pair of a stalled
#     run is not used) and take the median of the classic runs' predictions;
#     show each mode's fastest run
#   - pass predictions within +-10 pp of that, and FAIL one 12 pp off or a
#     missing one, naming the workload and both numbers; with
#     UT_VM_HYBRID_BOUND=report (make check's) print the 12 pp one as a NOTE
#   - FAIL an auto run whose HYBRID_IOPOLL is not what the daemon's verdict
#     (hybrid_verdicts) said, and follow the advice without verdicts; where
#     the agent's line says what it was told at setup, judge by that (and
#     say it when the status's verdict moved since), FAIL a ring against it
#   - write hybrid.csv with the rows of this run and keep other series'
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
command -v jq >/dev/null || { echo "jq is missing (scripts/deps.sh)"; exit 77; }
tmp=$(mktemp -d /tmp/uringtune-hyjudge.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# shellcheck source=vm/judge-lib.sh
. vm/judge-lib.sh
UT_VM_HYBRID_CSV=$tmp/hybrid.csv
# shellcheck source=vm/hybrid-judge.sh
. vm/hybrid-judge.sh
krel=7.3.4+deb13-cloud-amd64

pid=100
# ring_json WORKLOAD HYBRID PRED_SAVING PRED_IOPS REC VERDICT: status JSON
# with the case's ring (pid $pid, fd 5) and the program's verdict
ring_json() {
	local comm=$1 flags='["IOPOLL"]'
	[ "$2" = 0 ] || flags='["IOPOLL","HYBRID_IOPOLL"]'
	jq -nc --argjson pid $pid --arg comm "$comm" --argjson flags "$flags" \
		--argjson ps "$3" --argjson pi "$4" --argjson rec "$5" --arg v "$6" '{
		daemon: {sleep_probe: {done: true, overshoot_ns: 30000}},
		rings: [{pid: $pid, fd: 5, comm: $comm, setup_flags: $flags,
			iopoll: {window: {period_ns: 1000000000, reads: 9000},
				advice: {predicted: ($ps != null), cpu_per_read_saving: $ps,
					iops_change: $pi, recommend_hybrid: $rec, why: "made up"}}}],
		hybrid_verdicts: (if $v == "" then null else [{comm: $comm, exe: "/tmp/bin/\($comm)",
			verdict: $v, why: "made up", measured: null,
			predicted: {cpu_per_read_saving: $ps, iops_change: $pi, age_s: 1}}] end)}
		| if .hybrid_verdicts == null then del(.hybrid_verdicts) else . end'
}

# run CASE HYBRID IOPS CPU [PRED_SAVING PRED_IOPS REC VERDICT [TOLD]]: one
# run's lines; TOLD what the agent says the daemon told it at setup
run() {
	local c=$1 w=${1%-*} json
	pid=$((pid + 1))
	json=$(ring_json "$w" "$2" "${5:-null}" "${6:-null}" "${7:-null}" "${8:-}")
	if [ "$w" = fio ]; then
		json=$(jq -c '.rings[0].fd = 6' <<<"$json")
		echo "UTVM: FIOJSON $c $(jq -nc --argjson i "$3" --argjson u "$4" '{jobs: [{error: 0,
			usr_cpu: 0, sys_cpu: $u, read: {iops: $i, total_ios: 1000,
			lat_ns: {percentile: {"50.000000": 90000, "99.000000": 300000}}}}]}')"
	else
		echo "UTVM: RING $c ring pid=$pid fd=5 flags=0x1"
		echo "UTVM: RESULT $c iopoll completed=30000 p50_us=80.0 p99_us=200.0 iops=$3 cpu_pct=$4 avg_us=90.0"
	fi
	echo "UTVM: JSON $c $json"
	echo "UTVM: EXECLOG $c uringtune-agent: pid $pid ring fd 5: flags 0x1; daemon: hybrid: ${9:-made up}"
	echo "UTVM: CASE $c rc=0 run_s=3.1"
}

# guest VARIANT: a whole hybrid part; three pairs, the first with a stalled
# classic run (6k IOPS: +57.1%, +16.7%), the second with a stalled hybrid
# run (4k at 60%: -50.0%, -60.0%), the third as it should be (classic 9k at
# 100%, hybrid 6.5k at 50%: 1 - (50/6.5k)/(100/9k) = +30.8%, IOPS -27.8%):
# the medians are the third's; predicted +30% / -28% unless VARIANT changes it
guest() {
	local w ps pi v=$1 vd=classic has=0 rec=false
	for w in $HYBRID_WORKLOADS; do
		ps=0.30 pi=-0.28
		[ "$v" = far ] && [ "$w" = iopoll_qd8 ] && ps=0.428
		[ "$v" = none ] && [ "$w" = iopoll_seq128k ] && ps=null pi=null
		[ "$v" = no-verdicts ] && vd=
		run "$w-classic" 0 6000 100 "$ps" "$pi" "$rec" "$vd"
		run "$w-hybrid" 1 7000 50
		run "$w-hybrid2" 1 4000 60
		run "$w-classic2" 0 10000 100 "$ps" "$pi" "$rec" "$vd"
		run "$w-classic3" 0 9000 100 "$ps" "$pi" "$rec" "$vd"
		run "$w-hybrid3" 1 6500 50
		[ "$v" = auto-wrong ] && [ "$w" = fio ] && has=1
		if [ "$w" = fio ] && [ "$v" = moved ]; then
			# told classic at setup, the status's verdict hybrid by then
			run "$w-auto" 0 10000 100 "$ps" "$pi" "$rec" hybrid "classic, measured on 4 hybrid windows: -18% IOPS (bound 10%)"
		elif [ "$w" = fio ] && [ "$v" = told-ignored ]; then
			# told classic, the ring hybrid anyway (the status agrees with the told)
			run "$w-auto" 1 10000 100 "$ps" "$pi" "$rec" classic "classic, measured on 4 hybrid windows: -18% IOPS (bound 10%)"
		else
			run "$w-auto" "$has" 10000 100 "$ps" "$pi" "$rec" "$vd"
		fi
	done
}

# judge VARIANT: errs after check_hybrid on that guest
judge() {
	out=$tmp/$1.out
	guest "$1" >"$out"
	errs=()
	rm -f "$tmp/hybrid.rows"
	check_hybrid >"$tmp/$1.lines"
}
fail_() { errs+=("$*"); }

judge good
[ ${#errs[@]} -eq 0 ] || fail "good guest judged failing: ${errs[*]}"
grep -q 'hybrid iopoll_qd1: classic 10.0k IOPS cpu 100.0% .* \[classic2\] | hybrid 7.0k IOPS cpu 50.0% .* \[hybrid\]' "$tmp/good.lines" ||
	fail "not the fastest run of each mode: $(grep iopoll_qd1 "$tmp/good.lines")"
grep -q 'measured +30.8%, IOPS change predicted -28.0% measured -27.8% (medians)' "$tmp/good.lines" ||
	fail "measured numbers wrong: $(grep iopoll_qd1 "$tmp/good.lines")"
[ "$(wc -l <"$tmp/hybrid.rows")" = 4 ] || fail "$(wc -l <"$tmp/hybrid.rows") CSV rows, expected 4"
grep -qx "$krel,fio,0.300,0.308,-0.280,-0.278,false" "$tmp/hybrid.rows" ||
	fail "fio's row: $(grep ',fio,' "$tmp/hybrid.rows")"

judge far
[ ${#errs[@]} -eq 1 ] || fail "a prediction 12 pp off: ${#errs[@]} failures (${errs[*]})"
[[ ${errs[0]} == "hybrid iopoll_qd8: CPU per read saving predicted +42.8%, measured +30.8%: 12.0 pp apart (bound 10)" ]] ||
	fail "a prediction 12 pp off: '${errs[0]}'"

# make check's mode: the same miss reported, not failed
UT_VM_HYBRID_BOUND=report judge far
[ ${#errs[@]} -eq 0 ] || fail "report mode failed the kernel: ${errs[*]}"
grep -q "NOTE hybrid iopoll_qd8: CPU per read saving predicted +42.8%, measured +30.8%: 12.0 pp apart (bound 10, reported, not judged)" "$tmp/far.lines" ||
	fail "report mode: no NOTE line: $(grep -c NOTE "$tmp/far.lines")"

judge none
[ ${#errs[@]} -eq 1 ] && [[ ${errs[0]} == "hybrid iopoll_seq128k: no prediction (made up); measured CPU per read saving +30.8%, IOPS change -27.8%" ]] ||
	fail "no prediction: ${errs[*]}"
grep -qx "$krel,iopoll_seq128k,n/a,0.308,n/a,-0.278,false" "$tmp/hybrid.rows" ||
	fail "a row without prediction: $(grep seq128k "$tmp/hybrid.rows")"

judge auto-wrong
[ ${#errs[@]} -eq 1 ] && [[ ${errs[0]} == "hybrid fio-auto: HYBRID_IOPOLL true, but the daemon's verdict classic"* ]] ||
	fail "auto against the verdict: ${errs[*]}"

# the verdict moved between the ring's setup and the status: the ring is
# judged by what the daemon told the agent, and the move is said
judge moved
[ ${#errs[@]} -eq 0 ] || fail "a verdict that moved after setup: ${errs[*]}"
grep -q 'NOTE hybrid fio-auto: the verdict moved during the run: told classic at setup' "$tmp/moved.lines" ||
	fail "a moved verdict not said: $(grep fio-auto "$tmp/moved.lines" | head -n 2)"
judge told-ignored
[ ${#errs[@]} -eq 1 ] && [[ ${errs[0]} == "hybrid fio-auto: HYBRID_IOPOLL true, but the daemon's verdict told at setup: classic"* ]] ||
	fail "a ring against what it was told: ${errs[*]}"

judge no-verdicts
[ ${#errs[@]} -eq 0 ] || fail "without hybrid_verdicts (advice says classic): ${errs[*]}"
grep -q 'advice (no hybrid_verdicts in this build)' "$tmp/no-verdicts.lines" || fail "no-verdicts not said"

# the CSV: this run's series replaced, another's kept
printf '%s\n' "$HYBRID_CSV_HEAD" "6.1.0-50-cloud-amd64,fio,n/a,n/a,n/a,n/a,n/a" \
	"7.2.13+deb13-cloud-amd64,fio,0.1,0.1,0.1,0.1,true" >"$UT_VM_HYBRID_CSV"
write_hybrid_csv 7 >/dev/null
[ "$(head -n 1 "$UT_VM_HYBRID_CSV")" = "$HYBRID_CSV_HEAD" ] || fail "CSV header: $(head -n 1 "$UT_VM_HYBRID_CSV")"
grep -q '^6.1.0-50-cloud-amd64,fio,' "$UT_VM_HYBRID_CSV" || fail "6.1's row not kept"
! grep -q '^7.2.13' "$UT_VM_HYBRID_CSV" || fail "the older 7.x row kept beside this run's"
[ "$(grep -c '^7.3.4' "$UT_VM_HYBRID_CSV")" = 4 ] || fail "this run's rows: $(cat "$UT_VM_HYBRID_CSV")"

echo "hybrid judge: medians of the pairs, fastest runs shown, +-10 pp, missing predictions, auto vs verdict, CSV merge"
