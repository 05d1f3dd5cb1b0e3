/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Directories a root daemon writes in, opened once and then used with *at()
 * calls only (atomic_file.h's *_at forms): a path is resolved here, one
 * component at a time, and never again. The textfile directory belongs to
 * node_exporter's user on Debian, and its parent too: that user must not be
 * able to point root's writes and unlinks elsewhere with a symlink.
 */
#ifndef UT_SAFE_DIR_H
#define UT_SAFE_DIR_H

#include <stddef.h>

/* create missing directories (0700), each made durable in its parent */
#define SAFE_DIR_CREATE		(1U << 0)

/*
 * Open directory @path. Every component is opened with O_NOFOLLOW; a
 * symlink is followed only when the directory holding it can be written by
 * root (or this process's euid) alone: owned by one of them, not writable
 * by group or others. Anyone else could have planted it. Returns a
 * descriptor (O_RDONLY | O_DIRECTORY | O_CLOEXEC: fsync and readdir work on
 * it) or -errno, with one line in @err naming @what ("state_dir"), the path
 * and what is wrong.
 */
int safe_dir_open(const char *what, const char *path, unsigned int flags, char *err,
		  size_t errlen);

/*
 * A directory only root (or this euid) can change, for state nobody else may
 * touch: owned by one of them, not writable by group or others. 0, or -EPERM
 * with one line in @err naming @what, @path, its owner and mode, and the fix.
 */
int safe_dir_check_private(int dirfd, const char *what, const char *path, char *err,
			   size_t errlen);

#endif /* UT_SAFE_DIR_H */
