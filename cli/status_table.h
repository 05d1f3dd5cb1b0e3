/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `uringtune status` as a human table, rendered from the daemon's parsed
 * JSON reply. Pure: no I/O but the FILE * it is given, so unit tests can
 * render fixtures into a memstream.
 */
#ifndef UT_CLI_STATUS_TABLE_H
#define UT_CLI_STATUS_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include <json-c/json.h>

struct reply_rings;

/*
 * Cells of the table, shared with the single-ring view: malloc'ed strings
 * (NULL on ENOMEM), "-" when the daemon gave nothing. Flags: the setup flag
 * names joined by ","; IDs: the integers of the array @key ("napi_ids" or
 * "kernel_napi_ids") joined by ","; tunable: "yes" or "no: <reason>".
 */
char *status_cell_flags(struct json_object *ring);
char *status_cell_ids(struct json_object *ring, const char *key);
char *status_cell_tunable(struct json_object *ring);
/* managed_by, with " (agent)" for rings reached through the in-process agent */
char *status_cell_managed(struct json_object *ring);

/*
 * Print the summary line and the ring table for @reply (the daemon's
 * "status" reply) to @out. The table's lines (not the summary above it) are
 * cut at @cut columns; 0: never. Fields the daemon omits print as "-" (or "?" in
 * the summary); unknown fields are ignored. Returns 0, -ENOMEM, -EIO when
 * writing @out failed, or -EINVAL when @reply has the wrong shape: then
 * nothing was printed and *why says what is wrong.
 */
int status_table_print(struct json_object *reply, FILE *out, int cut, const char **why);

/*
 * The same, a ring at a time (reply_parse.h): rows gathered as the rings
 * come, printed at the end (widths need every row). { 0 } is empty (its
 * lines never cut); status_table_forget() and _fini() keep .cut.
 */
struct st_row;
struct st_table {
	struct st_row *rows;
	size_t nr, cap;
	int err;		/* the first ring's error: -EINVAL (why), -ENOMEM */
	const char *why;
	int cut;		/* the table's lines cut at this many columns; 0: never */
};

/* a ring of the reply; 0, or -ENOMEM (stop) */
int status_table_add(struct st_table *t, struct json_object *ring);
/* forget the rings added so far (a second "rings" array replaces the first) */
void status_table_forget(struct st_table *t);
/* reply_parse_rings() callbacks that feed a table (arg: the struct st_table) */
extern const struct reply_rings status_table_rings;
/*
 * Print as status_table_print() does, @reply's "rings" being an array (its
 * elements were added one by one): 0, -ENOMEM, -EIO, or -EINVAL and *why.
 */
int status_table_finish(struct st_table *t, struct json_object *reply, FILE *out,
			const char **why);
void status_table_fini(struct st_table *t);

#endif /* UT_CLI_STATUS_TABLE_H */
