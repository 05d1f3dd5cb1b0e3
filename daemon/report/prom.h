/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's state in the Prometheus text exposition format 0.0.4, for
 * node_exporter's textfile collector (export.c writes it to a file). Metric
 * names and labels are an interface, like status JSON fields: add, never
 * rename. (Issue 16 did, once, with contrib/'s rules and dashboard that read
 * them: ring series labelled ring="PID:FD" and comm instead of pid, comm and
 * fd; the paid-window histogram named _sampled_.)
 *
 * Written whole (prom_format()) or in steps (a prom_job), so that thousands
 * of rings never hold up the event loop: the job takes a snapshot of the
 * rings (their addresses, one per pid and fd) and writes the families one
 * after the other, each over the snapshot, a bounded number of lines per
 * step. Between steps the daemon runs on; a ring looked up again and gone,
 * or moved to another pid or fd, is left out of the families still to come.
 */
#ifndef UT_PROM_H
#define UT_PROM_H

#include <stddef.h>
#include <stdio.h>

#include "daemon.h"
#include "prom_text.h"

/* Write every family to @out. 0, or a negative errno (-EIO: @out failed). */
int prom_format(const struct ut_daemon *d, FILE *out);

struct prom_job;

/* the snapshot of @d's rings a job writes; NULL when out of memory */
struct prom_job *prom_job_new(const struct ut_daemon *d);

/*
 * Write what comes next to @out: about @budget lines (a ring visited counts
 * as one, a ring's histogram is never split), at least one ring's. 1 while
 * there is more, 0 once the last family is written, -EIO if @out failed.
 */
int prom_job_step(struct prom_job *job, const struct ut_daemon *d, FILE *out, size_t budget);

/* rings in the snapshot (at most one per pid and fd) */
size_t prom_job_rings(const struct prom_job *job);

void prom_job_free(struct prom_job *job);

#endif /* UT_PROM_H */
