// SPDX-License-Identifier: GPL-2.0-only
/* Files replaced whole, by rename from a temporary file: see atomic_file.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "io_util.h"

/* the length of @path's directory part with its '/', 0 for a bare name */
static size_t dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) + 1 : 0;
}

int fsync_dir(const char *dir)
{
	int fd, ret = 0;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

/* fsync @path's directory: "/" for "/name", "." for a bare name */
static int fsync_parent(const char *path)
{
	char dir[PATH_MAX];
	size_t len = dir_len(path);

	if (!len)
		return fsync_dir(".");
	if (len > 1)
		len--;		/* "a/b/" -> "a/b", "/" stays */
	if (len >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, len);
	dir[len] = '\0';
	return fsync_dir(dir);
}

/* the new file's mode exactly @mode, whatever the umask; 0, or -errno and aborted */
static int exact_mode(struct atomic_file *af, mode_t mode)
{
	int ret;

	af->step = "chmod";
	if (!fchmod(af->fd, mode))
		return 0;
	ret = -errno;
	atomic_file_abort(af);
	return ret;
}

int atomic_file_open(struct atomic_file *af, const char *path, const char *tmp_name,
		     mode_t mode)
{
	int n, ret;

	af->path = path;
	af->fd = -1;
	af->dirfd = -1;
	af->step = "create a temporary file";
	if (tmp_name)
		n = snprintf(af->tmp, sizeof(af->tmp), "%.*s%s", (int)dir_len(path), path,
			     tmp_name);
	else
		n = snprintf(af->tmp, sizeof(af->tmp), "%s.XXXXXX", path);
	if (n < 0 || (size_t)n >= sizeof(af->tmp)) {
		af->tmp[0] = '\0';
		return -ENAMETOOLONG;
	}
	af->fd = mkostemp(af->tmp, O_CLOEXEC);
	if (af->fd < 0) {
		ret = -errno;
		af->tmp[0] = '\0';	/* nothing to unlink */
		return ret;
	}
	/* mkstemp's 0600 is masked by the umask */
	return exact_mode(af, mode);
}

/* @tmp's trailing XXXXXX made random, as mkstemp() does */
static int random_name(char *tmp)
{
	static const char chars[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	size_t len = strlen(tmp);
	unsigned char rnd[6];

	if (len < 6 || strcmp(tmp + len - 6, "XXXXXX"))
		return -EINVAL;
	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -EIO;
	for (int i = 0; i < 6; i++)
		tmp[len - 6 + i] = chars[rnd[i] % (sizeof(chars) - 1)];
	return 0;
}

int atomic_file_open_at(struct atomic_file *af, int dirfd, const char *name,
			const char *tmp_name, mode_t mode)
{
	int ret = -EEXIST;

	af->path = name;
	af->fd = -1;
	af->dirfd = dirfd;
	af->step = "create a temporary file";
	af->tmp[0] = '\0';
	if (strchr(name, '/') || strchr(tmp_name, '/') || strlen(tmp_name) >= NAME_MAX)
		return -EINVAL;
	/* a name someone else made (EEXIST) is never used: another try */
	for (int tries = 0; tries < 100 && ret == -EEXIST; tries++) {
		snprintf(af->tmp, sizeof(af->tmp), "%s", tmp_name);
		ret = random_name(af->tmp);
		if (ret)
			break;
		af->fd = openat(dirfd, af->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				mode);
		ret = af->fd < 0 ? -errno : 0;
	}
	if (ret) {
		af->tmp[0] = '\0';
		return ret;
	}
	return exact_mode(af, mode);
}

void atomic_file_abort(struct atomic_file *af)
{
	if (af->fd >= 0)
		close(af->fd);
	af->fd = -1;
	if (af->tmp[0] && af->dirfd >= 0)
		unlinkat(af->dirfd, af->tmp, 0);
	else if (af->tmp[0])
		unlink(af->tmp);
	af->tmp[0] = '\0';
}

int atomic_file_commit(struct atomic_file *af, unsigned int flags)
{
	int ret;

	af->step = "fsync";
	if ((flags & ATOMIC_FSYNC) && fsync(af->fd))
		goto fail;
	af->step = "close";
	ret = close(af->fd);
	af->fd = -1;
	if (ret)
		goto fail;
	af->step = "rename";
	if (af->dirfd >= 0 ? renameat(af->dirfd, af->tmp, af->dirfd, af->path) :
	    rename(af->tmp, af->path))
		goto fail;
	af->tmp[0] = '\0';
	if (!(flags & ATOMIC_FSYNC_DIR))
		return 0;
	af->step = "fsync the directory";
	if (af->dirfd >= 0)
		return fsync(af->dirfd) ? -errno : 0;
	return fsync_parent(af->path);
fail:
	ret = -errno;
	atomic_file_abort(af);
	return ret;
}

/* write @buf to the opened file and commit it; *step as af.step */
static int write_commit(struct atomic_file *af, int ret, const void *buf, size_t len,
			unsigned int flags, const char **step)
{
	if (ret)
		goto out;
	af->step = "write";
	ret = write_all(af->fd, buf, len);
	if (ret) {
		atomic_file_abort(af);
		goto out;
	}
	ret = atomic_file_commit(af, flags);
out:
	if (step)
		*step = af->step;
	return ret;
}

int atomic_file_write_at(int dirfd, const char *name, const char *tmp_name, mode_t mode,
			 const void *buf, size_t len, unsigned int flags, const char **step)
{
	struct atomic_file af;

	return write_commit(&af, atomic_file_open_at(&af, dirfd, name, tmp_name, mode), buf, len,
			    flags, step);
}

int atomic_file_write(const char *path, const char *tmp_name, mode_t mode, const void *buf,
		      size_t len, unsigned int flags, const char **step)
{
	struct atomic_file af;

	return write_commit(&af, atomic_file_open(&af, path, tmp_name, mode), buf, len, flags,
			    step);
}

void atomic_file_remove_stale(const char *dir, const char *tmp_name,
			      void (*removed)(const char *path, int err, void *data),
			      void *data)
{
	size_t tlen = strlen(tmp_name), dlen = strlen(dir), prefix;
	struct dirent *de;
	DIR *dh;

	/* a template without a name before its XXXXXX would match anything */
	if (tlen <= strlen("XXXXXX") || !dlen)
		return;
	prefix = tlen - strlen("XXXXXX");
	/* "dir/" and "dir" alike, "/" kept */
	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;
	dh = opendir(dir);
	if (!dh)
		return;
	while ((de = readdir(dh))) {
		char path[PATH_MAX];
		int n, err;

		if (strncmp(de->d_name, tmp_name, prefix) ||
		    strlen(de->d_name) != tlen)
			continue;
		n = snprintf(path, sizeof(path), "%.*s%s%s", (int)dlen, dir,
			     dir[dlen - 1] == '/' ? "" : "/", de->d_name);
		if (n < 0 || (size_t)n >= sizeof(path))
			continue;
		err = unlink(path) ? -errno : 0;
		if (removed)
			removed(path, err, data);
	}
	closedir(dh);
}

void atomic_file_remove_stale_at(int dirfd, const char *tmp_name,
				 void (*removed)(const char *name, int err, void *data),
				 void *data)
{
	size_t tlen = strlen(tmp_name), prefix;
	struct dirent *de;
	DIR *dh;
	int fd;

	if (tlen <= strlen("XXXXXX"))
		return;
	prefix = tlen - strlen("XXXXXX");
	/* a descriptor of its own: readdir's position is not dirfd's */
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	dh = fdopendir(fd);
	if (!dh) {
		close(fd);
		return;
	}
	while ((de = readdir(dh))) {
		int err;

		if (strncmp(de->d_name, tmp_name, prefix) || strlen(de->d_name) != tlen)
			continue;
		/* the name goes, whatever it is: a symlink is not followed */
		err = unlinkat(dirfd, de->d_name, 0) ? -errno : 0;
		if (removed)
			removed(de->d_name, err, data);
	}
	closedir(dh);
}
