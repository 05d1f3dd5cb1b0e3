// SPDX-License-Identifier: GPL-2.0-only
/*
 * [select]: which rules pick which process (rules loaded from INI text, as
 * operators write them), and a process's uid and cgroup read from a proc
 * fixture directory.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "select.h"
#include "unit.h"

struct load {
	char path[64];
	int ret;
	char err[1024];
	struct ut_config cfg;
};

/* rules from @text, through a temporary file and config_load() */
static void load(struct load *l, const char *text)
{
	size_t len = strlen(text);
	int fd;

	memset(l, 0, sizeof(*l));
	snprintf(l->path, sizeof(l->path), "/tmp/uringtune-test-XXXXXX");
	fd = mkstemp(l->path);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		perror("test_select: temporary file");
		exit(2);
	}
	close(fd);
	l->ret = config_load(l->path, &l->cfg, l->err, sizeof(l->err));
	unlink(l->path);
}

#define ASSERT_LOADS(l, text) do {					\
	load(l, text);							\
	UT_ASSERT_STR_EQ((l)->err, "");					\
	UT_ASSERT_EQ_INT((l)->ret, 0);					\
} while (0)

#define ASSERT_SELECTS(sel, comm, uid, cgroup, selected, reason) do {	\
	const char *why = "unset";					\
	UT_ASSERT_EQ_INT(select_matches(sel, comm, uid, cgroup, &why), selected); \
	UT_ASSERT_STR_EQ(why, reason);					\
} while (0)

#define NO_INCLUDE	"matches no include rule"

UT_TEST(selects_no_rules)
{
	struct ut_config def;

	config_defaults(&def);
	ASSERT_SELECTS(&def.select, "nginx", 0, "/system.slice/nginx.service", 1, "");
	ASSERT_SELECTS(&def.select, "x", 1000, NULL, 1, "");
	/* why may be NULL */
	UT_ASSERT(select_matches(&def.select, "x", 0, NULL, NULL));
}

UT_TEST(selects_include_comm)
{
	struct load l;

	ASSERT_LOADS(&l, "[select]\ninclude_comm = nginx envoy\n");
	ASSERT_SELECTS(&l.cfg.select, "nginx", 1000, "/a", 1, "");
	ASSERT_SELECTS(&l.cfg.select, "envoy", 0, NULL, 1, "");
	ASSERT_SELECTS(&l.cfg.select, "nginx2", 1000, "/a", 0, NO_INCLUDE);
	ASSERT_SELECTS(&l.cfg.select, "ngin", 1000, "/a", 0, NO_INCLUDE);
	ASSERT_SELECTS(&l.cfg.select, "haproxy", 0, NULL, 0, NO_INCLUDE);
	UT_ASSERT(!select_matches(&l.cfg.select, "haproxy", 0, NULL, NULL));
}

UT_TEST(selects_exclude_wins)
{
	struct load l;

	ASSERT_LOADS(&l, "[select]\ninclude_comm = nginx\nexclude_comm = nginx\n");
	ASSERT_SELECTS(&l.cfg.select, "nginx", 0, "/", 0, "excluded by exclude_comm");

	ASSERT_LOADS(&l, "[select]\ninclude_comm = nginx\ninclude_uid = 0\n"
		     "include_cgroup = /\nexclude_uid = 1000\n");
	ASSERT_SELECTS(&l.cfg.select, "nginx", 1000, "/a", 0, "excluded by exclude_uid");
	ASSERT_SELECTS(&l.cfg.select, "nginx", 1001, "/a", 1, "");

	ASSERT_LOADS(&l, "[select]\ninclude_cgroup = /a\nexclude_cgroup = /a/b\n");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/a/b/c", 0, "excluded by exclude_cgroup");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/a/b", 0, "excluded by exclude_cgroup");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/a/bc", 1, "");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/a", 1, "");

	/* exclusions are checked in the order comm, uid, cgroup */
	ASSERT_LOADS(&l, "[select]\nexclude_comm = x\nexclude_uid = 0\nexclude_cgroup = /\n");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/", 0, "excluded by exclude_comm");
	ASSERT_SELECTS(&l.cfg.select, "y", 0, "/", 0, "excluded by exclude_uid");
	ASSERT_SELECTS(&l.cfg.select, "y", 1, "/", 0, "excluded by exclude_cgroup");
	ASSERT_SELECTS(&l.cfg.select, "y", 1, NULL, 1, "");
}

UT_TEST(selects_uid)
{
	struct load l;

	ASSERT_LOADS(&l, "[select]\ninclude_uid = root, 1000\n");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, NULL, 1, "");
	ASSERT_SELECTS(&l.cfg.select, "x", 1000, NULL, 1, "");
	ASSERT_SELECTS(&l.cfg.select, "x", 1001, "/", 0, NO_INCLUDE);

	ASSERT_LOADS(&l, "[select]\nexclude_uid = root\n");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, NULL, 0, "excluded by exclude_uid");
	ASSERT_SELECTS(&l.cfg.select, "x", 1, NULL, 1, "");

	/* any include rule of any kind selects */
	ASSERT_LOADS(&l, "[select]\ninclude_comm = nginx\ninclude_uid = 1000\n"
		     "include_cgroup = /web\n");
	ASSERT_SELECTS(&l.cfg.select, "nginx", 0, NULL, 1, "");
	ASSERT_SELECTS(&l.cfg.select, "envoy", 1000, NULL, 1, "");
	ASSERT_SELECTS(&l.cfg.select, "envoy", 0, "/web/envoy", 1, "");
	ASSERT_SELECTS(&l.cfg.select, "envoy", 0, "/db", 0, NO_INCLUDE);
}

UT_TEST(selects_cgroup)
{
	struct load l;

	ASSERT_LOADS(&l, "[select]\ninclude_cgroup = /a/\n");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/a", 1, "");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/a/b", 1, "");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/a/b/c", 1, "");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/ab", 0, NO_INCLUDE);
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/", 0, NO_INCLUDE);
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/b/a", 0, NO_INCLUDE);
	/* an unknown cgroup matches no cgroup rule */
	ASSERT_SELECTS(&l.cfg.select, "x", 0, NULL, 0, NO_INCLUDE);

	ASSERT_LOADS(&l, "[select]\ninclude_cgroup = /a/b\n");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/a", 0, NO_INCLUDE);
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/a/b", 1, "");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/a/bc", 0, NO_INCLUDE);

	/* "/" holds every known cgroup */
	ASSERT_LOADS(&l, "[select]\ninclude_cgroup = /\n");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/", 1, "");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/a/b", 1, "");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, NULL, 0, NO_INCLUDE);

	ASSERT_LOADS(&l, "[select]\nexclude_cgroup = /a\n");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/a", 0, "excluded by exclude_cgroup");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/a/b", 0, "excluded by exclude_cgroup");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, "/ab", 1, "");
	ASSERT_SELECTS(&l.cfg.select, "x", 0, NULL, 1, "");
}

/*
 * A proc root with a few processes, as the daemon would find them:
 *	100: uid 1000, euid 1001; v1 and v2 cgroup lines
 *	101: root; no cgroup file
 *	102: a status without a Uid line
 *	103: an empty directory (gone between readdir and open)
 *	104: only cgroup v1 lines
 *	105: a cgroup longer than any rule can name
 *	106: no directory at all
 */
static char proc_root[64];

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", proc_root, rel);
	f = fopen(path, "we");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static void make_pid_dir(int pid)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%d", proc_root, pid);
	if (mkdir(path, 0755)) {
		perror(path);
		exit(2);
	}
}

#define STATUS(uid, euid) "Name:\tnginx\nState:\tS (sleeping)\nTgid:\t1\n" \
			  "Uid:\t" uid "\t" euid "\t" euid "\t" euid "\nGid:\t0\t0\t0\t0\n"

static void fixture_make(void)
{
	char long_cgroup[400] = "0::/";

	snprintf(proc_root, sizeof(proc_root), "/tmp/uringtune-proc-XXXXXX");
	if (!mkdtemp(proc_root)) {
		perror("test_select: fixture directory");
		exit(2);
	}
	for (int pid = 100; pid <= 105; pid++)
		make_pid_dir(pid);
	put("100/status", STATUS("1000", "1001"));
	put("100/cgroup", "12:cpu,cpuacct:/old\n0::/system.slice/nginx.service\n");
	put("101/status", STATUS("0", "0"));
	put("102/status", "Name:\tnginx\nState:\tZ (zombie)\n");
	put("102/cgroup", "0::/a\n");
	put("104/status", STATUS("0", "0"));
	put("104/cgroup", "1:name=systemd:/a\n");
	put("105/status", STATUS("0", "0"));
	memset(long_cgroup + 4, 'a', 300);
	strcat(long_cgroup, "\n");
	put("105/cgroup", long_cgroup);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void fixture_remove(void)
{
	nftw(proc_root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

#define ASSERT_IDENTITY(pid, ret, want_uid, want_cgroup) do {		\
	char cg[UT_CGROUP_PATH_MAX] = "unset";				\
	uid_t u = 4242;							\
	UT_ASSERT_EQ_INT(select_read_identity(proc_root, pid, &u, cg, sizeof(cg)), ret); \
	if (!(ret))							\
		UT_ASSERT_EQ_INT(u, want_uid);				\
	UT_ASSERT_STR_EQ(cg, want_cgroup);				\
} while (0)

UT_TEST(identity_from_proc)
{
	/* the effective uid, the v2 line whatever comes before it */
	ASSERT_IDENTITY(100, 0, 1001, "/system.slice/nginx.service");
	/* no cgroup file or no v2 line: the cgroup is unknown, the uid still read */
	ASSERT_IDENTITY(101, 0, 0, "");
	ASSERT_IDENTITY(104, 0, 0, "");
	/* longer than UT_CGROUP_PATH_MAX: unknown rather than cut */
	ASSERT_IDENTITY(105, 0, 0, "");
}

UT_TEST(identity_of_gone_process)
{
	ASSERT_IDENTITY(102, -ESRCH, 0, "");
	ASSERT_IDENTITY(103, -ESRCH, 0, "");
	ASSERT_IDENTITY(106, -ESRCH, 0, "");
}

UT_TEST(identity_cgroup_fits_len)
{
	char cg[8];
	uid_t u;

	UT_ASSERT_EQ_INT(select_read_identity(proc_root, 100, &u, cg, sizeof(cg)), 0);
	UT_ASSERT_STR_EQ(cg, "");
	UT_ASSERT_EQ_INT(select_read_identity(proc_root, 102, &u, cg, sizeof(cg)), -ESRCH);
}

#define ASSERT_PROCESS(sel, pid, selected, reason) do {		\
	const char *why = "unset";					\
	UT_ASSERT_EQ_INT(select_process(sel, proc_root, pid, "nginx", &why), selected); \
	UT_ASSERT_STR_EQ(why, reason);					\
} while (0)

UT_TEST(process_from_proc)
{
	struct load l;

	ASSERT_LOADS(&l, "");
	ASSERT_PROCESS(&l.cfg.select, 100, 1, "");
	ASSERT_PROCESS(&l.cfg.select, 101, 1, "");
	/* gone before any rule is looked at */
	ASSERT_PROCESS(&l.cfg.select, 102, 0, "the process is gone");
	ASSERT_PROCESS(&l.cfg.select, 103, 0, "the process is gone");
	ASSERT_PROCESS(&l.cfg.select, 106, 0, "the process is gone");
	UT_ASSERT(!select_process(&l.cfg.select, proc_root, 106, "nginx", NULL));

	ASSERT_LOADS(&l, "[select]\ninclude_cgroup = /system.slice\n");
	ASSERT_PROCESS(&l.cfg.select, 100, 1, "");
	/* an unknown cgroup matches no cgroup rule */
	ASSERT_PROCESS(&l.cfg.select, 101, 0, NO_INCLUDE);
	ASSERT_PROCESS(&l.cfg.select, 105, 0, NO_INCLUDE);

	/* the effective uid is the one matched */
	ASSERT_LOADS(&l, "[select]\nexclude_uid = 1001\n");
	ASSERT_PROCESS(&l.cfg.select, 100, 0, "excluded by exclude_uid");
	ASSERT_LOADS(&l, "[select]\nexclude_uid = 1000\n");
	ASSERT_PROCESS(&l.cfg.select, 100, 1, "");
}

/* the production root: this test process itself */
UT_TEST(process_from_real_proc)
{
	char cg[UT_CGROUP_PATH_MAX];
	struct ut_config def;
	const char *why = "unset";
	uid_t u;

	config_defaults(&def);
	UT_ASSERT_EQ_INT(select_read_identity("/proc", getpid(), &u, cg, sizeof(cg)), 0);
	UT_ASSERT_EQ_INT(u, geteuid());
	UT_ASSERT(select_process(&def.select, "/proc", getpid(), "test_select", &why));
	UT_ASSERT_STR_EQ(why, "");
}

int main(void)
{
	fixture_make();
	ut_run("selects_no_rules", selects_no_rules);
	ut_run("selects_include_comm", selects_include_comm);
	ut_run("selects_exclude_wins", selects_exclude_wins);
	ut_run("selects_uid", selects_uid);
	ut_run("selects_cgroup", selects_cgroup);
	ut_run("identity_from_proc", identity_from_proc);
	ut_run("identity_of_gone_process", identity_of_gone_process);
	ut_run("identity_cgroup_fits_len", identity_cgroup_fits_len);
	ut_run("process_from_proc", process_from_proc);
	ut_run("process_from_real_proc", process_from_real_proc);
	fixture_remove();
	return ut_finish();
}
