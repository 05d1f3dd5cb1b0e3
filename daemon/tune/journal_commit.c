// SPDX-License-Identifier: GPL-2.0-only
/*
 * The journal's committers (journal_commit.h): one that writes at once, and
 * one that writes on its own thread so that the event loop never waits for
 * an fsync (one slow fsync on a shared disk stalled the daemon ~245 ms,
 * docs/BENCHMARKS.md "reaction").
 *
 * The thread is a struct worker (worker.h): it shares with the loop, under
 * the worker's mutex, the commit to write, the commit written and whether
 * it is stopping. Everything else it touches is the commit itself, the
 * loop's again only once reaped, and the journal's directory descriptor,
 * which the loop leaves alone while a commit is in flight (the lifecycle
 * waits for it before writing on its own). It logs nothing: errors travel
 * back in the commit, and its eventfd says when one is done.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "journal_commit.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int journal_commit_write(void *journal, struct journal_commit *c)
{
	return journal_write_entries(journal, c->entries, c->n, c->err, sizeof(c->err));
}

struct journal_commit *journal_commit_new(const struct journal *j)
{
	struct journal_commit *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->entries = malloc((j->n ? j->n : 1) * sizeof(*c->entries));
	if (!c->entries) {
		free(c);
		return NULL;
	}
	if (j->n)
		memcpy(c->entries, j->entries, j->n * sizeof(*c->entries));
	c->n = j->n;
	c->gen = j->gen;
	return c;
}

void journal_commit_free(struct journal_commit *c)
{
	if (!c)
		return;
	free(c->entries);
	free(c);
}

/* one write, timed */
static void run_write(journal_write_fn *write, void *arg, struct journal_commit *c)
{
	uint64_t t0 = mono_ns();

	c->err[0] = '\0';
	c->ret = write(arg, c);
	if (c->ret && !c->err[0])
		snprintf(c->err, sizeof(c->err), "cannot write the journal: %s", strerror(-c->ret));
	c->write_ns = mono_ns() - t0;
}

/* --- synchronous: written inside submit() ------------------------------- */

struct sync_committer {
	journal_write_fn *write;
	void *arg;
	struct journal_commit *done;
};

static void sync_submit(struct journal_committer *jc, struct journal_commit *c)
{
	struct sync_committer *s = jc->impl;

	run_write(s->write, s->arg, c);
	s->done = c;
}

static struct journal_commit *sync_reap(struct journal_committer *jc, bool wait)
{
	struct sync_committer *s = jc->impl;
	struct journal_commit *c = s->done;

	(void)wait;
	s->done = NULL;
	return c;
}

static void sync_fini(struct journal_committer *jc)
{
	struct sync_committer *s = jc->impl;

	journal_commit_free(s->done);
	free(s);
}

static const struct journal_committer_ops sync_ops = {
	.submit = sync_submit, .reap = sync_reap, .fini = sync_fini,
};

int journal_committer_sync(struct journal_committer *jc, journal_write_fn *write, void *arg)
{
	struct sync_committer *s = calloc(1, sizeof(*s));

	jc->ops = NULL;
	jc->fd = -1;
	if (!s)
		return -ENOMEM;
	s->write = write;
	s->arg = arg;
	jc->ops = &sync_ops;
	jc->fd = -1;
	jc->impl = s;
	return 0;
}

/* --- threaded: written on the committer's thread ------------------------ */

struct thread_committer {
	journal_write_fn *write;
	void *arg;
	struct worker w;		/* one commit queued or being written at a time */
};

static struct journal_commit *commit_of(struct worker_job *node)
{
	return node ? container_of(node, struct journal_commit, node) : NULL;
}

static void thread_write(struct worker *w, struct worker_job *node)
{
	struct thread_committer *t = container_of(w, struct thread_committer, w);

	run_write(t->write, t->arg, commit_of(node));
}

static void thread_submit(struct journal_committer *jc, struct journal_commit *c)
{
	struct thread_committer *t = jc->impl;

	worker_submit(&t->w, &c->node);
}

static struct journal_commit *thread_reap(struct journal_committer *jc, bool wait)
{
	struct thread_committer *t = jc->impl;

	return commit_of(worker_take(&t->w, wait));
}

static void thread_fini(struct journal_committer *jc)
{
	struct thread_committer *t = jc->impl;
	struct worker_job *node, *next;

	/* a commit submitted is still written: the loop may be waiting for it */
	for (node = worker_stop(&t->w); node; node = next) {
		next = node->next;
		journal_commit_free(commit_of(node));
	}
	free(t);
}

static const struct journal_committer_ops thread_ops = {
	.submit = thread_submit, .reap = thread_reap, .fini = thread_fini,
};

int journal_committer_thread(struct journal_committer *jc, journal_write_fn *write, void *arg)
{
	struct thread_committer *t = calloc(1, sizeof(*t));
	int ret;

	jc->ops = NULL;
	jc->fd = -1;
	if (!t)
		return -ENOMEM;
	t->write = write;
	t->arg = arg;
	/* every signal blocked there: SIGTERM and friends are the loop's (signalfd) */
	ret = worker_start(&t->w, thread_write, "ut-journal");
	if (ret) {
		free(t);
		return ret;
	}
	jc->ops = &thread_ops;
	jc->fd = t->w.efd;
	jc->impl = t;
	return 0;
}

void journal_committer_fini(struct journal_committer *jc)
{
	if (jc->ops)
		jc->ops->fini(jc);
	jc->ops = NULL;
	jc->fd = -1;
	jc->impl = NULL;
}
