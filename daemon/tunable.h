/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Can uringtune change this ring's NAPI settings from outside? A pure
 * function of what the kernel told us about the ring.
 */
#ifndef UT_TUNABLE_H
#define UT_TUNABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "name_table.h"

enum ut_managed_by {
	UT_MANAGED_NONE,	/* nobody registered NAPI on it */
	UT_MANAGED_APP,		/* its application registers NAPI itself */
	UT_MANAGED_URINGTUNE,	/* uringtune changed it */
};

/* none, app, uringtune ("none" for a value that is none of them) */
UT_NAME_TABLE_DECLARE(managed_by, enum ut_managed_by);

/*
 * Returns true if uringtune may register NAPI on the ring through a
 * pidfd_getfd copy of its fd. *reason is a static one-line explanation when
 * it may not, "" when it may.
 */
bool ring_tunable(uint32_t setup_flags, bool napi_supported,
		  enum ut_managed_by managed_by, const char **reason);

/*
 * As ring_tunable(), for a ring set up through the in-process agent (@agent):
 * the agent registers from the submitting thread, so SINGLE_ISSUER and
 * DEFER_TASKRUN rings are tunable too. Everything else still applies.
 */
bool ring_tunable_agent(uint32_t setup_flags, bool napi_supported,
			enum ut_managed_by managed_by, bool agent, const char **reason);

#endif /* UT_TUNABLE_H */
