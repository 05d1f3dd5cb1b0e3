// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent's log line. It runs inside other programs, from any thread and
 * after a fork: libc's write(2) only, no stdio, no allocation, no lock.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent_log.h"

void agent_log(const char *fmt, ...)
{
	static const char prefix[] = "uringtune-agent: ";
	int saved_errno = errno;
	char buf[512];
	size_t len = sizeof(prefix) - 1, off = 0;
	va_list ap;
	ssize_t n;
	int r;

	memcpy(buf, prefix, len);
	va_start(ap, fmt);
	r = vsnprintf(buf + len, sizeof(buf) - len - 1, fmt, ap);
	va_end(ap);
	if (r < 0)
		r = 0;
	len += (size_t)r < sizeof(buf) - len - 1 ? (size_t)r : sizeof(buf) - len - 2;
	buf[len++] = '\n';
	/* one write: lines of several threads do not interleave */
	while (off < len) {
		n = write(STDERR_FILENO, buf + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += n;
	}
	errno = saved_errno;
}

const char *agent_errname(int err)
{
	const char *name = strerrorname_np(err < 0 ? -err : err);

	return name ? name : "unknown error";
}
