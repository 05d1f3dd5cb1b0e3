#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Acceptance 2g: unknown option, daemon not running, no privileges, bad
# configuration: one clear line on stderr each, non-zero exit.
. "$(dirname "$0")/../lib.sh"

expect_error 2 "unknown option '--bogus'" "$B/uringtune" --bogus status
expect_error 2 "unknown option '--bogus'" "$B/uringtuned" --bogus
expect_error 2 "unknown command" "$B/uringtune" frobnicate
expect_error 1 "cannot connect to $T/none.sock.*is uringtuned running" \
	"$B/uringtune" --socket "$T/none.sock" status

write_config
chmod 755 "$T"
chmod 644 "$CONF"
expect_error 1 "privileges" setpriv --reuid=nobody --regid=nogroup --clear-groups \
	--inh-caps=-all "$B/uringtuned" -c "$CONF"

expect_error 1 "$T/missing.ini: cannot open: No such file" "$B/uringtuned" -c "$T/missing.ini"
sed -i 's/^tick_ms = .*/tick_ms = soon/' "$CONF"
expect_error 1 "$CONF: \[daemon\] tick_ms: expected an integer .*got 'soon'" \
	"$B/uringtuned" -c "$CONF"
write_config
sed -i 's/^\[daemon\]$/[daemon]\ncolour = blue/' "$CONF"
expect_error 1 "$CONF: \[daemon\] colour: unknown key" "$B/uringtuned" -c "$CONF"
