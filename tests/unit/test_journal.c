// SPDX-License-Identifier: GPL-2.0-only
/*
 * The journal: round trips, the exact file format, the exact text of every
 * class of parse error, and that a failed write (no directory, file size
 * limit, full file system, rename refused) changes nothing in memory or on
 * disk and leaves no temporary file behind.
 *
 * Each test runs in its own directory under /tmp, removed afterwards even
 * when an assertion fails (the body returns, the wrapper cleans up).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/types.h>

#include "journal.h"
#include "uringtune.h"
#include "unit.h"

#define HEADER	"# uringtune journal v1\n"

static const struct journal_entry ent_a = {
	.ctx = 0xffff888104c2a000ULL, .pid = 4242, .start_boottime = 123456789000ULL,
	.fd = 5, .ino = 33445, .enabled = false, .busy_poll_us = 0,
	.prefer = false, .track_mode = UT_TRACK_INACTIVE,
};
#define LINE_A	"ring ctx=ffff888104c2a000 pid=4242 start=123456789000 fd=5 ino=33445 " \
		"enabled=0 busy_poll_us=0 prefer=0 tracking=inactive\n"

/* every field at its largest, fd 0 */
static const struct journal_entry ent_b = {
	.ctx = UINT64_MAX, .pid = INT32_MAX, .start_boottime = UINT64_MAX,
	.fd = 0, .ino = UINT64_MAX, .enabled = true, .busy_poll_us = UINT32_MAX,
	.prefer = true, .track_mode = UT_TRACK_DYNAMIC,
};
#define LINE_B	"ring ctx=ffffffffffffffff pid=2147483647 start=18446744073709551615 fd=0 " \
		"ino=18446744073709551615 enabled=1 busy_poll_us=4294967295 prefer=1 " \
		"tracking=dynamic\n"

/* every field at its smallest but fd */
static const struct journal_entry ent_c = {
	.ctx = 1, .pid = 1, .start_boottime = 0, .fd = INT32_MAX, .ino = 0,
	.enabled = true, .busy_poll_us = 50, .prefer = false,
	.track_mode = UT_TRACK_STATIC,
};
#define LINE_C	"ring ctx=1 pid=1 start=0 fd=2147483647 ino=0 enabled=1 busy_poll_us=50 " \
		"prefer=0 tracking=static\n"

/* ent_a's ring with other settings */
static const struct journal_entry ent_a2 = {
	.ctx = 0xffff888104c2a000ULL, .pid = 77, .start_boottime = 9,
	.fd = 12, .ino = 13, .enabled = true, .busy_poll_us = 200,
	.prefer = true, .track_mode = UT_TRACK_STATIC,
};
#define LINE_A2	"ring ctx=ffff888104c2a000 pid=77 start=9 fd=12 ino=13 " \
		"enabled=1 busy_poll_us=200 prefer=1 tracking=static\n"

struct fx {
	char root[64];		/* mkdtemp(), removed by fx_teardown() */
	char dir[256];		/* the state directory, root/state */
	char path[512];		/* dir/journal */
	char mnt[128];		/* a tmpfs mounted by the test, or "" */
	struct journal j;
	char err[1024];
	char buf[8192];		/* file contents */
};

static void fx_setup(struct fx *fx)
{
	memset(fx, 0, sizeof(*fx));
	snprintf(fx->root, sizeof(fx->root), "/tmp/uringtune-journal-XXXXXX");
	if (!mkdtemp(fx->root)) {
		perror("test_journal: mkdtemp");
		exit(2);
	}
	snprintf(fx->dir, sizeof(fx->dir), "%s/state", fx->root);
	snprintf(fx->path, sizeof(fx->path), "%s/journal", fx->dir);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path))
		fprintf(stderr, "test_journal: cannot remove %s: %m\n", path);
	return 0;
}

static void fx_teardown(struct fx *fx)
{
	journal_close(&fx->j);
	if (fx->mnt[0] && umount2(fx->mnt, MNT_DETACH))
		fprintf(stderr, "test_journal: cannot unmount %s: %m\n", fx->mnt);
	nftw(fx->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* a test body gets a fresh fixture, torn down whatever the body does */
#define FX_TEST(name)							\
	static void name##_body(struct fx *fx);				\
	UT_TEST(name)							\
	{								\
		static struct fx fx;					\
									\
		fx_setup(&fx);						\
		name##_body(&fx);					\
		fx_teardown(&fx);					\
	}								\
	static void name##_body(struct fx *fx)

/* the whole file into fx->buf; its length or -errno */
static ssize_t read_text(struct fx *fx, const char *path)
{
	ssize_t n, len = 0;
	int fd;

	fx->buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, fx->buf + len, sizeof(fx->buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	if (n < 0)
		return -errno;
	fx->buf[len] = '\0';
	return len;
}

static void write_text(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		perror("test_journal: write");
		exit(2);
	}
	close(fd);
}

/* "a,b,c": the names in @dir, sorted */
static const char *list_dir(const char *dir, char *out, size_t len)
{
	struct dirent **names;
	size_t used = 0;
	int n;

	out[0] = '\0';
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		snprintf(out, len, "(cannot list: %s)", strerror(errno));
		return out;
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (strcmp(name, ".") && strcmp(name, "..") && used < len)
			used += snprintf(out + used, len - used, "%s%s",
					 used ? "," : "", name);
		free(names[i]);
	}
	free(names);
	return out;
}

static int entry_eq(const struct journal_entry *a, const struct journal_entry *b)
{
	return a->ctx == b->ctx && a->pid == b->pid &&
	       a->start_boottime == b->start_boottime && a->fd == b->fd &&
	       a->ino == b->ino && a->enabled == b->enabled &&
	       a->busy_poll_us == b->busy_poll_us && a->prefer == b->prefer &&
	       a->track_mode == b->track_mode;
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

#define ASSERT_FILE(fx, text) do {					\
	UT_ASSERT(read_text(fx, (fx)->path) >= 0);			\
	UT_ASSERT_STR_EQ((fx)->buf, text);				\
} while (0)

/* only the journal in the state directory: no temporary file left */
#define ASSERT_ONLY_JOURNAL(fx) do {					\
	char ut_names[512];						\
	UT_ASSERT_STR_EQ(list_dir((fx)->dir, ut_names, sizeof(ut_names)), "journal"); \
} while (0)

#define ASSERT_ENTRIES2(j, e0, e1) do {					\
	UT_ASSERT_EQ_INT((j)->n, 2);					\
	UT_ASSERT(entry_eq(&(j)->entries[0], e0));			\
	UT_ASSERT(entry_eq(&(j)->entries[1], e1));			\
} while (0)

static void open_j(struct fx *fx, int *ret)
{
	*ret = journal_open(&fx->j, fx->dir, fx->err, sizeof(fx->err));
}

FX_TEST(open_creates_dir)
{
	char path[PATH_MAX];
	struct stat st;
	int ret;

	snprintf(fx->dir, sizeof(fx->dir), "%s/a/b/state/", fx->root);
	open_j(fx, &ret);
	UT_ASSERT_STR_EQ(fx->err, "");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(fx->j.n, 0);
	/* trailing '/' dropped */
	snprintf(path, sizeof(path), "%s/a/b/state/journal", fx->root);
	UT_ASSERT_STR_EQ(fx->j.path, path);
	UT_ASSERT(journal_find(&fx->j, ent_a.ctx) == NULL);

	/* the parents too are 0700 */
	snprintf(path, sizeof(path), "%s/a", fx->root);
	UT_ASSERT_EQ_INT(stat(path, &st), 0);
	UT_ASSERT(S_ISDIR(st.st_mode));
	UT_ASSERT_EQ_INT(st.st_mode & 07777, 0700);
	snprintf(path, sizeof(path), "%s/a/b/state", fx->root);
	UT_ASSERT_EQ_INT(stat(path, &st), 0);
	UT_ASSERT(S_ISDIR(st.st_mode));
	UT_ASSERT_EQ_INT(st.st_mode & 07777, 0700);

	/* opening writes nothing */
	snprintf(path, sizeof(path), "%s/a/b/state/journal", fx->root);
	UT_ASSERT_EQ_INT(access(path, F_OK), -1);

	/* an existing directory is fine and keeps its mode */
	journal_close(&fx->j);
	UT_ASSERT_EQ_INT(chmod(fx->root, 0755), 0);
	snprintf(fx->dir, sizeof(fx->dir), "%s", fx->root);
	open_j(fx, &ret);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(stat(fx->root, &st), 0);
	UT_ASSERT_EQ_INT(st.st_mode & 07777, 0755);
}

FX_TEST(round_trip)
{
	const struct journal_entry *want[] = { &ent_a, &ent_b, &ent_c };
	/* the file is 0600 whatever the umask takes away or lets through */
	static const mode_t masks[] = { 0, 0277, 022 };
	struct stat st;
	int ret;

	open_j(fx, &ret);
	UT_ASSERT_EQ_INT(ret, 0);
	for (int i = 0; i < 3; i++) {
		mode_t mask = umask(masks[i]);

		ret = journal_put(&fx->j, want[i]);
		umask(mask);
		UT_ASSERT_EQ_INT(ret, 0);
		UT_ASSERT_EQ_INT(stat(fx->path, &st), 0);
		UT_ASSERT_EQ_INT(st.st_mode & 07777, 0600);
	}

	journal_close(&fx->j);
	UT_ASSERT_EQ_INT(fx->j.n, 0);
	open_j(fx, &ret);
	UT_ASSERT_STR_EQ(fx->err, "");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(fx->j.n, 3);
	for (int i = 0; i < 3; i++) {
		struct journal_entry *e = journal_find(&fx->j, want[i]->ctx);

		UT_ASSERT(entry_eq(&fx->j.entries[i], want[i]));
		UT_ASSERT(e == &fx->j.entries[i]);
	}
	UT_ASSERT(journal_find(&fx->j, 2) == NULL);
	/* the tracking words map back to the kernel's values */
	UT_ASSERT_EQ_INT(fx->j.entries[0].track_mode, 255);
	UT_ASSERT_EQ_INT(fx->j.entries[1].track_mode, 0);
	UT_ASSERT_EQ_INT(fx->j.entries[2].track_mode, 1);
}

FX_TEST(file_format)
{
	int ret;

	open_j(fx, &ret);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_a), 0);
	ASSERT_FILE(fx, HEADER LINE_A);
	ASSERT_ONLY_JOURNAL(fx);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_b), 0);
	ASSERT_FILE(fx, HEADER LINE_A LINE_B);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_c), 0);
	ASSERT_FILE(fx, HEADER LINE_A LINE_B LINE_C);
	ASSERT_ONLY_JOURNAL(fx);
}

FX_TEST(put_replaces)
{
	struct journal_entry copy;
	int ret;

	open_j(fx, &ret);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_a), 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_b), 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_a2), 0);
	ASSERT_ENTRIES2(&fx->j, &ent_a2, &ent_b);
	ASSERT_FILE(fx, HEADER LINE_A2 LINE_B);

	/* an entry of the journal itself can be put back */
	copy = ent_a;
	*journal_find(&fx->j, ent_a.ctx) = copy;
	UT_ASSERT_EQ_INT(journal_put(&fx->j, journal_find(&fx->j, ent_a.ctx)), 0);
	ASSERT_ENTRIES2(&fx->j, &ent_a, &ent_b);
	ASSERT_FILE(fx, HEADER LINE_A LINE_B);
	ASSERT_ONLY_JOURNAL(fx);
}

FX_TEST(drop)
{
	int ret;

	open_j(fx, &ret);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_a), 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_b), 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_c), 0);

	UT_ASSERT_EQ_INT(journal_drop(&fx->j, ent_b.ctx), 0);
	ASSERT_ENTRIES2(&fx->j, &ent_a, &ent_c);
	UT_ASSERT(journal_find(&fx->j, ent_b.ctx) == NULL);
	ASSERT_FILE(fx, HEADER LINE_A LINE_C);

	UT_ASSERT_EQ_INT(journal_drop(&fx->j, ent_c.ctx), 0);
	UT_ASSERT_EQ_INT(journal_drop(&fx->j, ent_a.ctx), 0);
	UT_ASSERT_EQ_INT(fx->j.n, 0);
	/* the last drop keeps a header-only file */
	ASSERT_FILE(fx, HEADER);
	ASSERT_ONLY_JOURNAL(fx);

	journal_close(&fx->j);
	open_j(fx, &ret);
	UT_ASSERT_STR_EQ(fx->err, "");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(fx->j.n, 0);
}

/* a burst of new rings is one write; so is forgetting several */
FX_TEST(many)
{
	const struct journal_entry burst[] = { ent_b, ent_c };
	const uint64_t gone[] = { ent_a.ctx, ent_c.ctx, 12345 };
	int ret;

	open_j(fx, &ret);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_a), 0);
	UT_ASSERT_EQ_INT(journal_put_many(&fx->j, burst, 2), 0);
	ASSERT_FILE(fx, HEADER LINE_A LINE_B LINE_C);
	/* only new rings, no duplicates within the burst: nothing written */
	UT_ASSERT_EQ_INT(journal_put_many(&fx->j, &ent_a2, 1), -EINVAL);
	UT_ASSERT_EQ_INT(journal_put_many(&fx->j, (const struct journal_entry[]){ ent_a2, ent_a2 }, 2),
			 -EINVAL);
	ASSERT_FILE(fx, HEADER LINE_A LINE_B LINE_C);
	UT_ASSERT_EQ_INT(journal_put_many(&fx->j, NULL, 0), 0);

	UT_ASSERT_EQ_INT(journal_drop_many(&fx->j, gone, 3), 0);
	UT_ASSERT_EQ_INT(fx->j.n, 1);
	UT_ASSERT(journal_find(&fx->j, ent_b.ctx) != NULL);
	ASSERT_FILE(fx, HEADER LINE_B);
	UT_ASSERT_EQ_INT(journal_drop_many(&fx->j, gone, 3), 0);
	ASSERT_FILE(fx, HEADER LINE_B);
	ASSERT_ONLY_JOURNAL(fx);
}

FX_TEST(drop_absent_untouched)
{
	struct stat before, after;
	int ret;

	open_j(fx, &ret);
	UT_ASSERT_EQ_INT(ret, 0);
	/* no file yet: none created */
	UT_ASSERT_EQ_INT(journal_drop(&fx->j, ent_a.ctx), 0);
	UT_ASSERT_EQ_INT(access(fx->path, F_OK), -1);

	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_a), 0);
	UT_ASSERT_EQ_INT(stat(fx->path, &before), 0);
	/* every write renames a new inode in: the same inode is no write */
	UT_ASSERT_EQ_INT(journal_drop(&fx->j, ent_b.ctx), 0);
	UT_ASSERT_EQ_INT(stat(fx->path, &after), 0);
	UT_ASSERT(same_file(&before, &after));
	UT_ASSERT_EQ_INT(fx->j.n, 1);
	ASSERT_FILE(fx, HEADER LINE_A);
	ASSERT_ONLY_JOURNAL(fx);
}

FX_TEST(put_refuses_invalid)
{
	struct journal_entry bad[5];
	int ret;

	for (int i = 0; i < 5; i++)
		bad[i] = ent_a;
	bad[0].ctx = 0;
	bad[1].pid = 0;
	bad[2].pid = -1;
	bad[3].fd = -1;
	bad[4].track_mode = 2;

	open_j(fx, &ret);
	UT_ASSERT_EQ_INT(ret, 0);
	for (int i = 0; i < 5; i++)
		UT_ASSERT_EQ_INT(journal_put(&fx->j, &bad[i]), -EINVAL);
	UT_ASSERT_EQ_INT(fx->j.n, 0);
	UT_ASSERT_EQ_INT(access(fx->path, F_OK), -1);
}

struct bad_file {
	const char *text;
	size_t len;		/* 0: strlen(text) */
	const char *what;	/* the error after "PATH: " */
};

#define GOOD	"ring ctx=abc pid=1 start=2 fd=3 ino=4 enabled=0 busy_poll_us=5 prefer=1 tracking=static"
#define KEYS	"ctx, pid, start, fd, ino, enabled, busy_poll_us, prefer, tracking"
#define DEC(max) "expected a decimal integer from 0 to " max
#define RING(k)	"ring ctx=abc pid=1 start=2 fd=3 ino=4 enabled=0 busy_poll_us=5 prefer=1 " k "\n"

static const struct bad_file bad_files[] = {
	/* header */
	{ "# uringtune journal v2\n" GOOD "\n", 0,
	  "line 1: bad header (expected '# uringtune journal v1', got '# uringtune journal v2')" },
	{ "\n  \n" GOOD "\n", 0,
	  "line 3: bad header (expected '# uringtune journal v1', got '" GOOD "')" },
	{ "# uringtune journal v1 \n", 0,
	  "line 1: bad header (expected '# uringtune journal v1', got '# uringtune journal v1 ')" },
	{ "", 0,
	  "line 1: missing header (expected '# uringtune journal v1', got the end of the file)" },
	{ "\n\n", 0,
	  "line 3: missing header (expected '# uringtune journal v1', got the end of the file)" },
	/* garbage lines */
	{ HEADER "hello world\n", 0,
	  "line 2: unknown line (expected 'ring key=value ...', got 'hello world')" },
	{ HEADER "rings ctx=abc\n", 0,
	  "line 2: unknown line (expected 'ring key=value ...', got 'rings ctx=abc')" },
	{ HEADER GOOD " junk\n", 0,
	  "line 2: bad field (expected key=value, got 'junk')" },
	{ HEADER GOOD "\n" "ring\0 ctx=1\n", sizeof(HEADER GOOD "\n" "ring\0 ctx=1\n") - 1,
	  "line 3: bad line (expected text, got a NUL byte)" },
	/* keys */
	{ HEADER GOOD " color=red\n", 0,
	  "line 2: unknown key 'color' (expected one of " KEYS ")" },
	{ HEADER GOOD " =1\n", 0,
	  "line 2: unknown key '' (expected one of " KEYS ")" },
	{ HEADER "ring ctx=abc pid=1 start=2 fd=3 enabled=0 busy_poll_us=5 prefer=1 tracking=static\n", 0,
	  "line 2: missing key 'ino' (expected all of " KEYS ")" },
	{ HEADER "ring\n", 0,
	  "line 2: missing key 'ctx' (expected all of " KEYS ")" },
	{ HEADER GOOD " pid=1\n", 0,
	  "line 2: duplicate key 'pid' (expected each key once)" },
	/* numbers */
	{ HEADER RING("tracking=static ctx=0x1"), 0,
	  "line 2: duplicate key 'ctx' (expected each key once)" },
	{ HEADER "ring ctx=0x1 pid=1\n", 0,
	  "line 2: bad ctx (expected a nonzero hexadecimal address without 0x, got '0x1')" },
	{ HEADER "ring ctx=0\n", 0,
	  "line 2: bad ctx (expected a nonzero hexadecimal address without 0x, got '0')" },
	{ HEADER "ring ctx=10000000000000000\n", 0,
	  "line 2: bad ctx (expected a nonzero hexadecimal address without 0x, got '10000000000000000')" },
	{ HEADER "ring ctx=abcg\n", 0,
	  "line 2: bad ctx (expected a nonzero hexadecimal address without 0x, got 'abcg')" },
	{ HEADER "ring pid=abc\n", 0,
	  "line 2: bad pid (expected a decimal integer from 1 to 2147483647, got 'abc')" },
	{ HEADER "ring pid=0\n", 0,
	  "line 2: bad pid (expected a decimal integer from 1 to 2147483647, got '0')" },
	{ HEADER "ring pid=-1\n", 0,
	  "line 2: bad pid (expected a decimal integer from 1 to 2147483647, got '-1')" },
	{ HEADER "ring pid=2147483648\n", 0,
	  "line 2: bad pid (expected a decimal integer from 1 to 2147483647, got '2147483648')" },
	{ HEADER "ring pid=\n", 0,
	  "line 2: bad pid (expected a decimal integer from 1 to 2147483647, got an empty value)" },
	{ HEADER "ring start=18446744073709551616\n", 0,
	  "line 2: bad start (" DEC("18446744073709551615") ", got '18446744073709551616')" },
	{ HEADER "ring start=+5\n", 0,
	  "line 2: bad start (" DEC("18446744073709551615") ", got '+5')" },
	{ HEADER "ring fd=-1\n", 0,
	  "line 2: bad fd (" DEC("2147483647") ", got '-1')" },
	{ HEADER "ring ino=1e3\n", 0,
	  "line 2: bad ino (" DEC("18446744073709551615") ", got '1e3')" },
	{ HEADER "ring busy_poll_us=4294967296\n", 0,
	  "line 2: bad busy_poll_us (" DEC("4294967295") ", got '4294967296')" },
	{ HEADER "ring enabled=2\n", 0,
	  "line 2: bad enabled (expected 0 or 1, got '2')" },
	{ HEADER "ring prefer=01\n", 0,
	  "line 2: bad prefer (expected 0 or 1, got '01')" },
	/* tracking */
	{ HEADER "ring tracking=DYNAMIC\n", 0,
	  "line 2: bad tracking (expected dynamic, static or inactive, got 'DYNAMIC')" },
	{ HEADER "ring tracking=0\n", 0,
	  "line 2: bad tracking (expected dynamic, static or inactive, got '0')" },
	/* the same ring twice, whatever the case of its hex digits */
	{ HEADER GOOD "\n# a comment\n" RING("tracking=static"), 0,
	  "line 4: duplicate ring ctx=abc (expected one line per ring, first on line 2)" },
	{ HEADER GOOD "\n" "ring ctx=ABC pid=1 start=2 fd=3 ino=4 enabled=0 busy_poll_us=5 prefer=1 tracking=static\n", 0,
	  "line 3: duplicate ring ctx=abc (expected one line per ring, first on line 2)" },
};

/* every class of error: -EINVAL, the exact message, *j empty, file kept */
FX_TEST(parse_errors)
{
	char want[2048];
	int ret;

	UT_ASSERT_EQ_INT(mkdir(fx->dir, 0700), 0);
	for (size_t i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
		const struct bad_file *b = &bad_files[i];
		size_t len = b->len ? b->len : strlen(b->text);

		write_text(fx->path, b->text, len);
		memset(&fx->j, 0x5a, sizeof(fx->j));
		open_j(fx, &ret);
		snprintf(want, sizeof(want), "%s: %s", fx->path, b->what);
		UT_ASSERT_STR_EQ(fx->err, want);
		UT_ASSERT_EQ_INT(ret, -EINVAL);
		UT_ASSERT_EQ_INT(fx->j.n, 0);
		UT_ASSERT(fx->j.entries == NULL);
		/* never overwritten */
		UT_ASSERT_EQ_INT(read_text(fx, fx->path), (ssize_t)len);
		UT_ASSERT(memcmp(fx->buf, b->text, len) == 0);
		journal_close(&fx->j);
	}
}

/* what an operator editing the file by hand may do */
FX_TEST(parse_accepts)
{
	int ret;

	UT_ASSERT_EQ_INT(mkdir(fx->dir, 0700), 0);
	write_text(fx->path,
		   "\n" HEADER "# comment\n   # indented comment\n\n"
		   "  ring\ttracking=static  prefer=1 busy_poll_us=5 enabled=0 ino=4 fd=0 start=2 pid=1 ctx=ABCdef  \n"
		   "ring ctx=1 pid=1 start=0 fd=2147483647 ino=0 enabled=1 busy_poll_us=50 prefer=0 tracking=static",
		   strlen("\n" HEADER "# comment\n   # indented comment\n\n"
			  "  ring\ttracking=static  prefer=1 busy_poll_us=5 enabled=0 ino=4 fd=0 start=2 pid=1 ctx=ABCdef  \n"
			  "ring ctx=1 pid=1 start=0 fd=2147483647 ino=0 enabled=1 busy_poll_us=50 prefer=0 tracking=static"));
	open_j(fx, &ret);
	UT_ASSERT_STR_EQ(fx->err, "");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(fx->j.n, 2);
	UT_ASSERT(fx->j.entries[0].ctx == 0xabcdef);
	UT_ASSERT_EQ_INT(fx->j.entries[0].pid, 1);
	UT_ASSERT(fx->j.entries[0].start_boottime == 2);
	UT_ASSERT_EQ_INT(fx->j.entries[0].fd, 0);
	UT_ASSERT(fx->j.entries[0].ino == 4);
	UT_ASSERT(!fx->j.entries[0].enabled);
	UT_ASSERT_EQ_INT(fx->j.entries[0].busy_poll_us, 5);
	UT_ASSERT(fx->j.entries[0].prefer);
	UT_ASSERT_EQ_INT(fx->j.entries[0].track_mode, UT_TRACK_STATIC);
	UT_ASSERT(entry_eq(&fx->j.entries[1], &ent_c));

	/* the next write puts it back in the canonical form */
	UT_ASSERT_EQ_INT(journal_drop(&fx->j, 0xabcdef), 0);
	ASSERT_FILE(fx, HEADER LINE_C);
}

FX_TEST(open_errors)
{
	char want[PATH_MAX + 128], *longdir;
	int ret;

	/* the state directory is a file */
	write_text(fx->dir, "x", 1);
	open_j(fx, &ret);
	snprintf(want, sizeof(want), "state_dir %s: cannot open: 'state' is not a directory",
		 fx->dir);
	UT_ASSERT_STR_EQ(fx->err, want);
	UT_ASSERT_EQ_INT(ret, -ENOTDIR);

	/* ... or below a file: the message names the file */
	snprintf(fx->dir, sizeof(fx->dir), "%s/state/sub", fx->root);
	open_j(fx, &ret);
	snprintf(want, sizeof(want), "state_dir %s/state/sub: cannot open: 'state' is not a "
		 "directory", fx->root);
	UT_ASSERT_STR_EQ(fx->err, want);
	UT_ASSERT_EQ_INT(ret, -ENOTDIR);

	/* writable by others than root: how to undo every change must be root's alone */
	snprintf(fx->dir, sizeof(fx->dir), "%s/state3", fx->root);
	UT_ASSERT_EQ_INT(mkdir(fx->dir, 0700), 0);
	UT_ASSERT_EQ_INT(chmod(fx->dir, 0770), 0);
	open_j(fx, &ret);
	snprintf(want, sizeof(want), "state_dir %s: owned by uid %u with mode 0770: expected a "
		 "directory owned by root and writable by it alone (chown root: %s && chmod 0700 %s)",
		 fx->dir, (unsigned int)geteuid(), fx->dir, fx->dir);
	UT_ASSERT_STR_EQ(fx->err, want);
	UT_ASSERT_EQ_INT(ret, -EPERM);

	/* the journal is a symlink: not followed */
	UT_ASSERT_EQ_INT(chmod(fx->dir, 0700), 0);
	snprintf(fx->path, sizeof(fx->path), "%s/journal", fx->dir);
	UT_ASSERT_EQ_INT(symlink("/etc/passwd", fx->path), 0);
	open_j(fx, &ret);
	UT_ASSERT_EQ_INT(ret, -ELOOP);
	UT_ASSERT_STR_CONTAINS(fx->err, "/journal: cannot open: Too many levels of symbolic links "
			       "(a symbolic link: expected the journal itself)");

	/* the journal is a directory */
	snprintf(fx->dir, sizeof(fx->dir), "%s/state2", fx->root);
	snprintf(fx->path, sizeof(fx->path), "%s/journal", fx->dir);
	UT_ASSERT_EQ_INT(mkdir(fx->dir, 0700), 0);
	UT_ASSERT_EQ_INT(mkdir(fx->path, 0700), 0);
	open_j(fx, &ret);
	snprintf(want, sizeof(want), "%s: cannot open: expected a regular file, got a directory",
		 fx->path);
	UT_ASSERT_STR_EQ(fx->err, want);
	UT_ASSERT_EQ_INT(ret, -EISDIR);
	UT_ASSERT_EQ_INT(fx->j.n, 0);

	/* no room for "/journal.tmp.XXXXXX" */
	longdir = malloc(PATH_MAX);
	UT_ASSERT(longdir);
	memset(longdir, 'a', PATH_MAX - 10);
	longdir[0] = '/';
	longdir[PATH_MAX - 10] = '\0';
	ret = journal_open(&fx->j, longdir, fx->buf, sizeof(fx->buf));
	free(longdir);
	UT_ASSERT_EQ_INT(ret, -ENAMETOOLONG);
	UT_ASSERT_STR_CONTAINS(fx->buf, "aaa: path too long (expected at most 4076 bytes)");
}

/* a crash between mkstemp() and rename() leaves a temporary file */
FX_TEST(stale_tmp_removed)
{
	char path[PATH_MAX + 32], names[512];
	static const char *const files[] = {
		"journal.tmp.Ab3xYz",	/* ours: removed */
		"journal.tmp.Ab3xY",	/* not mkstemp's: kept */
		"journal.backup",	/* an operator's: kept */
	};
	int ret;

	UT_ASSERT_EQ_INT(mkdir(fx->dir, 0700), 0);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", fx->dir, files[i]);
		write_text(path, "x", 1);
	}
	open_j(fx, &ret);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(list_dir(fx->dir, names, sizeof(names)),
			 "journal.backup,journal.tmp.Ab3xY");
}

/*
 * The state directory vanishes after open: mkstemp() fails. put (new and
 * replacing) and drop fail with ENOENT and keep the entries in memory.
 */
FX_TEST(write_fails_no_dir)
{
	int ret;

	open_j(fx, &ret);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_a), 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_b), 0);
	UT_ASSERT_EQ_INT(unlink(fx->path), 0);
	UT_ASSERT_EQ_INT(rmdir(fx->dir), 0);

	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_c), -ENOENT);
	ASSERT_ENTRIES2(&fx->j, &ent_a, &ent_b);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_a2), -ENOENT);
	ASSERT_ENTRIES2(&fx->j, &ent_a, &ent_b);
	UT_ASSERT_EQ_INT(journal_drop(&fx->j, ent_a.ctx), -ENOENT);
	ASSERT_ENTRIES2(&fx->j, &ent_a, &ent_b);
	UT_ASSERT(journal_find(&fx->j, ent_c.ctx) == NULL);

	/* once it is back, the file holds exactly what memory does */
	UT_ASSERT_EQ_INT(mkdir(fx->dir, 0700), 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_c), 0);
	ASSERT_FILE(fx, HEADER LINE_A LINE_B LINE_C);
	ASSERT_ONLY_JOURNAL(fx);
}

/*
 * The checks common to failed writes: memory holds @a and @b, the file is
 * the same inode with the same bytes, no temporary file is left.
 */
#define ASSERT_UNCHANGED(fx, before) do {				\
	struct stat ut_st;						\
	ASSERT_ENTRIES2(&(fx)->j, &ent_a, &ent_b);			\
	UT_ASSERT_EQ_INT(stat((fx)->path, &ut_st), 0);			\
	UT_ASSERT(same_file(before, &ut_st));				\
	ASSERT_FILE(fx, HEADER LINE_A LINE_B);				\
	ASSERT_ONLY_JOURNAL(fx);					\
} while (0)

/* the write itself fails half way: EFBIG from a file size limit */
FX_TEST(write_fails_efbig)
{
	struct rlimit old, small;
	struct stat before;
	int ret, put_c, put_a2, drop_a;

	open_j(fx, &ret);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_a), 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_b), 0);
	UT_ASSERT_EQ_INT(stat(fx->path, &before), 0);

	/* smaller than the header: every write fails after a short one */
	UT_ASSERT_EQ_INT(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 10;
	UT_ASSERT_EQ_INT(setrlimit(RLIMIT_FSIZE, &small), 0);
	/* (the limit also applies to stderr when it is a file: logs may be lost) */
	put_c = journal_put(&fx->j, &ent_c);
	put_a2 = journal_put(&fx->j, &ent_a2);
	drop_a = journal_drop(&fx->j, ent_a.ctx);
	UT_ASSERT_EQ_INT(setrlimit(RLIMIT_FSIZE, &old), 0);

	UT_ASSERT_EQ_INT(put_c, -EFBIG);
	UT_ASSERT_EQ_INT(put_a2, -EFBIG);
	UT_ASSERT_EQ_INT(drop_a, -EFBIG);
	ASSERT_UNCHANGED(fx, &before);

	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_c), 0);
	ASSERT_FILE(fx, HEADER LINE_A LINE_B LINE_C);
}

/*
 * A full file system, as a real disk would be: a 16 KiB tmpfs, filled up.
 * Needs CAP_SYS_ADMIN; without it the test says so on stderr and passes.
 */
FX_TEST(write_fails_enospc)
{
	char filler[PATH_MAX + 16], block[4096];
	struct stat before;
	int fd, ret;

	snprintf(fx->mnt, sizeof(fx->mnt), "%s/mnt", fx->root);
	UT_ASSERT_EQ_INT(mkdir(fx->mnt, 0700), 0);
	if (mount("none", fx->mnt, "tmpfs", 0, "size=16k,mode=0700")) {
		fprintf(stderr, "test_journal: write_fails_enospc not run: cannot mount a tmpfs: %m\n");
		fx->mnt[0] = '\0';
		return;
	}
	snprintf(fx->dir, sizeof(fx->dir), "%s/state", fx->mnt);
	snprintf(fx->path, sizeof(fx->path), "%s/journal", fx->dir);
	open_j(fx, &ret);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_a), 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_b), 0);
	UT_ASSERT_EQ_INT(stat(fx->path, &before), 0);

	snprintf(filler, sizeof(filler), "%s/filler", fx->mnt);
	fd = open(filler, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	UT_ASSERT(fd >= 0);
	memset(block, 'f', sizeof(block));
	while (write(fd, block, sizeof(block)) > 0)
		;
	ret = errno;
	close(fd);
	UT_ASSERT_EQ_INT(ret, ENOSPC);

	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_c), -ENOSPC);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_a2), -ENOSPC);
	UT_ASSERT_EQ_INT(journal_drop(&fx->j, ent_a.ctx), -ENOSPC);
	ASSERT_UNCHANGED(fx, &before);

	/* room again: writes work again */
	UT_ASSERT_EQ_INT(unlink(filler), 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_c), 0);
	ASSERT_FILE(fx, HEADER LINE_A LINE_B LINE_C);
	ASSERT_ONLY_JOURNAL(fx);
}

/* everything written and fsync'ed, then the rename fails */
FX_TEST(write_fails_rename)
{
	char names[512];
	int ret;

	open_j(fx, &ret);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_a), 0);
	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_b), 0);
	/* a file cannot be renamed over a directory */
	UT_ASSERT_EQ_INT(unlink(fx->path), 0);
	UT_ASSERT_EQ_INT(mkdir(fx->path, 0700), 0);

	UT_ASSERT_EQ_INT(journal_put(&fx->j, &ent_c), -EISDIR);
	ASSERT_ENTRIES2(&fx->j, &ent_a, &ent_b);
	UT_ASSERT_EQ_INT(journal_drop(&fx->j, ent_b.ctx), -EISDIR);
	ASSERT_ENTRIES2(&fx->j, &ent_a, &ent_b);
	UT_ASSERT_STR_EQ(list_dir(fx->dir, names, sizeof(names)), "journal");
	UT_ASSERT_STR_EQ(list_dir(fx->path, names, sizeof(names)), "");
}

int main(void)
{
	/* write_fails_efbig: EFBIG rather than death by SIGXFSZ */
	signal(SIGXFSZ, SIG_IGN);

	ut_run("open_creates_dir", open_creates_dir);
	ut_run("round_trip", round_trip);
	ut_run("file_format", file_format);
	ut_run("put_replaces", put_replaces);
	ut_run("drop", drop);
	ut_run("drop_absent_untouched", drop_absent_untouched);
	ut_run("many", many);
	ut_run("put_refuses_invalid", put_refuses_invalid);
	ut_run("parse_errors", parse_errors);
	ut_run("parse_accepts", parse_accepts);
	ut_run("open_errors", open_errors);
	ut_run("stale_tmp_removed", stale_tmp_removed);
	ut_run("write_fails_no_dir", write_fails_no_dir);
	ut_run("write_fails_efbig", write_fails_efbig);
	ut_run("write_fails_enospc", write_fails_enospc);
	ut_run("write_fails_rename", write_fails_rename);
	return ut_finish();
}
