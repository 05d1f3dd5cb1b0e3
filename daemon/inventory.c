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
#include "tuning.h"

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

int inventory_on_event(const struct ut_event *ev, void *arg)
{
	struct ut_daemon *d = arg;
	struct ut_ring *ring;
	char flags[160];

	switch (ev->type) {
	case UT_EV_RING_CREATE:
		/* a new ring at a freed ring's address: the old one's slot goes */
		ring = registry_find(&d->reg, ev->ctx);
		if (ring)
			agent_server_ring_gone(d, ring);
		ring = registry_on_create(&d->reg, ev, ev->ino ? ev->ino : ring_ino(ev->tgid, ev->fd));
		if (!ring) {
			log_err("out of memory for ring pid=%u fd=%d", ev->tgid, ev->fd);
			break;
		}
		log_debug("new ring: pid=%u comm=%.16s fd=%d flags=%s", ev->tgid,
			  ev->comm, ev->fd, setup_flags_str(ev->setup_flags, flags, sizeof(flags)));
		/* acted on from the event, not the next tick */
		tuning_ring_seen(d, ring);
		if (ev->setup_flags & UT_SETUP_IOPOLL)
			inventory_iopoll_hooks(d);
		break;
	case UT_EV_NAPI_REGISTER:
		ring = registry_find(&d->reg, ev->ctx);
		/* the agent's calls come from the program's pid: they are uringtune's */
		if (ring && agent_server_on_register(d, ring, ev))
			break;
		if (registry_on_napi_register(&d->reg, ev, d->self_pid)) {
			ring = registry_find(&d->reg, ev->ctx);
			log_info("ring pid=%d comm=%.16s fd=%d: the application %s NAPI busy polling "
				 "itself (busy_poll %lluus, prefer %s): it manages this ring",
				 ring->holder.pid, ring->holder.comm, ring->holder.fd,
				 ev->opcode == 27 ? "registered" : "unregistered",
				 (unsigned long long)ev->napi.busy_poll_ns / 1000,
				 ev->napi.prefer ? "on" : "off");
			tuning_app_took_over(d, ring);
			agent_server_app_took_over(d, ring);
		}
		break;
	default:
		log_debug("unknown event type %u ignored", ev->type);
	}
	return 0;
}

struct sweep_ctx {
	struct ut_daemon *d;
	uint64_t now;
	size_t found_new;
};

static void on_rec(const struct ut_ring_rec *rec, void *arg)
{
	struct sweep_ctx *sc = arg;

	if (registry_sweep_record(&sc->d->reg, rec, sc->now)) {
		sc->found_new++;
		log_debug("found ring: pid=%u comm=%.16s fd=%d", rec->tgid, rec->comm, rec->fd);
		tuning_ring_seen(sc->d, registry_find(&sc->d->reg, rec->ctx));
	}
}

static void on_remove(const struct ut_ring *ring, void *arg)
{
	tuning_ring_gone(arg, ring);
	agent_server_ring_gone(arg, ring);
	log_debug("ring gone: pid=%d comm=%s fd=%d", ring->holder.pid,
		  ring->holder.comm, ring->holder.fd);
}

static bool keep_ctx(uint64_t ctx, void *arg)
{
	struct ut_daemon *d = arg;

	return registry_find(&d->reg, ctx) != NULL;
}

int inventory_sweep(struct ut_daemon *d)
{
	struct sweep_ctx sc = { .d = d, .now = now_ns() };
	uint64_t t0 = sc.now;
	int n, left;

	registry_sweep_begin(&d->reg);
	n = trace_sweep(&d->trace, on_rec, &sc);
	if (n < 0) {
		/* without a complete inventory nothing may be dropped */
		log_err("sweeping io_uring rings failed: %s", strerror(-n));
		return n;
	}
	registry_sweep_end(&d->reg, t0, on_remove, d);

	left = trace_prune(&d->trace, keep_ctx, d, t0);
	iopoll_prune(&d->iopoll, keep_ctx, d, t0);
	if (left >= 0)
		d->ring_map_entries = left;
	d->sweeps++;
	d->last_sweep_us = (now_ns() - t0) / 1000;
	if (sc.found_new)
		log_debug("sweep found %zu new rings", sc.found_new);
	return 0;
}

void inventory_refresh_stats(struct ut_daemon *d)
{
	struct ut_ring *ring;
	size_t i;

	registry_for_each(&d->reg, i, ring) {
		ring->have_stats = trace_ring_stats(&d->trace, ring->ctx, &ring->stats) == 0;
		if (ring->setup_flags & UT_SETUP_IOPOLL)
			ring->have_iop = iopoll_ring_stats(&d->iopoll, ring->ctx, &ring->iop) == 0;
	}
}

/* in auto mode the hooks stay on this long after the last IOPOLL ring */
#define IOPOLL_HOOKS_LINGER_NS	(60 * 1000000000ULL)

void inventory_iopoll_hooks(struct ut_daemon *d)
{
	uint64_t now = now_ns();
	struct ut_ring *ring;
	bool want = false;
	size_t i, n = 0;
	int ret;

	registry_for_each(&d->reg, i, ring)
		if (ring->setup_flags & UT_SETUP_IOPOLL)
			n++;
	if (n)
		d->iopoll_last_seen_ns = now;
	switch (d->cfg.iopoll_stats) {
	case UT_IOPOLL_ALWAYS:
		want = true;
		break;
	case UT_IOPOLL_AUTO:
		/* a short gap between IOPOLL rings should not lose the next one's start */
		want = n || (d->iopoll.attached && now - d->iopoll_last_seen_ns < IOPOLL_HOOKS_LINGER_NS);
		break;
	case UT_IOPOLL_OFF:
		break;
	}
	if (want && !d->iopoll.attached && d->iopoll.skel) {
		ret = iopoll_attach(&d->iopoll, now);
		if (ret)
			log_warn("attaching the IOPOLL programs failed: %s", strerror(-ret));
		else
			log_info("timing IOPOLL requests (%zu IOPOLL rings, iopoll_stats %s)", n,
				 iopoll_stats_name(d->cfg.iopoll_stats));
	} else if (!want && d->iopoll.attached) {
		iopoll_detach(&d->iopoll);
		log_info("no IOPOLL ring: request timing off");
	}
}
