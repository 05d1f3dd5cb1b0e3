// SPDX-License-Identifier: GPL-2.0-only
/* The agent socket's peers as the kernel knows them: pidfd, uid, start time, rings held. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent_peer.h"
#include "clock.h"
#include "io_util.h"
#include "proc_stat.h"
#include "program_exe.h"
#include "select.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD	77	/* Linux 6.5 */
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open	434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd	438
#endif

/* a pidfd polls readable once its process has exited (a zombie included) */
static bool pidfd_alive(int pidfd)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	int n;

	do
		n = poll(&pfd, 1, 0);
	while (n < 0 && errno == EINTR);
	return n == 0;
}

static bool sys_alive(const struct agent_peer *p)
{
	uint64_t ticks;

	if (p->pidfd >= 0)
		return pidfd_alive(p->pidfd);
	/* no pidfds at all (before 5.3): the start time is all there is */
	return !proc_start_ticks(p->id.pid, &ticks) && ticks == p->id.start_ticks;
}

static int sys_euid(pid_t pid, uid_t *uid)
{
	char cgroup[8];

	return select_read_identity("/proc", pid, uid, cgroup, sizeof(cgroup));
}

/*
 * A copy of the peer's fd through its pidfd (ptrace rights, which root has)
 * proves what that very process holds there now; closed at once (the copy
 * keeps the ring alive).
 */
static int sys_holds(const struct agent_peer *p, int fd, uint64_t ino)
{
	struct stat st;
	int copy, ret;

	if (p->pidfd < 0)
		return -EPERM;
	copy = syscall(SYS_pidfd_getfd, p->pidfd, fd, 0);
	if (copy < 0) {
		ret = -errno;
		if (ret == -EBADF)
			return -EBADF;
		return ret == -EPERM || ret == -EACCES ? -EPERM : -ESRCH;
	}
	ret = !fstat(copy, &st) && (uint64_t)st.st_ino == ino && fd_is_io_uring(copy) ? 0 : -ESTALE;
	close(copy);
	return ret;
}

static int sys_dup_pidfd(const struct agent_peer *p)
{
	return p->pidfd < 0 ? -1 : fcntl(p->pidfd, F_DUPFD_CLOEXEC, 3);
}

static void sys_comm(pid_t pid, char *comm, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	comm[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, len - 1);
	close(fd);
	if (n <= 0)
		return;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

/*
 * Random, so that a token of a previous run's page (taken over) is not
 * drawn again; it is no secret. Without entropy yet, a counter from the
 * clock: unique is all it must be.
 */
static uint64_t sys_token(void)
{
	static uint64_t counter;
	uint64_t t = 0;

	while (!t) {
		if (getrandom(&t, sizeof(t), GRND_NONBLOCK) != sizeof(t))
			t = now_ns() ^ (++counter * 0x9e3779b97f4a7c15ULL);
	}
	return t;
}

const struct agent_sys agent_sys_kernel = {
	.alive = sys_alive,
	.euid = sys_euid,
	.holds = sys_holds,
	.dup_pidfd = sys_dup_pidfd,
	.comm = sys_comm,
	.exe = program_exe,
	.token = sys_token,
};

/* the process that connected, as a pidfd: exact from 6.5, else the pid's process now */
static int peer_pidfd(int fd, pid_t pid, bool *exact)
{
	socklen_t len = sizeof(int);
	int pidfd = -1;

	*exact = false;
	if (!getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) && pidfd >= 0) {
		*exact = true;
		return pidfd;
	}
	/* the process that connected has exited (and was reaped) */
	if (errno != ENOPROTOOPT && errno != EINVAL && errno != EOPNOTSUPP)
		return -ESRCH;
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd >= 0)
		return pidfd;
	/* before 5.3 there are no pidfds: the start time alone (sys_alive) */
	return errno == ENOSYS ? -1 : -ESRCH;
}

int agent_peer_of_socket(int fd, struct agent_peer *p)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int ret;

	memset(p, 0, sizeof(*p));
	p->pidfd = -1;
	/* pid 0: a process of a pid namespace we cannot see into */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.pid <= 0)
		return -ESRCH;
	p->id.pid = cred.pid;
	p->id.uid = cred.uid;
	ret = peer_pidfd(fd, cred.pid, &p->exact);
	if (ret < -1)
		return ret;
	p->pidfd = ret;
	/* read after the pidfd pins the process, believed only if it still lives after */
	if (proc_start_ticks(cred.pid, &p->id.start_ticks) || !sys_alive(p)) {
		agent_peer_close(p);
		return -ESRCH;
	}
	return 0;
}

void agent_peer_close(struct agent_peer *p)
{
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
}
