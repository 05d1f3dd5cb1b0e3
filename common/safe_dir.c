// SPDX-License-Identifier: GPL-2.0-only
/* Directories resolved once, without following others' symlinks: see safe_dir.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safe_dir.h"

/* symlinks followed in one resolution at most, as the kernel's MAXSYMLINKS */
#define MAX_LINKS	40

/* owned by root or us, writable by the owner only */
static bool only_ours(const struct stat *st)
{
	return (st->st_uid == 0 || st->st_uid == geteuid()) &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* the path still to resolve */
struct walk {
	char todo[PATH_MAX];
	size_t pos;
	unsigned int links;
};

/* the next component of w->todo into @comp; false at the end */
static bool next_comp(struct walk *w, char comp[NAME_MAX + 1], int *ret)
{
	const char *p = w->todo + w->pos;
	size_t len;

	while (*p == '/')
		p++;
	len = strcspn(p, "/");
	w->pos = p + len - w->todo;
	if (!len)
		return false;
	if (len > NAME_MAX) {
		*ret = -ENAMETOOLONG;
		return false;
	}
	memcpy(comp, p, len);
	comp[len] = '\0';
	return true;
}

/* a missing directory made, and made durable in its parent (held by @cur) */
static int make_dir(int cur, const char *comp)
{
	int fd, ret = 0;

	if (mkdirat(cur, comp, 0700) && errno != EEXIST)
		return -errno;
	fd = openat(cur, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * @comp in @cur is a symlink: follow it (w->todo becomes its target and
 * what was left) if @cur is only ours. *cur moves to "/" for an absolute one.
 */
static int follow(struct walk *w, int *cur, const char *comp, const char *what,
		  const char *path, char *err, size_t errlen)
{
	char target[PATH_MAX], next[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	if (fstat(*cur, &st))
		return -errno;
	if (!only_ours(&st)) {
		snprintf(err, errlen, "%s %s: '%s' is a symbolic link in a directory that uid %u "
			 "(mode %04o) can write: not followed (name the real directory)", what,
			 path, comp, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777));
		return -ELOOP;
	}
	n = readlinkat(*cur, comp, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	if (++w->links > MAX_LINKS ||
	    (size_t)snprintf(next, sizeof(next), "%s/%s", target, w->todo + w->pos) >= sizeof(next))
		return w->links > MAX_LINKS ? -ELOOP : -ENAMETOOLONG;
	memcpy(w->todo, next, sizeof(next));
	w->pos = 0;
	if (target[0] != '/')
		return 0;
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(*cur);
	*cur = fd;
	return 0;
}

/* one component: *cur moves into it (or follows it); 0 or -errno */
static int step(struct walk *w, int *cur, const char *comp, unsigned int flags,
		const char *what, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd, ret;

	fd = openat(*cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && (flags & SAFE_DIR_CREATE)) {
		ret = make_dir(*cur, comp);
		if (ret)
			return ret;
		fd = openat(*cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (S_ISLNK(st.st_mode)) {
		close(fd);
		return follow(w, cur, comp, what, path, err, errlen);
	}
	if (!S_ISDIR(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "%s %s: cannot open: '%s' is not a directory", what, path, comp);
		return -ENOTDIR;
	}
	close(*cur);
	*cur = fd;
	return 0;
}

int safe_dir_open(const char *what, const char *path, unsigned int flags, char *err,
		  size_t errlen)
{
	char comp[NAME_MAX + 1];
	struct walk w = { .pos = 0 };
	int cur, fd, ret = 0;

	err[0] = '\0';
	if (!path[0] || (size_t)snprintf(w.todo, sizeof(w.todo), "%s", path) >= sizeof(w.todo)) {
		ret = path[0] ? -ENAMETOOLONG : -ENOENT;
		goto fail;
	}
	cur = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0) {
		ret = -errno;
		goto fail;
	}
	while (!ret && next_comp(&w, comp, &ret))
		if (strcmp(comp, "."))
			ret = step(&w, &cur, comp, flags, what, path, err, errlen);
	/* O_PATH cannot be fsync'ed or read: the directory itself, opened for that */
	fd = ret ? -1 : openat(cur, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!ret && fd < 0)
		ret = -errno;
	close(cur);
	if (!ret)
		return fd;
fail:
	if (!err[0])
		snprintf(err, errlen, "%s %s: cannot open: %s", what, path, strerror(-ret));
	return ret;
}

int safe_dir_check_private(int dirfd, const char *what, const char *path, char *err,
			   size_t errlen)
{
	struct stat st;

	if (fstat(dirfd, &st)) {
		snprintf(err, errlen, "%s %s: %s", what, path, strerror(errno));
		return -errno;
	}
	if (only_ours(&st))
		return 0;
	snprintf(err, errlen, "%s %s: owned by uid %u with mode %04o: expected a directory owned "
		 "by root and writable by it alone (chown root: %s && chmod 0700 %s)", what, path,
		 (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777), path, path);
	return -EPERM;
}
