/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Busy polling's bill in `uringtune status`: a ring's cells (its last
 * decision period's hit rate, efficiency and CPU share spent spinning) and
 * the host's line. Pure, like status_table.c: from the parsed reply.
 */
#ifndef UT_CLI_BILL_VIEW_H
#define UT_CLI_BILL_VIEW_H

#include <stdio.h>

#include <json-c/json.h>

/*
 * From a ring's "busy_poll" object: *hit (BP_HIT), *eff (EFF) and *spin
 * (SPIN%) as malloc'ed strings, each NULL when the daemon gave nothing (no
 * period closed yet, no window in it) or on ENOMEM.
 */
void bill_view_cells(struct json_object *bp, char **hit, char **eff, char **spin);

/*
 * The ring view's lines (status --ring) from a ring's "busy_poll" object, keys
 * padded to @key_w: the bill since the ring was seen and over its last
 * period; nothing from a daemon without a bill.
 */
void bill_view_ring_lines(struct json_object *bp, FILE *out, int key_w);

/* the host's bill, one line, from the reply's "host" object; nothing without one */
void bill_view_host_line(struct json_object *reply, FILE *out);

#endif /* UT_CLI_BILL_VIEW_H */
