/* SPDX-License-Identifier: GPL-2.0-only */
/* Small I/O helpers shared by the daemon and the CLI. */
#ifndef UT_IO_UTIL_H
#define UT_IO_UTIL_H

#include <stddef.h>

/* write all of buf, retrying short writes and EINTR; 0 or -errno */
int write_all(int fd, const void *buf, size_t len);

/* create the directories above @path (mode 0755), like mkdir -p of its dirname; 0 or -errno */
int mkdir_parents(const char *path);

#endif /* UT_IO_UTIL_H */
