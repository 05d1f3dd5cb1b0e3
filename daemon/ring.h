/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One io_uring ring as uringtuned knows it: three parts, each with one
 * writer. Everyone may read every part; only the named module writes it.
 *
 *   obs    what the kernel told us (events, sweeps, map values)
 *          written by the observation side, daemon/observe/: registry.c
 *          (events, sweeps, our own accepted changes), inventory.c (map values)
 *   tune   what uringtune did to it and why (taken, refused, pinned,
 *          the tuner's memory, a decision on its way)
 *          written by the lifecycle only (daemon/tune/lifecycle*.c)
 *   agent  how the in-process agent reaches it (its policy-page slot)
 *          written by the agent server only (daemon/agent/agent_slots.c)
 */
#ifndef UT_RING_H
#define UT_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

#include "bill.h"
#include "bill_bound.h"
#include "paid_hist.h"
#include "decision_log.h"
#include "tunable.h"
#include "uring_abi.h"
#include "tuner.h"
#include "uringtune.h"
#include "wakeup.h"

struct ring_advice;
struct iopoll_window;

struct ut_holder {
	pid_t pid;
	int fd;
	uint64_t ino;
	uint64_t start_boottime;
	char comm[UT_COMM_LEN];
};

/* observation: registry.c, inventory.c */
struct ring_obs {
	struct ut_holder holder;	/* the process and fd status shows */
	uint32_t setup_flags;
	struct ut_napi_state napi;	/* newest of sweep, register event, our own change */
	uint64_t napi_ns;		/* when napi was last set (CLOCK_MONOTONIC) */
	uint32_t kernel_napi_ids[UT_MAX_NAPI_IDS];
	uint32_t n_kernel_ids;
	struct ut_ring_stats stats;	/* last copy of the BPF map value */
	bool have_stats;
	struct ut_iopoll_stats *iop;	/* IOPOLL rings only: completion times */
	bool have_iop;
	/* IOPOLL rings only: measurement windows, the hybrid model's answer */
	struct iopoll_window *iopw;
	uint64_t first_seen_ns;		/* CLOCK_MONOTONIC, same clock as BPF */
	/*
	 * What one sleep costs this ring's waiter, in ns of latency: measured
	 * (daemon/observe/wakeup.c), else the host's, else [napi]
	 * wakeup_cost_us. 0: not known yet.
	 */
	uint64_t wakeup_ns;
	uint8_t wakeup_src;		/* enum wakeup_source */
	struct wakeup_est wake;		/* its waiters' wake-ups, measured */
	/* busy polling's bill (bill.h), stepped at each refresh of stats */
	struct bill_ring bill;
	/* its bound (bill_bound.h): who waited at its last step, their CPU time read */
	uint32_t bill_tgid, bill_tid;
	bool bill_waiter_known;
	struct bill_cpu_seen bill_cpu;
	/* its histogram as last added to the host's (paid_hist.h) */
	struct paid_hist hist_seen;

	int32_t slot;			/* its ring_stats slot, -1 not known yet */
	/*
	 * The holder no longer holds it (exited, closed or moved the fd) while
	 * the ring lives on: the inventory is looking for where it went.
	 */
	bool holder_lost;
	uint64_t lost_ns;		/* ... since (CLOCK_MONOTONIC) */
	uint32_t lost_user;		/* the last waiter looked in since, 0 none */
	uint64_t verified_ns;		/* the holder was last seen holding it */

	/* sweep bookkeeping */
	uint64_t sweep_gen;
	bool holder_seen;
	bool have_alt;
	struct ut_holder alt;
};

/* tuning: the lifecycle */
struct ring_tune {
	enum ut_managed_by managed_by;
	struct tuner_state tuner;
	struct ut_ring_stats last_stats;	/* at the previous tick, for deltas */
	bool have_last_stats;
	bool pinned;			/* uringtune set: the tuner leaves it alone */
	bool forced;			/* ... with --force: kept whatever [select] says */
	bool hands_off;			/* uringtune reset: left as its app set it */
	bool refused;			/* the kernel refused a change: not retried */
	bool vanished;			/* ... because the ring went away first */
	bool queued;			/* waits in the take queue, or for its journal commit */
	const char *excluded;		/* the [select] rule that left it out, NULL if none */
	char error[160];		/* why, shown in status */
	char last_decision[200];	/* the tuner's last change, with its numbers */
	uint64_t reaction_ns;		/* ring creation to our first change */

	/* a backend that applies later (the agent): the decision on its way */
	bool pending;			/* published, not yet seen applied */
	/*
	 * A register call of its process, with no decision pending, that left
	 * the decided state: the agent's (the rest of a sequence) or the
	 * program's own; the program's APP_NAPI says which.
	 */
	bool register_unclaimed;
	uint64_t published_ns;
	struct tuner_setting want;	/* the last decision published */

	/* allocated when first needed: most rings never need either */
	struct ring_advice *advice;	/* observe mode: what tune mode would do (advice.h) */
	struct decision_log *decisions;	/* the last changes, made or advised */
};

/* the in-process agent: agent_slots.c */
struct ring_agent {
	bool via;			/* set up through an agent */
	uint32_t slot;			/* its slot in the policy page */
	bool app_napi;			/* its program said it registers NAPI itself */
	/* a register call of its process while its agent set it up (BPF) */
	bool setup_napi_seen;
	int setup_napi_ret;		/* the first failing one's result, else 0 */
};

struct ut_ring {
	uint64_t ctx;			/* registry key; never shown to users */
	struct ring_obs obs;
	struct ring_tune tune;
	struct ring_agent agent;
};

/*
 * Changed through its agent rather than from outside: a ring set up through
 * an agent that refuses foreign register calls (SINGLE_ISSUER: EEXIST).
 */
static inline bool ring_agent_driven(const struct ut_ring *ring)
{
	return ring->agent.via && (ring->obs.setup_flags & UT_SETUP_SINGLE_ISSUER);
}

/* what a ring holds besides itself, freed with it (the registry's job) */
static inline void ring_free(struct ut_ring *ring)
{
	if (!ring)
		return;
	free(ring->obs.iop);
	free(ring->obs.iopw);
	free(ring->tune.advice);
	decision_log_free(ring->tune.decisions);
	free(ring);
}

#endif /* UT_RING_H */
