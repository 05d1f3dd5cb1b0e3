/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A journal write held at a gate, for the committer's tests: a slow fsync
 * that lasts exactly as long as the test wants, or a failing one. The write
 * runs on the committer's thread; the test opens the gate from its own (or
 * from a helper thread, while it is itself blocked in the code under test).
 * Waits are bounded (10 s) only so that a broken test fails instead of
 * hanging: nothing is timed.
 */
#ifndef UT_COMMIT_GATE_H
#define UT_COMMIT_GATE_H

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "journal_commit.h"

#define GATE_WAIT_S	10

static struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open;
	int fail;			/* -errno: the write fails so instead */
	unsigned int started;		/* writes that reached the gate */
	unsigned int writes;		/* ... and went through it */
	size_t last_n;			/* entries of the last one */
	bool signals_blocked;		/* SIGTERM and SIGHUP blocked on the writing thread */
} gate = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static inline void gate_reset(bool open)
{
	pthread_mutex_lock(&gate.lock);
	gate.open = open;
	gate.fail = 0;
	gate.started = gate.writes = 0;
	gate.last_n = 0;
	gate.signals_blocked = false;
	pthread_mutex_unlock(&gate.lock);
}

static inline void gate_set(bool open, int fail)
{
	pthread_mutex_lock(&gate.lock);
	gate.open = open;
	gate.fail = fail;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
}

static inline unsigned int gate_count(const unsigned int *field)
{
	unsigned int n;

	pthread_mutex_lock(&gate.lock);
	n = *field;
	pthread_mutex_unlock(&gate.lock);
	return n;
}

/* until @n writes reached the gate; false if they did not within GATE_WAIT_S */
static inline bool gate_wait_started(unsigned int n)
{
	struct timespec until;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += GATE_WAIT_S;
	pthread_mutex_lock(&gate.lock);
	while (gate.started < n && ret != ETIMEDOUT)
		ret = pthread_cond_timedwait(&gate.cond, &gate.lock, &until);
	ret = gate.started >= n;
	pthread_mutex_unlock(&gate.lock);
	return ret;
}

/* the committer's write: @arg is the struct journal, written for real past the gate */
static inline int gated_write(void *arg, struct journal_commit *c)
{
	sigset_t cur;
	int fail;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	pthread_mutex_lock(&gate.lock);
	gate.signals_blocked = sigismember(&cur, SIGTERM) && sigismember(&cur, SIGHUP);
	gate.started++;
	pthread_cond_broadcast(&gate.cond);
	while (!gate.open)
		pthread_cond_wait(&gate.cond, &gate.lock);
	gate.writes++;
	gate.last_n = c->n;
	fail = gate.fail;
	pthread_mutex_unlock(&gate.lock);
	if (fail) {
		snprintf(c->err, sizeof(c->err), "injected: %s", strerror(-fail));
		return fail;
	}
	return arg ? journal_commit_write(arg, c) : 0;
}

/* a helper thread: opens the gate once a write reached it (the test is blocked meanwhile) */
static inline void *gate_opener(void *arg)
{
	(void)arg;
	gate_wait_started(1);
	gate_set(true, 0);
	return NULL;
}

/* the loop's side: the committer's fd readable within GATE_WAIT_S */
static inline bool fd_readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

#endif /* UT_COMMIT_GATE_H */
