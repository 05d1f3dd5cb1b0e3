// SPDX-License-Identifier: GPL-2.0-only
/* The IOPOLL poll loop, simulated: see hybrid_sim.h. */
#include <stdlib.h>
#include <string.h>

#include "hybrid_sim.h"

/* 1 / golden ratio: successive multiples mod 1 spread evenly over [0, 1) */
#define SIM_STEP		0.6180339887498949

struct sim_req {
	double issue, done;
	bool slept, ready;
};

struct sim {
	const struct sim_params *p;
	bool hybrid;
	struct sim_req req[SIM_MAX_DEPTH];
	unsigned int n;			/* in flight, oldest first */
	double t, cpu, u;
	uint32_t reaped, sleeps;
	double t0, cpu0;		/* after the warm-up */
	uint32_t sleeps0;
	double *lat;
};

static void sim_submit(struct sim *s)
{
	while (s->n < s->p->depth) {
		struct sim_req *r = &s->req[s->n++];

		s->t += s->p->submit_ns;
		s->cpu += s->p->submit_ns;
		s->u += SIM_STEP;
		if (s->u >= 1)
			s->u -= 1;
		r->issue = s->t;
		r->done = s->t + s->p->tq[(unsigned int)(s->u * SIM_QUANTILES) % SIM_QUANTILES];
		r->slept = r->ready = false;
	}
}

/* one poll of the device: every finished request is found; did it find any */
static bool sim_poll(struct sim *s)
{
	bool found = false;

	s->t += s->p->poll_ns;
	s->cpu += s->p->poll_ns;
	for (unsigned int i = 0; i < s->n; i++) {
		if (!s->req[i].ready && s->req[i].done <= s->t) {
			s->req[i].ready = true;
			found = true;
		}
	}
	return found;
}

/* a hybrid sleep: half its CPU, off the CPU (tied or not), the other half */
static void sim_sleep(struct sim *s)
{
	double half = s->p->sleep_cpu_ns / 2, wake, next = 0;

	s->t += half;
	wake = s->t + s->p->sleep_off_ns;
	if (s->p->tie) {
		for (unsigned int i = 0; i < s->n; i++)
			if (!s->req[i].ready && s->req[i].done > s->t && (!next || s->req[i].done < next))
				next = s->req[i].done;
		if (next && next + s->p->tied_ns > wake)
			wake = next + s->p->tied_ns;
	}
	s->t = wake + half;
	s->cpu += s->p->sleep_cpu_ns;
}

/*
 * One io_do_iopoll() pass: did it change anything (a sleep or a find)? The
 * pass stops at the first request already found; if that is not the oldest
 * nothing can be reaped and the kernel polls on: the caller spins.
 */
static bool sim_pass(struct sim *s)
{
	for (unsigned int i = 0; i < s->n; i++) {
		struct sim_req *r = &s->req[i];

		if (r->ready)
			return false;
		if (s->hybrid && !r->slept) {
			r->slept = true;
			sim_sleep(s);
			s->sleeps++;
			sim_poll(s);
			return true;
		}
		if (sim_poll(s))
			return true;
	}
	return false;
}

/* nothing changes until the next request finishes: spin to it */
static void sim_spin(struct sim *s)
{
	double next = 0;

	for (unsigned int i = 0; i < s->n; i++)
		if (!s->req[i].ready && (!next || s->req[i].done < next))
			next = s->req[i].done;
	if (next > s->t) {
		s->cpu += next - s->t;
		s->t = next;
	}
	sim_poll(s);
}

/* the completed prefix of the list; returns how many */
static unsigned int sim_reap(struct sim *s)
{
	unsigned int k = 0;

	while (k < s->n && s->req[k].ready) {
		if (s->reaped >= SIM_WARMUP)
			s->lat[s->reaped - SIM_WARMUP] = s->t - s->req[k].issue;
		if (++s->reaped == SIM_WARMUP) {
			s->t0 = s->t;
			s->cpu0 = s->cpu;
			s->sleeps0 = s->sleeps;
		}
		k++;
		if (s->reaped == SIM_WARMUP + SIM_READS)
			break;
	}
	memmove(s->req, s->req + k, (s->n - k) * sizeof(s->req[0]));
	s->n -= k;
	return k;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void sim_run(const struct sim_params *p, bool hybrid, struct sim_out *out)
{
	double lat[SIM_READS];
	struct sim s = { .p = p, .hybrid = hybrid, .lat = lat };
	unsigned int guard;

	memset(out, 0, sizeof(*out));
	if (!p->depth || p->depth > SIM_MAX_DEPTH)
		return;
	while (s.reaped < SIM_WARMUP + SIM_READS) {
		sim_submit(&s);
		/* the kernel's loop until something is reaped */
		for (guard = 0; !sim_reap(&s); guard++) {
			if (guard > 4 * SIM_MAX_DEPTH || !sim_pass(&s))
				sim_spin(&s);
		}
		s.t += p->turn_ns;
		s.cpu += p->turn_ns;
	}
	out->wall_per_read_ns = (s.t - s.t0) / SIM_READS;
	out->cpu_per_read_ns = (s.cpu - s.cpu0) / SIM_READS;
	out->sleeps_per_read = (double)(s.sleeps - s.sleeps0) / SIM_READS;
	for (unsigned int i = 0; i < SIM_READS; i++)
		out->mean_ns += lat[i] / SIM_READS;
	qsort(lat, SIM_READS, sizeof(lat[0]), cmp_double);
	out->p50_ns = lat[SIM_READS / 2];
	out->mid_ns = (lat[SIM_READS / 4] + out->p50_ns + lat[SIM_READS * 3 / 4]) / 3;
	out->p90_ns = lat[SIM_READS * 9 / 10];
	out->p99_ns = lat[SIM_READS * 99 / 100];
	/* Little's law: requests in flight, on average over time */
	out->qd = out->wall_per_read_ns > 0 ? out->mean_ns / out->wall_per_read_ns : 0;
}
