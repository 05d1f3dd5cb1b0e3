// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where a ring went when its holder let go of it while the ring lives: the
 * holder exited (a forked child has it), closed or moved its fd (dup, or
 * another process it was passed to, which shows by waiting on it).
 */
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "inventory.h"
#include "log.h"
#include "proc_stat.h"

/* holder checks per tick: every ring each HOLDER_CHECK_S, at least this many */
#define HOLDER_CHECKS_MIN	64

/* a child forked by the old holder that has the ring at the same fd */
static bool moved_to_kid(struct inventory *inv, struct ut_ring *ring, const struct holder_proc *h)
{
	const struct ut_holder *old = &ring->obs.holder;
	unsigned int n = h->n_kids < HOLDER_KIDS ? h->n_kids : HOLDER_KIDS;

	for (unsigned int i = 0; i < n; i++) {
		/* newest first: the likeliest heir */
		const struct holder_kid *k = &h->kids[(h->n_kids - 1 - i) % HOLDER_KIDS];
		struct ut_holder now = *old;

		if (!old->ino || proc_fd_ino(k->pid, old->fd) != old->ino ||
		    !proc_same_start(k->pid, k->start_boottime))
			continue;
		now.pid = k->pid;
		now.start_boottime = k->start_boottime;
		proc_comm(k->pid, now.comm, sizeof(now.comm));
		log_debug("ring pid=%d fd=%d: held by child pid %d now", old->pid, old->fd, k->pid);
		registry_move_holder(inv->reg, ring, &now);
		inv->holders_moved++;
		return true;
	}
	return false;
}

/* a lost ring waits this long for its next waiter before it asks for a sweep */
#define LOST_GRACE_NS	(2 * 1000000000ULL)

/*
 * The holder does not hold the ring any more, and the ring lives: look in
 * the holder's own other fds (if it lives) and in the last process that
 * waited on it; a sweep if those do not find it (inventory_tick).
 */
static void holder_lost(struct inventory *inv, struct ut_ring *ring, bool holder_alive)
{
	pid_t pid = ring->obs.holder.pid;
	pid_t user = ring->obs.have_stats ? (pid_t)ring->obs.stats.user_tgid : 0;

	if (!ring->obs.holder_lost) {
		inv->holders_lost++;
		registry_mark_lost(ring);
		ring->obs.lost_ns = now_ns();
	}
	if (holder_alive)
		scan_worker_submit(&inv->worker, SCAN_PID, pid);
	ring->obs.lost_user = user > 0 ? (uint32_t)user : 0;
	if (user > 0 && user != pid)
		scan_worker_submit(&inv->worker, SCAN_PID, user);
}

/*
 * A lost ring's next waiter: a process handed the ring often waits on it
 * only after the sender let go (the scans then looked in the sender). Its
 * first wait names it in the ring's statistics: look there once.
 */
static void lost_new_user(struct inventory *inv, struct ut_ring *ring)
{
	pid_t user = ring->obs.have_stats ? (pid_t)ring->obs.stats.user_tgid : 0;

	if (user <= 0 || (uint32_t)user == ring->obs.lost_user)
		return;
	ring->obs.lost_user = (uint32_t)user;
	scan_worker_submit(&inv->worker, SCAN_PID, user);
}

void inventory_holder_exited(void *arg, pid_t pid)
{
	struct inventory *inv = arg;
	struct holder_proc *h;
	struct ut_ring *ring;
	size_t i;

	inv->holder_exits++;
	/* the rings it took with it: their GONE events came before the pidfd fired */
	trace_consume(inv->trace);
	h = holders_find(&inv->holders, pid);
	if (!h)
		goto out;
	/* a scan, not a list per holder: exits are rare next to ticks */
	registry_for_each(inv->reg, i, ring) {
		if (ring->obs.holder.pid != pid)
			continue;
		if (moved_to_kid(inv, ring, h)) {
			/* h may be freed by the move; a moved ring restarts the scan's slot */
			h = holders_find(&inv->holders, pid);
			if (!h)
				break;
			continue;
		}
		holder_lost(inv, ring, false);
	}
out:
	lifecycle_drop_gone(inv->lc);
	lifecycle_flush(inv->lc);
}

static void check_one(struct inventory *inv, struct ut_ring *ring, uint64_t now)
{
	const struct ut_holder *h = &ring->obs.holder;
	const struct holder_proc *hp;
	uint64_t ctx;

	/* no fd to check (REGISTERED_FD_ONLY, or an inode never read) */
	if (!h->ino || h->fd < 0 || ring->obs.holder_lost)
		return;
	inv->holder_checks++;
	if (proc_fd_ino(h->pid, h->fd) == h->ino) {
		ring->obs.verified_ns = now;
		return;
	}
	/* checked between its close and the GONE event's arrival: read events */
	ctx = ring->ctx;
	trace_consume(inv->trace);
	ring = registry_find(inv->reg, ctx);
	if (!ring || ring->obs.holder_lost)
		return;
	h = &ring->obs.holder;
	hp = holders_find(&inv->holders, h->pid);
	holder_lost(inv, ring, hp && !hp->exited && proc_same_start(h->pid, h->start_boottime));
}

void inventory_check_holders(struct inventory *inv, uint64_t now)
{
	struct ut_registry *reg = inv->reg;
	uint64_t per_tick = (uint64_t)reg->count * inv->cfg->tick_ms / (HOLDER_CHECK_S * 1000ULL) + 1;
	size_t lost = 0, n, i;
	struct ut_ring *ring;

	if (per_tick < HOLDER_CHECKS_MIN)
		per_tick = HOLDER_CHECKS_MIN;
	if (!reg->cap)
		return;
	/*
	 * Slots, not rings: the cursor survives rings coming and going (a ring
	 * moved by removal may be checked twice or skipped once).
	 */
	for (n = 0, i = 0; n < per_tick && i < reg->cap; i++) {
		size_t slot = (inv->check_cursor + i) % reg->cap;

		ring = reg->slots[slot];
		if (!ring)
			continue;
		n++;
		check_one(inv, ring, now);
	}
	inv->check_cursor = (inv->check_cursor + i) % reg->cap;

	registry_for_each(reg, i, ring) {
		if (!ring->obs.holder_lost)
			continue;
		lost_new_user(inv, ring);
		/*
		 * A receiver gets LOST_GRACE_NS to wait on it before the sweep.
		 * (lost_ns may be later than the tick's now: lost in this tick.)
		 */
		lost += now > ring->obs.lost_ns && now - ring->obs.lost_ns >= LOST_GRACE_NS;
	}
	/* per-process scans found nothing, or none could run: the backstop */
	if (lost && !scan_worker_busy(&inv->worker, SCAN_PID))
		sweep_budget_request(&inv->budget, "a ring's holder let go of it");
}
