/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `uringtune status --json`: what the reply says, member by member, written
 * with status_writer.h a part at a time (status_stream.h puts the parts
 * together). Field names are an interface (README, the CLI, the tests): add
 * fields, never rename them.
 *
 *	{"version":1,"daemon":{...},"rings":[{...},...]}
 *
 * The table view (`uringtune status` draws a table) is the same text with
 * fewer members in each ring: pid, comm, fd, setup_flags, setup_flags_raw,
 * napi, napi_ids, waits, busy_poll without its histogram and time_ns,
 * tunable, reason, managed_by, managed_via, tuning with its advice only,
 * and for IOPOLL rings iopoll without its histograms (hist_log2_ns, by_op).
 * The daemon object is whole.
 */
#ifndef UT_STATUS_JSON_H
#define UT_STATUS_JSON_H

#include <stdbool.h>

#include "daemon.h"
#include "status_writer.h"

/* {"version":1,"daemon":{...},"rings":[  — the reply up to its first ring */
void status_write_head(struct status_writer *w, const struct ut_daemon *d);
/* one element of "rings"; @table: only the members the table view has */
void status_write_ring(struct status_writer *w, const struct ut_daemon *d,
		       const struct ut_ring *ring, bool table);
/* ]} */
void status_write_tail(struct status_writer *w);

#endif /* UT_STATUS_JSON_H */
