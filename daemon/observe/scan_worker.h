/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The inventory's iterators off the event loop: a host sweep costs ~0.3 us
 * per open file on the host (210 ms at 740 000 files), a process's scan as
 * many of its files. One thread (a struct worker, worker.h) runs them in
 * turn; the loop hands it jobs and takes the finished ones back through an
 * eventfd (scan_worker_fd), so the loop never waits on an iterator. Jobs of
 * the same kind (and pid) waiting at once run once.
 */
#ifndef UT_SCAN_WORKER_H
#define UT_SCAN_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uringtune.h"
#include "worker.h"

struct ut_trace;

enum scan_kind {
	SCAN_SWEEP,	/* every file on the host */
	SCAN_PID,	/* one process's files */
};

struct scan_job {
	enum scan_kind kind;
	pid_t pid;			/* SCAN_PID */
	uint64_t t0_ns;			/* CLOCK_MONOTONIC when the iterator began */
	uint64_t wall_ns;		/* how long it ran */
	uint64_t cpu_ns;		/* the thread's CPU time for it */
	int ret;			/* records, or -errno */
	struct ut_ring_rec *recs;
	size_t n, cap;
	struct scan_job *next;		/* in what scan_worker_take returns */
	struct worker_job node;		/* in the worker's queues */
};

struct scan_worker {
	struct ut_trace *trace;
	struct worker worker;
};

int scan_worker_start(struct scan_worker *w, struct ut_trace *trace);
/* waits for the job running now; jobs not started are dropped */
void scan_worker_stop(struct scan_worker *w);
int scan_worker_fd(const struct scan_worker *w);

static inline bool scan_worker_started(const struct scan_worker *w)
{
	return w->worker.started;
}

/* queue a job (no-op if the same is already waiting); -ENOMEM, -ENOSPC if too many wait */
int scan_worker_submit(struct scan_worker *w, enum scan_kind kind, pid_t pid);
/* is a job of this kind waiting or running? (SCAN_PID: any pid) */
bool scan_worker_busy(struct scan_worker *w, enum scan_kind kind);
/* the finished jobs, oldest first; the caller frees each with scan_job_free */
struct scan_job *scan_worker_take(struct scan_worker *w);
void scan_job_free(struct scan_job *job);

/* run one job on the calling thread (the start-up sweep, and the worker itself) */
void scan_job_run(struct ut_trace *trace, struct scan_job *job);

#endif /* UT_SCAN_WORKER_H */
