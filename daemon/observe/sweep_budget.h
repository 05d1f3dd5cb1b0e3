/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * When the full host sweep may run. It is the inventory's backstop (events
 * lost, a ring passed to a process that never uses it), and it costs CPU in
 * proportion to the host's open files, not its rings. So it runs on a
 * budget: averaged over time, at most @share of one core. After a sweep
 * that took C of CPU, the next waits at least C / share (210 ms at 740 000
 * files and 0.1% is 210 s), never less than @min_gap; without a reason
 * (sweep_budget_request), not before @periodic. share 0: never again after
 * the start-up sweep. Pure: the caller brings the clock.
 */
#ifndef UT_SWEEP_BUDGET_H
#define UT_SWEEP_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

struct sweep_budget {
	double share;		/* of one core: 0.001 is 0.1% */
	uint64_t min_gap_ns;
	uint64_t periodic_ns;
	uint64_t last_end_ns;	/* CLOCK_MONOTONIC */
	uint64_t last_cpu_ns;
	uint64_t total_cpu_ns;
	uint64_t runs;
	bool requested;
	const char *reason;	/* of the request, for the log */
};

void sweep_budget_init(struct sweep_budget *b, double share, uint64_t min_gap_ns,
		       uint64_t periodic_ns);
/* a reason to sweep soon (the budget still holds) */
void sweep_budget_request(struct sweep_budget *b, const char *reason);
/* the earliest a sweep may start; UINT64_MAX: never */
uint64_t sweep_budget_earliest(const struct sweep_budget *b);
/* should one start now? */
bool sweep_budget_due(const struct sweep_budget *b, uint64_t now_ns);
/* one ended at @end_ns, having cost @cpu_ns; clears the request */
void sweep_budget_done(struct sweep_budget *b, uint64_t end_ns, uint64_t cpu_ns);

#endif /* UT_SWEEP_BUDGET_H */
