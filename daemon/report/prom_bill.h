/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Busy polling's bill in the export (bill.h says what each figure is),
 * per ring and for the host, as counters that only grow:
 *
 *   uringtune_busy_poll_spin_seconds_total{pid,comm,fd,outcome}
 *   uringtune_busy_poll_saved_seconds_total{pid,comm,fd}
 *   uringtune_busy_poll_wakeups_avoided_total{pid,comm,fd}
 *   uringtune_busy_poll_unknown_windows_total{pid,comm,fd}
 *   uringtune_busy_poll_capped_seconds_total{pid,comm,fd}
 *   uringtune_host_busy_poll_spin_seconds_total{outcome}
 *   uringtune_host_busy_poll_saved_seconds_total
 *   uringtune_host_busy_poll_wakeups_avoided_total
 *   uringtune_host_busy_poll_unknown_windows_total
 *   uringtune_host_busy_poll_capped_seconds_total
 *   uringtune_host_busy_poll_windows_total
 *
 * outcome is "paid" or "unpaid", both sampled (each kind's timed mean times
 * its count) and bounded by the waiting threads' CPU time; windows of a
 * kind never timed are unknown (not in the spin), the spin the bound took
 * off is capped (not in the spin either). The host's include
 * the rings that are gone. "Recent" is left to PromQL: rate() over a range.
 * Pure: formats to a FILE; prom.c puts the families in the file.
 */
#ifndef UT_PROM_BILL_H
#define UT_PROM_BILL_H

#include <stddef.h>
#include <stdio.h>

#include "bill.h"

enum prom_bill_family {
	PROM_BILL_SPIN,			/* two series a ring: outcome paid, unpaid */
	PROM_BILL_SAVED,
	PROM_BILL_WAKEUPS,
	PROM_BILL_UNKNOWN,
	PROM_BILL_CAPPED,
};

#define PROM_BILL_SPIN_HELP \
	"CPU time the ring's waits spun busy-polling NAPI, in windows that paid off (the " \
	"wait did not sleep) and in windows that did not: each a sampled mean length times " \
	"their count (an estimate), at most what the waiting thread ran."
#define PROM_BILL_SAVED_HELP \
	"Latency the ring's busy polling saved: its avoided wake-ups times what one sleep " \
	"costs its waiter (measured, or [napi] wakeup_cost_us): an estimate."
#define PROM_BILL_WAKEUPS_HELP \
	"Wake-ups the ring's busy polling avoided: its windows that paid off."
#define PROM_BILL_UNKNOWN_HELP \
	"The ring's busy-poll windows not in its spin: none of their kind (paid, unpaid) " \
	"was timed yet, their length is not known."
#define PROM_BILL_CAPPED_HELP \
	"CPU time taken off the ring's sampled spin: its waiting thread ran less (its " \
	"schedstat) than the estimates of the rings it waited on."

/* one ring's samples of @family (@name, its @labels); the lines written */
size_t prom_bill_ring(enum prom_bill_family family, const char *name,
		      const struct bill_ring *b, const char *labels, FILE *out);

/* the host's families, whole */
void prom_bill_host(const struct bill_host *h, FILE *out);

#endif /* UT_PROM_BILL_H */
