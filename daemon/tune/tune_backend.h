/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How a NAPI setting reaches a ring: the one interface the lifecycle
 * (lifecycle.c) applies settings through. Two implementations:
 *   "register"  from outside: pidfd_getfd + io_uring_register (backend_pidfd.c);
 *               immediate, journaled before the first change
 *   "agent"     through the ring's in-process agent and its policy-page slot
 *               (agent_backend.c); applied at the ring's next submit or wait,
 *               confirmed by the BPF register event; the page is its record
 */
#ifndef UT_TUNE_BACKEND_H
#define UT_TUNE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

struct journal_entry;
struct tuner_setting;
struct ut_ring;

struct tune_backend {
	const char *name;		/* status: managed_via */
	bool journaled;			/* a journal entry before the first change */
	bool deferred;			/* lands later: the register event confirms it */
	/* give the ring s; 0 or a negative errno with err set */
	int (*apply)(void *arg, const struct ut_ring *ring, const struct tuner_setting *s,
		     char *err, size_t errlen);
	/* journaled backends: put back what e recorded; 0 or -errno (-ESRCH, -ESTALE: gone) */
	int (*restore)(void *arg, const struct journal_entry *e, char *err, size_t errlen);
	void *arg;
};

#endif /* UT_TUNE_BACKEND_H */
