/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A ring's setup through the agent: ask the daemon, set the ring up with its
 * decision, register NAPI from the setting-up thread, tell the daemon.
 */
#ifndef UT_AGENT_SETUP_H
#define UT_AGENT_SETUP_H

#include <linux/types.h>

#include <liburing.h>

#include "agent_abi.h"

struct agent_setup {
	enum ut_agent_entry entry;
	unsigned int entries;
	__u32 prog_flags;		/* the IORING_SETUP_* the program asked for */
	struct io_uring *ring;		/* liburing's, or NULL */
	/*
	 * The real setup with @flags, leaving the program's own flags in its
	 * params and ring: the ring fd, or -errno.
	 */
	int (*call)(struct agent_setup *su, __u32 flags);
	void *arg;			/* for @call */
	int mem_used;			/* io_uring_queue_init_mem: what @call's setup returned */
};

/*
 * Set a ring up as the daemon decides, or exactly as the program asked when
 * there is no daemon or no valid decision. Returns what @call returned for
 * the setup that counts (the ring fd or -errno); errno is as on entry.
 */
int agent_setup(struct agent_setup *su);

#endif /* UT_AGENT_SETUP_H */
