/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Busy polling's bill in the status reply (bill.h says what each figure is):
 * a ring's, inside its "busy_poll" object, and the host's, as the top-level
 * "host" object. Both have the same members:
 *
 *   spin_ns          {"paid": sampled, "unpaid": estimated}, ns of CPU
 *   wakeups_avoided  measured
 *   saved_ns         estimated
 *   efficiency       saved_ns / spin, null before any window
 *   recent           the same over the last closed period, with windows,
 *                    hit_rate and period_ns (0 before a period closed)
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
