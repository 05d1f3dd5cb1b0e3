/* SPDX-License-Identifier: GPL-2.0-only */
/* `uringtune status`: the table, --ring's view or the JSON, once. */
#ifndef UT_CLI_CMD_STATUS_H
#define UT_CLI_CMD_STATUS_H

#include <stdio.h>

#include "options.h"

/* $COLUMNS, else the terminal on stdout, else 80; never under RV_WIDTH_MIN */
int status_out_width(void);

/*
 * Ask for the status and render it to @out: the daemon's JSON as it sent it
 * (one line), the --ring view in @width columns (with --json: that ring's
 * object, json-c @json_flags), or the table (its lines cut at @cut
 * columns, 0: never). --pid and --comm are the daemon's to apply. Returns 0
 * (a failed write shows in ferror(@out)), or -1 with *msg (see cli_msgf()).
 */
int status_render(const struct cli_opts *o, FILE *out, int json_flags, int width, int cut,
		  char **msg);

/* the exit status */
int cmd_status(const struct cli_opts *o);

#endif /* UT_CLI_CMD_STATUS_H */
