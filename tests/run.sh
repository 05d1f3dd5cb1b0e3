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
# Each integration test is killed after 300 s; a line "# timeout: SECONDS" in
# its first 20 lines gives it more (the VM tests, which boot several kernels).
# Its budget, the time it should take on an idle machine like ours, is 180 s,
# or 300 s for one that boots guests ("# budget: 300"); a test over its
# budget is named in the closing summary (a time is a number to look at,
# not a verdict: the suite must pass on a loaded machine too).
#
# LOAD=N runs N CPU-bound processes at normal priority beside the whole
# suite (from the first unit test to the last integration test), to show
# that nothing in it depends on a quiet machine: `make check LOAD=2`.
#
# NEIGHBOUR=1 runs, beside the whole suite too, an io_uring service that is
# not the suite's: a UDP echo server (build/mshot, one multishot recvmsg
# over a provided buffer ring) and a client pinging it every 2 ms
# (build/pingpong), both rings busy-polling NAPI 50 us on their own, in two
# network namespaces of their own, under names no test selects
# (ut-nbr-server, ut-nbr-client): the tests must neither change its rings
# nor count on their absence. Checked at the end: its rings still
# busy-poll at 50 us as their programs set them.
set -u
cd "$(dirname "$0")/.." || exit 1

LOAD=${LOAD:-0}
if ! [[ $LOAD =~ ^[0-9]+$ ]] || [ "$LOAD" -gt 64 ]; then
	echo "tests/run.sh: LOAD='$LOAD': expected a number of CPU-bound processes, 0 to 64" >&2
	exit 2
fi
NEIGHBOUR=${NEIGHBOUR:-0}
if [ "$NEIGHBOUR" != 0 ] && [ "$NEIGHBOUR" != 1 ]; then
	echo "tests/run.sh: NEIGHBOUR='$NEIGHBOUR': expected 0 or 1" >&2
	exit 2
fi
load_pids=()
nbr_dir=
stop_load() {
	[ ${#load_pids[@]} -eq 0 ] || kill "${load_pids[@]}" 2>/dev/null
	load_pids=()
	if [ -n "$nbr_dir" ]; then
		pkill -x ut-nbr-client 2>/dev/null
		pkill -x ut-nbr-server 2>/dev/null
		ip netns del ut-nbr-a 2>/dev/null
		ip netns del ut-nbr-b 2>/dev/null
		rm -rf "$nbr_dir"
		nbr_dir=
	fi
}
trap stop_load EXIT
trap 'stop_load; exit 130' INT TERM
for ((i = 0; i < LOAD; i++)); do
	# a plain busy loop at the default nice value, on any CPU the scheduler picks
	bash -c 'while :; do :; done' &
	load_pids+=($!)
done
[ "$LOAD" -eq 0 ] ||
	echo "load: $LOAD CPU-bound processes beside the suite (pids ${load_pids[*]}), on $(nproc) CPUs"

# neighbour_ring NAME: "pid fd" of that neighbour program's ring
neighbour_ring() {
	sed -n 's/^ring pid=\([0-9]*\) fd=\([0-9]*\).*/\1 \2/p' "$nbr_dir/$1.out" | head -n 1
}
# neighbour_napi NAME: the NAPI lines of its ring's fdinfo, on one line (the
# kernel prints them only when it gets the ring's lock: the first of 100
# reads that has them)
neighbour_napi() {
	local pid fd napi
	read -r pid fd < <(neighbour_ring "$1")
	[ -n "$pid" ] || return 1
	for _ in $(seq 100); do
		napi=$(grep -E '^(NAPI|napi_busy_poll_dt)' "/proc/$pid/fdinfo/$fd" 2>/dev/null | tr '\t\n' '  ')
		[ -z "$napi" ] || break
	done
	echo "$napi"
}
if [ "$NEIGHBOUR" = 1 ]; then
	nbr_dir=$(mktemp -d /tmp/uringtune-neighbour.XXXXXX)
	cp build/mshot "$nbr_dir/ut-nbr-server"
	cp build/pingpong "$nbr_dir/ut-nbr-client"
	# a run that was killed may have left its neighbour behind: ours by name
	pkill -x ut-nbr-client 2>/dev/null
	pkill -x ut-nbr-server 2>/dev/null
	ip netns del ut-nbr-a 2>/dev/null
	ip netns del ut-nbr-b 2>/dev/null
	ip netns add ut-nbr-a && ip netns add ut-nbr-b &&
	ip link add ut-nbr-va netns ut-nbr-a type veth peer name ut-nbr-vb netns ut-nbr-b &&
	ip -n ut-nbr-a addr add 198.19.0.1/30 dev ut-nbr-va &&
	ip -n ut-nbr-b addr add 198.19.0.2/30 dev ut-nbr-vb &&
	ip netns exec ut-nbr-a ethtool -K ut-nbr-va tso off gro on >/dev/null &&
	ip netns exec ut-nbr-b ethtool -K ut-nbr-vb tso off gro on >/dev/null &&
	ip -n ut-nbr-a link set ut-nbr-va up && ip -n ut-nbr-b link set ut-nbr-vb up ||
		{ echo "tests/run.sh: NEIGHBOUR=1: cannot make its network namespaces" >&2; exit 2; }
	ip netns exec ut-nbr-b "$nbr_dir/ut-nbr-server" server --pattern udp-multishot \
		--bind 198.19.0.2:7000 --napi-busy-poll-us 50 --quiet >"$nbr_dir/server.out" 2>&1 &
	for _ in $(seq 50); do grep -q '^ring ' "$nbr_dir/server.out" && break; sleep 0.1; done
	ip netns exec ut-nbr-a "$nbr_dir/ut-nbr-client" client --connect 198.19.0.2:7000 \
		--count 100000000 --burst 1 --gap-ms 2 --napi-busy-poll-us 50 --quiet \
		>"$nbr_dir/client.out" 2>&1 &
	for _ in $(seq 50); do grep -q '^ring ' "$nbr_dir/client.out" && break; sleep 0.1; done
	if [ -z "$(neighbour_ring server)" ] || [ -z "$(neighbour_ring client)" ]; then
		echo "tests/run.sh: NEIGHBOUR=1: the neighbour did not start:" >&2
		cat "$nbr_dir"/*.out >&2
		exit 2
	fi
	echo "neighbour: an io_uring UDP echo pair beside the suite (ut-nbr-server ring $(neighbour_ring server), ut-nbr-client ring $(neighbour_ring client)): $(neighbour_napi server)"
fi
suite_start=$(date +%s)
# "SECONDS NAME BUDGET" of every test, for the closing summary
times=()

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
	start=$(date +%s)
	out=$("$bin" 2>&1)
	rc=$?
	times+=("$(( $(date +%s) - start )) $name 180")
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
	budget=$(head -n 20 "$t" | sed -n 's/^# budget: \([0-9][0-9]*\)$/\1/p' | head -n 1)
	budget=${budget:-180}
	echo "RUN  $name ..."
	timeout --kill-after=10 "$limit" bash "$t" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	times+=("$secs $name $budget")
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
		echo "FAIL $name (${secs}s, exit $rc); its log is $log; the last lines:"
		tail -n 25 "$log" | sed 's/^/    /'
		failed=$((failed + 1))
		failures+=("FAIL $name")
		;;
	esac
done

# the neighbour's rings as their programs set them: no test changed them
if [ "$NEIGHBOUR" = 1 ]; then
	for side in server client; do
		napi=$(neighbour_napi "$side")
		if [[ $napi == *"NAPI: enabled"*"napi_busy_poll_dt: 50000 "* ]]; then
			echo "PASS neighbour_untouched_$side"
			passed=$((passed + 1))
		else
			echo "FAIL neighbour_untouched_$side: its ring is now: ${napi:-gone}"
			failed=$((failed + 1))
			failures+=("FAIL neighbour_untouched_$side")
		fi
	done
fi
stop_load
# the ten slowest, and every test over its budget (a number, not a verdict)
echo
with=
[ "$LOAD" -eq 0 ] || with=" with LOAD=$LOAD"
[ "$NEIGHBOUR" = 0 ] || with="$with${with:+ and} with NEIGHBOUR=1"
echo "slowest (seconds, budget)$with; the suite took $(( $(date +%s) - suite_start )) s:"
printf '%s\n' "${times[@]}" | sort -rn | head -n 10 |
	awk '{ printf "  %4d  %-28s %s\n", $1, $2, ($1 > $3 ? "OVER its budget of " $3 " s" : "(" $3 ")") }'
printf '%s\n' "${times[@]}" | sort -rn | tail -n +11 |
	awk '$1 > $3 { printf "  %4d  %-28s OVER its budget of %d s\n", $1, $2, $3 }'

if [ ${#failures[@]} -gt 0 ]; then
	echo
	echo "failures:"
	printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
