// SPDX-License-Identifier: GPL-2.0-only
/*
 * The instance locks, on files in a temporary directory. flock(2) locks
 * belong to an open file: a second struct instance in this same process
 * conflicts with the first exactly as a second daemon would.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "instance.h"
#include "journal.h"
#include "uringtune.h"
#include "unit.h"

static char dir[64];
static char tune_path[PATH_MAX];

/* instance_tuner()'s clock in these tests: moved by hand, never the wall's */
static uint64_t fake_ns;

static uint64_t fake_clock(void)
{
	return fake_ns;
}

UT_TEST(locks_line)
{
	/* fs/locks.c lock_get_status(): major and minor in hex, the inode in decimal */
	UT_ASSERT_EQ_INT(instance_locks_line("1: FLOCK  ADVISORY  WRITE 4242 00:1a:12345 0 EOF\n",
					     0, 0x1a, 12345), 4242);
	UT_ASSERT_EQ_INT(instance_locks_line("7: FLOCK  ADVISORY  WRITE 4242 fd:01:12345 0 EOF",
					     0xfd, 1, 12345), 4242);
	/* another file, a shared lock, a POSIX lock, a waiter, an OFD lock, junk */
	UT_ASSERT_EQ_INT(instance_locks_line("1: FLOCK  ADVISORY  WRITE 4242 00:1a:12346 0 EOF",
					     0, 0x1a, 12345), 0);
	UT_ASSERT_EQ_INT(instance_locks_line("1: FLOCK  ADVISORY  WRITE 4242 00:1b:12345 0 EOF",
					     0, 0x1a, 12345), 0);
	UT_ASSERT_EQ_INT(instance_locks_line("2: FLOCK  ADVISORY  READ  4242 00:1a:12345 0 EOF",
					     0, 0x1a, 12345), 0);
	UT_ASSERT_EQ_INT(instance_locks_line("3: POSIX  ADVISORY  WRITE 4242 00:1a:12345 0 EOF",
					     0, 0x1a, 12345), 0);
	UT_ASSERT_EQ_INT(instance_locks_line("3: -> FLOCK  ADVISORY  WRITE 99 00:1a:12345 0 EOF",
					     0, 0x1a, 12345), 0);
	UT_ASSERT_EQ_INT(instance_locks_line("4: OFDLCK ADVISORY  WRITE -1 00:1a:12345 0 EOF",
					     0, 0x1a, 12345), 0);
	UT_ASSERT_EQ_INT(instance_locks_line("5: LEASE  ACTIVE    READ  4242 00:1a:12345 0 EOF",
					     0, 0x1a, 12345), 0);
	UT_ASSERT_EQ_INT(instance_locks_line("", 0, 0x1a, 12345), 0);
	UT_ASSERT_EQ_INT(instance_locks_line("1: FLOCK", 0, 0x1a, 12345), 0);
}

UT_TEST(second_tuner_refused_naming_the_first)
{
	struct instance a, b;
	char err[512], want[64];
	struct stat st;
	FILE *f;
	int pid = 0;

	instance_init(&a, tune_path);
	instance_init(&b, tune_path);
	fake_ns = 5000000000ULL;
	a.now = b.now = fake_clock;
	/* nobody tunes yet */
	UT_ASSERT_EQ_INT(instance_tuner(&b), 0);
	UT_ASSERT_EQ_INT(instance_claim_tuning(&a, "/var/lib/x", err, sizeof(err)), 0);
	UT_ASSERT_EQ_INT(instance_tuner(&a), getpid());
	/* nobody but its owner may open it (or they could hold it) */
	UT_ASSERT_EQ_INT(stat(tune_path, &st), 0);
	UT_ASSERT_EQ_INT(st.st_mode & 0777, 0600);
	/* the pid, for people */
	f = fopen(tune_path, "r");
	UT_ASSERT(f != NULL);
	UT_ASSERT_EQ_INT(fscanf(f, "%d", &pid), 1);
	fclose(f);
	UT_ASSERT_EQ_INT(pid, getpid());

	UT_ASSERT_EQ_INT(instance_claim_tuning(&b, "/var/lib/x", err, sizeof(err)), -EBUSY);
	snprintf(want, sizeof(want), "another uringtuned (pid %d) is tuning this host", getpid());
	UT_ASSERT_STR_CONTAINS(err, want);
	UT_ASSERT(strchr(err, '\n') == NULL);
	/*
	 * b does not tune, and knows who does: /proc/locks, read again once
	 * its answer is INSTANCE_TUNER_KEEP_NS old, not a nanosecond before
	 */
	UT_ASSERT_EQ_INT(instance_tuner(&b), 0);
	fake_ns += INSTANCE_TUNER_KEEP_NS - 1;
	UT_ASSERT_EQ_INT(instance_tuner(&b), 0);
	fake_ns += 1;
	UT_ASSERT_EQ_INT(instance_tuner(&b), getpid());
	/* that answer is kept in turn: a gone tuner is seen at its own expiry */
	instance_release(&a);
	fake_ns += INSTANCE_TUNER_KEEP_NS - 1;
	UT_ASSERT_EQ_INT(instance_tuner(&b), getpid());
	fake_ns += 1;
	UT_ASSERT_EQ_INT(instance_tuner(&b), 0);
	/* a clock that went back (or wrapped) is not "fresh": read again */
	UT_ASSERT_EQ_INT(instance_claim_tuning(&a, "/var/lib/x", err, sizeof(err)), 0);
	fake_ns -= 1;
	UT_ASSERT_EQ_INT(instance_tuner(&b), getpid());
	instance_release(&a);
	UT_ASSERT_EQ_INT(instance_claim_tuning(&b, "/var/lib/x", err, sizeof(err)), 0);
	instance_release(&b);
	/* the pid goes with the lock */
	UT_ASSERT_EQ_INT(stat(tune_path, &st), 0);
	UT_ASSERT_EQ_INT(st.st_size, 0);
}

UT_TEST(state_dir_one_daemon)
{
	char state[PATH_MAX], slash[PATH_MAX + 2], err[512], want[PATH_MAX + 64];
	struct instance a, b;
	struct stat st;

	snprintf(state, sizeof(state), "%s/var/state", dir);
	instance_init(&a, tune_path);
	instance_init(&b, tune_path);
	UT_ASSERT_EQ_INT(instance_claim_state(&a, state, err, sizeof(err)), 0);
	/* made, 0700 */
	UT_ASSERT_EQ_INT(stat(state, &st), 0);
	UT_ASSERT(S_ISDIR(st.st_mode));
	UT_ASSERT_EQ_INT(st.st_mode & 0777, 0700);
	/* the same directory spelled with a trailing slash */
	snprintf(slash, sizeof(slash), "%s/", state);
	UT_ASSERT_EQ_INT(instance_claim_state(&b, slash, err, sizeof(err)), -EBUSY);
	snprintf(want, sizeof(want), "state directory %s is in use by another uringtuned (pid %d)",
		 state, getpid());
	UT_ASSERT_STR_CONTAINS(err, want);
	/* observing takes no tuning lock: a tuner elsewhere is unaffected */
	UT_ASSERT_EQ_INT(a.tune.fd, -1);
	instance_release(&a);
	UT_ASSERT_EQ_INT(instance_claim_state(&b, state, err, sizeof(err)), 0);
	instance_release(&b);
}

/* the agent page: one daemon; none where no lock (and so no page) can be made */
UT_TEST(page_one_daemon)
{
	char page[PATH_MAX], file[PATH_MAX], err[512], want[PATH_MAX + 64];
	struct instance a, b;
	FILE *f;

	snprintf(page, sizeof(page), "%s/run2/agent.page", dir);
	instance_init(&a, tune_path);
	instance_init(&b, tune_path);
	UT_ASSERT_EQ_INT(instance_claim_page(&a, page, err, sizeof(err)), 0);
	UT_ASSERT(a.page.fd >= 0);
	UT_ASSERT_EQ_INT(instance_claim_page(&b, page, err, sizeof(err)), -EBUSY);
	snprintf(want, sizeof(want), "agent page %s is in use by another uringtuned (pid %d)",
		 page, getpid());
	UT_ASSERT_STR_CONTAINS(err, want);
	UT_ASSERT_STR_CONTAINS(err, "[agent] page");
	instance_release(&a);
	instance_release(&b);
	/* a page under a file: the page's own open will say why */
	snprintf(file, sizeof(file), "%s/plainfile", dir);
	f = fopen(file, "w");
	UT_ASSERT(f != NULL);
	fclose(f);
	snprintf(page, sizeof(page), "%s/plainfile/agent.page", dir);
	UT_ASSERT_EQ_INT(instance_claim_page(&a, page, err, sizeof(err)), 0);
	UT_ASSERT_EQ_INT(a.page.fd, -1);
}

/*
 * A daemon that does not tune reads the tuning daemon's journal, found
 * through its lock file: a ring there is that daemon's doing.
 */
UT_TEST(tuner_journal_read_by_another)
{
	struct journal_entry e = {
		.ctx = 0x1000, .pid = 100, .start_boottime = 77, .fd = 5, .ino = 505,
		.track_mode = UT_TRACK_INACTIVE,
	};
	char state[PATH_MAX], path[PATH_MAX + 16], err[512];
	struct instance a, b;
	struct journal j;
	FILE *f;

	snprintf(state, sizeof(state), "%s/tuner-state", dir);
	instance_init(&a, tune_path);
	instance_init(&b, tune_path);
	UT_ASSERT_EQ_INT(instance_claim_tuning(&a, state, err, sizeof(err)), 0);
	UT_ASSERT_EQ_INT(journal_open(&j, state, err, sizeof(err)), 0);
	/* one process plays both daemons: b is told it is another */
	b.self = 1;
	/* the tuning daemon's own view is its own journal, not this */
	UT_ASSERT(!instance_tuner_journaled(&a, 100, 5, 505, 77));
	/* no journal yet: nothing is that daemon's */
	UT_ASSERT(!instance_tuner_journaled(&b, 100, 5, 505, 77));
	UT_ASSERT_EQ_INT(journal_put(&j, &e), 0);
	UT_ASSERT(instance_tuner_journaled(&b, 100, 5, 505, 77));
	/* another ring, or another process at that pid and fd */
	UT_ASSERT(!instance_tuner_journaled(&b, 100, 6, 505, 77));
	UT_ASSERT(!instance_tuner_journaled(&b, 100, 5, 506, 77));
	UT_ASSERT(!instance_tuner_journaled(&b, 100, 5, 505, 78));
	/* dropped: read again (a write renames a new file over it) */
	UT_ASSERT_EQ_INT(journal_drop(&j, e.ctx), 0);
	UT_ASSERT(!instance_tuner_journaled(&b, 100, 5, 505, 77));
	journal_close(&j);
	/* a journal that cannot be read, or a directory not there: nobody can tell */
	snprintf(path, sizeof(path), "%s/journal", state);
	f = fopen(path, "w");
	UT_ASSERT(f != NULL);
	fputs("not a journal\n", f);
	fclose(f);
	UT_ASSERT(instance_tuner_journaled(&b, 100, 5, 505, 77));
	instance_release(&a);
	UT_ASSERT_EQ_INT(instance_claim_tuning(&a, "/nonexistent", err, sizeof(err)), 0);
	b.tuner_at_ns = 0;
	UT_ASSERT(instance_tuner_journaled(&b, 100, 5, 505, 77));
	/* nobody tunes: nothing is */
	instance_release(&a);
	b.tuner_at_ns = 0;
	UT_ASSERT(!instance_tuner_journaled(&b, 100, 5, 505, 77));
	instance_release(&b);
}

UT_TEST(lock_file_not_a_plain_file)
{
	char path[PATH_MAX], err[512];
	struct instance a;

	/* a symlink planted at the path is not followed */
	snprintf(path, sizeof(path), "%s/link.lock", dir);
	UT_ASSERT_EQ_INT(symlink("/etc/passwd", path), 0);
	instance_init(&a, path);
	UT_ASSERT(instance_claim_tuning(&a, "/var/lib/x", err, sizeof(err)) < 0);
	UT_ASSERT_STR_CONTAINS(err, "link.lock");
	UT_ASSERT_EQ_INT(a.tune.fd, -1);
	/* nor is a directory taken for one */
	snprintf(path, sizeof(path), "%s/dir.lock", dir);
	UT_ASSERT_EQ_INT(mkdir(path, 0700), 0);
	instance_init(&a, path);
	UT_ASSERT(instance_claim_tuning(&a, "/var/lib/x", err, sizeof(err)) < 0);
	UT_ASSERT_EQ_INT(a.tune.fd, -1);
}

int main(void)
{
	char tmpl[] = "/tmp/uringtune-instance-XXXXXX";
	char cmd[128];
	int failed;

	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s", tmpl);
	snprintf(tune_path, sizeof(tune_path), "%s/run/tune.lock", dir);
	ut_run("locks_line", locks_line);
	ut_run("second_tuner_refused_naming_the_first", second_tuner_refused_naming_the_first);
	ut_run("state_dir_one_daemon", state_dir_one_daemon);
	ut_run("page_one_daemon", page_one_daemon);
	ut_run("tuner_journal_read_by_another", tuner_journal_read_by_another);
	ut_run("lock_file_not_a_plain_file", lock_file_not_a_plain_file);
	failed = ut_finish();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		perror("rm");
	return failed;
}
