// SPDX-License-Identifier: GPL-2.0-only
/*
 * safe_dir: a directory path resolved once, one component at a time, a
 * symlink followed only where root alone could have planted it; and the
 * check that a private directory (state_dir) is root's alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "safe_dir.h"
#include "unit.h"

static char root[64];
static char err[512];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

static const char *at(const char *name)
{
	static char path[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", root, name);
	return path[i];
}

/* the directory @fd is, by its inode, the one at @path */
static bool same_dir(int fd, const char *path)
{
	struct stat a, b;

	return fd >= 0 && !fstat(fd, &a) && !stat(path, &b) && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

UT_TEST(plain_and_relative)
{
	int fd;

	UT_ASSERT_EQ_INT(mkdir(at("a"), 0755), 0);
	UT_ASSERT_EQ_INT(mkdir(at("a/b"), 0755), 0);
	fd = safe_dir_open("dir", at("a//b/./"), 0, err, sizeof(err));
	UT_ASSERT(same_dir(fd, at("a/b")));
	/* usable for fsync and the *at() writer */
	UT_ASSERT_EQ_INT(fsync(fd), 0);
	UT_ASSERT_EQ_INT(atomic_file_write_at(fd, "f", "f.tmp.XXXXXX", 0644, "x", 1,
					      ATOMIC_FSYNC | ATOMIC_FSYNC_DIR, NULL), 0);
	UT_ASSERT_EQ_INT(access(at("a/b/f"), F_OK), 0);
	close(fd);
	fd = safe_dir_open("dir", at("a/b/f"), 0, err, sizeof(err));
	UT_ASSERT_EQ_INT(fd, -ENOTDIR);
	UT_ASSERT_STR_CONTAINS(err, "/a/b/f: cannot open: 'f' is not a directory");
	fd = safe_dir_open("dir", at("none/x"), 0, err, sizeof(err));
	UT_ASSERT_EQ_INT(fd, -ENOENT);
	UT_ASSERT_STR_CONTAINS(err, "dir /tmp/");
}

UT_TEST(create_missing_0700)
{
	struct stat st;
	int fd;

	fd = safe_dir_open("state_dir", at("c/d/e"), SAFE_DIR_CREATE, err, sizeof(err));
	UT_ASSERT(same_dir(fd, at("c/d/e")));
	close(fd);
	UT_ASSERT_EQ_INT(stat(at("c/d"), &st), 0);
	UT_ASSERT_EQ_INT(st.st_mode & 07777, 0700);
}

/* in a directory only we can write, a symlink is ours: followed */
UT_TEST(own_symlink_followed)
{
	int fd;

	UT_ASSERT_EQ_INT(mkdir(at("real"), 0700), 0);
	UT_ASSERT_EQ_INT(chmod(root, 0700), 0);
	UT_ASSERT_EQ_INT(symlink("real", at("rel")), 0);
	UT_ASSERT_EQ_INT(symlink(at("real"), at("abs")), 0);
	fd = safe_dir_open("dir", at("rel"), 0, err, sizeof(err));
	UT_ASSERT(same_dir(fd, at("real")));
	close(fd);
	fd = safe_dir_open("dir", at("abs"), 0, err, sizeof(err));
	UT_ASSERT(same_dir(fd, at("real")));
	close(fd);
	UT_ASSERT_EQ_INT(symlink("loop", at("loop")), 0);
	UT_ASSERT_EQ_INT(safe_dir_open("dir", at("loop"), 0, err, sizeof(err)), -ELOOP);
}

/* where others can write, a symlink may be theirs: never followed, last component or not */
UT_TEST(others_symlink_refused)
{
	UT_ASSERT_EQ_INT(mkdir(at("shared"), 0700), 0);
	UT_ASSERT_EQ_INT(mkdir(at("victim"), 0700), 0);
	UT_ASSERT_EQ_INT(mkdir(at("victim/sub"), 0700), 0);
	UT_ASSERT_EQ_INT(chmod(at("shared"), 0777), 0);
	UT_ASSERT_EQ_INT(symlink(at("victim"), at("shared/textfile")), 0);
	UT_ASSERT_EQ_INT(safe_dir_open("textfile_dir", at("shared/textfile"), 0, err, sizeof(err)),
			 -ELOOP);
	UT_ASSERT_STR_CONTAINS(err, "'textfile' is a symbolic link in a directory that uid");
	UT_ASSERT_STR_CONTAINS(err, "(mode 0777) can write: not followed");
	UT_ASSERT_EQ_INT(safe_dir_open("textfile_dir", at("shared/textfile/sub"), 0, err,
				       sizeof(err)), -ELOOP);
	/* group-writable is as bad */
	UT_ASSERT_EQ_INT(chmod(at("shared"), 0770), 0);
	UT_ASSERT_EQ_INT(safe_dir_open("textfile_dir", at("shared/textfile"), 0, err, sizeof(err)),
			 -ELOOP);
	/* owned by another user, even 0755: root only can tell (chown) */
	if (geteuid() == 0) {
		UT_ASSERT_EQ_INT(chmod(at("shared"), 0755), 0);
		UT_ASSERT_EQ_INT(chown(at("shared"), 65534, 65534), 0);
		UT_ASSERT_EQ_INT(safe_dir_open("textfile_dir", at("shared/textfile"), 0, err,
					       sizeof(err)), -ELOOP);
		UT_ASSERT_STR_CONTAINS(err, "uid 65534 (mode 0755)");
	}
}

UT_TEST(private_check)
{
	int fd;

	UT_ASSERT_EQ_INT(mkdir(at("state"), 0700), 0);
	fd = safe_dir_open("state_dir", at("state"), 0, err, sizeof(err));
	UT_ASSERT(fd >= 0);
	UT_ASSERT_EQ_INT(safe_dir_check_private(fd, "state_dir", at("state"), err, sizeof(err)), 0);
	UT_ASSERT_EQ_INT(chmod(at("state"), 0770), 0);
	UT_ASSERT_EQ_INT(safe_dir_check_private(fd, "state_dir", at("state"), err, sizeof(err)),
			 -EPERM);
	UT_ASSERT_STR_CONTAINS(err, "with mode 0770: expected a directory owned by root and "
			       "writable by it alone (chown root: ");
	UT_ASSERT_STR_CONTAINS(err, "&& chmod 0700 ");
	if (geteuid() == 0) {
		UT_ASSERT_EQ_INT(chmod(at("state"), 0700), 0);
		UT_ASSERT_EQ_INT(chown(at("state"), 65534, 65534), 0);
		UT_ASSERT_EQ_INT(safe_dir_check_private(fd, "state_dir", at("state"), err,
							sizeof(err)), -EPERM);
		UT_ASSERT_STR_CONTAINS(err, "owned by uid 65534 with mode 0700");
	}
	close(fd);
}

/* the *at() writer: a symlink at the temporary's name is never followed */
UT_TEST(atomic_at_no_follow)
{
	int fd, removed = 0;

	UT_ASSERT_EQ_INT(mkdir(at("w"), 0700), 0);
	fd = safe_dir_open("dir", at("w"), 0, err, sizeof(err));
	UT_ASSERT(fd >= 0);
	/* stale temporaries, one a symlink to a file elsewhere: the names go, not the target */
	UT_ASSERT_EQ_INT(close(open(at("precious"), O_CREAT | O_WRONLY, 0600)), 0);
	UT_ASSERT_EQ_INT(symlink(at("precious"), at("w/f.tmp.abcdef")), 0);
	UT_ASSERT_EQ_INT(close(open(at("w/f.tmp.ABCDEF"), O_CREAT | O_WRONLY, 0600)), 0);
	atomic_file_remove_stale_at(fd, "f.tmp.XXXXXX", NULL, &removed);
	UT_ASSERT_EQ_INT(access(at("precious"), F_OK), 0);
	UT_ASSERT_EQ_INT(faccessat(fd, "f.tmp.abcdef", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	UT_ASSERT_EQ_INT(faccessat(fd, "f.tmp.ABCDEF", F_OK, 0), -1);
	/* the file replaced by a symlink: renamed over, the target untouched */
	UT_ASSERT_EQ_INT(symlink(at("precious"), at("w/f")), 0);
	UT_ASSERT_EQ_INT(atomic_file_write_at(fd, "f", "f.tmp.XXXXXX", 0644, "new", 3, 0, NULL), 0);
	UT_ASSERT_EQ_INT(access(at("precious"), F_OK), 0);
	{
		struct stat st;

		UT_ASSERT_EQ_INT(stat(at("precious"), &st), 0);
		UT_ASSERT_EQ_INT(st.st_size, 0);
		UT_ASSERT_EQ_INT(lstat(at("w/f"), &st), 0);
		UT_ASSERT(S_ISREG(st.st_mode));
	}
	UT_ASSERT_EQ_INT(atomic_file_write_at(fd, "../f", "f.tmp.XXXXXX", 0644, "x", 1, 0, NULL),
			 -EINVAL);
	close(fd);
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/uringtune-safedir-XXXXXX");
	if (!mkdtemp(root)) {
		perror("test_safe_dir: mkdtemp");
		return 1;
	}
	ut_run("plain_and_relative", plain_and_relative);
	ut_run("create_missing_0700", create_missing_0700);
	ut_run("own_symlink_followed", own_symlink_followed);
	ut_run("others_symlink_refused", others_symlink_refused);
	ut_run("private_check", private_check);
	ut_run("atomic_at_no_follow", atomic_at_no_follow);
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return ut_finish();
}
