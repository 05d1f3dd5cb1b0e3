/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A daemon in memory whose status shows every member the reply can hold:
 * rings of every kind status treats differently (plain, SQPOLL, IOPOLL,
 * hybrid IOPOLL through the agent, an agent's SINGLE_ISSUER ring, an
 * application's, one the kernel refused, a pinned one), names that need
 * escaping, NAPI IDs, histograms, a refused reload. Nothing depends on the
 * clock or the host: the same state gives the same reply, byte for byte
 * (tests/unit/status_golden.json is the reply the json-c builder gave).
 * Included by the unit tests that need it; no BPF: the skeleton's counters
 * are a struct here.
 */
#ifndef UT_STATUS_FIXTURE_H
#define UT_STATUS_FIXTURE_H

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "agent_server.h"
#include "daemon.h"
#include "iopoll_window.h"
#include "napi_trace.skel.h"
#include "uring_abi.h"

static struct ut_daemon fx;
static struct napi_trace_bpf fx_skel;
static struct napi_trace_bpf__bss fx_bss;

static struct ut_ring *fx_ring(uint64_t ctx, pid_t pid, int fd, uint32_t flags, const char *comm)
{
	struct ut_event ev = {
		.type = UT_EV_RING_CREATE, .tgid = pid, .fd = fd, .ctx = ctx,
		.ts_ns = 1000, .start_boottime = 77 + pid, .ino = 500 + fd, .setup_flags = flags,
	};

	snprintf(ev.comm, sizeof(ev.comm), "%s", comm);
	ev.napi.supported = 1;
	ev.napi.track_mode = UT_TRACK_INACTIVE;
	return registry_on_create(&fx.reg, &ev, ev.ino);
}

static void fx_stats(struct ut_ring *ring, uint64_t scale)
{
	struct ut_ring_stats *s = &ring->obs.stats;

	ring->obs.have_stats = true;
	s->ctx = ring->ctx;
	s->napi_ids[0] = 257;
	s->napi_ids[2] = 258;	/* a hole: zeros are not IDs */
	s->waits = 20000 * scale;
	s->waits_nosleep = 19500 * scale;
	s->busy_windows = 20000 * scale;
	s->busy_paid = 19400 * scale;
	/* 1 in 16 sampled: 37 of the 600 unpaid timed at 50 us, 3 of unknown length */
	s->windows_sampled = 1250 * scale;
	s->unpaid_timed = 37 * scale;
	s->unpaid_timed_ns = 37 * scale * 50000;
	s->windows_unstamped = 2 * scale;
	s->windows_overlong = scale;
	s->user_tgid = (uint32_t)ring->obs.holder.pid;
	s->wait_tid = (uint32_t)ring->obs.holder.pid + 1;
	s->busy_ns = UINT64_MAX / 3;	/* above INT64_MAX: printed unsigned */
	for (unsigned int i = 0; i < UT_HIST_SLOTS; i++)
		s->busy_hist[i] = i * 1000 * scale;
}

/*
 * The bills: each ring with statistics seen at 1 s with none of its windows
 * yet, and at 6 s with all of them (a closed period of 5 s); the host's
 * with a ring gone before (its totals kept). The nginx ring's thread ran
 * 0.5 s of the 0.5556 s its windows were priced at (capped); the other's
 * changed threads (not bounded).
 */
static void fx_bills(void)
{
	static const struct bill_rule rule = { .min_windows = 1000, .min_ns = 1000000000 };
	static const struct bill_ring gone = {
		.total = { .windows = 100, .wakeups_avoided = 10, .paid_ns = 50000,
			   .unpaid_ns = 4500000, .unknown = 5, .capped_ns = 70000,
			   .saved_ns = 300000 },
	};
	struct bill_counts zero = { 0 }, c;
	struct bill_step st, *steps[] = { &st };
	struct ut_ring *ring;
	size_t i;

	bill_host_forget(&fx.reg.bill, &gone);
	for (uint64_t t = 1000000000; t <= 6000000000; t += 5000000000) {
		bill_host_begin(&fx.reg.bill);
		registry_for_each(&fx.reg, i, ring) {
			if (!ring->obs.have_stats)
				continue;
			/* 1 in 16 paid windows timed, 8 us each */
			bill_counts_of(&ring->obs.stats, &c);
			c.timed = c.paid / 16;
			c.timed_ns = c.timed * 8000;
			bill_ring_price(&ring->obs.bill, t == 1000000000 ? &zero : &c, 30000, t, &st);
			if (!strcmp(ring->obs.holder.comm, "nginx"))
				bill_cap_thread(steps, 1, 500000000);
			else
				st.bound = BILL_BOUND_THREAD_CHANGED;
			bill_ring_commit(&ring->obs.bill, &st, t, &rule);
			bill_host_add(&fx.reg.bill, &ring->obs.bill);
		}
		bill_host_end(&fx.reg.bill, t, &rule);
	}
}

static void fx_iopoll(struct ut_ring *ring, uint64_t hybrid_ns)
{
	struct ut_iopoll_stats *io;

	/* IOPOLL rings only have it: the registry frees it with the ring */
	if (!ring->obs.iop)
		ring->obs.iop = calloc(1, sizeof(*ring->obs.iop));
	io = ring->obs.iop;
	if (!io)
		abort();
	ring->obs.have_iop = true;
	io->completions[UT_IOP_READ] = 5000;
	io->completions[UT_IOP_URING_CMD] = 7;
	for (unsigned int i = 12; i < 16; i++)
		io->hist[UT_IOP_READ][i] = 1250;
	io->hist[UT_IOP_URING_CMD][20] = 7;
	io->submitted = 5010;
	io->hybrid_poll_time_ns = hybrid_ns;
}

/* an IOPOLL ring's closed windows and, classic, the model's answer on them */
static void fx_window(struct ut_ring *ring, bool hybrid)
{
	struct iopoll_window *w = calloc(1, sizeof(*w));
	struct iopoll_window_result *r;

	if (!w)
		abort();
	ring->obs.iopw = w;
	w->have_last = true;
	w->closed = 5;
	w->n_chain = 4;
	snprintf(w->exe, sizeof(w->exe), "/usr/bin/fio");
	r = &w->recent;
	r->period_ns = 4000000000ULL;
	r->busy_ns = 3500000000ULL;
	r->reads = 35000;
	r->iops = 10000;
	r->cpu_known = true;
	r->cpu_ns = hybrid ? 1750000000ULL : 3500000000ULL;
	r->cpu_util = hybrid ? 0.5 : 1;
	r->mean_ns = 95000;
	r->qd = 0.96;
	r->min_ns = 31000;
	r->turn_ns = 4500;
	r->fine[26] = 30000;
	r->fine[27] = 5000;
	w->last = *r;
	if (hybrid)
		return;
	w->pred = (struct hybrid_pred){
		.valid = true, .cpu_per_read_saving = 0.375, .iops_change = -0.25, .p50_ns = 150000,
		.p99_ns = 600000, .cpu_util = 0.5, .sleep_ns = 110000,
	};
	snprintf(w->pred.why, sizeof(w->pred.why), "at depth 1, 100.0 us per read: each hybrid "
		 "sleep lasts 110.0 us here (1.00 per read): -38%% CPU per read, -25%% IOPS");
}

/* a slot of the agent's page attached to @ring */
/* a decision in the ring's history, @s seconds after 2023-11-14T22:13:20Z */
static void fx_decision(struct ut_ring *ring, unsigned int us, bool prefer, const char *why,
			unsigned int s)
{
	const struct decision d = {
		.mono_ns = 1000000000ULL * (100 + s), .wall_ns = 1700000000000000000LL +
		1000000000LL * s + 250000000, .busy_poll_us = us, .enabled = us != 0,
		.prefer = prefer,
	};

	if (decision_log_add(&ring->tune.decisions, &d, why))
		abort();
}

static void fx_agent_slot(struct ut_ring *ring, uint32_t slot, bool hybrid, const char *why)
{
	struct agent_slot_info *in = &fx.agent.info[slot];

	ring->agent.via = true;
	ring->agent.slot = slot;
	ring->agent.setup_napi_seen = true;
	ring->agent.setup_napi_ret = hybrid ? 0 : -16;
	in->hello_ns = 1;
	in->ctx = ring->ctx;
	in->announced = true;
	in->fd = ring->obs.holder.fd;
	in->ino = ring->obs.holder.ino;
	in->entry = 1;
	in->hybrid_decided = hybrid;
	in->napi_decided = !hybrid;
	in->reported.hybrid_added = hybrid;
	in->reported.napi_tried = !hybrid;
	in->reported.napi_ret = hybrid ? 0 : -16;
	snprintf(in->why, sizeof(in->why), "%s", why);
}

static void fx_napi(struct ut_ring *ring, uint64_t us, bool prefer, uint8_t mode)
{
	ring->obs.napi.enabled = 1;
	ring->obs.napi.busy_poll_ns = us * 1000;
	ring->obs.napi.prefer = prefer;
	ring->obs.napi.track_mode = mode;
}

/* the daemon of the fixture (fx); fx_free() undoes it */
static int fx_setup(void)
{
	struct ut_ring *r;

	memset(&fx, 0, sizeof(fx));
	config_defaults(&fx.cfg);
	fx.cfg.mode = UT_MODE_TUNE;
	fx.self_pid = 1000;
	fx.napi_supported = true;
	snprintf(fx.kernel, sizeof(fx.kernel), "6.18.44-test");
	/* IORING_REGISTER_QUERY's answer on 6.18 */
	hybrid_support_init(&fx.hybrid, 0, 0x7ffff, fx.kernel);
	/* the sleep probe done, and one pair learned from */
	fx.sleep_probe.res = (struct sleep_probe_result){ .samples = 256, .asked_ns = 4000,
		.overshoot_ns = 52000, .overshoot_p90_ns = 90000, .cpu_ns = 15000, .syscall_ns = 700 };
	fx.sleep_probe.done = true;
	fx.inv.hybrid_sleep.pairs = 1;
	fx.inv.hybrid_sleep.tie_share = 1;
	fx.inv.hybrid_sleep.tie_pairs = 1;
	fx.inv.hybrid_sleep.last_tie = true;
	fx.inv.hybrid_sleep.tied_ns = 80000;
	fx.inv.hybrid_sleep.last_tied_ns = 80000;
	fx.inv.hybrid_sleep.util_windows = 3;
	fx.inv.hybrid_sleep.util = 0.5;
	fx.inv.hybrid_sleep.h_pairs = 1;
	fx.inv.hybrid_sleep.h_ratio = 0.7;
	fx_skel.bss = &fx_bss;
	fx_bss.events_lost = UINT64_MAX - 1;
	fx_bss.rings_dropped = 3;
	fx.trace.skel = &fx_skel;
	fx.iopoll.attached = true;
	fx.iopoll.attached_ns = 500;
	fx.inv.ring_map_entries = 8;
	fx.inv.sweeps = 42;
	fx.inv.last_sweep_us = 1234;
	fx.inv.bound_reads = 9;
	fx.lc.self_pid = fx.self_pid;
	fx.lc.journal.n = 2;
	fx.lc.actions_ok = 5;
	fx.lc.actions_failed = 1;
	fx.lc.actions_vanished = 2;
	fx.export_errors = 1;
	snprintf(fx.export_error, sizeof(fx.export_error), "open /x: \"Permission\" denied\t(13)");
	fx.reload = (struct reload_state){ .last = RELOAD_REFUSED, .time = 1700000000,
					   .count_ok = 2, .count_refused = 1 };
	snprintf(fx.reload.error, sizeof(fx.reload.error), "uringtune.ini: [napi] x: what \\ is wrong");
	if (registry_init(&fx.reg))
		return -1;
	agent_server_init(&fx.agent, &fx.reg, &fx.lc, &fx.cfg);
	if (agent_server_open_mem(&fx.agent))
		return -1;
	fx.agent.requests = 4;
	fx.agent.refusals[AGENT_REFUSED_BAD_MESSAGE] = 1;

	/* plain, tuned by uringtune from outside, with traffic */
	r = fx_ring(0xffff888100001000ULL, 100, 4, 0, "pingpong");
	fx_stats(r, 1);
	fx_napi(r, 50, false, UT_TRACK_DYNAMIC);
	r->tune.managed_by = UT_MANAGED_URINGTUNE;
	r->tune.reaction_ns = 2500;
	snprintf(r->tune.last_decision, sizeof(r->tune.last_decision),
		 "busy_poll 50us: p90 window 31us + 50%%");
	/* its last decisions: the take and one tuner change (2023-11-14T22:13:20Z on) */
	fx_decision(r, 50, true, "taken: NAPI busy polling on, 50 us, dynamic tracking", 0);
	fx_decision(r, 26, false, "hit rate 97%, 90% of paid windows within 17 us: timeout 50 -> 26 us",
		    1500);
	/* SQPOLL, pinned by hand with --force, static tracking, kernel NAPI IDs */
	r = fx_ring(0xffff888100002000ULL, 100, 5, UT_SETUP_SQPOLL | (1U << 30), "pingpong");
	fx_napi(r, 200, true, UT_TRACK_STATIC);
	r->obs.kernel_napi_ids[0] = 257;
	r->obs.kernel_napi_ids[1] = 300;
	r->obs.n_kernel_ids = 2;
	r->tune.managed_by = UT_MANAGED_URINGTUNE;
	r->tune.pinned = r->tune.forced = true;
	/* IOPOLL, classic, counted */
	r = fx_ring(0xffff888100003000ULL, 300, 6, UT_SETUP_IOPOLL, "fio");
	fx_iopoll(r, 0);
	fx_window(r, false);
	/* hybrid IOPOLL set up through the agent */
	r = fx_ring(0xffff888100004000ULL, 300, 7, UT_SETUP_IOPOLL | UT_SETUP_HYBRID_IOPOLL, "fio");
	fx_iopoll(r, 4000);
	fx_window(r, true);
	fx_agent_slot(r, 1, true, "hybrid: fio's last IOPOLL ring saved 31% of its spinning");
	/* SINGLE_ISSUER through the agent: changed through its slot */
	r = fx_ring(0xffff888100005000ULL, 200, 3, UT_SETUP_SINGLE_ISSUER | UT_SETUP_DEFER_TASKRUN,
		    "nginx");
	fx_stats(r, 3);
	fx_agent_slot(r, 0, false, "napi 50us");
	r->tune.managed_by = UT_MANAGED_URINGTUNE;
	fx_napi(r, 50, false, UT_TRACK_DYNAMIC);
	/* the application's own, and a name that needs escaping */
	r = fx_ring(0xffff888100006000ULL, 500, 8, 0, "app\n\"q\\\x01\x7f\xc3\xa9/");
	fx_napi(r, 10, false, UT_TRACK_DYNAMIC);
	r->tune.managed_by = UT_MANAGED_APP;
	/* refused by the kernel; reset by hand since */
	r = fx_ring(0xffff888100007000ULL, 600, 9, UT_SETUP_COOP_TASKRUN, "");
	r->tune.refused = true;
	r->tune.hands_off = true;
	snprintf(r->tune.error, sizeof(r->tune.error), "IORING_REGISTER_NAPI: EPERM");
	/* ... and [select] has left it out since */
	r->tune.excluded = "excluded by exclude_comm";
	/* a registered-fd-only ring: no fd to duplicate */
	fx_ring(0xffff888100008000ULL, 700, 11, UT_SETUP_REGISTERED_FD_ONLY | UT_SETUP_NO_MMAP,
		"reg");
	fx_bills();
	return 0;
}

static void fx_free(void)
{
	agent_server_close(&fx.agent);
	registry_free(&fx.reg);
}

#endif /* UT_STATUS_FIXTURE_H */
