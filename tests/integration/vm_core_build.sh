#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 900
# budget: 300
#
# Issue 16, item 3: uringtune builds on older kernels. For each VM kernel
# (6.1, 6.12 and 7.x; UT_CORE_SERIES picks): vmlinux.h is generated from
# that kernel's own BTF (vm/kernel-btf.sh: extracted from its vmlinuz), the
# BPF objects and uringtuned are built against it (make BUILD=build/core-<s>
# VMLINUX_H=...), and that daemon is booted in a VM of that kernel
# (vm/guest-core.sh), where it must load and attach its programs and list
# the guest's rings with their setup flags, NAPI settings (as the kernel
# holds them, read by the BPF programs), IOPOLL completions and waits.
# Before building, a direct read of a field the kernel lacks
# (ctx->napi_track_mode, 6.13+) must fail to compile against that header:
# the header is really that kernel's, and the build passes only because
# every such field goes through bpf/kernel_compat.bpf.h.
# A kernel that cannot be fetched or a VM that cannot start is a skip.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
CACHE=${UT_VM_CACHE:-$ROOT/.cache/vm}
SERIES=${UT_CORE_SERIES:-6.1 6.12 7}
CLANG=${CLANG:-clang}

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
command -v jq >/dev/null || fail "jq is missing (scripts/deps.sh)"
for t in uringtune iopoll_load ringhold pingpong; do
	[ -x build/$t ] || fail "build/$t is missing: run make first"
done

tmp=$(mktemp -d /tmp/uringtune-core.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
secs() { echo "$(now) $1" | awk '{ printf "%.1f", $1 - $2 }'; }

# the field that stopped the build before (issue 16): 6.13+
cat >"$tmp/probe.bpf.c" <<'EOF'
#include "vmlinux.h"
int probe(struct io_ring_ctx *ctx) { return ctx->napi_track_mode; }
EOF

summary=()
for s in $SERIES; do
	out=$(vm/fetch-kernels.sh "$s" 2>&1)
	line=$(grep -E "^(KERNEL|SKIP) ${s}[ :]" <<<"$out" | tail -n 1)
	case $line in
	KERNEL*) ;;
	SKIP*) skip "vm_core_build: ${line#SKIP }" ;;
	*) echo "$out"; fail "$s: vm/fetch-kernels.sh said nothing about the kernel" ;;
	esac
	read -r _ _ krel _ kdir _ <<<"$line"

	t0=$(now)
	bline=$(vm/kernel-btf.sh "$kdir") || fail "$s: vm/kernel-btf.sh $kdir failed"
	btf_s=$(secs "$t0")
	echo "$bline"
	hdr=$CACHE/btf/$krel/vmlinux.h
	[ -s "$hdr" ] || fail "$s: no $hdr after vm/kernel-btf.sh"

	# the header is this kernel's: on kernels before 6.13 the direct read fails
	mkdir -p "$tmp/$s"
	cp "$hdr" "$tmp/$s/vmlinux.h"
	if "$CLANG" -target bpf -fms-extensions -Wno-microsoft-anon-tag -fsyntax-only \
		-I"$tmp/$s" "$tmp/probe.bpf.c" 2>"$tmp/$s/probe.err"; then
		before="ctx->napi_track_mode compiles"
		case $s in 6.1|6.12) fail "$s: ctx->napi_track_mode compiled against $hdr: not a $s header" ;; esac
	else
		grep -q "no member named 'napi_track_mode'" "$tmp/$s/probe.err" ||
			fail "$s: the probe failed for another reason: $(head -n 3 "$tmp/$s/probe.err")"
		before="ctx->napi_track_mode: no member (as before the fix)"
		[ "$s" = 7 ] && fail "$s: ctx->napi_track_mode does not compile against a 7.x header"
	fi
	echo "vm_core_build: $krel: $before"

	bdir=build/core-$s
	t0=$(now)
	make -s -j2 BUILD="$bdir" VMLINUX_H="$hdr" "$bdir/uringtuned" >"$tmp/$s/make.log" 2>&1 || {
		tail -n 30 "$tmp/$s/make.log"
		fail "$s: building against $hdr failed"
	}
	build_s=$(secs "$t0")
	cmp -s "$hdr" "$bdir/vmlinux.h" || fail "$s: $bdir/vmlinux.h is not $hdr"
	echo "vm_core_build: $krel: built $bdir/uringtuned in $build_s s (BTF $btf_s s)"

	# the daemon built for this kernel, the rest as make built them
	initrd=$CACHE/initramfs-core-$s.cpio.gz
	UT_VM_DAEMON=$bdir/uringtuned vm/build-initramfs.sh "$initrd" >/dev/null ||
		fail "$s: vm/build-initramfs.sh with $bdir/uringtuned failed"
	cat vm/guest-lib.sh vm/guest-core.sh >"$tmp/$s/test.sh"
	UT_VM_INITRAMFS=$initrd UT_VM_LOG=$CACHE/logs/$krel.core.log \
		vm/run.sh "$kdir" "$tmp/$s/test.sh" >"$tmp/$s/vm.out" 2>&1
	rc=$?
	cat "$tmp/$s/vm.out"
	[ $rc -eq 3 ] && skip "vm_core_build: $(grep -m1 '^SKIP' "$tmp/$s/vm.out" | sed 's/^SKIP //')"
	vmline=$(grep -m1 '^VM ' "$tmp/$s/vm.out")
	[ $rc -eq 0 ] || fail "$s: the VM run failed: ${vmline:-no VM line} (log $CACHE/logs/$krel.core.log)"
	u() { grep -m1 "^UTVM: $1" "$tmp/$s/vm.out" | sed "s/^UTVM: $1 *//"; }

	[ "$(u KERNEL)" = "$krel" ] || fail "$s: the VM ran $(u KERNEL), not $krel"
	[ "$(u BTF)" = yes ] || fail "$s: the VM kernel has no /sys/kernel/btf/vmlinux"
	grep -q '^UTVM: DAEMON up_s=' "$tmp/$s/vm.out" ||
		fail "$s: uringtuned built against $krel's vmlinux.h did not start: $(u 'DAEMON FAILED') $(grep '^UTVM: LOG' "$tmp/$s/vm.out" | head -n 5)"
	json=$(u JSON)
	jq -e .rings >/dev/null 2>&1 <<<"$json" || fail "$s: no status JSON: ${json:0:300}"
	ring() { jq -c --arg c "$1" '[.rings[] | select(.comm == $c)] | .[0] // empty' <<<"$json"; }
	# expect_ring COMM FILTER WHAT
	expect_ring() {
		local r
		r=$(ring "$1")
		[ -n "$r" ] || fail "$s: no ring of $1 in status (rings: $(jq -c '[.rings[] | {comm, setup_flags}]' <<<"$json"))"
		jq -e "$2" >/dev/null <<<"$r" || fail "$s: $1's ring: expected $3, got $(jq -c '{setup_flags, napi, waits, iopoll: (.iopoll | if . then {completions} else null end)}' <<<"$r")"
	}
	has() { echo "any(.setup_flags[]; . == \"$1\")"; }

	napi=true
	[ "$s" = 6.1 ] && napi=false
	jq -e ".daemon.napi_supported == $napi" >/dev/null <<<"$json" ||
		fail "$s: daemon.napi_supported is $(jq -c .daemon.napi_supported <<<"$json"), expected $napi"
	jq -e '.daemon.iopoll_tracing == true' >/dev/null <<<"$json" ||
		fail "$s: IOPOLL tracing is not attached (daemon.iopoll_tracing $(jq -c .daemon.iopoll_tracing <<<"$json"))"

	expect_ring utcore_pre "$(has COOP_TASKRUN)" COOP_TASKRUN
	expect_ring utcore_post "$(has DEFER_TASKRUN) and $(has SINGLE_ISSUER)" "DEFER_TASKRUN,SINGLE_ISSUER"
	if [ $napi = true ]; then
		u 'RING utcore_pre' | grep -q 'napi=ok' || fail "$s: ringhold's NAPI registration: $(u 'RING utcore_pre')"
		expect_ring utcore_pre '.napi.enabled and .napi.busy_poll_us == 40 and .napi.prefer_busy_poll and
			.napi.tracking == "dynamic"' "NAPI 40 us, prefer, dynamic (the inventory iterator's read)"
		expect_ring utcore_post '.napi.enabled and .napi.busy_poll_us == 25 and (.napi.prefer_busy_poll | not) and
			.napi.tracking == "dynamic"' "NAPI 25 us, no prefer, dynamic (io_uring_register's read)"
	else
		expect_ring utcore_pre '(.napi.enabled | not)' "NAPI off (no io_uring NAPI before 6.9)"
	fi

	res=$(u 'RESULT iopoll')
	done_n=$(sed -n 's/.*completed=\([0-9]*\).*/\1/p' <<<"$res")
	[ -n "$done_n" ] && [ "$done_n" -gt 0 ] || fail "$s: iopoll_load did not complete reads: ${res:-no result} $(u 'RING iopoll')"
	expect_ring iopoll_load "$(has IOPOLL) and .iopoll.completions == $done_n" "IOPOLL with $done_n completions"

	u 'RESULT ppc' | grep -q '^rtt ' || fail "$s: the loopback ping-pong did not finish: $(u 'RESULT ppc')"
	pp=$(jq -c '[.rings[] | select(.comm == "pingpong")]' <<<"$json")
	jq -e 'length == 2 and all(.[]; .waits.total > 0) and
		any(.[]; any(.setup_flags[]; . == "DEFER_TASKRUN"))' >/dev/null <<<"$pp" ||
		fail "$s: the ping-pong rings' waits were not counted: $(jq -c '[.[] | {setup_flags, waits}]' <<<"$pp")"

	read -r boot_s run_s < <(sed -n 's/.*boot_s=\([^ ]*\) run_s=\([^ ]*\).*/\1 \2/p' <<<"$vmline")
	summary+=("$krel: BTF ${btf_s}s, build ${build_s}s, VM boot ${boot_s}s run ${run_s}s, waits $(jq -c '[.[].waits.total]' <<<"$pp")")
done
for l in "${summary[@]}"; do echo "vm_core_build: $l"; done
echo "ok: built against each kernel's own vmlinux.h and loaded in its VM: $SERIES"
