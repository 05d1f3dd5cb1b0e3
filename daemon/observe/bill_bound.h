/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The bill's physical bound, from /proc: the rings whose windows grew in a
 * step, grouped by the thread that waits on them (the ring's user_tgid and
 * wait_tid), are billed together at most what that thread ran since it was
 * last read (bill_cap_thread). Each thread is read once a step, and only
 * threads with such a ring: a host of idle rings reads nothing.
 *
 * What a step is bounded by, ring by ring:
 *   - its thread's CPU time since the freshest reading of that thread kept
 *     by any of the group's rings (none: since the thread began; either way
 *     also by the step's length, one CPU);
 *   - a ring's first step (its counters since they began: when, not known)
 *     by the thread's whole CPU time, with the group's other rings;
 *   - nothing, said in the ring's bound: no waiting thread known
 *     (wait_tid 0), another thread waited at its step before (the windows
 *     may be that thread's), or the read failed (the thread exited).
 * Pure but for the read, which is a callback (unit-tested with a fake).
 */
#ifndef UT_BILL_BOUND_H
#define UT_BILL_BOUND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bill.h"

/* a ring's waiting thread's CPU time when last read */
struct bill_cpu_seen {
	uint32_t tgid, tid;
	uint64_t ns;
	bool have;
};

/* one ring whose windows grew in the step */
struct bill_bound_ring {
	struct bill_step step;		/* priced, bounded here, then the caller commits it */
	uint32_t tgid, tid;		/* who waits on the ring now; tid 0: not known */
	bool waiter_changed;		/* ... not who waited at its previous step */
	struct bill_cpu_seen *seen;	/* the ring's last reading: used and updated */
	void *owner;			/* the caller's */
};

/* a thread's CPU time in ns, schedstat's; 0 or -errno */
typedef int (*bill_cpu_read_fn)(void *arg, pid_t tgid, pid_t tid, uint64_t *ns);

/*
 * Bound the steps of @rings (sorted here, by thread), each thread read once
 * with @read; @scratch holds @n pointers. Returns the threads read.
 */
size_t bill_bound_rings(struct bill_bound_ring *rings, size_t n, struct bill_step **scratch,
			bill_cpu_read_fn read, void *arg);

/* bill_cpu_read_fn of /proc (proc_task_cpu_ns) */
int bill_cpu_read_proc(void *arg, pid_t tgid, pid_t tid, uint64_t *ns);

#endif /* UT_BILL_BOUND_H */
