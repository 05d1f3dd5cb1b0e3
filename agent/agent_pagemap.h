/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's policy page, as this process maps it: one mapping at a time,
 * read-only, shared. The fast path reads it as agent_fast.page
 * (agent_state.h).
 */
#ifndef UT_AGENT_PAGEMAP_H
#define UT_AGENT_PAGEMAP_H

#include <linux/types.h>

#include "agent_abi.h"

/*
 * Use the page behind @fd (a reply's fd; closed in every case). The file
 * already mapped: nothing to do. Another valid one: map it, forget the ring
 * records of the old one, retire the old mapping. 0 with the mapping in
 * *@pg, its slot count in *@nslots and its epoch (bumped at every switch;
 * a ring record is only valid for the epoch it was made under) in *@epoch;
 * else -errno with a static reason in *@why, and the old page, if any, stays.
 * Takes agent_state.lock; errno is preserved.
 */
int agent_page_adopt(int fd, const struct ut_agent_page **pg, __u32 *nslots,
		     unsigned int *epoch, const char **why);

#endif /* UT_AGENT_PAGEMAP_H */
