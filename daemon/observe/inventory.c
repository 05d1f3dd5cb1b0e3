// SPDX-License-Identifier: GPL-2.0-only
/* The registry's feed: events, ticks and statistics from napi_trace. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-event.h>

#include "inventory.h"
#include "iopoll_window.h"
#include "uring_abi.h"
#include "clock.h"
#include "log.h"
#include "loop_source.h"
#include "proc_stat.h"
#include "setup_flags.h"

/* the backstop without a reason: at most this often */
#define SWEEP_PERIODIC_NS	(300 * 1000000000ULL)

int inventory_init(struct inventory *inv)
{
	int ret = holders_init(&inv->holders, inventory_holder_exited, inv);

	if (ret)
		return ret;
	inv->reg->on_holder = holders_on_holder;
	inv->reg->on_holder_arg = &inv->holders;
	sweep_budget_init(&inv->budget, inv->cfg->sweep_cpu_pct / 100.0,
			  (uint64_t)inv->cfg->tick_ms * 1000000ULL, SWEEP_PERIODIC_NS);
	return 0;
}

void inventory_fini(struct inventory *inv)
{
	inventory_detach_loop(inv);
	if (inv->reg)
		inv->reg->on_holder = NULL;
	holders_fini(&inv->holders);
	free(inv->bound);
	free(inv->bound_steps);
	inv->bound = NULL;
	inv->bound_steps = NULL;
	inv->bound_cap = 0;
}

static int on_scans(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct inventory *inv = arg;
	struct scan_job *job, *next;

	(void)fd, (void)revents;
	loop_source_enter(s);
	/* rings announced before a job's iterator ran must not look new */
	trace_consume(inv->trace);
	for (job = scan_worker_take(&inv->worker); job; job = next) {
		next = job->next;
		inventory_apply_job(inv, job);
		scan_job_free(job);
	}
	lifecycle_drop_gone(inv->lc);
	lifecycle_flush(inv->lc);
	return 0;
}

int inventory_attach_loop(struct inventory *inv, struct sd_event *event)
{
	int ret;

	holders_attach(&inv->holders, event, inv->trace);
	ret = scan_worker_start(&inv->worker, inv->trace);
	if (ret)
		return ret;
	ret = sd_event_add_io(event, &inv->worker_src, scan_worker_fd(&inv->worker), EPOLLIN,
			      on_scans, inv);
	if (ret < 0) {
		scan_worker_stop(&inv->worker);
		return ret;
	}
	loop_source_describe(inv->worker_src, "inventory-scans");
	/* exits found while attaching */
	holders_flush_exits(&inv->holders);
	return 0;
}

void inventory_detach_loop(struct inventory *inv)
{
	inv->worker_src = sd_event_source_disable_unref(inv->worker_src);
	scan_worker_stop(&inv->worker);
	holders_attach(&inv->holders, NULL, NULL);
}

/* a NAPI (un)register call: ours, the agent's, or the application's own */
static void on_register(struct inventory *inv, const struct ut_event *ev)
{
	struct ut_ring *ring = registry_find(inv->reg, ev->ctx);

	/* unknown ring: a scan of its process brings it, with its state */
	if (!ring) {
		scan_worker_submit(&inv->worker, SCAN_PID, (pid_t)ev->tgid);
		return;
	}
	if (lifecycle_on_register(inv->lc, ring, ev, agent_server_setup_register(inv->agent, ring, ev)))
		agent_server_app_took_over(inv->agent, ring);
}

static void on_create(struct inventory *inv, const struct ut_event *ev)
{
	uint64_t ino = ev->ino;
	struct ut_ring *ring;
	char flags[160];

	if (!ino && !(ev->setup_flags & UT_SETUP_REGISTERED_FD_ONLY))
		/* programs too old to send it */
		ino = proc_fd_ino(ev->tgid, ev->fd);
	ring = registry_find(inv->reg, ev->ctx);
	/* found by a scan before its event was read: the same ring */
	if (ring && ino && ring->obs.holder.ino == ino)
		return;
	/*
	 * A new ring at a freed ring's address, its end not seen (events lost):
	 * the old one goes as at its end, its slot and its journal entry too.
	 */
	if (ring)
		inventory_ring_removed(ring, inv);
	ring = registry_on_create(inv->reg, ev, ino);
	if (!ring) {
		log_err("out of memory for ring pid=%u fd=%d", ev->tgid, ev->fd);
		return;
	}
	log_debug("new ring: pid=%u comm=%.16s fd=%d flags=%s", ev->tgid,
		  ev->comm, ev->fd, setup_flags_str(ev->setup_flags, flags, sizeof(flags)));
	/* acted on from the event, not the next tick */
	lifecycle_ring_found(inv->lc, ring, false);
	hybrid_support_ring_seen(inv->hybrid, ring->obs.setup_flags);
	if (ev->setup_flags & UT_SETUP_IOPOLL)
		inventory_iopoll_hooks(inv);
}

/* the ring's last file reference went: it is being freed */
static void on_gone(struct inventory *inv, const struct ut_event *ev)
{
	struct ut_ring *ring = registry_find(inv->reg, ev->ctx);

	inv->deaths[inv->n_deaths % INVENTORY_DEATHS] =
		(struct inventory_death){ ev->ctx, ev->ts_ns };
	inv->n_deaths++;
	inv->rings_gone++;
	if (!ring)
		return;
	inventory_ring_removed(ring, inv);
	registry_remove(inv->reg, ev->ctx);
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
	case UT_EV_RING_GONE:
		on_gone(inv, ev);
		break;
	case UT_EV_HOLDER_FORK:
		holders_forked(&inv->holders, (pid_t)ev->tgid, (pid_t)ev->tid, ev->start_boottime);
		break;
	default:
		log_debug("unknown event type %u ignored", ev->type);
	}
	/* two counters the BPF side keeps: status is exact after each event */
	inv->ring_map_entries = trace_slots_used(inv->trace);
	return 0;
}

void inventory_ring_removed(const struct ut_ring *ring, void *arg)
{
	struct inventory *inv = arg;

	lifecycle_ring_gone(inv->lc, ring);
	agent_server_ring_gone(inv->agent, ring);
	log_debug("ring gone: pid=%d comm=%s fd=%d", ring->obs.holder.pid,
		  ring->obs.holder.comm, ring->obs.holder.fd);
}

int inventory_sweep(struct inventory *inv)
{
	struct scan_job job = { .kind = SCAN_SWEEP };
	int ret;

	scan_job_run(inv->trace, &job);
	ret = job.ret < 0 ? job.ret : 0;
	inventory_apply_job(inv, &job);
	free(job.recs);
	return ret;
}

void inventory_tick(struct inventory *inv)
{
	uint64_t now = now_ns(), lost = trace_events_lost(inv->trace);

	/* a reload may have changed them */
	inv->budget.share = inv->cfg->sweep_cpu_pct / 100.0;
	inv->budget.min_gap_ns = (uint64_t)inv->cfg->tick_ms * 1000000ULL;
	holders_flush_exits(&inv->holders);
	inventory_check_holders(inv, now);
	if (lost != inv->events_lost_seen) {
		inv->events_lost_seen = lost;
		sweep_budget_request(&inv->budget, "ring-buffer events were lost");
	}
	if (scan_worker_started(&inv->worker)) {
		if (sweep_budget_due(&inv->budget, now) &&
		    !scan_worker_busy(&inv->worker, SCAN_SWEEP)) {
			log_debug("full sweep: %s", inv->budget.reason ? inv->budget.reason :
				  "periodic backstop");
			scan_worker_submit(&inv->worker, SCAN_SWEEP, 0);
		}
	}
	inv->ring_map_entries = trace_slots_used(inv->trace);
	lifecycle_drop_gone(inv->lc);
}

/*
 * Rings that had no slot (they predate the programs, and have not been
 * waited on since) get one when BPF first sees them: found by reading the
 * mapped slots' owners, not by a syscall per ring per tick.
 */
static void adopt_slots(struct inventory *inv)
{
	struct ut_ring *ring;
	uint64_t ctx;

	for (uint32_t slot = 0; slot < inv->trace->max_rings; slot++) {
		ctx = trace_slot_ctx(inv->trace, slot);
		if (ctx && (ring = registry_find(inv->reg, ctx)) && ring->obs.slot == TRACE_SLOT_NONE)
			ring->obs.slot = (int32_t)slot;
	}
}

/* slotless rings are looked for at most this often, in ticks */
#define ADOPT_EVERY	4

/* the ring's timed wake-ups since the last refresh: its and the host's estimate */
static void wake_growth(struct inventory *inv, struct ring_obs *o, const struct ut_ring_stats *prev)
{
	uint64_t wakes = o->stats.wakes - prev->wakes;

	/* a slot that went to another ring starts its counters over */
	if (o->stats.ctx != prev->ctx || o->stats.wakes < prev->wakes)
		return;
	wakeup_add(&o->wake, wakes, o->stats.wake_ns - prev->wake_ns);
	wakeup_add(&inv->wake_host, wakes, o->stats.wake_ns - prev->wake_ns);
}

/* what a sleep costs the ring's waiter, once the tick's wake-ups are all in */
static void wake_resolve(const struct inventory *inv, struct ring_obs *o)
{
	enum wakeup_source src;

	o->wakeup_ns = wakeup_resolve(&o->wake, &inv->wake_host, inv->cfg->napi.wakeup_cost_us, &src);
	o->wakeup_src = src;
}

/* room for @n rings in the bound's arrays; false: no memory */
static bool bound_room(struct inventory *inv, size_t n)
{
	struct bill_bound_ring *b;
	struct bill_step **s;
	size_t cap = inv->bound_cap ? inv->bound_cap : 64;

	if (n <= inv->bound_cap)
		return true;
	while (cap < n)
		cap *= 2;
	b = realloc(inv->bound, cap * sizeof(*b));
	if (!b)
		return false;
	inv->bound = b;
	s = realloc(inv->bound_steps, cap * sizeof(*s));
	if (!s)
		return false;
	inv->bound_steps = s;
	inv->bound_cap = cap;
	return true;
}

/* the ring's step is added: its waiter now is the one its next step compares with */
static void bill_commit(struct ring_obs *o, const struct bill_step *st, uint64_t now,
			const struct bill_rule *rule)
{
	bill_ring_commit(&o->bill, st, now, rule);
	o->bill_tgid = o->stats.user_tgid;
	o->bill_tid = o->stats.wait_tid;
	o->bill_waiter_known = true;
}

/*
 * From the statistics just copied: what a sleep costs each ring's waiter,
 * then its bill (priced with it, bounded by its waiting thread's CPU time),
 * and the host's; the host's histogram of paid windows. One pass over the
 * rings, then one over those whose windows grew.
 */
static void bill_refresh(struct inventory *inv)
{
	const struct tuner_policy *pol = &inv->cfg->napi;
	const struct bill_rule rule = {
		.min_windows = pol->min_windows,
		/* about a tick: ticks come with some jitter */
		.min_ns = (uint64_t)inv->cfg->tick_ms * 900000,
	};
	struct bill_host *host = &inv->reg->bill;
	enum wakeup_source src;
	struct bill_counts c;
	struct bill_step st;
	uint64_t now = now_ns();
	struct ut_ring *ring;
	size_t i, n = 0;

	inv->wakeup_ns = wakeup_resolve(NULL, &inv->wake_host, pol->wakeup_cost_us, &src);
	inv->wakeup_src = src;
	bill_host_begin(host);
	registry_for_each(inv->reg, i, ring) {
		struct ring_obs *o = &ring->obs;
		struct bill_bound_ring *g;

		/* a figure for every ring: measured, the override or the prior */
		wake_resolve(inv, o);
		if (!o->have_stats) {
			bill_host_add(host, &o->bill);
			continue;
		}
		paid_hist_step(&inv->reg->paid_hist, &o->hist_seen, &o->stats);
		bill_counts_of(&o->stats, &c);
		bill_ring_price(&o->bill, &c, o->wakeup_ns, now, &st);
		/* no window: nothing to bound, no thread to read */
		if (!st.add.windows || !bound_room(inv, n + 1)) {
			if (st.add.windows)
				st.bound = BILL_BOUND_UNREAD;
			bill_commit(o, &st, now, &rule);
			bill_host_add(host, &o->bill);
			continue;
		}
		g = &inv->bound[n++];
		g->step = st;
		g->tgid = o->stats.user_tgid;
		g->tid = o->stats.wait_tid;
		g->waiter_changed = o->bill_waiter_known &&
				    (o->bill_tgid != g->tgid || o->bill_tid != g->tid);
		g->seen = &o->bill_cpu;
		g->owner = ring;
	}
	inv->bound_reads += bill_bound_rings(inv->bound, n, inv->bound_steps, bill_cpu_read_proc,
					     NULL);
	for (i = 0; i < n; i++) {
		struct ring_obs *o = &((struct ut_ring *)inv->bound[i].owner)->obs;

		bill_commit(o, &inv->bound[i].step, now, &rule);
		bill_host_add(host, &o->bill);
	}
	bill_host_end(host, now, &rule);
}

void inventory_refresh_stats(struct inventory *inv)
{
	struct ut_ring *ring;
	size_t i, slotless = 0;

	if (inv->slotless && !(inv->refreshes % ADOPT_EVERY))
		adopt_slots(inv);
	inv->refreshes++;
	registry_for_each(inv->reg, i, ring) {
		struct ring_obs *o = &ring->obs;

		struct ut_ring_stats prev = o->stats;

		/* first read: the counters began at zero with the ring's slot */
		if (!o->have_stats) {
			memset(&prev, 0, sizeof(prev));
			prev.ctx = ring->ctx;
		}
		o->have_stats = trace_ring_stats(inv->trace, ring->ctx, &o->slot, &o->stats) == 0;
		slotless += o->slot == TRACE_SLOT_NONE;
		if (o->have_stats)
			wake_growth(inv, o, &prev);
		/* the kernel's NAPI list, as BPF last copied it */
		if (o->have_stats && o->stats.kernel_ids_reads) {
			memcpy(o->kernel_napi_ids, o->stats.kernel_napi_ids, sizeof(o->kernel_napi_ids));
			o->n_kernel_ids = o->stats.n_kernel_ids;
		}
		/* most rings are not IOPOLL: their ~3 KB is allocated for those that are */
		if ((o->setup_flags & UT_SETUP_IOPOLL) && !o->iop) {
			o->iop = calloc(1, sizeof(*o->iop));
			o->iopw = calloc(1, sizeof(*o->iopw));
		}
		if (o->iop)
			o->have_iop = iopoll_ring_stats(inv->iopoll, ring->ctx, o->iop) == 0;
		if (o->have_iop && o->iopw)
			iopoll_ring_window(inv, ring);
	}
	inv->slotless = slotless;
	bill_refresh(inv);
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
