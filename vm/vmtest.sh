#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make vmtest: uringtuned and IOPOLL rings on real Debian kernels, in QEMU
# with an NVMe disk that has a poll queue (the development machines have no
# pollable block device). For each kernel (6.1, 6.12, newest 7.x): fetch it
# (vm/fetch-kernels.sh), boot it with vm/guest-iopoll.sh as the test
# (vm/run.sh), and judge what the guest reported:
#
#   - the kernel is the one fetched, has BTF, and nvme0n1 polls (io_poll = 1)
#   - uringtuned starts in observe mode and lists iopoll_load's ring with the
#     IOPOLL setup flag (and HYBRID_IOPOLL for hybrid rings); on 6.1 it says
#     NAPI is unavailable (daemon.napi_supported == false)
#   - iopoll_load runs classic at QD1 and QD8; hybrid runs on 6.13+ and is
#     refused (exit 3) before
#   - when the daemon reports a ring's "iopoll" object: its completions equal
#     iopoll_load's count exactly and its p50 is within 2x of iopoll_load's
#     own (a build without it: "iopoll stats: not reported by this build")
#
# One line per kernel: PASS vm <uname -r>: ... | FAIL vm <uname -r>: <why> |
# SKIP vm <series or uname -r>: <why>, then "vmtest: N passed, N failed, N
# skipped". Exit 1 if any failed. A kernel that cannot be fetched or booted
# is a skip, never a pass.
#
# usage: vm/vmtest.sh [6.1|6.12|7 ...]
# Environment: UT_VM_SECONDS per iopoll_load run (3), and those of vm/run.sh.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${UT_VM_CACHE:-$ROOT/.cache/vm}
SERIES=("$@")
for s in "${SERIES[@]}"; do
	case $s in
	6.1|6.12|7) ;;
	*) echo "vmtest: unknown kernel series '$s' (expected 6.1, 6.12 or 7)" >&2; exit 2 ;;
	esac
done
[ ${#SERIES[@]} -gt 0 ] || SERIES=(6.1 6.12 7)
SECS=${UT_VM_SECONDS:-3}
# the daemon's p50 (log2 histogram) against iopoll_load's exact one
P50_MAX_RATIO=2

passed=0
failed=0
skipped=0

command -v jq >/dev/null || { echo "vmtest: jq is missing (scripts/deps.sh)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/uringtune-vmtest.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# the guest script, with this run's duration
{ echo "SECS=$SECS"; cat "$ROOT/vm/guest-iopoll.sh"; } >"$tmp/test.sh"

"$ROOT/vm/build-initramfs.sh" || { echo "vmtest: the initramfs could not be built" >&2; exit 1; }

echo "vmtest: fetching kernels ${SERIES[*]}"
"$ROOT/vm/fetch-kernels.sh" "${SERIES[@]}" | tee "$tmp/fetch"

# field KEY LINE: value of key=value in a tool's output line
field() { sed -nE "s/.*(^| )$1=([^ ]*).*/\\2/p" <<<"$2"; }
# utvm KIND [CASE]: the payload of the first "UTVM: KIND [CASE] ..." line
utvm() {
	local pfx="UTVM: $1 " l
	[ $# -lt 2 ] || pfx="$pfx$2 "
	l=$(grep -m1 -F "$pfx" "$out") || return 0
	printf '%s\n' "${l#*"$pfx"}"
}

# "major minor" of a uname -r, compared as one number
kver() { awk -F'[.+-]' '{ printf "%d\n", $1 * 1000 + $2 }' <<<"$1"; }

errs=()
declare -A counts	# case -> iopoll_load's completed count, this kernel
declare -A cpus	# case -> iopoll_load cpu_pct, this kernel
declare -A predicted	# classic case -> advisor hybrid_cpu_saving
declare -A iopss	# case -> iopoll_load iops, this kernel
fail_() { errs+=("$*"); }

# check_case CASE HYBRID: one iopoll_load run against the daemon's status;
# appends a summary of the run to $runs
check_case() {
	local c=$1 hybrid=$2 res ring pid fd json r rc completed p50 cpu iops flags
	local ic ip50 ratio mode max
	rc=$(field rc "$(utvm CASE "$c")")
	res=$(utvm RESULT "$c")
	cpus[$c]=$(field cpu_pct "$res")
	iopss[$c]=$(field iops "$res")
	if [ "$rc" != 0 ] || [ -z "$res" ]; then
		fail_ "$c: iopoll_load exit ${rc:-none}: $(utvm CASE "$c" | sed -n 's/.*err=//p')"
		return
	fi
	completed=$(field completed "$res")
	counts[$c]=$completed
	p50=$(field p50_us "$res")
	cpu=$(field cpu_pct "$res")
	iops=$(field iops "$res")
	runs="$runs, $c $(awk -v i="$iops" 'BEGIN { printf "%.1fk", i / 1000 }') IOPS p50 ${p50} us cpu ${cpu}%"
	[ "${completed:-0}" -gt 0 ] || fail_ "$c: no reads completed"
	# emulated NVMe: a read that takes seconds was lost and timed out
	# (nvme io_timeout 30 s); worth seeing, not the daemon's doing
	max=$(field max_us "$res")
	awk -v m="$max" 'BEGIN { exit !(m > 1000000) }' &&
		stalls="$stalls, $c: a read took $(awk -v m="$max" 'BEGIN { printf "%.1f", m / 1000000 }') s (see dmesg in the console log)"
	ring=$(utvm RING "$c")
	pid=$(field pid "$ring")
	fd=$(field fd "$ring")
	[ -n "$daemon_up" ] || return
	json=$(utvm JSON "$c")
	if ! jq -e . >/dev/null 2>&1 <<<"$json"; then
		fail_ "$c: uringtune status --json is not JSON: ${json:0:120}"
		return
	fi
	r=$(jq -c --argjson pid "$pid" --argjson fd "$fd" \
		'.rings[] | select(.pid == $pid and .fd == $fd)' <<<"$json")
	if [ "$series" = 6.1 ] && [ -z "$napi_checked" ]; then
		napi_checked=1
		jq -e '.daemon.napi_supported == false' >/dev/null <<<"$json" ||
			fail_ "6.1: daemon.napi_supported is $(jq -c '.daemon.napi_supported' <<<"$json"), expected false"
		# and says why, on the ring itself
		jq -e '.reason | test("no io_uring NAPI.*6[.]9")' >/dev/null <<<"$r" ||
			fail_ "6.1: the ring's reason does not say NAPI needs 6.9: $(jq -c .reason <<<"$r")"
		grep -q 'UTVM: LOG .*has no io_uring NAPI busy polling' "$out" ||
			fail_ "6.1: the daemon did not log that NAPI tuning is unavailable"
	fi
	if [ -z "$r" ]; then
		fail_ "$c: ring pid=$pid fd=$fd not listed by uringtuned"
		return
	fi
	flags=$(jq -r '.setup_flags | join(",")' <<<"$r")
	jq -e '.setup_flags | index("IOPOLL")' >/dev/null <<<"$r" ||
		fail_ "$c: ring listed without the IOPOLL setup flag ($flags)"
	if [ "$hybrid" = 1 ]; then
		jq -e '.setup_flags | index("HYBRID_IOPOLL")' >/dev/null <<<"$r" ||
			fail_ "$c: ring listed without HYBRID_IOPOLL ($flags)"
	fi
	if ! jq -e 'has("iopoll")' >/dev/null <<<"$r"; then
		iopoll_note="iopoll stats: not reported by this build"
		return
	fi
	if jq -e '.daemon.iopoll_stats == false' >/dev/null <<<"$json"; then
		iopoll_note="iopoll stats: not loaded on this kernel (daemon.iopoll_stats false)"
		return
	fi
	ic=$(jq -r '.iopoll.completions' <<<"$r")
	ip50=$(jq -r '.iopoll.p50_ns // empty' <<<"$r")
	if [ "$ic" != "$completed" ]; then
		# a ring's statistics must start at zero, also when the kernel
		# reuses a closed ring's memory for the next ring
		local extra=$((ic - completed)) prev why=
		for prev in "${!counts[@]}"; do
			[ "${counts[$prev]}" != "$extra" ] || why=" (the difference is $prev's count: carried over from that closed ring)"
		done
		fail_ "$c: daemon counted $ic completions, iopoll_load $completed$why"
	fi
	if [ -z "$ip50" ]; then
		fail_ "$c: daemon reports no p50_ns"
	else
		ratio=$(awk -v a="$ip50" -v b="$p50" 'BEGIN { printf "%.2f", (b > 0 ? a / (b * 1000) : 0) }')
		awk -v r="$ratio" -v m="$P50_MAX_RATIO" 'BEGIN { exit !(r >= 1 / m && r <= m) }' ||
			fail_ "$c: daemon p50 $ip50 ns vs iopoll_load ${p50} us (ratio $ratio, allowed 1/$P50_MAX_RATIO-$P50_MAX_RATIO)"
		runs="$runs (daemon p50 $(awk -v n="$ip50" 'BEGIN { printf "%.1f", n / 1000 }') us)"
	fi
	# the hybrid flag: "hybrid": bool, or "mode": "hybrid"|"classic"
	mode=$(jq -r '.iopoll | if has("hybrid") then (if .hybrid then "hybrid" else "classic" end) else (.mode // "") end' <<<"$r")
	if [ -n "$mode" ]; then
		[ "$mode" = "$([ "$hybrid" = 1 ] && echo hybrid || echo classic)" ] ||
			fail_ "$c: daemon says $mode"
	fi
	if [ "$hybrid" = 1 ]; then
		jq -e '.iopoll.hybrid_poll_time_ns > 0' >/dev/null <<<"$r" ||
			fail_ "$c: no hybrid_poll_time_ns for a hybrid ring: $(jq -c '.iopoll.hybrid_poll_time_ns' <<<"$r")"
		runs="$runs (hybrid_poll_time $(jq -r '.iopoll.hybrid_poll_time_ns / 1000 | floor' <<<"$r") us)"
	else
		predicted[$c]=$(jq -r '.iopoll.advice.hybrid_cpu_saving' <<<"$r")
	fi
	iopoll_note="iopoll stats: checked (completions exact, p50 within ${P50_MAX_RATIO}x)"
}

# classic vs hybrid CPU, measured, next to what the advisor predicted from
# the classic ring's completion times
compare_cpu() {
	local qd saving per_io
	for qd in 1 8; do
		[ -n "${cpus[classic-qd$qd]:-}" ] && [ -n "${cpus[hybrid-qd$qd]:-}" ] || continue
		saving=$(awk -v c="${cpus[classic-qd$qd]}" -v h="${cpus[hybrid-qd$qd]}" \
			'BEGIN { printf "%.0f", (c > 0 ? (1 - h / c) * 100 : 0) }')
		# hybrid also completes fewer reads: CPU per read is the fairer measure
		per_io=$(awk -v c="${cpus[classic-qd$qd]}" -v h="${cpus[hybrid-qd$qd]}" \
			-v ic="${iopss[classic-qd$qd]}" -v ih="${iopss[hybrid-qd$qd]}" \
			'BEGIN { printf "%.0f", (c > 0 && ih > 0 ? (1 - (h / ih) / (c / ic)) * 100 : 0) }')
		runs="$runs; QD$qd CPU classic ${cpus[classic-qd$qd]}% vs hybrid ${cpus[hybrid-qd$qd]}%: ${saving}% less CPU, ${per_io}% less CPU per read; advisor predicted $(awk -v p="${predicted[classic-qd$qd]:-0}" 'BEGIN { printf "%.0f", p * 100 }')% less spinning per read"
	done
}

for series in "${SERIES[@]}"; do
	line=$(grep -E "^(KERNEL|SKIP) ${series//./\\.}[ :]" "$tmp/fetch" | head -n 1)
	case $line in
	KERNEL*) ;;
	SKIP*)
		echo "SKIP vm $series: ${line#*: }"
		skipped=$((skipped + 1))
		continue ;;
	*)
		echo "SKIP vm $series: vm/fetch-kernels.sh said nothing about it"
		skipped=$((skipped + 1))
		continue ;;
	esac
	read -r _ _ krel pkgver kdir _ <<<"$line"
	echo "vmtest: booting $krel ($pkgver)"
	out=$tmp/$series.out
	# an emulated VM may crash on its own (QEMU TCG bugs seen here): one
	# more boot for a VM that died, never for a test that failed
	for attempt in 1 2; do
		"$ROOT/vm/run.sh" "$kdir" "$tmp/test.sh" >"$out"
		rc=$?
		vm=$(grep -m1 '^VM ' "$out")
		[ $rc -eq 1 ] && { [ -z "$(grep -m1 'UTVM: BOOT' "$out")" ] ||
			[ "$(field exit "$vm")" != 0 ]; } && [ $attempt = 1 ] || break
		echo "vmtest: $krel: the VM died ($(field exit "$vm")), booting it once more"
	done
	cp "$out" "$CACHE/logs/$krel.utvm" 2>/dev/null
	if [ $rc -eq 3 ]; then
		grep -m1 '^SKIP vm ' "$out" || echo "SKIP vm $krel: the VM did not start"
		skipped=$((skipped + 1))
		continue
	fi
	vm=$(grep -m1 '^VM ' "$out")
	errs=()
	counts=()
	cpus=()
	iopss=()
	predicted=()
	runs=
	iopoll_note=
	stalls=
	napi_checked=
	daemon_up=
	if [ -z "$(utvm BOOT)" ]; then
		echo "FAIL vm $krel: did not reach /init ($(field exit "$vm"), console log $(field log "$vm"))"
		failed=$((failed + 1))
		continue
	fi
	[ "$(utvm KERNEL)" = "$krel" ] || fail_ "booted '$(utvm KERNEL)', expected $krel"
	[ "$(utvm IO_POLL | cut -d' ' -f1)" = 1 ] || fail_ "nvme0n1 io_poll is '$(utvm IO_POLL | cut -d' ' -f1)', expected 1 (poll queues)"
	case $(utvm BTF) in yes*) ;; *) fail_ "no /sys/kernel/btf/vmlinux" ;; esac
	d=$(grep -m1 -E 'UTVM: DAEMON (up|FAILED)' "$out")
	case $d in
	*"DAEMON up"*) daemon_up=1 ;;
	*) fail_ "uringtuned did not start: ${d#*FAILED }" ;;
	esac
	check_case classic-qd1 0
	check_case classic-qd8 0
	hrc=$(field rc "$(utvm CASE hybrid-qd1)")
	if [ "$(kver "$krel")" -ge 6013 ]; then
		check_case hybrid-qd1 1
		check_case hybrid-qd8 1
		compare_cpu
	elif [ "$hrc" = 3 ]; then
		runs="$runs, hybrid refused (exit 3, before 6.13)"
	else
		fail_ "hybrid-qd1: iopoll_load exit ${hrc:-none}, expected 3 (HYBRID_IOPOLL refused before 6.13)"
	fi
	[ "$(field exit "$vm")" = 0 ] || fail_ "the guest did not finish (exit=$(field exit "$vm"))"
	summary="boot $(field boot_s "$vm") s ($(field accel "$vm"), total $(field run_s "$vm") s)$runs"
	[ -z "$iopoll_note" ] || summary="$summary; $iopoll_note"
	[ -z "$stalls" ] || summary="$summary; note${stalls#,}"
	if [ ${#errs[@]} -eq 0 ]; then
		echo "PASS vm $krel: $summary"
		passed=$((passed + 1))
	else
		echo "FAIL vm $krel: $(IFS=';'; echo "${errs[*]}" | sed 's/;/; /g') [$summary; console log $(field log "$vm")]"
		failed=$((failed + 1))
	fi
done

echo "vmtest: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
