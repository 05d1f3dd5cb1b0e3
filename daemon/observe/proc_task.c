// SPDX-License-Identifier: GPL-2.0-only
/* /proc's figure of one thread's CPU time. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "proc_task.h"

int proc_task_cpu_ns(pid_t tgid, pid_t tid, uint64_t *ns)
{
	char path[64], buf[96], *end;
	unsigned long long v;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)tgid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -ENODATA;
	buf[n] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf || (*end != ' ' && *end != '\n'))
		return -EINVAL;
	*ns = v;
	return 0;
}
