#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian packages uringtune needs to build, run and test.
# Idempotent: installs only what is missing. `--check` lists what is
# missing and exits 1 if anything is, installing nothing.
set -u

# build: compilers, BPF toolchain, libraries
PKGS="make gcc clang llvm pkg-config bpftool libbpf-dev libelf-dev zlib1g-dev
libsystemd-dev libinih-dev libjson-c-dev libyajl-dev liburing-dev"
# make check: fuzz targets (clang's libFuzzer, ASan and UBSan runtimes;
# gcc's come with gcc)
PKGS="$PKGS libclang-rt-dev"
# run and test: network namespaces, NIC offloads, JSON in shell tests, setpriv
PKGS="$PKGS iproute2 ethtool jq util-linux procps"
# test the service: systemd-analyze, promtool, node_exporter, curl, man pages
PKGS="$PKGS systemd prometheus prometheus-node-exporter curl groff-base man-db strace"
# make vmtest: boot Debian kernels with an NVMe device (IOPOLL) under QEMU
PKGS="$PKGS qemu-system-x86 busybox-static cpio kmod xz-utils"
# the agent's tests: fio sets IOPOLL rings up through syscall() (host and VM)
PKGS="$PKGS fio"
# hostile control-socket clients (tests/integration/control_hostile.sh)
PKGS="$PKGS python3"
# benchmarks: plots (make bench, tests/integration/bench_smoke.sh)
PKGS="$PKGS gnuplot-nox"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi

if [ "${1:-}" = "--check" ]; then
	echo "missing packages:$missing"
	exit 1
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages:$missing; run as root (sudo make ...) to install them" >&2
	exit 1
fi

echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# packages like prometheus start their daemons on install: not here, the
# tests start their own (policy-rc.d 101 = "do not start")
policy=/usr/sbin/policy-rc.d
own_policy=
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod 755 "$policy"
	own_policy=1
fi
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
rc=$?
[ -z "$own_policy" ] || rm -f "$policy"
exit $rc
