// SPDX-License-Identifier: GPL-2.0-only
/* Small I/O helpers shared by the daemon and the CLI. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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

int mkdir_parents(const char *path)
{
	char dir[PATH_MAX];
	char *p;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	p = strrchr(dir, '/');
	if (!p || p == dir)
		return 0;
	*p = '\0';
	for (p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int unix_listen(const char *what, const char *path, int type, mode_t mode, int backlog,
		char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, ret;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "%s %s: longer than %zu bytes", what, path,
			 sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	ret = mkdir_parents(path);
	if (ret) {
		snprintf(err, errlen, "%s %s: cannot create its directory: %s", what, path,
			 strerror(-ret));
		return ret;
	}
	fd = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", what, strerror(-ret));
		return ret;
	}
	/* a socket file left by a dead daemon refuses connections: replace it */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		snprintf(err, errlen, "%s %s: another uringtuned is already listening there",
			 what, path);
		ret = -EADDRINUSE;
		goto fail;
	}
	if (errno == ECONNREFUSED)
		unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || chmod(path, mode) ||
	    listen(fd, backlog)) {
		ret = -errno;
		snprintf(err, errlen, "%s %s: %s", what, path, strerror(-ret));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return ret;
}

bool fd_is_io_uring(int fd)
{
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	return strcmp(link, "anon_inode:[io_uring]") == 0;
}
