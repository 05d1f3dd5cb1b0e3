/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A ring's advice (observe mode: what tune mode would set) and its last
 * decisions, from its "tuning" object in the status reply: the table's
 * ADVICE cell and the single-ring view's lines. Pure like status_table.
 */
#ifndef UT_CLI_ADVICE_VIEW_H
#define UT_CLI_ADVICE_VIEW_H

#include <stdio.h>

#include <json-c/json.h>

/*
 * The ADVICE cell: "50us", "50us+prefer", "off", or "-" when the ring has
 * no advice (tune mode, not a ring tune mode would take, no wait yet).
 * Malloc'ed; NULL on ENOMEM.
 */
char *status_cell_advice(struct json_object *ring);

/*
 * The single-ring view's "advice" line (only when there is advice) and its
 * decisions, oldest first, one line each (nothing when there are none), the
 * keys padded to @key_w. 0 or -ENOMEM.
 */
int advice_view_print(struct json_object *ring, FILE *out, int key_w);

#endif /* UT_CLI_ADVICE_VIEW_H */
