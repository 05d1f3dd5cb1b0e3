#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian packages uringtune needs, by what is to be done:
#
#   scripts/deps.sh [--check] [GROUP...]
#
#   run     build and run the daemon (make, make run): compilers, the BPF
#           toolchain, the libraries' -dev packages; nothing the tests use
#   check   make check: run, bench, vmtest and deb, and the test tools
#   bench   make bench: run, and the load and plotting tools
#   vmtest  make vmtest: run, and QEMU with what the guest images are made of
#   deb     make deb: run, and debhelper and lintian
#
# No GROUP: check (what .ci/run and make check need). Idempotent: installs
# only what is missing, and asks apt for fresh package lists only when the
# install cannot be done with those it has. `--check` lists what is missing
# and exits 1 if anything is, installing nothing; `--list` prints the
# groups' packages, one per line, installed or not.
set -u

usage() {
	echo "usage: scripts/deps.sh [--check|--list] [run|check|bench|vmtest|deb ...]" >&2
	exit 2
}

only_check=
list=
groups=
for a in "$@"; do
	case $a in
	--check) only_check=1 ;;
	--list) list=1 ;;
	run | check | bench | vmtest | deb) groups="$groups $a" ;;
	*) echo "deps: unknown group '$a'" >&2; usage ;;
	esac
done
[ -n "$groups" ] || groups=check

# build and run: compilers, BPF toolchain (bpftool makes the skeletons; the
# daemon needs none of it at run time), libraries
PKGS_RUN="make gcc clang llvm pkg-config bpftool libbpf-dev libelf-dev zlib1g-dev
libsystemd-dev libinih-dev libjson-c-dev libyajl-dev liburing-dev"
# benchmarks: network namespaces, NIC offloads, JSON, pinning, plots
PKGS_BENCH="iproute2 ethtool jq util-linux python3 gnuplot-nox"
# the VM harness: boot Debian kernels with an NVMe device (IOPOLL) under
# QEMU; fio runs under the agent in the guest; mmdebstrap makes the
# systemd guest's root file system
PKGS_VMTEST="qemu-system-x86 busybox-static cpio kmod xz-utils fio mmdebstrap"
# the Debian package and its check
PKGS_DEB="debhelper dpkg-dev lintian"
# make check: all of the above, and fuzz targets (clang's libFuzzer, ASan and
# UBSan runtimes), setpriv and procps, the service's checks (systemd-analyze,
# promtool, node_exporter, curl, man pages, strace)
PKGS_CHECK="libclang-rt-dev procps systemd prometheus prometheus-node-exporter curl
groff-base man-db strace"

PKGS=$PKGS_RUN
for g in $groups; do
	case $g in
	check) PKGS="$PKGS $PKGS_BENCH $PKGS_VMTEST $PKGS_DEB $PKGS_CHECK" ;;
	bench) PKGS="$PKGS $PKGS_BENCH" ;;
	vmtest) PKGS="$PKGS $PKGS_VMTEST" ;;
	deb) PKGS="$PKGS $PKGS_DEB" ;;
	esac
done

if [ -n "$list" ]; then
	printf '%s\n' $PKGS | sort -u
	exit 0
fi

missing=""
for p in $PKGS; do
	case " $missing " in *" $p "*) continue ;; esac
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi

if [ -n "$only_check" ]; then
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
# the package lists the host has first; fresh ones only if they do not do
# (none yet, or a version they name is gone from the mirror)
# shellcheck disable=SC2086
if ! apt-get install -y -qq --no-install-recommends $missing; then
	echo "deps: the package lists are missing or stale: apt-get update, then again"
	apt-get update -qq &&
		apt-get install -y -qq --no-install-recommends $missing
fi
rc=$?
[ -z "$own_policy" ] || rm -f "$policy"
exit $rc
