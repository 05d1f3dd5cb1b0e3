// SPDX-License-Identifier: GPL-2.0-only
/* A job thread that tells the event loop through an eventfd: see worker.h. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "worker.h"

static void append(struct worker_job **list, struct worker_job *job)
{
	job->next = NULL;
	while (*list)
		list = &(*list)->next;
	*list = job;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct worker_job *job;
	uint64_t one = 1;
	ssize_t n;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->todo && !w->stop)
			pthread_cond_wait(&w->wake, &w->lock);
		/* a stop still runs what was queued: the loop may be waiting for it */
		if (!w->todo)
			break;
		job = w->running = w->todo;
		w->todo = job->next;
		w->queued--;
		pthread_mutex_unlock(&w->lock);

		w->run(w, job);

		pthread_mutex_lock(&w->lock);
		w->running = NULL;
		append(&w->done, job);
		pthread_cond_broadcast(&w->finished);
		/* cannot fail: the loop empties the counter at each wake-up */
		n = write(w->efd, &one, sizeof(one));
		(void)n;
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void destroy(struct worker *w)
{
	close(w->efd);
	w->efd = -1;
	pthread_cond_destroy(&w->finished);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
}

int worker_start(struct worker *w, worker_run_fn *run, const char *name)
{
	sigset_t all, old;
	int ret;

	memset(w, 0, sizeof(*w));
	w->run = run;
	w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->efd < 0)
		return -errno;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	pthread_cond_init(&w->finished, NULL);
	/* signals stay with the loop's signalfd: the thread blocks them all */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&w->thread, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		destroy(w);
		return ret;
	}
	if (name)
		pthread_setname_np(w->thread, name);
	w->started = true;
	return 0;
}

struct worker_job *worker_stop(struct worker *w)
{
	struct worker_job *done;

	if (!w->started)
		return NULL;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	done = w->done;
	w->done = NULL;
	destroy(w);
	w->started = false;
	return done;
}

void worker_queue_locked(struct worker *w, struct worker_job *job)
{
	append(&w->todo, job);
	w->queued++;
	pthread_cond_signal(&w->wake);
}

void worker_submit(struct worker *w, struct worker_job *job)
{
	pthread_mutex_lock(&w->lock);
	worker_queue_locked(w, job);
	pthread_mutex_unlock(&w->lock);
}

struct worker_job *worker_cancel(struct worker *w)
{
	struct worker_job *todo;

	pthread_mutex_lock(&w->lock);
	todo = w->todo;
	w->todo = NULL;
	w->queued = 0;
	pthread_mutex_unlock(&w->lock);
	return todo;
}

struct worker_job *worker_take(struct worker *w, bool wait)
{
	struct worker_job *done;
	uint64_t count;
	ssize_t n;

	/* empty the counter first: a later wake-up then always has a job or is read once */
	n = read(w->efd, &count, sizeof(count));
	(void)n;
	pthread_mutex_lock(&w->lock);
	while (wait && !w->done && (w->todo || w->running))
		pthread_cond_wait(&w->finished, &w->lock);
	done = w->done;
	w->done = NULL;
	pthread_mutex_unlock(&w->lock);
	return done;
}
