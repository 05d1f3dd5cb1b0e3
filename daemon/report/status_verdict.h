/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hybrid verdicts (verdicts.h) in the status reply: every program's as
 * the top-level "hybrid_verdicts" array, and an IOPOLL ring's program's as
 * its "iopoll.verdict" (null if none). One shape for both:
 *
 *   {"comm", "exe", "verdict": "unjudged"|"hybrid"|"classic", "why",
 *    "classic": {"reads", "cpu_per_read_ns", "iops", "windows", "rings"},
 *    "hybrid": {...},
 *    "measured": {"cpu_per_read_saving", "iops_change"} | null,
 *    "predicted": {"cpu_per_read_saving", "iops_change", "age_s"} | null,
 *    "updated": unix_s}
 *
 * cpu_per_read_ns and iops are null on a side without reads.
 */
#ifndef UT_STATUS_VERDICT_H
#define UT_STATUS_VERDICT_H

#include <stdint.h>

#include "ring.h"
#include "status_writer.h"
#include "verdict_file.h"
#include "verdicts.h"

/* one record as member @key (NULL: an array element); @r NULL: null */
void status_verdict_record(struct status_writer *w, const char *key, const struct hv_record *r,
			   uint64_t now_unix_s);

/*
 * "hybrid_verdicts": [...], the most recently updated first, and
 * "hybrid_verdicts_file": {"path" (null: not kept), "write_errors", "error"}
 */
void status_verdicts_write(struct status_writer *w, const struct verdicts *v,
			   const struct verdict_file *f);

/* "verdict": the record of @ring's program (its comm and executable), or null */
void status_verdict_ring(struct status_writer *w, const struct verdicts *v,
			 const struct ut_ring *ring);

#endif /* UT_STATUS_VERDICT_H */
