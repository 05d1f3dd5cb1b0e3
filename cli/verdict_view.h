/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An IOPOLL ring's program's hybrid verdict, from its "iopoll.verdict"
 * object in the status reply: the single-ring view's lines. Pure.
 *
 *   hybrid verdict classic: hybrid lost 40% IOPS on 3 windows (bound 10%)
 *     classic      1.0us CPU per read, 10000 IOPS (3 windows, 1 ring)
 *     hybrid       500ns CPU per read, 6000 IOPS (3 windows, 1 ring)
 *     predicted    50% less CPU per read, -25% IOPS (12 s ago)
 */
#ifndef UT_CLI_VERDICT_VIEW_H
#define UT_CLI_VERDICT_VIEW_H

#include <stdio.h>

#include <json-c/json.h>

/*
 * The lines for @iop's "verdict", keys padded to @key_w: nothing from a
 * daemon without verdicts (no member), one line when it is null (nothing
 * known of the program yet). 0 or -ENOMEM.
 */
int verdict_view_print(struct json_object *iop, FILE *out, int key_w);

#endif /* UT_CLI_VERDICT_VIEW_H */
