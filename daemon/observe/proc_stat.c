// SPDX-License-Identifier: GPL-2.0-only
/* /proc/PID/stat's start time. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc_stat.h"

int proc_start_ticks(pid_t pid, uint64_t *ticks)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: fields start after the last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return -ESRCH;
	/* the space after ')' opens field 3; 20 spaces on, field 22 */
	for (i = 2; i < 22 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%" SCNu64, ticks) != 1)
		return -ESRCH;
	return 0;
}

bool proc_same_start(pid_t pid, uint64_t start_boottime)
{
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t ticks;

	if (proc_start_ticks(pid, &ticks))
		return false;
	if (!start_boottime || hz <= 0)
		return true;
	/* the kernel prints nsec_to_clock_t(start_boottime): truncating division */
	return ticks == start_boottime / (1000000000ULL / (uint64_t)hz);
}

uint64_t proc_fd_ino(pid_t pid, int fd)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
	if (stat(path, &st))
		return 0;
	return st.st_ino;
}

int proc_comm(pid_t pid, char *comm, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, comm, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && comm[n - 1] == '\n')
		n--;
	comm[n] = '\0';
	return 0;
}
