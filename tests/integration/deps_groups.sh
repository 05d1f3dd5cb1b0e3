#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/deps.sh installs by goal: `make run` gets what building and
# running the daemon need and nothing the tests, benchmarks, VMs or the
# package use; make check gets all of it. Each goal of the Makefile calls its
# own group. Installs nothing (--list, --check, make -n).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

run=$(scripts/deps.sh --list run) || fail "deps.sh --list run failed"
check=$(scripts/deps.sh --list check) || fail "deps.sh --list check failed"
for p in gcc clang bpftool libbpf-dev libsystemd-dev libinih-dev libjson-c-dev libyajl-dev liburing-dev; do
	grep -qx "$p" <<<"$run" || fail "the run group lacks $p, which the build needs"
done
for p in qemu-system-x86 prometheus prometheus-node-exporter fio gnuplot-nox mmdebstrap lintian debhelper \
		libclang-rt-dev jq python3; do
	grep -qx "$p" <<<"$run" && fail "the run group installs $p, which only tests, benchmarks, VMs or the package use"
	grep -qx "$p" <<<"$check" || fail "the check group lacks $p"
done
# every group includes what building needs
for g in bench vmtest deb; do
	l=$(scripts/deps.sh --list $g)
	for p in $run; do
		grep -qx "$p" <<<"$l" || fail "group $g lacks $p (the build needs it)"
	done
done
# make check has everything (it runs here): nothing missing
scripts/deps.sh --check check || fail "make check's packages are not all installed"

# each goal asks for its own group, before building
for goal in run:run check:check bench:bench "vmtest:vmtest deb" deb:deb; do
	g=${goal%%:*}
	want=${goal#*:}
	plan=$(make -s --no-print-directory -n "$g" 2>/dev/null) || true
	first=$(head -n 1 <<<"$plan")
	[ "$first" = "scripts/deps.sh $want" ] || fail "make $g begins with '$first', expected 'scripts/deps.sh $want'"
done

# make run builds the daemon, the CLI and the agent, none of the tools or
# tests (into an empty build directory, so every step shows)
b=$(mktemp -d)
plan=$(make --no-print-directory -n run BUILD="$b" 2>/dev/null) || true
rm -rf "$b"
grep -q "uringtuned" <<<"$plan" || fail "make run does not build the daemon: $(head -n 3 <<<"$plan")"
extra=$(grep -E "tests/|pingpong|fuzz|sanitize" <<<"$plan" | head -n 3) || true
[ -z "$extra" ] || fail "make run builds what only the tests use: $extra"

# a bad group is refused with the list of good ones
rc=0
out=$(scripts/deps.sh bogus 2>&1) || rc=$?
[ $rc -eq 2 ] || fail "deps.sh bogus exited $rc, expected 2"
grep -q "unknown group 'bogus'" <<<"$out" || fail "no error naming the bad group: $out"
echo "deps groups: run $(wc -l <<<"$run") packages, check $(wc -l <<<"$check")"
