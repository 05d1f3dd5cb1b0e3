#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Boot a kernel under QEMU with an emulated NVMe disk that has a poll queue
# (IOPOLL works on it), run TEST_SCRIPT inside as /test.sh, print what it
# reports (console lines starting "UTVM: "), and one summary line:
#
#   VM <uname -r> accel=kvm|tcg boot_s=<host s to /init> run_s=<total> exit=<rc|timeout|no-exit> log=<console log>
#
# usage: vm/run.sh KERNEL_DIR TEST_SCRIPT
#   KERNEL_DIR   a directory of vm/fetch-kernels.sh: vmlinuz, krel, modules/ if any
#   TEST_SCRIPT  busybox sh script, run by /init; its output goes to the console
#
# Environment: UT_VM_ACCEL=auto|kvm|tcg (auto: KVM if /dev/kvm works, else
# TCG emulation), UT_VM_TIMEOUT seconds (90 with KVM, 180 with TCG), UT_VM_NICE
# QEMU's nice value as root (-10), UT_VM_TCG_CPU (max,-cx16),
# UT_VM_TCG_ACCEL (tcg,thread=single),
# UT_VM_LOG console log path (.cache/vm/logs/<uname -r>.log),
# UT_VM_INITRAMFS base initramfs (vm/build-initramfs.sh builds it if absent),
# UT_VM_FIO=1 appends the fio layer (vm/build-initramfs.sh --fio, or
# UT_VM_INITRAMFS_FIO) for the tests that run fio, UT_VM_MEM_MB guest memory
# (1024).
#
# Exit: 0 the test ran and exited 0; 1 it ran and failed, or the VM booted
# and hung or crashed; 3 the VM could not start (a SKIP, with the reason on a
# "SKIP vm <kernel>: <reason>" line, never a pass); 2 bad usage.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${UT_VM_CACHE:-$ROOT/.cache/vm}
. "$ROOT/vm/console-lib.sh"
QEMU=${QEMU:-qemu-system-x86_64}
MEM_MB=${UT_VM_MEM_MB:-1024}
CPUS=2
DISK_MB=64
# with KVM, no /init by then means KVM cannot run this kernel
KVM_BOOT_S=${UT_VM_KVM_BOOT_S:-30}
# QEMU ahead of whatever else the host runs: under TCG the guest's timing is
# the host's scheduling (a compile beside it stalls the emulated disk and
# timers for milliseconds, and the vmtest numbers with them); root only,
# otherwise nice says so and QEMU runs as it would
NICE=${UT_VM_NICE:--10}
[ "$(id -u)" = 0 ] || NICE=0

[ $# -eq 2 ] || { sed -n '3,26p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
KDIR=$1
TEST=$2
[ -f "$TEST" ] || { echo "run: $TEST: no such test script" >&2; exit 2; }

krel=$(cat "$KDIR/krel" 2>/dev/null || basename "$KDIR")
skip() { echo "SKIP vm $krel: $*"; exit 3; }

[ -f "$KDIR/vmlinuz" ] || skip "no vmlinuz in $KDIR (vm/fetch-kernels.sh)"
command -v "$QEMU" >/dev/null || skip "$QEMU is not installed (qemu-system-x86, scripts/deps.sh)"
command -v cpio >/dev/null || skip "cpio is not installed (scripts/deps.sh)"

base=${UT_VM_INITRAMFS:-$CACHE/initramfs.cpio.gz}
if [ -z "${UT_VM_INITRAMFS:-}" ]; then
	"$ROOT/vm/build-initramfs.sh" "$base" >/dev/null || skip "the initramfs could not be built (vm/build-initramfs.sh)"
fi
[ -f "$base" ] || skip "no initramfs $base"
fio_layer=
case ${UT_VM_FIO:-0} in
0) ;;
1)
	fio_layer=${UT_VM_INITRAMFS_FIO:-$CACHE/initramfs-fio.cpio}
	if [ -z "${UT_VM_INITRAMFS_FIO:-}" ]; then
		"$ROOT/vm/build-initramfs.sh" --fio "$fio_layer" >/dev/null ||
			skip "the fio layer could not be built (vm/build-initramfs.sh --fio)"
	fi
	[ -f "$fio_layer" ] || skip "no fio layer $fio_layer" ;;
*) echo "run: UT_VM_FIO: expected 0 or 1, got '$UT_VM_FIO'" >&2; exit 2 ;;
esac

tmp=$(mktemp -d /tmp/uringtune-vm.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# The test (and the kernel's NVMe modules, if it has them as modules) as a
# second archive after the base one: the kernel unpacks both, in order.
mkdir -p "$tmp/extra"
install -m 0755 "$TEST" "$tmp/extra/test.sh"
if [ -f "$KDIR/modules.load" ]; then
	cp -r "$KDIR/modules" "$tmp/extra/modules"
	cp "$KDIR/modules.load" "$tmp/extra/modules.load"
fi
(cd "$tmp/extra" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -1 >"$tmp/extra.cpio.gz"
cat "$base" >"$tmp/initrd.gz"
if [ -n "$fio_layer" ]; then
	# the kernel takes an uncompressed archive only at a 4-byte aligned
	# offset of the initrd (zero bytes between archives are skipped)
	head -c $(((4 - $(stat -c %s "$tmp/initrd.gz") % 4) % 4)) /dev/zero >>"$tmp/initrd.gz"
	cat "$fio_layer" >>"$tmp/initrd.gz"
fi
cat "$tmp/extra.cpio.gz" >>"$tmp/initrd.gz"

# a disk full of data: reads of zeroes could be short-cut somewhere
head -c $((DISK_MB << 20)) /dev/urandom >"$tmp/disk.img"

log=${UT_VM_LOG:-$CACHE/logs/$krel.log}
mkdir -p "$(dirname "$log")"

# boot ACCEL: runs QEMU, tees the console into $log, prints UTVM: lines as
# they come; leaves boot_s, the exit code and the QEMU status in $tmp
boot() {
	local accel=$1 timeout cpu
	if [ "$accel" = kvm ]; then
		cpu=(-enable-kvm -cpu "${UT_VM_KVM_CPU:-host}")
		timeout=${UT_VM_TIMEOUT:-90}
	else
		# Two crashes of QEMU 7.2's TCG, not of the kernels: with CX16,
		# Debian's 6.12 double-faults in SLUB's cmpxchg16b fast path
		# (kmem_cache_alloc_noprof) in most boots (7 of 8), without it SLUB
		# takes its locked path (0 of 9); multi-threaded TCG once hit an
		# int3 Oops while 7.3 patched a static call (cross-CPU code
		# patching), one thread for both vCPUs never did (0 of 9)
		cpu=(-accel "${UT_VM_TCG_ACCEL:-tcg,thread=single}" -cpu "${UT_VM_TCG_CPU:-max,-cx16}")
		timeout=${UT_VM_TIMEOUT:-180}
	fi
	rm -f "$tmp/boot_s" "$tmp/exit"
	: >"$log"
	start=$(date +%s.%N)
	rm -f "$tmp/qemu.pid" "$tmp/kvm_error" "$tmp/kvm_stuck"
	watch=
	if [ "$accel" = kvm ]; then
		# KVM boots to /init in seconds; a vCPU KVM cannot run may also
		# spin silently (kvm-pvm with -cpu kvm64): give up on KVM then
		(
			sleep "$KVM_BOOT_S" &
			s=$!
			trap 'kill $s 2>/dev/null; exit 0' TERM
			wait $s
			if [ ! -f "$tmp/boot_s" ] && [ -f "$tmp/qemu.pid" ]; then
				touch "$tmp/kvm_stuck"
				kill "$(cat "$tmp/qemu.pid")" 2>/dev/null
			fi
		) &
		watch=$!
	fi
	nice -n "$NICE" timeout -k 5 "$timeout" "$QEMU" "${cpu[@]}" -m $MEM_MB -smp $CPUS -nographic -no-reboot \
		-nic none -pidfile "$tmp/qemu.pid" \
		-kernel "$KDIR/vmlinuz" -initrd "$tmp/initrd.gz" \
		-append "console=ttyS0 quiet nvme.poll_queues=1 panic=-1 rdinit=/init" \
		-drive "file=$tmp/disk.img,if=none,id=d0,format=raw" \
		-device nvme,serial=utvm0,drive=d0 </dev/null 2>&1 |
	console_read "$log" "$tmp" "$start"
	qemu_rc=${PIPESTATUS[0]}
	[ -z "$watch" ] || kill "$watch" 2>/dev/null
	run_s=$(echo "$(date +%s.%N) $start" | awk '{ printf "%.2f\n", $1 - $2 }')
}

accel=${UT_VM_ACCEL:-auto}
case $accel in
auto)
	if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then accel=kvm; else accel=tcg; fi ;;
kvm|tcg) ;;
*) echo "run: UT_VM_ACCEL: expected auto, kvm or tcg, got '$accel'" >&2; exit 2 ;;
esac

# 2>/dev/null: bash's own "Aborted" notice when QEMU dies of an assertion
boot "$accel" 2>/dev/null
if [ "$accel" = kvm ] && [ ! -f "$tmp/boot_s" ] && [ "${UT_VM_ACCEL:-auto}" = auto ] &&
   { [ -f "$tmp/kvm_error" ] || [ -f "$tmp/kvm_stuck" ] ||
     { [ "$qemu_rc" -ne 0 ] && [ "$qemu_rc" -ne 124 ] && grep -qi 'kvm' "$log"; }; }; then
	# e.g. a kvm-pvm host, which runs PVM guest kernels only: QEMU asserts
	# on an MSR (-cpu host), or the vCPU stops with an internal error or spins
	why=$(grep -ai -m1 -E 'kvm|msr' "$log" | tr -cd '[:print:]' | cut -c1-120)
	[ ! -f "$tmp/kvm_stuck" ] || why="no /init within $KVM_BOOT_S s"
	echo "run: KVM failed ($why): falling back to TCG emulation" >&2
	accel=tcg
	boot tcg 2>/dev/null
fi

if [ ! -f "$tmp/boot_s" ]; then
	why=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1 | cut -c1-160)
	if [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
		# QEMU ran: the kernel hung or never reached /init
		echo "VM $krel accel=$accel boot_s=- run_s=$run_s exit=timeout log=$log"
		echo "run: $krel did not reach /init within the timeout (last console line: ${why:-none})" >&2
		exit 1
	fi
	if grep -qE 'Kernel panic|Linux version' "$log"; then
		echo "VM $krel accel=$accel boot_s=- run_s=$run_s exit=no-boot log=$log"
		echo "run: $krel did not reach /init (${why:-no console output})" >&2
		exit 1
	fi
	skip "QEMU ($accel) did not start: ${why:-exit $qemu_rc, no output}"
fi

boot_s=$(cat "$tmp/boot_s")
if [ -f "$tmp/exit" ]; then
	rc=$(cat "$tmp/exit")
	echo "VM $krel accel=$accel boot_s=$boot_s run_s=$run_s exit=$rc log=$log"
	[ "$rc" = 0 ] && exit 0
	exit 1
fi
if [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
	echo "VM $krel accel=$accel boot_s=$boot_s run_s=$run_s exit=timeout log=$log"
else
	echo "VM $krel accel=$accel boot_s=$boot_s run_s=$run_s exit=no-exit log=$log"
fi
exit 1
