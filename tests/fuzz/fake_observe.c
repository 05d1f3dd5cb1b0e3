// SPDX-License-Identifier: GPL-2.0-only
/*
 * The observation side's calls the control handler makes, for fuzz_control:
 * no BPF. The ring statistics are what the fake daemon gave its rings; the
 * BPF counters are big numbers, so that status prints them as u64.
 */
#include <stdint.h>

#include "inventory.h"
#include "trace.h"

void inventory_refresh_stats(struct inventory *inv)
{
	(void)inv;
}

uint64_t trace_events_lost(const struct ut_trace *t)
{
	(void)t;
	return UINT64_MAX - 1;
}

uint64_t trace_rings_dropped(const struct ut_trace *t)
{
	(void)t;
	return 3;
}
