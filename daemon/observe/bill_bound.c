// SPDX-License-Identifier: GPL-2.0-only
/* The bill's physical bound: a thread's rings, its CPU time (bill_bound.h). */
#include <stdbool.h>
#include <stdlib.h>

#include "bill_bound.h"
#include "proc_task.h"

static int by_thread(const void *a, const void *b)
{
	const struct bill_bound_ring *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return 0;
}

static bool first_step(const struct bill_bound_ring *r)
{
	return r->step.span_ns == BILL_SPAN_UNKNOWN;
}

/* @g[0..n): the rings one thread waits on; @cpu its CPU time now */
static void bound_thread(struct bill_bound_ring *g, size_t n, uint64_t cpu,
			 struct bill_step **scratch)
{
	uint64_t since = 0;
	size_t i, k = 0, all = 0;

	/* the freshest reading of this thread any of its rings keeps */
	for (i = 0; i < n; i++) {
		const struct bill_cpu_seen *s = g[i].seen;

		if (s->have && s->tgid == g[i].tgid && s->tid == g[i].tid && s->ns <= cpu &&
		    s->ns > since)
			since = s->ns;
	}
	/* the steps since the rings' previous ones: what it ran since that reading */
	for (i = 0; i < n; i++) {
		if (g[i].waiter_changed) {
			g[i].step.bound = BILL_BOUND_THREAD_CHANGED;
			continue;
		}
		if (!first_step(&g[i]))
			scratch[k++] = &g[i].step;
	}
	bill_cap_thread(scratch, k, cpu - since);
	/* with first steps: all of them together, at most all it ever ran */
	for (i = 0; i < n; i++)
		all += first_step(&g[i]) && !g[i].waiter_changed;
	if (all) {
		for (i = 0; i < n; i++) {
			if (first_step(&g[i]) && !g[i].waiter_changed)
				scratch[k++] = &g[i].step;
		}
		bill_cap_thread(scratch, k, cpu);
	}
	for (i = 0; i < n; i++)
		*g[i].seen = (struct bill_cpu_seen){ .tgid = g[i].tgid, .tid = g[i].tid, .ns = cpu,
						     .have = true };
}

size_t bill_bound_rings(struct bill_bound_ring *rings, size_t n, struct bill_step **scratch,
			bill_cpu_read_fn read, void *arg)
{
	size_t i, j, reads = 0;

	if (!n)
		return 0;
	qsort(rings, n, sizeof(*rings), by_thread);
	for (i = 0; i < n; i = j) {
		uint64_t cpu;
		int err;

		for (j = i + 1; j < n && !by_thread(&rings[i], &rings[j]); j++)
			;
		if (!rings[i].tid || !rings[i].tgid) {
			for (size_t k = i; k < j; k++)
				rings[k].step.bound = BILL_BOUND_NO_THREAD;
			continue;
		}
		reads++;
		err = read(arg, (pid_t)rings[i].tgid, (pid_t)rings[i].tid, &cpu);
		if (err) {
			for (size_t k = i; k < j; k++) {
				rings[k].step.bound = BILL_BOUND_UNREAD;
				rings[k].seen->have = false;
			}
			continue;
		}
		bound_thread(rings + i, j - i, cpu, scratch);
	}
	return reads;
}

int bill_cpu_read_proc(void *arg, pid_t tgid, pid_t tid, uint64_t *ns)
{
	(void)arg;
	return proc_task_cpu_ns(tgid, tid, ns);
}
