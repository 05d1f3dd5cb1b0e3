/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `uringtune status --ring PID:FD`: one ring drawn for people, from its
 * object in the daemon's status reply. Pure like status_table: no I/O but
 * the FILE * it is given, and the width is a parameter.
 */
#ifndef UT_CLI_RING_VIEW_H
#define UT_CLI_RING_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

/* the terminal width the views assume at least, and without a terminal */
#define RV_WIDTH_MIN		40
#define RV_WIDTH_DEFAULT	80

/*
 * A duration for people: "512ns" below 1024 ns, then "1.0us", "16.4ms",
 * "2.1s" (one decimal, the unit chosen so the number stays under 1000).
 */
void rv_duration(uint64_t ns, char *buf, size_t len);

/*
 * The range of histogram slot @slot, both ends included: "256ns-511ns",
 * "1.0us-2.0us", "8.2us-16.4us"; slot 0 is "0ns-1ns".
 */
void rv_slot_label(unsigned int slot, char *buf, size_t len);

/*
 * Length of the bar for @count when @max gets the full @width: 0 for a zero
 * count, at least 1 for any other, @width for @max and above.
 */
int rv_bar_len(uint64_t count, uint64_t max, int width);

/*
 * The ring (pid, fd) of @reply, the daemon's status reply. Returns 0 and
 * sets *ring (borrowed from @reply), -ENOENT when it is not listed, or
 * -EINVAL when @reply has no "rings" array (*why says so).
 */
int rv_find(struct json_object *reply, int64_t pid, int64_t fd,
	    struct json_object **ring, const char **why);

/*
 * Draw @ring (one object of the reply's "rings") to @out in @width columns
 * (RV_WIDTH_MIN at least): a header, the outcome of its waits and the
 * histogram of its paid-off busy-poll windows. Missing fields print as "-"
 * or leave their section out. Returns 0, -ENOMEM, or -EIO when writing
 * @out failed.
 */
int rv_print(struct json_object *ring, FILE *out, int width);

#endif /* UT_CLI_RING_VIEW_H */
