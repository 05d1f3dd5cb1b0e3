// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bill's bound by thread (daemon/observe/bill_bound.c): each thread read
 * once, its rings capped together from its freshest reading, a first step
 * by all the thread ever ran; no cap, and why, when the thread is not known,
 * changed or cannot be read. A fake /proc.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bill_bound.h"
#include "unit.h"

#define MS		1000000ULL
#define NSEC		1000000000ULL
#define T0		(1000 * NSEC)

/* the fake /proc: a thread's CPU time, or an error; what was read */
static struct {
	uint32_t tgid, tid;
	uint64_t ns;
	int err;
} threads[4];
static unsigned int n_reads;

static int fake_read(void *arg, pid_t tgid, pid_t tid, uint64_t *ns)
{
	(void)arg;
	n_reads++;
	for (size_t i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
		if (threads[i].tgid == (uint32_t)tgid && threads[i].tid == (uint32_t)tid) {
			if (threads[i].err)
				return threads[i].err;
			*ns = threads[i].ns;
			return 0;
		}
	}
	return -ENOENT;
}

/* a ring's step of @spin_ns paid spin over @span_ns (0: its first), waited on by @tgid/@tid */
static void ring(struct bill_bound_ring *r, struct bill_cpu_seen *seen, uint64_t spin_ns,
		 uint64_t span_ns, uint32_t tgid, uint32_t tid)
{
	memset(r, 0, sizeof(*r));
	r->step.add.windows = 100;
	r->step.add.wakeups_avoided = 100;
	r->step.add.paid_ns = spin_ns;
	r->step.span_ns = span_ns ? span_ns : BILL_SPAN_UNKNOWN;
	r->step.bound = BILL_BOUND_UNASKED;
	r->tgid = tgid;
	r->tid = tid;
	r->seen = seen;
	r->owner = seen;	/* to find the ring again after the sort */
}

static const struct bill_bound_ring *find(const struct bill_bound_ring *r, size_t n,
					  const struct bill_cpu_seen *seen)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].owner == seen)
			return &r[i];
	return NULL;
}

static void reset(void)
{
	memset(threads, 0, sizeof(threads));
	n_reads = 0;
}

/* two threads, three rings: two reads; each thread's rings capped together */
UT_TEST(one_read_per_thread)
{
	struct bill_cpu_seen s[3] = {
		{ .tgid = 10, .tid = 11, .ns = 100 * MS, .have = true },
		{ .tgid = 10, .tid = 11, .ns = 300 * MS, .have = true },
		{ .tgid = 20, .tid = 21, .ns = 50 * MS, .have = true },
	};
	struct bill_bound_ring r[3];
	struct bill_step *scratch[3];
	const struct bill_bound_ring *a, *b, *c;

	reset();
	threads[0] = (typeof(threads[0])){ .tgid = 10, .tid = 11, .ns = 700 * MS };
	threads[1] = (typeof(threads[1])){ .tgid = 20, .tid = 21, .ns = 900 * MS };
	ring(&r[0], &s[2], 600 * MS, NSEC, 20, 21);
	ring(&r[1], &s[0], 600 * MS, NSEC, 10, 11);
	ring(&r[2], &s[1], 200 * MS, NSEC, 10, 11);
	UT_ASSERT_EQ_INT(bill_bound_rings(r, 3, scratch, fake_read, NULL), 2);
	UT_ASSERT_EQ_INT(n_reads, 2);
	a = find(r, 3, &s[0]);
	b = find(r, 3, &s[1]);
	c = find(r, 3, &s[2]);
	UT_ASSERT(a && b && c);
	/* thread 11 ran 400 ms since its freshest reading (300 ms): 800 ms priced, halved */
	UT_ASSERT_EQ_INT(a->step.add.paid_ns, 300 * MS);
	UT_ASSERT_EQ_INT(b->step.add.paid_ns, 100 * MS);
	UT_ASSERT_EQ_INT(a->step.add.capped_ns + b->step.add.capped_ns, 400 * MS);
	UT_ASSERT_EQ_INT(a->step.bound, BILL_BOUND_CPU);
	/* thread 21 ran 850 ms: its 600 stay */
	UT_ASSERT_EQ_INT(c->step.add.paid_ns, 600 * MS);
	UT_ASSERT_EQ_INT(c->step.add.capped_ns, 0);
	UT_ASSERT_EQ_INT(c->step.bound, BILL_BOUND_CPU);
	/* every ring keeps its thread's reading now */
	UT_ASSERT(s[0].have && s[0].ns == 700 * MS && s[1].ns == 700 * MS && s[2].ns == 900 * MS);
}

/* no earlier reading: since the thread began, and the step's length (one CPU) */
UT_TEST(no_reading_one_cpu)
{
	struct bill_cpu_seen s = { 0 };
	struct bill_bound_ring r;
	struct bill_step *scratch[1];

	reset();
	threads[0] = (typeof(threads[0])){ .tgid = 10, .tid = 11, .ns = 50 * NSEC };
	ring(&r, &s, 3 * NSEC, NSEC, 10, 11);
	bill_bound_rings(&r, 1, scratch, fake_read, NULL);
	UT_ASSERT_EQ_INT(r.step.add.paid_ns, NSEC);
	UT_ASSERT_EQ_INT(r.step.add.capped_ns, 2 * NSEC);
	UT_ASSERT_EQ_INT(r.step.bound, BILL_BOUND_CPU);
	/* a reading of another thread (a tid reused, or the ring's old waiter) is not used */
	s = (struct bill_cpu_seen){ .tgid = 10, .tid = 12, .ns = 49 * NSEC, .have = true };
	ring(&r, &s, 3 * NSEC, 10 * NSEC, 10, 11);
	bill_bound_rings(&r, 1, scratch, fake_read, NULL);
	UT_ASSERT_EQ_INT(r.step.add.paid_ns, 3 * NSEC);
	/* nor one above the thread's CPU time now (another thread with that tid) */
	s = (struct bill_cpu_seen){ .tgid = 10, .tid = 11, .ns = 60 * NSEC, .have = true };
	ring(&r, &s, 3 * NSEC, 10 * NSEC, 10, 11);
	bill_bound_rings(&r, 1, scratch, fake_read, NULL);
	UT_ASSERT_EQ_INT(r.step.add.paid_ns, 3 * NSEC);
	UT_ASSERT_EQ_INT(s.ns, 50 * NSEC);
}

/* a ring's first step, since its counters began: by all the thread ever ran, with the rest */
UT_TEST(first_step_by_all_it_ran)
{
	struct bill_cpu_seen s[2] = { { .tgid = 10, .tid = 11, .ns = 4 * NSEC, .have = true } };
	struct bill_bound_ring r[2];
	struct bill_step *scratch[2];
	const struct bill_bound_ring *old, *first;

	reset();
	threads[0] = (typeof(threads[0])){ .tgid = 10, .tid = 11, .ns = 5 * NSEC };
	ring(&r[0], &s[0], 2 * NSEC, NSEC, 10, 11);
	ring(&r[1], &s[1], 8 * NSEC, 0, 10, 11);
	bill_bound_rings(r, 2, scratch, fake_read, NULL);
	old = find(r, 2, &s[0]);
	first = find(r, 2, &s[1]);
	/* the old ring: 1 s since the reading; then both: 5 s ever, 1 + 8 s priced */
	UT_ASSERT(old->step.add.paid_ns <= NSEC);
	UT_ASSERT(old->step.add.paid_ns + first->step.add.paid_ns <= 5 * NSEC);
	UT_ASSERT(first->step.add.paid_ns >= 4 * NSEC);
	UT_ASSERT_EQ_INT(old->step.add.paid_ns + old->step.add.capped_ns, 2 * NSEC);
	UT_ASSERT_EQ_INT(first->step.add.paid_ns + first->step.add.capped_ns, 8 * NSEC);
	UT_ASSERT_EQ_INT(first->step.bound, BILL_BOUND_CPU);
}

/* unknown: no thread (nothing read), another thread at the step before, a failed read */
UT_TEST(unknown_bounds)
{
	struct bill_cpu_seen s[3] = {
		{ 0 },
		{ .tgid = 10, .tid = 11, .ns = 4 * NSEC, .have = true },
		{ .tgid = 30, .tid = 31, .ns = NSEC, .have = true },
	};
	struct bill_bound_ring r[3];
	struct bill_step *scratch[3];
	const struct bill_bound_ring *none, *changed, *gone;

	reset();
	threads[0] = (typeof(threads[0])){ .tgid = 10, .tid = 11, .ns = 5 * NSEC };
	threads[1] = (typeof(threads[1])){ .tgid = 30, .tid = 31, .err = -ENOENT };
	ring(&r[0], &s[0], 3 * NSEC, NSEC, 10, 0);
	ring(&r[1], &s[1], 3 * NSEC, NSEC, 10, 11);
	r[1].waiter_changed = true;
	ring(&r[2], &s[2], 3 * NSEC, NSEC, 30, 31);
	UT_ASSERT_EQ_INT(bill_bound_rings(r, 3, scratch, fake_read, NULL), 2);
	none = find(r, 3, &s[0]);
	changed = find(r, 3, &s[1]);
	gone = find(r, 3, &s[2]);
	UT_ASSERT_EQ_INT(none->step.bound, BILL_BOUND_NO_THREAD);
	UT_ASSERT_EQ_INT(changed->step.bound, BILL_BOUND_THREAD_CHANGED);
	UT_ASSERT_EQ_INT(gone->step.bound, BILL_BOUND_UNREAD);
	/* none capped */
	for (int i = 0; i < 3; i++) {
		UT_ASSERT_EQ_INT(r[i].step.add.paid_ns, 3 * NSEC);
		UT_ASSERT_EQ_INT(r[i].step.add.capped_ns, 0);
	}
	/* the changed ring has its new thread's reading for the next step; the gone one none */
	UT_ASSERT(s[1].have && s[1].ns == 5 * NSEC);
	UT_ASSERT(!s[2].have);
	UT_ASSERT(!s[0].have);
	UT_ASSERT_STR_EQ(bill_bound_why(changed->step.bound), "thread_changed");
	UT_ASSERT_STR_EQ(bill_bound_why(none->step.bound), "no_thread");
	UT_ASSERT_STR_EQ(bill_bound_why(gone->step.bound), "unread");
}

/* nothing to bound: nothing read */
UT_TEST(no_rings_no_reads)
{
	reset();
	UT_ASSERT_EQ_INT(bill_bound_rings(NULL, 0, NULL, fake_read, NULL), 0);
	UT_ASSERT_EQ_INT(n_reads, 0);
}

/* the real reader: this thread's own schedstat, and an error for a thread that is not */
UT_TEST(proc_read)
{
	struct timespec ts;
	uint64_t ns = 0, before;

	/*
	 * schedstat shows the run time as last accounted (a new thread's can
	 * read 0): reading the thread's CPU clock accounts it up to now first
	 */
	UT_ASSERT(clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0);
	before = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	UT_ASSERT_EQ_INT(bill_cpu_read_proc(NULL, getpid(), gettid(), &ns), 0);
	UT_ASSERT(before > 0 && ns >= before);
	UT_ASSERT(bill_cpu_read_proc(NULL, getpid(), 0x7ffffff0, &ns) < 0);
}

int main(void)
{
	ut_run("one_read_per_thread", one_read_per_thread);
	ut_run("no_reading_one_cpu", no_reading_one_cpu);
	ut_run("first_step_by_all_it_ran", first_step_by_all_it_ran);
	ut_run("unknown_bounds", unknown_bounds);
	ut_run("no_rings_no_reads", no_rings_no_reads);
	ut_run("proc_read", proc_read);
	return ut_finish();
}
