// SPDX-License-Identifier: GPL-2.0-only
/* The registry's feed: events, sweeps and statistics from napi_trace. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "inventory.h"
#include "uring_abi.h"
#include "clock.h"
#include "log.h"
#include "setup_flags.h"

/*
 * Inode of the ring's file, for programs too old to send it (the event
 * carries it); 0 if the process or fd is gone or /proc/PID/fd not ours to read.
 */
static uint64_t ring_ino(pid_t pid, int fd)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
	if (stat(path, &st))
		return 0;
	return st.st_ino;
}

/* a NAPI (un)register call: ours, the agent's, or the application's own */
static void on_register(struct inventory *inv, const struct ut_event *ev)
{
	struct ut_ring *ring = registry_find(inv->reg, ev->ctx);

	/* unknown ring: the next sweep brings it, with its state */
	if (!ring)
		return;
	if (lifecycle_on_register(inv->lc, ring, ev, agent_server_setup_register(inv->agent, ring, ev)))
		agent_server_app_took_over(inv->agent, ring);
}

static void on_create(struct inventory *inv, const struct ut_event *ev)
{
	struct ut_ring *ring;
	char flags[160];

	/* a new ring at a freed ring's address: the old one's slot goes */
	ring = registry_find(inv->reg, ev->ctx);
	if (ring)
		agent_server_ring_gone(inv->agent, ring);
	ring = registry_on_create(inv->reg, ev, ev->ino ? ev->ino : ring_ino(ev->tgid, ev->fd));
	if (!ring) {
		log_err("out of memory for ring pid=%u fd=%d", ev->tgid, ev->fd);
		return;
	}
	log_debug("new ring: pid=%u comm=%.16s fd=%d flags=%s", ev->tgid,
		  ev->comm, ev->fd, setup_flags_str(ev->setup_flags, flags, sizeof(flags)));
	/* acted on from the event, not the next tick */
	lifecycle_ring_found(inv->lc, ring, false);
	if (ev->setup_flags & UT_SETUP_IOPOLL)
		inventory_iopoll_hooks(inv);
}

int inventory_on_event(const struct ut_event *ev, void *arg)
{
	struct inventory *inv = arg;

	switch (ev->type) {
	case UT_EV_RING_CREATE:
		on_create(inv, ev);
		break;
	case UT_EV_NAPI_REGISTER:
		on_register(inv, ev);
		break;
	default:
		log_debug("unknown event type %u ignored", ev->type);
	}
	return 0;
}

struct sweep_ctx {
	struct inventory *inv;
	uint64_t now;
	size_t found_new;
};

static void on_rec(const struct ut_ring_rec *rec, void *arg)
{
	struct sweep_ctx *sc = arg;

	if (registry_sweep_record(sc->inv->reg, rec, sc->now)) {
		sc->found_new++;
		log_debug("found ring: pid=%u comm=%.16s fd=%d", rec->tgid, rec->comm, rec->fd);
		lifecycle_ring_found(sc->inv->lc, registry_find(sc->inv->reg, rec->ctx), true);
	}
}

static void on_remove(const struct ut_ring *ring, void *arg)
{
	struct inventory *inv = arg;

	lifecycle_ring_gone(inv->lc, ring);
	agent_server_ring_gone(inv->agent, ring);
	log_debug("ring gone: pid=%d comm=%s fd=%d", ring->obs.holder.pid,
		  ring->obs.holder.comm, ring->obs.holder.fd);
}

static bool keep_ctx(uint64_t ctx, void *arg)
{
	struct inventory *inv = arg;

	return registry_find(inv->reg, ctx) != NULL;
}

int inventory_sweep(struct inventory *inv)
{
	struct sweep_ctx sc = { .inv = inv, .now = now_ns() };
	uint64_t t0 = sc.now;
	int n, left;

	registry_sweep_begin(inv->reg);
	n = trace_sweep(inv->trace, on_rec, &sc);
	if (n < 0) {
		/* without a complete inventory nothing may be dropped */
		log_err("sweeping io_uring rings failed: %s", strerror(-n));
		return n;
	}
	registry_sweep_end(inv->reg, t0, on_remove, inv);
	/* one journal write for every ring that went */
	lifecycle_drop_gone(inv->lc);

	left = trace_prune(inv->trace, keep_ctx, inv, t0);
	iopoll_prune(inv->iopoll, keep_ctx, inv, t0);
	if (left >= 0)
		inv->ring_map_entries = left;
	inv->sweeps++;
	inv->last_sweep_us = (now_ns() - t0) / 1000;
	if (sc.found_new)
		log_debug("sweep found %zu new rings", sc.found_new);
	return 0;
}

void inventory_refresh_stats(struct inventory *inv)
{
	struct ut_ring *ring;
	size_t i;

	registry_for_each(inv->reg, i, ring) {
		struct ring_obs *o = &ring->obs;

		o->have_stats = trace_ring_stats(inv->trace, ring->ctx, &o->stats) == 0;
		if (o->setup_flags & UT_SETUP_IOPOLL)
			o->have_iop = iopoll_ring_stats(inv->iopoll, ring->ctx, &o->iop) == 0;
	}
}

/* in auto mode the hooks stay on this long after the last IOPOLL ring */
#define IOPOLL_HOOKS_LINGER_NS	(60 * 1000000000ULL)

void inventory_iopoll_hooks(struct inventory *inv)
{
	uint64_t now = now_ns();
	struct ut_ring *ring;
	bool want = false;
	size_t i, n = 0;
	int ret;

	registry_for_each(inv->reg, i, ring)
		if (ring->obs.setup_flags & UT_SETUP_IOPOLL)
			n++;
	if (n)
		inv->iopoll_last_seen_ns = now;
	switch (inv->cfg->iopoll_stats) {
	case UT_IOPOLL_ALWAYS:
		want = true;
		break;
	case UT_IOPOLL_AUTO:
		/* a short gap between IOPOLL rings should not lose the next one's start */
		want = n || (inv->iopoll->attached && now - inv->iopoll_last_seen_ns < IOPOLL_HOOKS_LINGER_NS);
		break;
	case UT_IOPOLL_OFF:
		break;
	}
	if (want && !inv->iopoll->attached && inv->iopoll->skel) {
		ret = iopoll_attach(inv->iopoll, now);
		if (ret)
			log_warn("attaching the IOPOLL programs failed: %s", strerror(-ret));
		else
			log_info("timing IOPOLL requests (%zu IOPOLL rings, iopoll_stats %s)", n,
				 iopoll_stats_name(inv->cfg->iopoll_stats));
	} else if (!want && inv->iopoll->attached) {
		iopoll_detach(inv->iopoll);
		log_info("no IOPOLL ring: request timing off");
	}
}
