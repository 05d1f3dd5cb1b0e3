/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fake kernel for the agent server (struct agent_sys), shared by its unit
 * tests (test_daemon_agent_server.c) and its fuzz target
 * (tests/fuzz/fuzz_agent_server.c). Each process of the fake is a memfd
 * whose inode stands for it, so that a pid's next process (even in the same
 * clock tick) is another process, as with real pidfds; a process holds the
 * rings it is told to (process, fd, inode).
 */
#ifndef UT_FAKE_KERNEL_H
#define UT_FAKE_KERNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent_peer.h"

#define FAKE_MAX_PROCS	16
#define FAKE_MAX_HELD	16

struct fake_proc {
	int fd;			/* the memfd standing for the process; its inode is it */
	ino_t key;
	pid_t pid;
	uid_t euid;
	uint64_t start;		/* ticks */
	bool dead;		/* set by the test: the process has exited */
};

/* the fake's answers to the agent server; tokens count up from 0x1000 */
extern const struct agent_sys fake_kernel_sys;

/*
 * A process (and the peer it would be on the socket: its own pidfd, which
 * the caller closes with agent_peer_close()). More processes or rings held
 * than the tables have room for abort the test.
 */
struct fake_proc *fake_spawn(pid_t pid, uid_t uid, uint64_t start, struct agent_peer *peer);
/* @pr holds a ring at @fd with inode @ino */
void fake_hold_ring(struct fake_proc *pr, int fd, uint64_t ino);
/* no process (their memfds closed) and no ring held; the token counter goes on */
void fake_kernel_reset(void);

#endif /* UT_FAKE_KERNEL_H */
