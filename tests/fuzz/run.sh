#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make fuzz: run each fuzz target (build-fuzz/fuzz_TARGET) for SECONDS,
# from its committed corpus (tests/fuzz/corpus/TARGET, read only) and what
# earlier runs found (build-fuzz/corpus/TARGET, where new inputs go), with
# its dictionary. Crashes go to build-fuzz/crashes/. Prints one line per
# target: executions, rate, corpus and coverage, or the crash; exits 1 if
# any target crashed.
#
#   tests/fuzz/run.sh SECONDS TARGET...
#
# To keep what a run found: build-fuzz/fuzz_T -merge=1 tests/fuzz/corpus/T
# build-fuzz/corpus/T (adds only inputs with new coverage; keep the corpus
# small: under 200 files and 1 MB).
set -u
cd "$(dirname "$0")/../.." || exit 1

secs=${1:?usage: run.sh SECONDS TARGET...}
shift
build=${FUZZ_BUILD:-build-fuzz}
# the targets' files (journals, fsync'ed on every write) in memory when possible
tmpbase=/dev/shm
[ -d "$tmpbase" ] && [ -w "$tmpbase" ] || tmpbase=${TMPDIR:-/tmp}
tmp=$(mktemp -d "$tmpbase/uringtune-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$build/crashes" "$build/logs"
crashed=0

for t in "$@"; do
	bin=$build/fuzz_$t
	log=$build/logs/$t.log
	mkdir -p "$build/corpus/$t"
	dict=()
	[ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
	# -close_fd_mask=2: the daemon's log lines off; libFuzzer's and the
	# sanitizers' reports still reach the log
	TMPDIR=$tmp "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -close_fd_mask=2 "${dict[@]}" \
		-artifact_prefix="$build/crashes/$t-" \
		"$build/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	last=$(grep -aE '^#[0-9]+' "$log" | tail -n 1)
	cov=$(echo "$last" | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*')
	if [ "$rc" -eq 0 ]; then
		printf 'fuzz_%-11s %10s executions in %s s (%s/s), %s: no crash\n' \
			"$t" "${runs:-?}" "$secs" "${rate:-?}" "${cov:-?}"
	else
		crashed=1
		printf 'fuzz_%-11s CRASH (exit %d) after %s executions: %s\n' "$t" "$rc" \
			"${runs:-?}" "$(grep -aoE "$build/crashes/$t-[^ ]+" "$log" | tail -n 1)"
		grep -aE '^(==[0-9]+==ERROR|SUMMARY|.*check failed|.*runtime error)' "$log" | head -5 |
			sed 's/^/    /'
		echo "    log: $log; reproduce: $bin <that file>"
	fi
done
exit $crashed
