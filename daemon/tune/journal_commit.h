/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Group commit of the journal: how a snapshot of its entries reaches the
 * disk without the event loop waiting for the fsyncs.
 *
 * The lifecycle stages changes in memory (journal_stage_*, generations),
 * takes a snapshot (journal_commit_new(): the entries at generation G) and
 * hands it to a committer; one commit is in flight at a time, and what is
 * staged meanwhile goes into the next one. The committer writes it (temp
 * file, fsync, rename, directory fsync) and says so: the threaded one on
 * its own thread, readable on journal_committer_fd() (an eventfd the loop
 * polls) when done; the synchronous one at once, for tests and as the
 * fallback. The lifecycle then reaps the commit and changes the rings that
 * waited for G.
 *
 *	c = journal_commit_new(j);
 *	journal_committer_submit(jc, c);
 *	... later, fd readable (or at once, synchronous) ...
 *	c = journal_committer_reap(jc, false);		// NULL: not yet
 *	if (!c->ret) journal_committed(j, c->gen);
 *	journal_commit_free(c);
 *
 * How a commit is written is injected too (journal_write_fn): the journal's
 * file in the daemon, a slow or failing stand-in in tests.
 */
#ifndef UT_JOURNAL_COMMIT_H
#define UT_JOURNAL_COMMIT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "journal.h"
#include "worker.h"

/* one snapshot of the journal, written whole */
struct journal_commit {
	uint64_t gen;			/* the journal's generation it holds */
	struct journal_entry *entries;
	size_t n;
	/* filled by the committer */
	int ret;			/* 0, or -errno with err set */
	char err[PATH_MAX + 320];
	uint64_t write_ns;		/* how long the write took (CLOCK_MONOTONIC) */
	struct worker_job node;		/* the threaded committer's queue */
};

/* write @c whole and durably: 0, or -errno with c->err set; any thread */
typedef int journal_write_fn(void *arg, struct journal_commit *c);

/* the daemon's journal_write_fn: @arg is the struct journal (journal_write_entries()) */
int journal_commit_write(void *journal, struct journal_commit *c);

/* a snapshot of @j's entries now, or NULL (out of memory) */
struct journal_commit *journal_commit_new(const struct journal *j);
void journal_commit_free(struct journal_commit *c);

struct journal_committer;

struct journal_committer_ops {
	/* take @c (the caller's again once reaped) and write it; one at a time */
	void (*submit)(struct journal_committer *jc, struct journal_commit *c);
	/* the submitted commit once written (@wait: wait for it), else NULL */
	struct journal_commit *(*reap)(struct journal_committer *jc, bool wait);
	void (*fini)(struct journal_committer *jc);
};

struct journal_committer {
	const struct journal_committer_ops *ops;	/* NULL: none started */
	int fd;				/* readable when a commit is done; -1: synchronous */
	void *impl;
};

/* writes each commit inside submit(), on the caller's thread; 0 or -ENOMEM */
int journal_committer_sync(struct journal_committer *jc, journal_write_fn *write, void *arg);
/*
 * Writes each commit on a thread of its own (every signal blocked there),
 * and makes fd readable when one is done. 0 or -errno.
 */
int journal_committer_thread(struct journal_committer *jc, journal_write_fn *write, void *arg);
/* a commit in flight is written first (and lost to the caller); a zeroed jc is fine */
void journal_committer_fini(struct journal_committer *jc);

static inline void journal_committer_submit(struct journal_committer *jc,
					    struct journal_commit *c)
{
	jc->ops->submit(jc, c);
}

static inline struct journal_commit *journal_committer_reap(struct journal_committer *jc,
							    bool wait)
{
	return jc->ops->reap(jc, wait);
}

#endif /* UT_JOURNAL_COMMIT_H */
