// SPDX-License-Identifier: GPL-2.0-only
/* The inventory's iterator thread. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static struct scan_job *job_of(struct worker_job *node)
{
	return node ? container_of(node, struct scan_job, node) : NULL;
}

static void run(struct worker *wk, struct worker_job *node)
{
	struct scan_worker *w = container_of(wk, struct scan_worker, worker);

	scan_job_run(w->trace, job_of(node));
}

int scan_worker_start(struct scan_worker *w, struct ut_trace *trace)
{
	memset(w, 0, sizeof(*w));
	w->trace = trace;
	return worker_start(&w->worker, run, NULL);
}

static void free_list(struct worker_job *node)
{
	struct worker_job *next;

	for (; node; node = next) {
		next = node->next;
		scan_job_free(job_of(node));
	}
}

void scan_worker_stop(struct scan_worker *w)
{
	if (!w->worker.started)
		return;
	/* the job running now ends first; those not started are dropped */
	free_list(worker_cancel(&w->worker));
	free_list(worker_stop(&w->worker));
}

int scan_worker_fd(const struct scan_worker *w)
{
	return w->worker.efd;
}

/* the lock held */
static bool waiting(const struct scan_worker *w, enum scan_kind kind, pid_t pid, bool any_pid)
{
	for (const struct worker_job *n = w->worker.todo; n; n = n->next) {
		const struct scan_job *j = container_of(n, const struct scan_job, node);

		if (j->kind == kind && (any_pid || j->pid == pid))
			return true;
	}
	return false;
}

int scan_worker_submit(struct scan_worker *w, enum scan_kind kind, pid_t pid)
{
	struct scan_job *job;
	int ret = 0;

	if (!w->worker.started)
		return -ENOTCONN;
	worker_lock(&w->worker);
	if (waiting(w, kind, pid, false))
		goto out;
	if (w->worker.queued >= SCAN_MAX_QUEUED) {
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
	worker_queue_locked(&w->worker, &job->node);
out:
	worker_unlock(&w->worker);
	return ret;
}

bool scan_worker_busy(struct scan_worker *w, enum scan_kind kind)
{
	bool busy;

	if (!w->worker.started)
		return false;
	worker_lock(&w->worker);
	/* the thread writes a job's results, never its kind: read here under the lock */
	busy = (w->worker.running && job_of(w->worker.running)->kind == kind) ||
	       waiting(w, kind, 0, true);
	worker_unlock(&w->worker);
	return busy;
}

struct scan_job *scan_worker_take(struct scan_worker *w)
{
	struct worker_job *node;

	if (!w->worker.started)
		return NULL;
	node = worker_take(&w->worker, false);
	for (struct worker_job *n = node; n; n = n->next)
		job_of(n)->next = job_of(n->next);
	return job_of(node);
}
