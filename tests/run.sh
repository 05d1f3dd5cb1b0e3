#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs every test: unit test binaries (build/tests/test_*), the same under
# ASan/UBSan (tests/unit/sanitized.sh), the fuzz targets' corpora
# (tests/fuzz/replay.sh), then the integration tests (tests/integration/*.sh)
# against the real kernel.
# An integration test passes with exit 0, is skipped with exit 77 (its last
# output line is the reason), and fails otherwise. Ends with one line:
#   N passed, N failed, N skipped
#
# TESTS="name ..." runs only those integration tests (file names without .sh).
# Each integration test has 300 s; a line "# timeout: SECONDS" in its first
# 20 lines gives it more (the VM tests, which boot several kernels).
set -u
cd "$(dirname "$0")/.." || exit 1

passed=0
failed=0
skipped=0
failures=()
logdir=build/test-logs
rm -rf "$logdir"
mkdir -p "$logdir"

# unit tests: each binary prints PASS/FAIL lines, one per test; then the
# same under ASan and UBSan (one line per binary) and the fuzz targets'
# corpora replayed (one line per target), both built by make check
for bin in build/tests/test_* tests/unit/sanitized.sh tests/fuzz/replay.sh; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	out=$("$bin" 2>&1)
	rc=$?
	echo "$out" | grep -E '^(PASS|FAIL) '
	p=$(echo "$out" | grep -c '^PASS ')
	f=$(echo "$out" | grep -c '^FAIL ')
	passed=$((passed + p))
	failed=$((failed + f))
	while IFS= read -r line; do failures+=("$line"); done < <(echo "$out" | grep '^FAIL ')
	# a crash or an exit without a verdict is a failure of the binary itself
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: exited with status $rc"
		echo "$out" | tail -5 | sed 's/^/    /'
		failed=$((failed + 1))
		failures+=("FAIL $name: exited with status $rc")
	fi
done

# integration tests
for t in tests/integration/*.sh; do
	name=$(basename "$t" .sh)
	if [ -n "${TESTS:-}" ] && ! [[ " $TESTS " == *" $name "* ]]; then
		continue
	fi
	log="$logdir/$name.log"
	start=$(date +%s)
	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP $name: integration tests need root (BPF, network namespaces)"
		skipped=$((skipped + 1))
		continue
	fi
	limit=$(head -n 20 "$t" | sed -n 's/^# timeout: \([0-9][0-9]*\)$/\1/p' | head -n 1)
	limit=${limit:-300}
	echo "RUN  $name ..."
	timeout --kill-after=10 "$limit" bash "$t" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0)
		echo "PASS $name (${secs}s)"
		passed=$((passed + 1))
		;;
	77)
		echo "SKIP $name: $(tail -n 1 "$log")"
		skipped=$((skipped + 1))
		;;
	*)
		[ $rc -eq 124 ] && echo "    timed out after $limit s" >>"$log"
		echo "FAIL $name (${secs}s, exit $rc); last lines of $log:"
		tail -n 25 "$log" | sed 's/^/    /'
		failed=$((failed + 1))
		failures+=("FAIL $name")
		;;
	esac
done

if [ ${#failures[@]} -gt 0 ]; then
	echo
	echo "failures:"
	printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
