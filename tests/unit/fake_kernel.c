// SPDX-License-Identifier: GPL-2.0-only
/* A fake kernel for the agent server's tests: see fake_kernel.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_kernel.h"

static struct fake_proc procs[FAKE_MAX_PROCS];
static unsigned int n_procs;
/* rings held: (process key, fd, inode) */
static struct { ino_t key; int fd; uint64_t ino; } held[FAKE_MAX_HELD];
static unsigned int n_held;
static uint64_t next_token = 0x1000;

static struct fake_proc *proc_of_fd(int fd)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		return NULL;
	for (unsigned int i = 0; i < n_procs; i++)
		if (procs[i].key == st.st_ino)
			return &procs[i];
	return NULL;
}

static bool f_alive(const struct agent_peer *p)
{
	struct fake_proc *pr = proc_of_fd(p->pidfd);

	return pr && !pr->dead;
}

static int f_euid(pid_t pid, uid_t *uid)
{
	/* the live process with that pid now */
	for (unsigned int i = 0; i < n_procs; i++)
		if (procs[i].pid == pid && !procs[i].dead) {
			*uid = procs[i].euid;
			return 0;
		}
	return -ESRCH;
}

static int f_holds(const struct agent_peer *p, int fd, uint64_t ino)
{
	struct fake_proc *pr = proc_of_fd(p->pidfd);

	if (!pr || pr->dead)
		return -ESRCH;
	for (unsigned int i = 0; i < n_held; i++)
		if (held[i].key == pr->key && held[i].fd == fd && held[i].ino == ino)
			return 0;
	return -ESTALE;
}

static int f_dup(const struct agent_peer *p)
{
	return fcntl(p->pidfd, F_DUPFD_CLOEXEC, 3);
}

static void f_comm(pid_t pid, char *comm, size_t len)
{
	snprintf(comm, len, "app%d", pid);
}

static uint64_t f_token(void)
{
	return next_token++;
}

const struct agent_sys fake_kernel_sys = {
	.alive = f_alive, .euid = f_euid, .holds = f_holds, .dup_pidfd = f_dup,
	.comm = f_comm, .token = f_token,
};

/* a test that needs more than the tables hold is a defect of the test */
static void full(const char *what)
{
	fprintf(stderr, "fake_kernel: %s\n", what);
	abort();
}

struct fake_proc *fake_spawn(pid_t pid, uid_t uid, uint64_t start, struct agent_peer *peer)
{
	struct fake_proc *pr;
	struct stat st;
	int fd;

	if (n_procs == FAKE_MAX_PROCS)
		full("more than FAKE_MAX_PROCS processes");
	fd = memfd_create("proc", MFD_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		full("no memfd to stand for a process");
	pr = &procs[n_procs++];
	*pr = (struct fake_proc){ .fd = fd, .key = st.st_ino, .pid = pid, .euid = uid,
				  .start = start };
	*peer = (struct agent_peer){
		.id = { .pid = pid, .uid = uid, .start_ticks = start },
		.pidfd = fcntl(fd, F_DUPFD_CLOEXEC, 3),
		.exact = true,
	};
	return pr;
}

void fake_hold_ring(struct fake_proc *pr, int fd, uint64_t ino)
{
	if (n_held == FAKE_MAX_HELD)
		full("more than FAKE_MAX_HELD rings held");
	held[n_held].key = pr->key;
	held[n_held].fd = fd;
	held[n_held].ino = ino;
	n_held++;
}

void fake_kernel_reset(void)
{
	for (unsigned int i = 0; i < n_procs; i++)
		close(procs[i].fd);
	n_procs = n_held = 0;
}
