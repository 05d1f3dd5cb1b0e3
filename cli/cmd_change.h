/* SPDX-License-Identifier: GPL-2.0-only */
/* `uringtune set` and `uringtune reset`: one change asked of the daemon. */
#ifndef UT_CLI_CMD_CHANGE_H
#define UT_CLI_CMD_CHANGE_H

#include "options.h"

/* o->cmd is "set" or "reset"; the exit status */
int cmd_change(const struct cli_opts *o);

#endif /* UT_CLI_CMD_CHANGE_H */
