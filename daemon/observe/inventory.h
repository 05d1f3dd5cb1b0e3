/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Keeps the registry in step with the kernel at a cost that follows the
 * rings, not the host's open files:
 *   - a ring is announced by its io_uring_create event, and its going by
 *     the exit work its last close queues (UT_EV_RING_GONE);
 *   - its holder process is watched by a pidfd; the processes it forks are
 *     reported, so a child that inherits the ring takes over when the
 *     parent exits;
 *   - every ring's (pid, fd) is checked to still be the ring's file (one
 *     stat, each ring every HOLDER_CHECK_S at most, spread over ticks); a
 *     ring whose holder let go while it lives is looked for in the process
 *     that used it last and in its holder's other fds (per-process
 *     iterators), and only then by a full host sweep;
 *   - the full sweep is the backstop (lost events, a ring passed to a
 *     process that never used it): on a thread of its own, under a CPU
 *     budget (sweep_budget.h), never on the event loop.
 * Map values are read from the mapped statistics array, without syscalls.
 */
#ifndef UT_INVENTORY_H
#define UT_INVENTORY_H

#include "agent_server.h"
#include "config.h"
#include "holders.h"
#include "hybrid_support.h"
#include "iopoll.h"
#include "lifecycle.h"
#include "registry.h"
#include "scan_worker.h"
#include "hybrid_sleep.h"
#include "sleep_probe.h"
#include "sweep_budget.h"
#include "trace.h"

struct sd_event;
struct sd_event_source;

/* every ring's holder is checked at least this often */
#define HOLDER_CHECK_S		30
/* rings gone recently, so that a sweep begun before cannot bring them back */
#define INVENTORY_DEATHS	4096

struct inventory_death {
	uint64_t ctx;
	uint64_t ts_ns;
};

/* the observation side: what it feeds, and what it tells of rings found and gone */
struct inventory {
	struct ut_registry *reg;
	struct ut_trace *trace;
	struct ut_iopoll *iopoll;	/* optional: IOPOLL statistics */
	const struct ut_config *cfg;
	struct lifecycle *lc;		/* told of rings found, gone, registered */
	struct ut_agent_server *agent;	/* ... and so is the agent's side */
	/* the host's sleep figures for the hybrid model (optional) */
	const struct sleep_probe *sleep_probe;
	struct hybrid_sleep_est hybrid_sleep;	/* ... learned from hybrid rings */
	/* an IOPOLL ring's measurement window closed (optional) */
	void (*on_iopoll_window)(void *arg, struct ut_ring *ring);
	void *on_iopoll_window_arg;
	struct hybrid_support *hybrid;	/* told of HYBRID_IOPOLL rings (NULL: no one) */

	struct holders holders;
	struct scan_worker worker;
	struct sd_event_source *worker_src;
	struct sweep_budget budget;
	size_t check_cursor;		/* registry slot the next holder check starts at */
	struct inventory_death deaths[INVENTORY_DEATHS];
	uint64_t n_deaths;		/* ever: deaths[n % INVENTORY_DEATHS] is next */
	uint64_t events_lost_seen;
	uint64_t refreshes;		/* inventory_refresh_stats() calls */
	size_t slotless;		/* rings without a statistics slot at the last */

	uint64_t iopoll_last_seen_ns;	/* an IOPOLL ring was last listed */
	/* full sweeps, for status and metrics */
	uint64_t sweeps;
	uint64_t last_sweep_us;		/* wall time of the last one */
	uint64_t last_sweep_cpu_us;
	int ring_map_entries;
	/* the cheaper ways */
	uint64_t rings_gone;		/* GONE events */
	uint64_t holder_exits;		/* pidfds that fired */
	uint64_t holder_checks;		/* (pid, fd) stats */
	uint64_t holders_lost;		/* holders found not holding a live ring */
	uint64_t holders_moved;		/* ... and where the ring went */
	uint64_t pid_scans;
	/* the bill's step: the rings whose windows grew, bounded by thread (bill_bound.h) */
	struct bill_bound_ring *bound;
	struct bill_step **bound_steps;
	size_t bound_cap;
	uint64_t bound_reads;		/* threads' CPU times read, ever */
	/* what a sleep costs a waiter on this host (wakeup.h) */
	struct wakeup_est wake_host;
	uint64_t wakeup_ns;
	uint8_t wakeup_src;		/* enum wakeup_source */
};

int inventory_init(struct inventory *inv);
void inventory_fini(struct inventory *inv);
/* pidfds, the scan thread: from here on the loop owns the inventory's I/O */
int inventory_attach_loop(struct inventory *inv, struct sd_event *event);
void inventory_detach_loop(struct inventory *inv);

/* trace_event_cb: arg is the struct inventory */
int inventory_on_event(const struct ut_event *ev, void *arg);
/* the start-up sweep, on the calling thread: find every ring on the host */
int inventory_sweep(struct inventory *inv);
/* once a tick: holder checks, the state read, the backstop when due */
void inventory_tick(struct inventory *inv);
/* copy every ring's statistics from the BPF map */
void inventory_refresh_stats(struct inventory *inv);
/* one IOPOLL ring's measurement window stepped, its model run when one closes */
void iopoll_ring_window(struct inventory *inv, struct ut_ring *ring);

/* IOPOLL timing hooks on or off, as iopoll_stats and the registry say */
void inventory_iopoll_hooks(struct inventory *inv);

/* inventory_holders.c: a holder exited (holders_exit_cb), a ring's holder let go */
void inventory_holder_exited(void *arg, pid_t pid);
void inventory_check_holders(struct inventory *inv, uint64_t now);
/* inventory_scan.c: apply a finished job; rings gone since t0_ns */
void inventory_apply_job(struct inventory *inv, struct scan_job *job);
bool inventory_died_since(const struct inventory *inv, uint64_t ctx, uint64_t t0_ns);
void inventory_ring_removed(const struct ut_ring *ring, void *arg);

#endif /* UT_INVENTORY_H */
