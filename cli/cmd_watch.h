/* SPDX-License-Identifier: GPL-2.0-only */
/* `uringtune status --watch`: the status redrawn every second until stopped. */
#ifndef UT_CLI_CMD_WATCH_H
#define UT_CLI_CMD_WATCH_H

#include "options.h"

/* the exit status: 0 when SIGINT or SIGTERM stopped it */
int cmd_watch(const struct cli_opts *o);

#endif /* UT_CLI_CMD_WATCH_H */
