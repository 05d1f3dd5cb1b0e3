// SPDX-License-Identifier: GPL-2.0-only
/*
 * The journal's committers alone (journal_commit.h), over a real journal in
 * a temporary directory, the write held at a gate (commit_gate.h): the
 * threaded one takes a commit and returns while the write is held, says
 * nothing (fd not readable, reap empty) until it is done, then makes its fd
 * readable and hands back the result; a failed write comes back with its
 * error; stopping it writes what was submitted first; its thread blocks the
 * signals the loop takes through signalfd. The synchronous one writes at
 * once.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commit_gate.h"
#include "journal.h"
#include "journal_commit.h"
#include "uringtune.h"
#include "unit.h"

static char root[64];
static unsigned int nr;		/* each test its own state directory */
static struct journal j;

static const struct journal_entry ent = {
	.ctx = 0xffff888104c2a000ULL, .pid = 4242, .start_boottime = 123456789000ULL,
	.fd = 5, .ino = 33445, .track_mode = UT_TRACK_INACTIVE,
};

/* a fresh journal with @n entries staged (not on disk yet) */
static int open_journal(size_t n)
{
	char dir[PATH_MAX], err[512];
	struct journal_entry e = ent;
	int ret;

	snprintf(dir, sizeof(dir), "%s/state%u", root, ++nr);
	ret = journal_open(&j, dir, err, sizeof(err));
	for (size_t i = 0; !ret && i < n; i++) {
		e.ctx = ent.ctx + 0x1000 * i;
		ret = journal_stage_put_many(&j, &e, 1);
	}
	return ret;
}

/* what the file on disk holds now */
static size_t entries_on_disk(void)
{
	struct journal disk;
	char err[512];
	size_t n;

	if (journal_open(&disk, j.dir, err, sizeof(err)))
		return SIZE_MAX;
	n = disk.n;
	journal_close(&disk);
	return n;
}

UT_TEST(sync_writes_at_once)
{
	struct journal_committer jc;
	struct journal_commit *c;

	UT_ASSERT_EQ_INT(open_journal(3), 0);
	gate_reset(true);
	UT_ASSERT_EQ_INT(journal_committer_sync(&jc, gated_write, &j), 0);
	UT_ASSERT_EQ_INT(jc.fd, -1);
	c = journal_commit_new(&j);
	UT_ASSERT(c);
	journal_committer_submit(&jc, c);
	UT_ASSERT_EQ_INT(gate.writes, 1);
	UT_ASSERT(journal_committer_reap(&jc, false) == c);
	UT_ASSERT_EQ_INT(c->ret, 0);
	UT_ASSERT_EQ_INT(c->gen, j.gen);
	UT_ASSERT_EQ_INT(entries_on_disk(), 3);
	UT_ASSERT(journal_committer_reap(&jc, false) == NULL);
	journal_commit_free(c);
	journal_committer_fini(&jc);
	journal_close(&j);
}

/* a slow fsync: submit returns at once, nothing is said until it is done */
UT_TEST(thread_slow_write_does_not_block)
{
	struct journal_committer jc;
	struct journal_commit *c;

	UT_ASSERT_EQ_INT(open_journal(2), 0);
	gate_reset(false);
	UT_ASSERT_EQ_INT(journal_committer_thread(&jc, gated_write, &j), 0);
	UT_ASSERT(jc.fd >= 0);
	c = journal_commit_new(&j);
	UT_ASSERT(c);
	journal_committer_submit(&jc, c);
	UT_ASSERT(gate_wait_started(1));
	/* held: the caller goes on, and is told nothing */
	UT_ASSERT(!fd_readable(jc.fd, 0));
	UT_ASSERT(journal_committer_reap(&jc, false) == NULL);
	UT_ASSERT_EQ_INT(entries_on_disk(), 0);
	/* the journal's thread blocks what the loop takes by signalfd */
	UT_ASSERT(gate.signals_blocked);
	gate_set(true, 0);
	UT_ASSERT(fd_readable(jc.fd, GATE_WAIT_S * 1000));
	UT_ASSERT(journal_committer_reap(&jc, false) == c);
	UT_ASSERT_EQ_INT(c->ret, 0);
	UT_ASSERT_EQ_INT(entries_on_disk(), 2);
	/* the wake-up was read with the commit: nothing more to say */
	UT_ASSERT(!fd_readable(jc.fd, 0));
	UT_ASSERT(journal_committer_reap(&jc, false) == NULL);
	journal_commit_free(c);
	journal_committer_fini(&jc);
	UT_ASSERT_EQ_INT(jc.fd, -1);
	journal_close(&j);
}

UT_TEST(thread_failed_write_comes_back)
{
	struct journal_committer jc;
	struct journal_commit *c;

	UT_ASSERT_EQ_INT(open_journal(1), 0);
	gate_reset(true);
	gate_set(true, -EIO);
	UT_ASSERT_EQ_INT(journal_committer_thread(&jc, gated_write, &j), 0);
	c = journal_commit_new(&j);
	UT_ASSERT(c);
	journal_committer_submit(&jc, c);
	/* waiting for it, as a stop does */
	UT_ASSERT(journal_committer_reap(&jc, true) == c);
	UT_ASSERT_EQ_INT(c->ret, -EIO);
	UT_ASSERT_STR_CONTAINS(c->err, "injected: Input/output error");
	UT_ASSERT_EQ_INT(entries_on_disk(), 0);
	journal_commit_free(c);
	/* a real failure says which step: no state directory */
	gate_set(true, 0);
	UT_ASSERT_EQ_INT(rmdir(j.dir), 0);
	c = journal_commit_new(&j);
	UT_ASSERT(c);
	journal_committer_submit(&jc, c);
	UT_ASSERT(journal_committer_reap(&jc, true) == c);
	UT_ASSERT_EQ_INT(c->ret, -ENOENT);
	UT_ASSERT_STR_CONTAINS(c->err, "cannot create a temporary file");
	journal_commit_free(c);
	journal_committer_fini(&jc);
	journal_close(&j);
}

/* stopping the thread writes what it was given first */
UT_TEST(thread_stop_drains)
{
	struct journal_committer jc;
	pthread_t opener;

	UT_ASSERT_EQ_INT(open_journal(4), 0);
	gate_reset(false);
	UT_ASSERT_EQ_INT(journal_committer_thread(&jc, gated_write, &j), 0);
	journal_committer_submit(&jc, journal_commit_new(&j));
	UT_ASSERT_EQ_INT(pthread_create(&opener, NULL, gate_opener, NULL), 0);
	/* never reaped: fini waits for the write and frees the commit */
	journal_committer_fini(&jc);
	pthread_join(opener, NULL);
	UT_ASSERT_EQ_INT(gate.writes, 1);
	UT_ASSERT_EQ_INT(entries_on_disk(), 4);
	journal_close(&j);
}

/* a snapshot is what the journal held when it was taken, whatever is staged after */
UT_TEST(snapshot_is_a_copy)
{
	struct journal_committer jc;
	struct journal_commit *c;
	struct journal_entry e = ent;
	uint64_t gen;

	UT_ASSERT_EQ_INT(open_journal(2), 0);
	gate_reset(false);
	UT_ASSERT_EQ_INT(journal_committer_thread(&jc, gated_write, &j), 0);
	c = journal_commit_new(&j);
	UT_ASSERT(c);
	gen = j.gen;
	journal_committer_submit(&jc, c);
	UT_ASSERT(gate_wait_started(1));
	/* staged while it is written: the next commit's */
	e.ctx = 77;
	UT_ASSERT_EQ_INT(journal_stage_put_many(&j, &e, 1), 0);
	UT_ASSERT_EQ_INT(journal_stage_drop_many(&j, &ent.ctx, 1), 0);
	gate_set(true, 0);
	UT_ASSERT(journal_committer_reap(&jc, true) == c);
	UT_ASSERT_EQ_INT(c->n, 2);
	UT_ASSERT_EQ_INT(c->gen, gen);
	journal_committed(&j, c->gen);
	/* memory is ahead of the file */
	UT_ASSERT(journal_dirty(&j));
	UT_ASSERT(!journal_durable(&j, 77));
	UT_ASSERT(journal_durable(&j, ent.ctx + 0x1000));
	journal_commit_free(c);
	journal_committer_fini(&jc);
	journal_close(&j);
}

/*
 * Staging thousands of rings, dropping some, forgetting a failed commit's:
 * every entry is found at its address (journal_index.c), none that left.
 */
UT_TEST(staged_entries_found_by_address)
{
	enum { N = 5000 };
	static uint64_t drop[N];
	struct journal_entry e = ent;
	size_t n_drop = 0;
	uint64_t gen;

	UT_ASSERT_EQ_INT(open_journal(N), 0);
	for (size_t i = 0; i < N; i += 3)
		drop[n_drop++] = ent.ctx + 0x1000 * i;
	UT_ASSERT_EQ_INT(journal_stage_drop_many(&j, drop, n_drop), 0);
	journal_committed(&j, j.gen);
	gen = j.gen;
	/* a failed commit's new entries (one at an address dropped above) are forgotten */
	e.ctx = ent.ctx;
	UT_ASSERT_EQ_INT(journal_stage_put_many(&j, &e, 1), 0);
	e.ctx = 0x42;
	UT_ASSERT_EQ_INT(journal_stage_put_many(&j, &e, 1), 0);
	UT_ASSERT_EQ_INT(journal_forget_failed(&j, j.gen), 2);
	UT_ASSERT(j.gen > gen);
	UT_ASSERT_EQ_INT(j.n, N - n_drop);
	for (size_t i = 0; i < N; i++) {
		const struct journal_entry *f = journal_find(&j, ent.ctx + 0x1000 * i);

		UT_ASSERT(i % 3 ? f && f->ctx == ent.ctx + 0x1000 * i : !f);
		UT_ASSERT(!(i % 3) || journal_durable(&j, ent.ctx + 0x1000 * i));
	}
	UT_ASSERT(!journal_find(&j, 0x42));
	journal_close(&j);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

int main(void)
{
	int ret;

	char tmpl[] = "/tmp/uringtune-commit-XXXXXX";

	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(root, sizeof(root), "%s", tmpl);
	ut_run("sync_writes_at_once", sync_writes_at_once);
	ut_run("thread_slow_write_does_not_block", thread_slow_write_does_not_block);
	ut_run("thread_failed_write_comes_back", thread_failed_write_comes_back);
	ut_run("thread_stop_drains", thread_stop_drains);
	ut_run("snapshot_is_a_copy", snapshot_is_a_copy);
	ut_run("staged_entries_found_by_address", staged_entries_found_by_address);
	ret = ut_finish();
	nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	return ret;
}
