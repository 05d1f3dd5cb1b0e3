#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs the unit tests built with ASan and UBSan (build-asan/tests/test_*,
# make sanitize-build; make check builds them): any memory error, leak or
# undefined behaviour stops the binary with a report. One line per binary
# for tests/run.sh:
#   PASS asan test_NAME: N tests
#   FAIL asan test_NAME: the first failed test or the sanitizer's report
# Binaries not built are left out.
set -u
cd "$(dirname "$0")/../.." || exit 1

build=${ASAN_BUILD:-build-asan}
logdir=${LOGDIR:-build/test-logs}
mkdir -p "$logdir"
failed=0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

for bin in "$build"/tests/test_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	log=$logdir/asan_$name.log
	timeout --kill-after=10 300 "$bin" >"$log" 2>&1
	rc=$?
	p=$(grep -ac '^PASS ' "$log")
	f=$(grep -ac '^FAIL ' "$log")
	if [ "$rc" -eq 0 ] && [ "$f" -eq 0 ] && [ "$p" -gt 0 ]; then
		echo "PASS asan $name: $p tests"
	else
		failed=1
		why=$(grep -a -m 1 -E '^FAIL |==[0-9]+==ERROR|runtime error' "$log")
		echo "FAIL asan $name: ${why:-exit $rc} (log: $log)"
	fi
done
exit $failed
