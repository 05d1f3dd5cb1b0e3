// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the iterators found, applied on the loop: a host sweep reconciles
 * the whole registry, a process's scan finds its rings (new ones, and lost
 * ones' new holder).
 */
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "inventory.h"
#include "log.h"

bool inventory_died_since(const struct inventory *inv, uint64_t ctx, uint64_t t0_ns)
{
	uint64_t n = inv->n_deaths, kept = n < INVENTORY_DEATHS ? n : INVENTORY_DEATHS;

	for (uint64_t i = 1; i <= kept; i++) {
		const struct inventory_death *d = &inv->deaths[(n - i) % INVENTORY_DEATHS];

		if (d->ts_ns < t0_ns)
			return false;
		if (d->ctx == ctx)
			return true;
	}
	/* more went since t0 than are remembered: it may have been one */
	return n > INVENTORY_DEATHS;
}

static bool keep_ctx(uint64_t ctx, void *arg)
{
	struct inventory *inv = arg;

	return registry_find(inv->reg, ctx) != NULL;
}

static void found(struct inventory *inv, const struct ut_ring_rec *rec)
{
	struct ut_ring *ring = registry_find(inv->reg, rec->ctx);

	log_debug("found ring: pid=%u comm=%.16s fd=%d", rec->tgid, rec->comm, rec->fd);
	lifecycle_ring_found(inv->lc, ring, true);
	if (ring)
		hybrid_support_ring_seen(inv->hybrid, ring->obs.setup_flags);
}

static void apply_sweep(struct inventory *inv, const struct scan_job *job)
{
	uint64_t now = now_ns();
	size_t found_new = 0;
	int left;

	sweep_budget_done(&inv->budget, now, job->cpu_ns);
	inv->sweeps++;
	inv->last_sweep_us = job->wall_ns / 1000;
	inv->last_sweep_cpu_us = job->cpu_ns / 1000;
	/* without a complete inventory nothing may be dropped */
	if (job->ret < 0) {
		log_err("sweeping io_uring rings failed: %s", strerror(-job->ret));
		return;
	}
	registry_sweep_begin(inv->reg, job->t0_ns);
	for (size_t i = 0; i < job->n; i++) {
		const struct ut_ring_rec *rec = &job->recs[i];

		if (inventory_died_since(inv, rec->ctx, job->t0_ns))
			continue;
		if (registry_sweep_record(inv->reg, rec, now)) {
			found_new++;
			found(inv, rec);
		}
	}
	registry_sweep_end(inv->reg, job->t0_ns, inventory_ring_removed, inv);
	/* one journal write for every ring that went */
	lifecycle_drop_gone(inv->lc);

	left = trace_prune(inv->trace, keep_ctx, inv, job->t0_ns);
	iopoll_prune(inv->iopoll, keep_ctx, inv, job->t0_ns);
	if (left >= 0)
		inv->ring_map_entries = left;
	if (found_new)
		log_debug("sweep found %zu new rings", found_new);
}

static void apply_pid(struct inventory *inv, const struct scan_job *job)
{
	uint64_t now = now_ns();
	struct ut_ring *ring;

	inv->pid_scans++;
	/* ESRCH: the process went before its scan */
	if (job->ret < 0)
		return;
	for (size_t i = 0; i < job->n; i++) {
		const struct ut_ring_rec *rec = &job->recs[i];
		bool lost;

		if (inventory_died_since(inv, rec->ctx, job->t0_ns))
			continue;
		ring = registry_find(inv->reg, rec->ctx);
		lost = ring && ring->obs.holder_lost;
		if (registry_scan_record(inv->reg, rec, now)) {
			found(inv, rec);
			continue;
		}
		if (lost && !ring->obs.holder_lost) {
			inv->holders_moved++;
			log_debug("ring found again: pid=%u comm=%.16s fd=%d", rec->tgid, rec->comm,
				  rec->fd);
		}
	}
}

void inventory_apply_job(struct inventory *inv, struct scan_job *job)
{
	switch (job->kind) {
	case SCAN_SWEEP:
		apply_sweep(inv, job);
		break;
	case SCAN_PID:
		apply_pid(inv, job);
		break;
	}
}
