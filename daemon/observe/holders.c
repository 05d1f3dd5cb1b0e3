// SPDX-License-Identifier: GPL-2.0-only
/* Watching the processes that hold rings: pidfds and fork reports. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include <systemd/sd-event.h>

#include "holders.h"
#include "log.h"
#include "loop_source.h"
#include "proc_stat.h"
#include "trace.h"

#define HOLDERS_MIN_BUCKETS	64

static size_t bucket_of(pid_t pid, size_t n)
{
	return ((uint32_t)pid * 2654435761U) & (n - 1);
}

int holders_init(struct holders *hs, holders_exit_cb on_exit, void *arg)
{
	memset(hs, 0, sizeof(*hs));
	hs->buckets = calloc(HOLDERS_MIN_BUCKETS, sizeof(*hs->buckets));
	if (!hs->buckets)
		return -ENOMEM;
	hs->n_buckets = HOLDERS_MIN_BUCKETS;
	hs->on_exit = on_exit;
	hs->arg = arg;
	return 0;
}

static void unwatch(struct holders *hs, struct holder_proc *h)
{
	h->src = sd_event_source_disable_unref(h->src);
	if (h->pidfd >= 0)
		close(h->pidfd);
	h->pidfd = -1;
	if (hs->trace)
		trace_holder_set(hs->trace, h->pid, false);
}

void holders_fini(struct holders *hs)
{
	struct holder_proc *h, *next;

	for (size_t i = 0; i < hs->n_buckets; i++) {
		for (h = hs->buckets[i]; h; h = next) {
			next = h->next;
			unwatch(hs, h);
			free(h);
		}
	}
	free(hs->buckets);
	free(hs->exited);
	memset(hs, 0, sizeof(*hs));
}

struct holder_proc *holders_find(const struct holders *hs, pid_t pid)
{
	struct holder_proc *h;

	if (!hs->buckets)
		return NULL;
	for (h = hs->buckets[bucket_of(pid, hs->n_buckets)]; h; h = h->next)
		if (h->pid == pid)
			return h;
	return NULL;
}

static void grow(struct holders *hs)
{
	size_t n = hs->n_buckets * 2;
	struct holder_proc **b = calloc(n, sizeof(*b));
	struct holder_proc *h, *next;

	/* a longer chain is slower, not wrong */
	if (!b)
		return;
	for (size_t i = 0; i < hs->n_buckets; i++) {
		for (h = hs->buckets[i]; h; h = next) {
			next = h->next;
			h->next = b[bucket_of(h->pid, n)];
			b[bucket_of(h->pid, n)] = h;
		}
	}
	free(hs->buckets);
	hs->buckets = b;
	hs->n_buckets = n;
}

static void queue_exit(struct holders *hs, pid_t pid)
{
	pid_t *grown;
	size_t cap;

	if (hs->n_exited == hs->cap_exited) {
		cap = hs->cap_exited ? hs->cap_exited * 2 : 16;
		grown = realloc(hs->exited, cap * sizeof(*grown));
		/* the ring's verification finds it later */
		if (!grown)
			return;
		hs->exited = grown;
		hs->cap_exited = cap;
	}
	hs->exited[hs->n_exited++] = pid;
}

static void exited(struct holders *hs, struct holder_proc *h)
{
	if (h->exited)
		return;
	h->exited = true;
	unwatch(hs, h);
}

/* the process exited and its files are closed: what it held is checked now */
static int on_pidfd(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct holder_proc *h = arg;
	struct holders *hs = h->hs;
	pid_t pid = h->pid;

	(void)fd, (void)revents;
	loop_source_enter(s);
	exited(hs, h);
	/* may move its rings elsewhere and free h */
	hs->on_exit(hs->arg, pid);
	return 0;
}

/* watch a process newly holding a ring; an exit already past is queued */
static void watch(struct holders *hs, struct holder_proc *h)
{
	int ret;

	if (hs->trace)
		trace_holder_set(hs->trace, h->pid, true);
	if (!hs->event)
		return;
	h->pidfd = pidfd_open(h->pid, 0);
	if (h->pidfd < 0) {
		if (errno == ESRCH) {
			h->exited = true;
			queue_exit(hs, h->pid);
			return;
		}
		if (!hs->unwatched++)
			log_warn("watching ring holder pid %d: pidfd_open: %s (its exit is noticed "
				 "by the ring checks instead)", h->pid, strerror(errno));
		return;
	}
	/* the pid may name a newer process already: then ours has exited */
	if (!proc_same_start(h->pid, h->start_boottime)) {
		exited(hs, h);
		queue_exit(hs, h->pid);
		return;
	}
	ret = sd_event_add_io(hs->event, &h->src, h->pidfd, EPOLLIN, on_pidfd, h);
	if (ret >= 0)
		loop_source_describe(h->src, "holder-exit");
	if (ret < 0) {
		close(h->pidfd);
		h->pidfd = -1;
		if (!hs->unwatched++)
			log_warn("watching ring holder pid %d: %s", h->pid, strerror(-ret));
	}
}

static void add_holder(struct holders *hs, const struct ut_holder *who)
{
	struct holder_proc *h = holders_find(hs, who->pid);
	size_t b;

	if (h) {
		h->rings++;
		return;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		hs->unwatched++;
		return;
	}
	h->hs = hs;
	h->pid = who->pid;
	h->start_boottime = who->start_boottime;
	h->rings = 1;
	h->pidfd = -1;
	if (hs->count + 1 > hs->n_buckets)
		grow(hs);
	b = bucket_of(h->pid, hs->n_buckets);
	h->next = hs->buckets[b];
	hs->buckets[b] = h;
	hs->count++;
	watch(hs, h);
}

static void drop_holder(struct holders *hs, pid_t pid)
{
	struct holder_proc **pp, *h;

	for (pp = &hs->buckets[bucket_of(pid, hs->n_buckets)]; (h = *pp); pp = &h->next) {
		if (h->pid != pid)
			continue;
		if (--h->rings)
			return;
		*pp = h->next;
		hs->count--;
		unwatch(hs, h);
		free(h);
		return;
	}
}

void holders_on_holder(void *arg, pid_t old_pid, const struct ut_holder *now)
{
	struct holders *hs = arg;

	/* add first: a ring moving between two fds of one process keeps its watch */
	if (now->pid > 0)
		add_holder(hs, now);
	if (old_pid > 0)
		drop_holder(hs, old_pid);
}

void holders_forked(struct holders *hs, pid_t parent, pid_t child, uint64_t start_boottime)
{
	struct holder_proc *h = holders_find(hs, parent);

	if (!h || h->exited)
		return;
	h->kids[h->n_kids % HOLDER_KIDS] = (struct holder_kid){ child, start_boottime };
	h->n_kids++;
	hs->forks++;
}

void holders_flush_exits(struct holders *hs)
{
	size_t n;

	/* on_exit may add holders, and queue more */
	while ((n = hs->n_exited)) {
		pid_t pid = hs->exited[n - 1];

		hs->n_exited--;
		hs->on_exit(hs->arg, pid);
	}
}

void holders_attach(struct holders *hs, struct sd_event *event, struct ut_trace *trace)
{
	struct holder_proc *h;

	hs->event = event;
	hs->trace = trace;
	/* processes known before the loop ran (the start-up sweep) */
	for (size_t i = 0; i < hs->n_buckets; i++)
		for (h = hs->buckets[i]; h; h = h->next)
			if (!h->exited && h->pidfd < 0)
				watch(hs, h);
}
