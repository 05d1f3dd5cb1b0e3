/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Carrying out one slot's NAPI decision on one ring, and saying how it went.
 * Stateless: which ring and from which thread is the caller's choice
 * (agent_setup.c right after setup, agent_poll.c later).
 */
#ifndef UT_AGENT_NAPI_H
#define UT_AGENT_NAPI_H

#include <stddef.h>

#include "agent_abi.h"

/*
 * Carry out @s's NAPI decision on @fd from the calling thread (the submitter
 * of a SINGLE_ISSUER ring must be: others get EEXIST), through the real
 * syscall. 0, or the first call's -errno (the rest are not made).
 */
int agent_napi_apply(int fd, const struct ut_agent_slot *s);

/* "NAPI 50 us registered (dynamic)" or "... refused: EEXIST", for debug lines */
void agent_napi_describe(char *buf, size_t len, const struct ut_agent_slot *s, int ret);

#endif /* UT_AGENT_NAPI_H */
