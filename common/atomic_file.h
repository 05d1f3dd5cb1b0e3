/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A file replaced whole: written under a temporary name in its own
 * directory, then renamed over the old one, so that a reader (and a crash)
 * sees the old file or the new one, never part of either.
 *
 *	struct atomic_file af;
 *
 *	ret = atomic_file_open(&af, path, "name.tmp.XXXXXX", 0600);
 *	... write to af.fd; on an error of the caller's: atomic_file_abort() ...
 *	ret = atomic_file_commit(&af, ATOMIC_FSYNC | ATOMIC_FSYNC_DIR);
 *
 * or atomic_file_write() for a buffer in one call. The *_at() forms work in
 * a directory the caller opened (safe_dir.h): the temporary file is made
 * with openat(O_EXCL|O_NOFOLLOW), renamed with renameat(), removed with
 * unlinkat(), so nothing resolves a path again after the caller checked the
 * directory, and no symlink in it is followed. A failure leaves no
 * temporary file behind, and af.step says which step failed ("create a
 * temporary file", "chmod", "write", "fsync", "close", "rename", "fsync the
 * directory") for the caller's message. Only a failed directory fsync comes
 * after the rename: the new file may then be visible, durable or not.
 */
#ifndef UT_ATOMIC_FILE_H
#define UT_ATOMIC_FILE_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

/* the data reaches the disk before the name: a crash never leaves an empty file */
#define ATOMIC_FSYNC		(1U << 0)
/* the rename reaches the disk before commit returns */
#define ATOMIC_FSYNC_DIR	(1U << 1)

struct atomic_file {
	const char *path;	/* the file replaced (*_at: its name in dirfd); the caller's */
	char tmp[PATH_MAX];	/* the temporary file, "" once renamed or removed */
	int fd;			/* open on tmp, -1 once closed */
	const char *step;	/* the step last tried: the one that failed */
	int dirfd;		/* *_at: the directory of both names; -1: paths */
};

/*
 * Create the temporary file: @tmp_name (a mkstemp() template, "XXXXXX" at
 * its end) in @path's directory, or @path with ".XXXXXX" appended if
 * @tmp_name is NULL; close-on-exec, mode exactly @mode (not masked by the
 * umask). 0 or -errno.
 */
int atomic_file_open(struct atomic_file *af, const char *path, const char *tmp_name,
		     mode_t mode);

/*
 * As atomic_file_open(), in directory @dirfd (kept open by the caller until
 * commit or abort, readable if ATOMIC_FSYNC_DIR): @name is replaced, the
 * temporary file is @tmp_name with its XXXXXX made random, created with
 * O_EXCL|O_NOFOLLOW. 0 or -errno.
 */
int atomic_file_open_at(struct atomic_file *af, int dirfd, const char *name,
			const char *tmp_name, mode_t mode);

/* fsync it as @flags say, close it, rename it over path. 0 or -errno */
int atomic_file_commit(struct atomic_file *af, unsigned int flags);

/* close and remove the temporary file; nothing is replaced */
void atomic_file_abort(struct atomic_file *af);

/* open, write @buf, commit: the whole of it; *step as af.step (may be NULL) */
int atomic_file_write(const char *path, const char *tmp_name, mode_t mode, const void *buf,
		      size_t len, unsigned int flags, const char **step);

/* atomic_file_write() in directory @dirfd (see atomic_file_open_at()) */
int atomic_file_write_at(int dirfd, const char *name, const char *tmp_name, mode_t mode,
			 const void *buf, size_t len, unsigned int flags, const char **step);

/*
 * Remove the temporary files a crash left in @dir: names made from
 * @tmp_name (its prefix and length), never renamed, so never the file.
 * @removed (may be NULL) is told of each, with 0 or the -errno of unlink().
 */
void atomic_file_remove_stale(const char *dir, const char *tmp_name,
			      void (*removed)(const char *path, int err, void *data),
			      void *data);

/* the same in directory @dirfd, with unlinkat(); @removed is told the name */
void atomic_file_remove_stale_at(int dirfd, const char *tmp_name,
				 void (*removed)(const char *name, int err, void *data),
				 void *data);

/* fsync a directory, so that the entries created or renamed in it last; 0 or -errno */
int fsync_dir(const char *dir);

#endif /* UT_ATOMIC_FILE_H */
