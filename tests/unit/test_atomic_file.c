// SPDX-License-Identifier: GPL-2.0-only
/*
 * atomic_file: a file replaced whole through a temporary file in its
 * directory; on failure the step that failed is named and no temporary
 * file is left; stale temporary files are found by their template.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "unit.h"

#define TMP	"f.tmp.XXXXXX"

static char root[64];

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/uringtune-atomic-XXXXXX");
	if (!mkdtemp(root)) {
		perror("test_atomic_file: mkdtemp");
		exit(1);
	}
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void teardown(void)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* entries of root, "." and ".." left out */
static int nr_entries(void)
{
	struct dirent *de;
	DIR *d = opendir(root);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static const char *slurp(const char *path)
{
	static char buf[256];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

static const char *at(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	return path;
}

UT_TEST(write_replaces)
{
	char path[128];
	const char *step = NULL;
	struct stat st;
	mode_t old = umask(077);

	snprintf(path, sizeof(path), "%s", at("f"));
	UT_ASSERT_EQ_INT(atomic_file_write(path, TMP, 0644, "one\n", 4, ATOMIC_FSYNC, &step), 0);
	UT_ASSERT_STR_EQ(slurp(path), "one\n");
	UT_ASSERT_EQ_INT(atomic_file_write(path, TMP, 0644, "two\n", 4,
					   ATOMIC_FSYNC | ATOMIC_FSYNC_DIR, &step), 0);
	umask(old);
	UT_ASSERT_STR_EQ(slurp(path), "two\n");
	/* the mode is exact, whatever the umask */
	UT_ASSERT_EQ_INT(stat(path, &st), 0);
	UT_ASSERT_EQ_INT(st.st_mode & 07777, 0644);
	UT_ASSERT_EQ_INT(nr_entries(), 1);
	teardown();
	setup();
}

/* a failed rename names its step and leaves no temporary file */
UT_TEST(failure_leaves_nothing)
{
	char path[128];
	const char *step = NULL;

	snprintf(path, sizeof(path), "%s", at("d"));
	UT_ASSERT_EQ_INT(mkdir(path, 0700), 0);
	UT_ASSERT_EQ_INT(mkdir(at("d/x"), 0700), 0);
	UT_ASSERT_EQ_INT(atomic_file_write(path, TMP, 0600, "x", 1, ATOMIC_FSYNC, &step),
			 -EISDIR);
	UT_ASSERT_STR_EQ(step, "rename");
	UT_ASSERT_EQ_INT(nr_entries(), 1);

	/* no directory: the first step fails */
	snprintf(path, sizeof(path), "%s", at("none/f"));
	UT_ASSERT_EQ_INT(atomic_file_write(path, TMP, 0600, "x", 1, 0, &step), -ENOENT);
	UT_ASSERT_STR_EQ(step, "create a temporary file");
	teardown();
	setup();
}

UT_TEST(name_too_long)
{
	char path[PATH_MAX + 16];
	const char *step = NULL;

	/* a directory whose name alone is too long: nothing is created anywhere */
	memset(path, 'a', sizeof(path) - 1);
	memcpy(path, "/tmp/", 5);
	memcpy(path + sizeof(path) - 4, "/f", 3);
	UT_ASSERT_EQ_INT(atomic_file_write(path, TMP, 0600, "x", 1, 0, &step), -ENAMETOOLONG);
	UT_ASSERT_STR_EQ(step, "create a temporary file");
	UT_ASSERT_EQ_INT(atomic_file_write(path, NULL, 0600, "x", 1, 0, &step), -ENAMETOOLONG);
}

/* open, write by hand, abort: nothing; NULL names the temporary after the file */
UT_TEST(open_abort_commit)
{
	struct atomic_file af;
	char path[128];

	snprintf(path, sizeof(path), "%s", at("page"));
	UT_ASSERT_EQ_INT(atomic_file_open(&af, path, NULL, 0600), 0);
	UT_ASSERT(!strncmp(af.tmp, path, strlen(path)));
	UT_ASSERT_STR_EQ(af.tmp + strlen(path) + 1 + 6, "");
	UT_ASSERT_EQ_INT(write(af.fd, "abc", 3), 3);
	UT_ASSERT_EQ_INT(nr_entries(), 1);
	atomic_file_abort(&af);
	UT_ASSERT_EQ_INT(nr_entries(), 0);

	UT_ASSERT_EQ_INT(atomic_file_open(&af, path, NULL, 0600), 0);
	UT_ASSERT_EQ_INT(write(af.fd, "abc", 3), 3);
	UT_ASSERT_EQ_INT(atomic_file_commit(&af, ATOMIC_FSYNC_DIR), 0);
	UT_ASSERT_EQ_INT(af.fd, -1);
	UT_ASSERT_STR_EQ(af.tmp, "");
	UT_ASSERT_STR_EQ(slurp(path), "abc");
	UT_ASSERT_EQ_INT(nr_entries(), 1);
	teardown();
	setup();
}

static void count_removed(const char *path, int err, void *data)
{
	(void)path;
	if (!err)
		++*(int *)data;
}

/* only names of the template's shape go: same prefix, same length */
UT_TEST(remove_stale)
{
	static const char *const names[] = {
		"f.tmp.Ab3xYz", "f.tmp.123456", "f.tmp.short", "f.tmp.toolong1", "f", "g.tmp.Ab3xYz",
	};
	char dir[80];
	int removed = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int fd = open(at(names[i]), O_CREAT | O_WRONLY, 0600);

		UT_ASSERT(fd >= 0);
		close(fd);
	}
	/* a trailing '/' is the same directory */
	snprintf(dir, sizeof(dir), "%s/", root);
	atomic_file_remove_stale(dir, TMP, count_removed, &removed);
	UT_ASSERT_EQ_INT(removed, 2);
	UT_ASSERT_EQ_INT(nr_entries(), 4);
	UT_ASSERT_EQ_INT(access(at("f.tmp.Ab3xYz"), F_OK), -1);
	UT_ASSERT_EQ_INT(access(at("f.tmp.short"), F_OK), 0);
	/* a template with nothing before XXXXXX matches nothing */
	atomic_file_remove_stale(root, "XXXXXX", count_removed, &removed);
	UT_ASSERT_EQ_INT(removed, 2);
	teardown();
	setup();
}

UT_TEST(fsync_dirs)
{
	UT_ASSERT_EQ_INT(fsync_dir(root), 0);
	UT_ASSERT_EQ_INT(fsync_dir(at("none")), -ENOENT);
}

int main(void)
{
	setup();
	ut_run("write_replaces", write_replaces);
	ut_run("failure_leaves_nothing", failure_leaves_nothing);
	ut_run("name_too_long", name_too_long);
	ut_run("open_abort_commit", open_abort_commit);
	ut_run("remove_stale", remove_stale);
	ut_run("fsync_dirs", fsync_dirs);
	teardown();
	return ut_finish();
}
