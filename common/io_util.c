// SPDX-License-Identifier: GPL-2.0-only
/* Small I/O helpers shared by the daemon and the CLI. */
#include <errno.h>
#include <unistd.h>

#include "io_util.h"

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}
