#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 16, item 4: contrib/prometheus/uringtune.rules.yml passes `promtool
# check rules` with nothing to say but SUCCESS, and `promtool test rules
# uringtune.rules.test.yml`, in which each alert fires on what should fire
# it and stays quiet on a healthy host. That the tests can fail is checked
# too: with any one alert's expression made one that never fires, the tests
# fail (so each alert is really exercised), and with one made to always
# fire, they fail too (its healthy cases are really checked).
. "$(dirname "$0")/../lib.sh"

command -v promtool >/dev/null || fail "promtool missing (Debian package prometheus)"
D=contrib/prometheus
RULES=$D/uringtune.rules.yml

out=$(promtool check rules "$RULES" 2>&1) || fail "promtool check rules: $out"
echo "$out"
# clean: the file and its count, nothing else (no warning, no lint)
n=$(grep -c -E '^[[:space:]]*- (alert|record):' "$RULES")
[ "$(printf '%s\n' "$out" | grep -vc -E "^Checking $RULES\$|^  SUCCESS: $n rules found\$")" = 0 ] ||
	fail "promtool check rules said more than SUCCESS for $n rules"

out=$(cd "$D" && promtool test rules uringtune.rules.test.yml 2>&1) ||
	fail "promtool test rules: $out"
echo "$out"

# with_expr ALERT EXPR: the rules file with ALERT's expr replaced, into $T/mut
with_expr() {
	mkdir -p "$T/mut"
	cp "$D/uringtune.rules.test.yml" "$T/mut/"
	awk -v alert="$1" -v repl="$2" '
		/^[[:space:]]*- (alert|record):/ { cur = $3; skip = 0 }
		skip && match($0, /^ */) && RLENGTH > ind { next }
		{ skip = 0 }
		cur == alert && /^[[:space:]]*expr:/ {
			match($0, /^ */); ind = RLENGTH
			printf "%*sexpr: %s\n", ind, "", repl
			done = 1; skip = 1; next
		}
		{ print }
		END { if (!done) exit 1 }' "$RULES" >"$T/mut/uringtune.rules.yml" ||
		fail "no expr for alert $1 in $RULES"
}

alerts=$(sed -n -E 's/^[[:space:]]*- alert:[[:space:]]*([A-Za-z]+).*/\1/p' "$RULES")
[ "$(wc -w <<<"$alerts")" -ge 6 ] || fail "expected 6 alerts or more in $RULES: $alerts"
for a in $alerts; do
	grep -q "alertname: $a\$" "$D/uringtune.rules.test.yml" || fail "alert $a has no test"
	for e in 'vector(0) > 1' 'vector(1)'; do
		with_expr "$a" "$e"
		promtool check rules "$T/mut/uringtune.rules.yml" >/dev/null ||
			fail "the mutated rules file does not parse ($a: $e)"
		if (cd "$T/mut" && promtool test rules uringtune.rules.test.yml >/dev/null 2>&1); then
			fail "the rule tests still pass with $a's expr replaced by '$e'"
		fi
	done
	echo "$a: its tests fail when it never fires and when it always fires"
done
