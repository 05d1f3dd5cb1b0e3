/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Names of the values that cross to the kernel or to the agent (uringtune.h,
 * agent_abi.h), one table each (name_table.h): what the journal, status,
 * logs and `uringtune exec` read and print.
 */
#ifndef UT_ABI_NAMES_H
#define UT_ABI_NAMES_H

#include <stdint.h>

#include "agent_abi.h"
#include "name_table.h"

/* UT_TRACK_*, as the kernel names them: dynamic, static, inactive; NULL for others */
UT_NAME_TABLE_DECLARE(track_mode, uint8_t);

/* enum ut_agent_want: off, on, auto; "unset" for UT_WANT_UNSET (not a name it takes) */
UT_NAME_TABLE_DECLARE(agent_want, enum ut_agent_want);

/* enum ut_agent_entry: syscall, io_uring_queue_init, io_uring_setup; "unknown" for others */
UT_NAME_TABLE_DECLARE(agent_entry, enum ut_agent_entry);

#endif /* UT_ABI_NAMES_H */
