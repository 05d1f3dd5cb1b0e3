/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A thread that runs jobs off the event loop: the loop queues them, the
 * thread runs them one at a time, oldest first, and adds 1 to an eventfd
 * (w->efd, polled by the loop) after each; the loop then takes the finished
 * ones back. The thread blocks every signal (SIGTERM and friends are the
 * loop's, through its signalfd) and logs nothing: results travel back in
 * the jobs. The take empties the eventfd first, so a wake-up with nothing
 * done is read once and gone.
 *
 * Jobs embed a struct worker_job; the owner's run function finds its job
 * with container_of(). Built on it: the inventory's iterators
 * (observe/scan_worker.c) and the journal's threaded committer
 * (tune/journal_commit.c).
 */
#ifndef UT_WORKER_H
#define UT_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

struct worker_job {
	struct worker_job *next;
};

struct worker;
/* runs @job on the worker's thread, without the lock */
typedef void worker_run_fn(struct worker *w, struct worker_job *job);

struct worker {
	worker_run_fn *run;
	pthread_t thread;
	pthread_mutex_t lock;		/* the fields below */
	pthread_cond_t wake;		/* the thread: a job, or stop */
	pthread_cond_t finished;	/* a waiting take: a job is done */
	struct worker_job *todo, *done;	/* singly linked, FIFO */
	struct worker_job *running;	/* neither todo nor done */
	size_t queued;			/* jobs in todo */
	int efd;			/* readable when jobs are done; -1 if not started */
	bool started, stop;
};

/* @name (NULL: none) names the thread; 0 or -errno, then efd is -1 */
int worker_start(struct worker *w, worker_run_fn *run, const char *name);
/*
 * Runs what is queued, joins the thread and closes the eventfd; the jobs
 * done and not taken are returned, the caller's to free (a worker never
 * started: NULL).
 */
struct worker_job *worker_stop(struct worker *w);

/* queue @job (the lock held: see worker_lock) */
void worker_queue_locked(struct worker *w, struct worker_job *job);
void worker_submit(struct worker *w, struct worker_job *job);
/* the jobs not started, taken off the queue: the caller's again */
struct worker_job *worker_cancel(struct worker *w);
/* the finished jobs, oldest first (@wait: wait for one while any is queued or running) */
struct worker_job *worker_take(struct worker *w, bool wait);

/* to read todo and running, or to queue after a look, consistently */
static inline void worker_lock(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
}

static inline void worker_unlock(struct worker *w)
{
	pthread_mutex_unlock(&w->lock);
}

#endif /* UT_WORKER_H */
