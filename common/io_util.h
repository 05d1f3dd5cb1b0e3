/* SPDX-License-Identifier: GPL-2.0-only */
/* Small I/O helpers shared by the daemon and the CLI. */
#ifndef UT_IO_UTIL_H
#define UT_IO_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* write all of buf, retrying short writes and EINTR; 0 or -errno */
int write_all(int fd, const void *buf, size_t len);

/* create the directories above @path (mode 0755), like mkdir -p of its dirname; 0 or -errno */
int mkdir_parents(const char *path);

/* does @fd (ours) refer to an io_uring instance (its /proc/self/fd link names it) */
bool fd_is_io_uring(int fd);

/*
 * A listening unix socket (non-blocking, close-on-exec) of @type at @path,
 * mode @mode, its directories created. A socket file left by a dead process
 * (it refuses connections) is replaced; one something listens on is not.
 * Returns the fd, or -errno with one line in @err naming @what and @path.
 */
int unix_listen(const char *what, const char *path, int type, mode_t mode, int backlog,
		char *err, size_t errlen);

#endif /* UT_IO_UTIL_H */
