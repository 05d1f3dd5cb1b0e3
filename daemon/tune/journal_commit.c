// SPDX-License-Identifier: GPL-2.0-only
/*
 * The journal's committers (journal_commit.h): one that writes at once, and
 * one that writes on its own thread so that the event loop never waits for
 * an fsync (one slow fsync on a shared disk stalled the daemon ~245 ms,
 * docs/BENCHMARKS.md "reaction").
 *
 * The thread shares three things with the loop, under one mutex: the
 * commit to write (todo), the commit written (done), and whether it is
 * stopping. Everything else it touches is the commit itself, the loop's
 * again only once reaped, and the journal's directory descriptor, which
 * the loop leaves alone while a commit is in flight (the lifecycle waits
 * for it before writing on its own). It logs nothing: errors travel back in
 * the commit. After each commit it adds 1 to an eventfd; the loop's reap
 * empties it first, so a wake-up with nothing done is read once and gone.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

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
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* the thread: a commit to write, or stop */
	pthread_cond_t written;		/* a waiting reaper: a commit is done */
	struct journal_commit *todo;	/* submitted, not yet taken by the thread */
	struct journal_commit *busy;	/* being written */
	struct journal_commit *done;	/* written, not yet reaped */
	bool stop;
	int efd;
};

static void *committer_main(void *arg)
{
	struct thread_committer *t = arg;
	struct journal_commit *c;
	uint64_t one = 1;
	ssize_t n;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		while (!t->todo && !t->stop)
			pthread_cond_wait(&t->wake, &t->lock);
		/* a stop still writes what was submitted: the loop may be waiting for it */
		if (!t->todo)
			break;
		c = t->busy = t->todo;
		t->todo = NULL;
		pthread_mutex_unlock(&t->lock);
		run_write(t->write, t->arg, c);
		pthread_mutex_lock(&t->lock);
		t->busy = NULL;
		t->done = c;
		pthread_cond_broadcast(&t->written);
		/* cannot fail: the loop empties the counter at each wake-up */
		n = write(t->efd, &one, sizeof(one));
		(void)n;
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

static void thread_submit(struct journal_committer *jc, struct journal_commit *c)
{
	struct thread_committer *t = jc->impl;

	pthread_mutex_lock(&t->lock);
	t->todo = c;
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
}

static struct journal_commit *thread_reap(struct journal_committer *jc, bool wait)
{
	struct thread_committer *t = jc->impl;
	struct journal_commit *c;
	uint64_t count;
	ssize_t n;

	/* empty the counter first: a later wake-up then always has a commit or is read once */
	n = read(t->efd, &count, sizeof(count));
	(void)n;
	pthread_mutex_lock(&t->lock);
	while (wait && !t->done && (t->todo || t->busy))
		pthread_cond_wait(&t->written, &t->lock);
	c = t->done;
	t->done = NULL;
	pthread_mutex_unlock(&t->lock);
	return c;
}

static void thread_fini(struct journal_committer *jc)
{
	struct thread_committer *t = jc->impl;

	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	journal_commit_free(t->done);
	close(t->efd);
	pthread_cond_destroy(&t->written);
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static const struct journal_committer_ops thread_ops = {
	.submit = thread_submit, .reap = thread_reap, .fini = thread_fini,
};

/* the thread, with every signal blocked: SIGTERM and friends are the loop's (signalfd) */
static int start_thread(struct thread_committer *t)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&t->thread, NULL, committer_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ret)
		pthread_setname_np(t->thread, "ut-journal");
	return ret;
}

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
	t->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (t->efd < 0) {
		ret = -errno;
		free(t);
		return ret;
	}
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->wake, NULL);
	pthread_cond_init(&t->written, NULL);
	ret = start_thread(t);
	if (ret) {
		close(t->efd);
		pthread_cond_destroy(&t->written);
		pthread_cond_destroy(&t->wake);
		pthread_mutex_destroy(&t->lock);
		free(t);
		return ret;
	}
	jc->ops = &thread_ops;
	jc->fd = t->efd;
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
