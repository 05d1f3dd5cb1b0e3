/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Keeps the registry in step with the kernel: ring-buffer events as they
 * come, a sweep of the rings iterator every tick, map values on demand.
 */
#ifndef UT_INVENTORY_H
#define UT_INVENTORY_H

#include "agent_server.h"
#include "config.h"
#include "iopoll.h"
#include "lifecycle.h"
#include "registry.h"
#include "trace.h"

/* the observation side: what it feeds, and what it tells of rings found and gone */
struct inventory {
	struct ut_registry *reg;
	struct ut_trace *trace;
	struct ut_iopoll *iopoll;	/* optional: IOPOLL statistics */
	const struct ut_config *cfg;
	struct lifecycle *lc;		/* told of rings found, gone, registered */
	struct ut_agent_server *agent;	/* ... and so is the agent's side */

	uint64_t iopoll_last_seen_ns;	/* an IOPOLL ring was last listed */
	/* last sweep, for status and metrics */
	uint64_t sweeps;
	uint64_t last_sweep_us;
	int ring_map_entries;
};

/* trace_event_cb: arg is the struct inventory */
int inventory_on_event(const struct ut_event *ev, void *arg);
/* reconcile with the kernel: find rings, drop the gone, prune the BPF map */
int inventory_sweep(struct inventory *inv);
/* copy every ring's statistics from the BPF map */
void inventory_refresh_stats(struct inventory *inv);

/* IOPOLL timing hooks on or off, as iopoll_stats and the registry say */
void inventory_iopoll_hooks(struct inventory *inv);

#endif /* UT_INVENTORY_H */
