#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 4d: a process whose comm holds a quote, a backslash and a
# newline is escaped correctly in the textfile export and in status.
. "$(dirname "$0")/../lib.sh"

mkdir -p "$T/textfile"
PROM=$T/textfile/uringtune.prom
start_daemon textfile_dir="$T/textfile" interval_s=1
comm=$'q"b\\s\nn'
bg "$B/ringhold" --comm "$comm" >"$T/hold.out"
wait_line "$T/hold.out" '^ready'
read -r pid fd < <(ring_of "$T/hold.out")

# the exposition format escapes \ " and newline in label values
want='comm="q\"b\\s\nn"'
wait_for 30 grep -qF "uringtune_ring_info{ring=\"$pid:$fd\",$want" "$PROM" ||
	{ grep "ring=\"$pid:$fd\"" "$PROM" | head -3; fail "label not escaped as $want"; }
promtool check metrics <"$PROM" || fail "promtool rejects the escaped file"

# JSON carries the bytes themselves
[ "$(ring "$pid" "$fd" | jq -r .comm)" = "$comm" ] || fail "JSON comm differs"
# the table escapes C-style and stays on one line per ring
line=$("$B/uringtune" --socket "$SOCK" status | grep -F "$pid")
echo "$line"
[[ "$line" == *'q\"b\\s\nn'* ]] || fail "table does not show the escaped comm"
[ "$("$B/uringtune" --socket "$SOCK" status | grep -c "^$pid ")" = 1 ] || fail "ring not on one line"
echo "escaped: file $want, table q\\\"b\\\\s\\nn"
