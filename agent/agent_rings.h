/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rings the agent set up in this process: the records of the ring table
 * (agent_state.h), from reservation to their end.
 */
#ifndef UT_AGENT_RINGS_H
#define UT_AGENT_RINGS_H

#include <stdbool.h>

#include "agent_abi.h"
#include "agent_state.h"

struct io_uring;

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

/* does @r's fd still hold the ring it was set up as? (closed and reused: no) */
bool agent_rings_still_there(const struct agent_ring_rec *r);

/* agent_state.lock held: free record @i */
void agent_rings_free_locked(unsigned int i);

/* agent_state.lock held: forget every record (a new page: old slot numbers are void) */
void agent_rings_forget_locked(void);

#endif /* UT_AGENT_RINGS_H */
