#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 12, points 3 and 5: what a peer may name. A RING without an inode is
# refused (before the fix inode 0 matched any ring); a RING naming a ring
# of another process and uid (root's, through an fd inherited by a child
# that became nobody) is refused; a RING for another process's slot, with
# the token read from the page, is refused (the token is no credential);
# a peer's own ring, named properly, is taken. And the page any HELLO
# hands out holds no pid or inode of anyone's ring.
. "$(dirname "$0")/../lib.sh"

chmod 0711 "$T"
agent() { status_json | jq -c ".daemon.agent | $1"; }
start_daemon mode=tune

log "inode 0"
bg "${NOBODY[@]}" "${HOSTILE[@]}" announce --ino 0 --hold 60 >"$T/ino0.out"
wait_line "$T/ino0.out" '^ready'
read -r pid fd < <(ring_of "$T/ino0.out")
sleep 1.2
expect_ring "$pid" "$fd" '.agent == null' 1
jq -e '.refusals.inode == 1 and .slots_used == 0' <<<"$(agent .)" >/dev/null ||
	fail "$(agent '{slots_used, refusals}')"

log "a ring of another process and uid (root's, its fd inherited by a nobody child)"
bg "${HOSTILE[@]}" inherit --uid 65534 --gid 65534 --hold 60 >"$T/inherit.out"
wait_line "$T/inherit.out" '^ready'
cat "$T/inherit.out"
read -r rpid rfd < <(ring_of "$T/inherit.out")
sleep 1.2
expect_ring "$rpid" "$rfd" '.agent == null' 1
jq -e '.refusals.foreign_ring == 1 and .slots_used == 0' <<<"$(agent .)" >/dev/null ||
	fail "$(agent '{slots_used, refusals}')"

log "a peer's own ring, named properly, is taken"
bg "${NOBODY[@]}" "${HOSTILE[@]}" announce --hold 60 >"$T/own.out"
wait_line "$T/own.out" '^ready'
read -r opid ofd < <(ring_of "$T/own.out")
expect_ring "$opid" "$ofd" '.agent != null and .agent.reported != null'
slot=$(ring "$opid" "$ofd" | jq .agent.slot)

log "another process names that slot, with the token read from the page"
bg "${NOBODY[@]}" "${HOSTILE[@]}" steal --slot "$slot" --hold 60 >"$T/steal.out"
wait_line "$T/steal.out" '^ready'
cat "$T/steal.out"
grep -q 'token=seen' "$T/steal.out" || fail "the slot's token was not in the page"
read -r spid sfd < <(ring_of "$T/steal.out")
sleep 1.2
expect_ring "$spid" "$sfd" '.agent == null' 1
expect_ring "$opid" "$ofd" ".agent.slot == $slot" 1
jq -e '.refusals.not_owner == 1' <<<"$(agent .)" >/dev/null || fail "$(agent .refusals)"

log "the page holds no pid or inode of anyone's ring"
ino=$(ring "$opid" "$ofd" | jq .inode)
"${NOBODY[@]}" "${HOSTILE[@]}" peek --pid "$opid" --ino "$ino" | tee "$T/peek.out"
grep -q 'pid_found=0 ino_found=0' "$T/peek.out" || fail "the page names a ring"
grep -Eq 'slots_used=[1-9]' "$T/peek.out" || fail "the peek saw no slot in use"
[ "$(stat -c %a "$T/agent.page")" = 600 ] || fail "page mode $(stat -c %a "$T/agent.page")"
"${NOBODY[@]}" cat "$T/agent.page" >/dev/null 2>&1 && fail "nobody reads the page by its name"
[ "$(stat -c %a "$T/agent.page.owners")" = 600 ] || fail "owners file mode"
agent '{slots_used, refusals}'
