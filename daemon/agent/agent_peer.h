/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Who is on the other end of the agent socket, from the kernel, and what
 * the kernel says of that process and its rings later. A peer is its
 * process, not its pid: a pidfd (SO_PEERPIDFD, Linux 6.5+: the process
 * that connected, which no later process with the same pid can pass for)
 * beside pid, uid and start time (agent_guard.h). Before 6.5 the pidfd is
 * pidfd_open() of the pid at accept: a process that connected and exited
 * before the accept can be mistaken for one that took its pid in between,
 * which the uid and start time then have to tell apart.
 *
 * The message handling (agent_server.c) asks the kernel only through
 * struct agent_sys, so that unit tests and the fuzz target bring fakes.
 */
#ifndef UT_AGENT_PEER_H
#define UT_AGENT_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent_guard.h"

struct agent_peer {
	struct agent_id id;
	int pidfd;		/* -1: none (a fake, or no pidfd support at all) */
	bool exact;		/* the pidfd came from SO_PEERPIDFD */
};

/* the kernel's view, injectable */
struct agent_sys {
	/* @p is still the process that connected (alive, the same) */
	bool (*alive)(const struct agent_peer *p);
	/* the effective uid of process @pid now; 0 or -errno */
	int (*euid)(pid_t pid, uid_t *uid);
	/*
	 * @p holds, now, at @fd the file with inode @ino: 0; -ESTALE if
	 * another file is there. What cannot be told: -EBADF the fd is closed
	 * (the ring may be gone already), -EPERM the kernel will not show it
	 * (no ptrace rights: Yama ptrace_scope 3), -ESRCH @p is exiting; the
	 * caller then decides on what else it knows.
	 */
	int (*holds)(const struct agent_peer *p, int fd, uint64_t ino);
	/* a copy of @p's pidfd to keep beside a slot (-1 if none or on error) */
	int (*dup_pidfd)(const struct agent_peer *p);
	/* /proc/PID/comm, "" if gone */
	void (*comm)(pid_t pid, char *comm, size_t len);
	/* its executable (program_exe.h); NULL: not known ("") */
	void (*exe)(pid_t pid, char *exe, size_t len);
	/* a new slot token: random, never 0 */
	uint64_t (*token)(void);
};

extern const struct agent_sys agent_sys_kernel;

/*
 * The peer of a connected socket: SO_PEERCRED, SO_PEERPIDFD (or pidfd_open
 * of the pid before 6.5), the start time. 0, or -errno with nothing open:
 * -ESRCH the process that connected is gone (the message is then no one's).
 */
int agent_peer_of_socket(int fd, struct agent_peer *p);
/* close the pidfd (-1 after) */
void agent_peer_close(struct agent_peer *p);

#endif /* UT_AGENT_PEER_H */
