#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Replays every fuzz target's committed corpus (tests/fuzz/corpus/TARGET/)
# through its binary (build-fuzz/fuzz_TARGET, built by make check): each
# input once, under ASan and UBSan, in seconds. One line per target for
# tests/run.sh:
#   PASS fuzz_TARGET: N inputs replayed
#   FAIL fuzz_TARGET: INPUT: what went wrong
# A target not built is left out (make check builds them all).
set -u
cd "$(dirname "$0")/../.." || exit 1

build=${FUZZ_BUILD:-build-fuzz}
logdir=${LOGDIR:-build/test-logs}
mkdir -p "$logdir"
# the targets' files (journals, fsync'ed on every write) in memory when possible
tmpbase=/dev/shm
[ -d "$tmpbase" ] && [ -w "$tmpbase" ] || tmpbase=${TMPDIR:-/tmp}
tmp=$(mktemp -d "$tmpbase/uringtune-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
failed=0

for dir in tests/fuzz/corpus/*/; do
	t=$(basename "$dir")
	bin=$build/fuzz_$t
	[ -x "$bin" ] || continue
	log=$logdir/fuzz_$t.log
	inputs=("$dir"*)
	# files, not the directory: each is run once, none is added or changed
	TMPDIR=$tmp timeout --kill-after=10 300 "$bin" -timeout=25 -rss_limit_mb=2048 \
		"${inputs[@]}" >"$log" 2>&1
	rc=$?
	n=$(grep -ac '^Executed ' "$log")
	if [ "$rc" -eq 0 ] && [ "$n" -eq "${#inputs[@]}" ]; then
		echo "PASS fuzz_$t: $n inputs replayed"
	else
		failed=1
		input=$(sed -n 's/^Running: //p' "$log" | tail -n 1)
		why=$(grep -a -m 1 -E '==[0-9]+==ERROR|check failed|runtime error|timeout' "$log")
		echo "FAIL fuzz_$t: ${input:-?}: ${why:-exit $rc, $n of ${#inputs[@]} inputs run} (log: $log)"
	fi
done
exit $failed
