#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Boot a kernel under QEMU with systemd as PID 1: the root file system is
# the image of vm/build-rootfs.sh, a namespace of an emulated NVMe
# controller (snapshot=on: the cached image is never written), mounted by
# the kernel itself by its PARTUUID (NVMe and ext4 are built into Debian's
# cloud kernels: no initramfs). A second namespace carries the payload, an
# ext4 labelled utvmpayload made from PAYLOAD_DIR (test.sh, the package,
# ...) plus the booted kernel's modules (vm/fetch-modules.sh): utvm.service
# in the image mounts it, runs test.sh and powers off. Prints the guest's
# "UTVM: " lines and
#
#   VM <uname -r> accel=tcg boot_s=<QEMU start to utvm.service> run_s=<total> exit=<rc|timeout|no-exit> log=<console log>
#
# usage: vm/run-systemd.sh KERNEL_DIR ROOT_IMAGE PAYLOAD_DIR
# Environment: UT_VM_ACCEL=tcg|kvm (tcg: kvm-pvm on the development machines
# runs no Debian kernel, vm/README.md), UT_VM_TIMEOUT seconds (300),
# UT_VM_NICE, UT_VM_TCG_CPU, UT_VM_TCG_ACCEL, UT_VM_MEM_MB as for vm/run.sh,
# UT_VM_LOG console log (.cache/vm/logs/<uname -r>.systemd.log),
# UT_VM_MODULES modules to give the guest (veth).
#
# Exit: 0 the test ran and exited 0; 1 it failed, or the VM hung or
# crashed; 3 the VM could not start ("SKIP vm-systemd <kernel>: <reason>");
# 2 bad usage.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${UT_VM_CACHE:-$ROOT/.cache/vm}
. "$ROOT/vm/console-lib.sh"
QEMU=${QEMU:-qemu-system-x86_64}
MEM_MB=${UT_VM_MEM_MB:-1024}
CPUS=2
NICE=${UT_VM_NICE:--10}
[ "$(id -u)" = 0 ] || NICE=0

[ $# -eq 3 ] || { sed -n '3,25p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
KDIR=$1
IMAGE=$2
PAYLOAD=$3
[ -f "$PAYLOAD/test.sh" ] || { echo "run-systemd: $PAYLOAD/test.sh: no such test script" >&2; exit 2; }

krel=$(cat "$KDIR/krel" 2>/dev/null || basename "$KDIR")
skip() { echo "SKIP vm-systemd $krel: $*"; exit 3; }
[ -f "$KDIR/vmlinuz" ] || skip "no vmlinuz in $KDIR (vm/fetch-kernels.sh)"
[ -f "$IMAGE" ] || skip "no root image $IMAGE (vm/build-rootfs.sh)"
partuuid=$(cat "$(dirname "$IMAGE")/partuuid" 2>/dev/null) || skip "no partuuid beside $IMAGE (vm/build-rootfs.sh)"
command -v "$QEMU" >/dev/null || skip "$QEMU is not installed (qemu-system-x86, scripts/deps.sh)"
for c in CONFIG_BLK_DEV_NVME CONFIG_EXT4_FS; do
	[ ! -f "$KDIR/config" ] || grep -q "^$c=y" "$KDIR/config" ||
		skip "$krel does not have $c built in (the root file system is mounted without an initramfs)"
done

tmp=$(mktemp -d /tmp/uringtune-vmsys.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

mods=$("$ROOT/vm/fetch-modules.sh" "$KDIR" ${UT_VM_MODULES:-veth} 2>"$tmp/mods.err")
mrc=$?
[ $mrc -eq 0 ] || skip "the kernel's modules: $(tail -n 1 "$tmp/mods.err")"
mkdir -p "$tmp/payload/modules"
cp -a "$PAYLOAD/." "$tmp/payload/" || exit 1
cp -a "$(awk '{ print $2 }' <<<"$mods")" "$tmp/payload/modules/$krel" || exit 1
rm -f "$tmp/payload/modules/$krel/complete"
size_mb=$(( $(du -sm "$tmp/payload" | cut -f1) * 2 + 16 ))
mke2fs -q -F -t ext4 -L utvmpayload -d "$tmp/payload" "$tmp/payload.ext4" "${size_mb}M" >"$tmp/mke2fs.log" 2>&1 ||
	{ echo "run-systemd: mke2fs -d of the payload failed: $(head -n 1 "$tmp/mke2fs.log")" >&2; exit 1; }

accel=${UT_VM_ACCEL:-tcg}
case $accel in
kvm) cpu=(-enable-kvm -cpu "${UT_VM_KVM_CPU:-host}") ;;
tcg|auto)
	# the TCG settings of vm/run.sh and why: -cx16 (6.12's SLUB double
	# fault), one TCG thread (7.3's cross-CPU code patching)
	accel=tcg
	cpu=(-accel "${UT_VM_TCG_ACCEL:-tcg,thread=single}" -cpu "${UT_VM_TCG_CPU:-max,-cx16}") ;;
*) echo "run-systemd: UT_VM_ACCEL: expected tcg or kvm, got '$accel'" >&2; exit 2 ;;
esac
timeout=${UT_VM_TIMEOUT:-300}
log=${UT_VM_LOG:-$CACHE/logs/$krel.systemd.log}
mkdir -p "$(dirname "$log")"
: >"$log"
start=$(date +%s.%N)
# snapshot=on: the guest's writes go to a temporary overlay in $TMPDIR
nice -n "$NICE" timeout -k 5 "$timeout" "$QEMU" "${cpu[@]}" -m "$MEM_MB" -smp $CPUS -nographic -no-reboot \
	-nic none -kernel "$KDIR/vmlinuz" \
	-append "console=ttyS0 quiet panic=-1 root=PARTUUID=$partuuid rootfstype=ext4 rw" \
	-drive "file=$IMAGE,if=none,id=root,format=raw,snapshot=on" \
	-drive "file=$tmp/payload.ext4,if=none,id=payload,format=raw,readonly=on" \
	-device nvme,id=nvme0,serial=utvm0 \
	-device nvme-ns,drive=root,bus=nvme0,nsid=1 \
	-device nvme-ns,drive=payload,bus=nvme0,nsid=2 </dev/null 2>&1 |
	console_read "$log" "$tmp" "$start"
qemu_rc=${PIPESTATUS[0]}
run_s=$(echo "$(date +%s.%N) $start" | awk '{ printf "%.2f\n", $1 - $2 }')

boot_s=-
[ ! -f "$tmp/boot_s" ] || boot_s=$(cat "$tmp/boot_s")
if [ -f "$tmp/exit" ]; then
	rc=$(cat "$tmp/exit")
	echo "VM $krel accel=$accel boot_s=$boot_s run_s=$run_s exit=$rc log=$log"
	[ "$rc" = 0 ] && exit 0
	exit 1
fi
why=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1 | tr -cd '[:print:]' | cut -c1-160)
if [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
	echo "VM $krel accel=$accel boot_s=$boot_s run_s=$run_s exit=timeout log=$log"
	echo "run-systemd: $krel: no end within ${timeout} s (last console line: ${why:-none})" >&2
	exit 1
fi
if [ "$boot_s" = - ] && ! grep -q 'Linux version\|Kernel panic\|systemd' "$log"; then
	skip "QEMU ($accel) did not start: ${why:-exit $qemu_rc, no output}"
fi
echo "VM $krel accel=$accel boot_s=$boot_s run_s=$run_s exit=no-exit log=$log"
echo "run-systemd: $krel: the guest ended without reporting its exit (last console line: ${why:-none})" >&2
exit 1
