/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rings the agent set up in this process, and carrying out the daemon's
 * later decisions for them from the program's own submit and wait calls.
 *
 * A fixed table of AGENT_MAX_RINGS records, no allocation ever (fork and
 * signal handlers stay simple): when it is full, a new ring is not managed by
 * the agent at all (no HELLO; set up exactly as the program asked).
 */
#ifndef UT_AGENT_RINGS_H
#define UT_AGENT_RINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include <liburing.h>

#include "agent_abi.h"
#include "agent_check.h"

#define AGENT_MAX_RINGS		256

struct agent_ring_rec {
	__u8 state;			/* internal: free, being set up, live */
	bool app_managed;		/* the program registers NAPI itself: hands off */
	struct io_uring *ring;		/* liburing's; NULL: syscall(2), io_uring_setup() */
	int fd;
	__u64 ino;			/* the ring file's inode: proves the fd still holds it */
	__u32 slot;			/* in the page of @epoch */
	__u32 applied_napi_gen;		/* the slot's napi_gen last applied (or refused) */
	__u32 setup_flags;		/* as the kernel got them */
	unsigned int epoch;		/* agent_page_adopt()'s */
};

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

/* agent_lock held: forget every record (a new page: old slot numbers are void) */
void agent_rings_forget_locked(void);

/* pthread_atfork handlers; called once from the environment's init */
void agent_rings_init_fork(void);

/*
 * Carry out @s's NAPI decision on @fd from the calling thread (the submitter
 * of a SINGLE_ISSUER ring must be: others get EEXIST), through the real
 * syscall. 0, or the first call's -errno (the rest are not made).
 */
int agent_napi_apply(int fd, const struct ut_agent_slot *s);

/* "NAPI 50 us registered (dynamic)" or "... refused: EEXIST", for debug lines */
void agent_napi_describe(char *buf, size_t len, const struct ut_agent_slot *s, int ret);

#endif /* UT_AGENT_RINGS_H */
