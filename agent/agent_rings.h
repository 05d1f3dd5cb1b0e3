/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rings the agent set up in this process (the ring table of
 * agent_state.h), and carrying out the daemon's later decisions for them from
 * the program's own submit and wait calls.
 */
#ifndef UT_AGENT_RINGS_H
#define UT_AGENT_RINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include <liburing.h>

#include "agent_abi.h"
#include "agent_check.h"
#include "agent_state.h"

/* a record for a ring about to be set up: its index, or -ENOSPC */
int agent_rings_reserve(void);
void agent_rings_release(int idx);
/*
 * The ring is set up: make the record live. false (record released) if the
 * page changed meanwhile (the slot number is of a page no longer mapped).
 * Any other record of the same fd is dropped: that ring was closed without
 * io_uring_queue_exit.
 */
bool agent_rings_commit(int idx, const struct agent_ring_rec *r);

/* io_uring_queue_exit: forget @ring (or the record of @fd) */
void agent_rings_drop(struct io_uring *ring, int fd);

/*
 * The program registers or unregisters NAPI itself on @fd: if that is one of
 * the agent's rings, mark it app-managed for good and fill @msg (APP_NAPI)
 * to tell the daemon; true then, once per ring.
 */
bool agent_rings_app_napi(int fd, struct ut_agent_ring *msg);

/* agent_state.lock held: forget every record (a new page: old slot numbers are void) */
void agent_rings_forget_locked(void);

/*
 * Carry out @s's NAPI decision on @fd from the calling thread (the submitter
 * of a SINGLE_ISSUER ring must be: others get EEXIST), through the real
 * syscall. 0, or the first call's -errno (the rest are not made).
 */
int agent_napi_apply(int fd, const struct ut_agent_slot *s);

/* "NAPI 50 us registered (dynamic)" or "... refused: EEXIST", for debug lines */
void agent_napi_describe(char *buf, size_t len, const struct ut_agent_slot *s, int ret);

#endif /* UT_AGENT_RINGS_H */
