// SPDX-License-Identifier: GPL-2.0-only
/* Names of the kernel's and the agent's values: see abi_names.h. */
#include "abi_names.h"
#include "uringtune.h"

static const char *const track_mode_names[UT_TRACK_INACTIVE + 1] = {
	[UT_TRACK_DYNAMIC]	= "dynamic",
	[UT_TRACK_STATIC]	= "static",
	[UT_TRACK_INACTIVE]	= "inactive",
};
UT_NAME_TABLE(track_mode, uint8_t, NULL)

static const char *const agent_want_names[] = {
	[UT_WANT_OFF]	= "off",
	[UT_WANT_ON]	= "on",
	[UT_WANT_AUTO]	= "auto",
};
UT_NAME_TABLE(agent_want, enum ut_agent_want, "unset")

static const char *const agent_entry_names[] = {
	[UT_ENTRY_SYSCALL]		= "syscall",
	[UT_ENTRY_LIBURING]		= "io_uring_queue_init",
	[UT_ENTRY_LIBURING_SETUP]	= "io_uring_setup",
};
UT_NAME_TABLE(agent_entry, enum ut_agent_entry, "unknown")
