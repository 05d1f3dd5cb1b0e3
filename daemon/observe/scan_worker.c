// SPDX-License-Identifier: GPL-2.0-only
/* The inventory's iterator thread. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "scan_worker.h"
#include "trace.h"

/* per-process scans waiting at once; more, and the caller asks for a sweep */
#define SCAN_MAX_QUEUED		1024

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void collect(const struct ut_ring_rec *rec, void *arg)
{
	struct scan_job *job = arg;
	struct ut_ring_rec *grown;
	size_t cap;

	if (job->n == job->cap) {
		cap = job->cap ? job->cap * 2 : 16;
		grown = realloc(job->recs, cap * sizeof(*grown));
		/* out of memory: the job ends short, and says so */
		if (!grown) {
			job->ret = -ENOMEM;
			return;
		}
		job->recs = grown;
		job->cap = cap;
	}
	job->recs[job->n++] = *rec;
}

void scan_job_run(struct ut_trace *trace, struct scan_job *job)
{
	uint64_t cpu0 = thread_cpu_ns();
	int ret;

	job->ret = 0;
	job->t0_ns = now_ns();
	switch (job->kind) {
	case SCAN_SWEEP:
		ret = trace_sweep(trace, collect, job);
		break;
	case SCAN_PID:
	default:
		ret = trace_scan_pid(trace, job->pid, collect, job);
		break;
	}
	if (ret < 0 || job->ret == 0)
		job->ret = ret;
	job->wall_ns = now_ns() - job->t0_ns;
	job->cpu_ns = thread_cpu_ns() - cpu0;
}

void scan_job_free(struct scan_job *job)
{
	if (!job)
		return;
	free(job->recs);
	free(job);
}

static void append(struct scan_job **list, struct scan_job *job)
{
	job->next = NULL;
	while (*list)
		list = &(*list)->next;
	*list = job;
}

static void *worker_main(void *arg)
{
	struct scan_worker *w = arg;
	struct scan_job *job;
	uint64_t one = 1;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->todo && !w->stop)
			pthread_cond_wait(&w->wake, &w->lock);
		if (w->stop)
			break;
		job = w->todo;
		w->todo = job->next;
		w->queued--;
		w->running = true;
		/* the running job is neither todo nor done: busy() says running */
		w->current_kind = job->kind;
		pthread_mutex_unlock(&w->lock);

		scan_job_run(w->trace, job);

		pthread_mutex_lock(&w->lock);
		w->running = false;
		append(&w->done, job);
		/* an eventfd write cannot block short of 2^64 - 1 pending */
		if (write(w->efd, &one, sizeof(one)) < 0)
			(void)0;
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int scan_worker_start(struct scan_worker *w, struct ut_trace *trace)
{
	sigset_t all, old;
	int ret;

	memset(w, 0, sizeof(*w));
	w->trace = trace;
	w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->efd < 0)
		return -errno;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	/* signals stay with the loop's signalfd: the thread blocks them all */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = -pthread_create(&w->thread, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		close(w->efd);
		w->efd = -1;
		return ret;
	}
	w->started = true;
	return 0;
}

static void free_list(struct scan_job *job)
{
	struct scan_job *next;

	for (; job; job = next) {
		next = job->next;
		scan_job_free(job);
	}
}

void scan_worker_stop(struct scan_worker *w)
{
	if (!w->started)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	free_list(w->todo);
	free_list(w->done);
	w->todo = w->done = NULL;
	close(w->efd);
	w->efd = -1;
	w->started = false;
}

int scan_worker_fd(const struct scan_worker *w)
{
	return w->efd;
}

static bool waiting(const struct scan_worker *w, enum scan_kind kind, pid_t pid, bool any_pid)
{
	for (const struct scan_job *j = w->todo; j; j = j->next)
		if (j->kind == kind && (any_pid || j->pid == pid))
			return true;
	return false;
}

int scan_worker_submit(struct scan_worker *w, enum scan_kind kind, pid_t pid)
{
	struct scan_job *job;
	int ret = 0;

	if (!w->started)
		return -ENOTCONN;
	pthread_mutex_lock(&w->lock);
	if (waiting(w, kind, pid, false))
		goto out;
	if (w->queued >= SCAN_MAX_QUEUED) {
		ret = -ENOSPC;
		goto out;
	}
	job = calloc(1, sizeof(*job));
	if (!job) {
		ret = -ENOMEM;
		goto out;
	}
	job->kind = kind;
	job->pid = pid;
	append(&w->todo, job);
	w->queued++;
	pthread_cond_signal(&w->wake);
out:
	pthread_mutex_unlock(&w->lock);
	return ret;
}

bool scan_worker_busy(struct scan_worker *w, enum scan_kind kind)
{
	bool busy;

	if (!w->started)
		return false;
	pthread_mutex_lock(&w->lock);
	busy = (w->running && w->current_kind == kind) || waiting(w, kind, 0, true);
	pthread_mutex_unlock(&w->lock);
	return busy;
}

struct scan_job *scan_worker_take(struct scan_worker *w)
{
	struct scan_job *done;
	uint64_t n;

	if (!w->started)
		return NULL;
	if (read(w->efd, &n, sizeof(n)) < 0)
		(void)0;	/* EAGAIN: nothing signalled; the list says */
	pthread_mutex_lock(&w->lock);
	done = w->done;
	w->done = NULL;
	pthread_mutex_unlock(&w->lock);
	return done;
}
