/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Busy polling's bill in the status reply (bill.h says what each figure is):
 * a ring's, inside its "busy_poll" object, and the host's, as the top-level
 * "host" object. Both have the same members:
 *
 *   spin_ns          {"paid": sampled, "unpaid": sampled}, ns of CPU: each
 *                    kind's windows at the mean of those timed, bounded by
 *                    the waiting thread's CPU time
 *   unknown_windows  windows not billed: none of their kind timed yet
 *   capped_ns        spin the bound took off the sampled estimates
 *   wakeups_avoided  measured
 *   saved_ns         estimated
 *   efficiency       saved_ns / spin, null before any window or with none billed
 *   recent           the same over the last closed period, with windows,
 *                    hit_rate and period_ns (0 before a period closed)
 * A ring's also has cpu_bound: "known" (its last step with windows was
 * bounded by its waiting thread's CPU time), "unknown" (with cpu_bound_why:
 * "no_thread", "thread_changed", "unread", "not_asked"), null before one.
 */
#ifndef UT_STATUS_BILL_H
#define UT_STATUS_BILL_H

#include <stdbool.h>

#include "bill.h"
#include "status_writer.h"

/*
 * The bill's members, into the ring's open "busy_poll" object; for the
 * table (@table), "recent" alone, with what the table shows of it.
 */
void status_bill_write(struct status_writer *w, const struct bill_ring *b, bool table);

/* "host": {"busy_poll": {"windows", "hit_rate", the bill's members}} */
void status_bill_host_write(struct status_writer *w, const struct bill_host *h);

#endif /* UT_STATUS_BILL_H */
