// SPDX-License-Identifier: GPL-2.0-only
/* The full sweep's CPU budget. */
#include <stddef.h>

#include "sweep_budget.h"

void sweep_budget_init(struct sweep_budget *b, double share, uint64_t min_gap_ns,
		       uint64_t periodic_ns)
{
	*b = (struct sweep_budget){
		.share = share, .min_gap_ns = min_gap_ns, .periodic_ns = periodic_ns,
	};
}

void sweep_budget_request(struct sweep_budget *b, const char *reason)
{
	if (!b->requested)
		b->reason = reason;
	b->requested = true;
}

uint64_t sweep_budget_earliest(const struct sweep_budget *b)
{
	double gap;

	if (b->share <= 0)
		return UINT64_MAX;
	gap = (double)b->last_cpu_ns / b->share;
	if (gap < (double)b->min_gap_ns)
		gap = (double)b->min_gap_ns;
	/* a gap past the clock's range: never */
	if (gap >= (double)(UINT64_MAX - b->last_end_ns))
		return UINT64_MAX;
	return b->last_end_ns + (uint64_t)gap;
}

bool sweep_budget_due(const struct sweep_budget *b, uint64_t now_ns)
{
	uint64_t earliest = sweep_budget_earliest(b);

	if (earliest == UINT64_MAX || now_ns < earliest)
		return false;
	return b->requested || now_ns - b->last_end_ns >= b->periodic_ns;
}

void sweep_budget_done(struct sweep_budget *b, uint64_t end_ns, uint64_t cpu_ns)
{
	b->last_end_ns = end_ns;
	b->last_cpu_ns = cpu_ns;
	b->total_cpu_ns += cpu_ns;
	b->runs++;
	b->requested = false;
	b->reason = NULL;
}
