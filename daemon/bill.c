// SPDX-License-Identifier: GPL-2.0-only
/* Busy polling's bill (bill.h). */
#include <string.h>

#include "bill.h"

#define NSEC_PER_SEC	1000000000ULL

void bill_counts_of(const struct ut_ring_stats *s, struct bill_counts *c)
{
	memset(c, 0, sizeof(*c));
	c->windows = s->busy_windows;
	c->paid = s->busy_paid;
	c->timed_ns = s->busy_ns;
	for (int i = 0; i < UT_HIST_SLOTS; i++)
		c->timed += s->busy_hist[i];
	c->unpaid_timed = s->unpaid_timed;
	c->unpaid_timed_ns = s->unpaid_timed_ns;
}

/* a - b; false if any counter went back */
static bool counts_sub(const struct bill_counts *a, const struct bill_counts *b,
		       struct bill_counts *d)
{
	if (a->windows < b->windows || a->paid < b->paid || a->timed < b->timed ||
	    a->timed_ns < b->timed_ns || a->unpaid_timed < b->unpaid_timed ||
	    a->unpaid_timed_ns < b->unpaid_timed_ns)
		return false;
	d->windows = a->windows - b->windows;
	d->paid = a->paid - b->paid;
	d->timed = a->timed - b->timed;
	d->timed_ns = a->timed_ns - b->timed_ns;
	d->unpaid_timed = a->unpaid_timed - b->unpaid_timed;
	d->unpaid_timed_ns = a->unpaid_timed_ns - b->unpaid_timed_ns;
	return true;
}

/*
 * What @n new windows of a kind spun: at the mean of those of the kind timed
 * in the step (@step_timed, @step_ns), else of all timed so far (@timed,
 * @timed_ns); none ever timed: false, their length is not known. A double:
 * n x a mean may pass 2^64.
 */
static bool price(uint64_t n, uint64_t step_timed, uint64_t step_ns, uint64_t timed,
		  uint64_t timed_ns, uint64_t *ns)
{
	double mean, v;

	*ns = 0;
	if (!n)
		return true;
	if (step_timed)
		mean = (double)step_ns / (double)step_timed;
	else if (timed)
		mean = (double)timed_ns / (double)timed;
	else
		return false;
	v = (double)n * mean + 0.5;
	*ns = v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
	return true;
}

void bill_ring_price(const struct bill_ring *b, const struct bill_counts *c, uint64_t wakeup_ns,
		     uint64_t now_ns, struct bill_step *st)
{
	struct bill_counts d;
	uint64_t unpaid;
	bool first = !b->stepped;

	memset(st, 0, sizeof(*st));
	if (!counts_sub(c, &b->seen, &d)) {
		d = *c;
		first = true;
	}
	st->seen = *c;
	st->span_ns = first || now_ns < b->step_ns ? BILL_SPAN_UNKNOWN : now_ns - b->step_ns;
	st->bound = BILL_BOUND_UNASKED;
	/* the map value is copied while other CPUs bump it: paid may run one ahead */
	unpaid = d.windows > d.paid ? d.windows - d.paid : 0;
	st->add.windows = d.windows;
	st->add.wakeups_avoided = d.paid;
	st->add.saved_ns = d.paid * wakeup_ns;
	if (!price(d.paid, d.timed, d.timed_ns, c->timed, c->timed_ns, &st->add.paid_ns))
		st->add.unknown += d.paid;
	if (!price(unpaid, d.unpaid_timed, d.unpaid_timed_ns, c->unpaid_timed,
		   c->unpaid_timed_ns, &st->add.unpaid_ns))
		st->add.unknown += unpaid;
}

/* @x scaled by @num / @den (num < den), rounded down */
static uint64_t scale(uint64_t x, uint64_t num, unsigned __int128 den)
{
	return (uint64_t)((unsigned __int128)x * num / den);
}

void bill_cap_thread(struct bill_step *const *steps, size_t n, uint64_t cpu_ns)
{
	unsigned __int128 spun = 0;
	uint64_t cap = cpu_ns, span = 0;
	size_t i;

	if (cpu_ns == BILL_CPU_UNKNOWN)
		return;
	for (i = 0; i < n; i++) {
		steps[i]->bound = BILL_BOUND_CPU;
		spun += steps[i]->add.paid_ns;
		spun += steps[i]->add.unpaid_ns;
		if (steps[i]->span_ns > span)
			span = steps[i]->span_ns;
	}
	/* one thread, one CPU at most: windows of the step ended within it */
	if (span < cap)
		cap = span;
	if (spun <= cap)
		return;
	/* each rounded down: the sum is at most the cap */
	for (i = 0; i < n; i++) {
		struct bill_sum *a = &steps[i]->add;
		uint64_t paid = scale(a->paid_ns, cap, spun);
		uint64_t unpaid = scale(a->unpaid_ns, cap, spun);

		a->capped_ns += (a->paid_ns - paid) + (a->unpaid_ns - unpaid);
		a->paid_ns = paid;
		a->unpaid_ns = unpaid;
	}
}

void bill_ring_commit(struct bill_ring *b, const struct bill_step *st, uint64_t now_ns,
		      const struct bill_rule *r)
{
	b->seen = st->seen;
	b->stepped = true;
	b->step_ns = now_ns;
	if (st->add.windows)
		b->bound = st->bound;
	bill_sum_add(&b->total, &st->add);
	bill_period_step(&b->period, &b->total, now_ns, r);
}

void bill_ring_step(struct bill_ring *b, const struct bill_counts *c, uint64_t wakeup_ns,
		    uint64_t now_ns, const struct bill_rule *r)
{
	struct bill_step st;

	bill_ring_price(b, c, wakeup_ns, now_ns, &st);
	bill_ring_commit(b, &st, now_ns, r);
}

static void sum_sub(const struct bill_sum *a, const struct bill_sum *b, struct bill_sum *d)
{
	d->windows = a->windows - b->windows;
	d->wakeups_avoided = a->wakeups_avoided - b->wakeups_avoided;
	d->paid_ns = a->paid_ns - b->paid_ns;
	d->unpaid_ns = a->unpaid_ns - b->unpaid_ns;
	d->unknown = a->unknown - b->unknown;
	d->capped_ns = a->capped_ns - b->capped_ns;
	d->saved_ns = a->saved_ns - b->saved_ns;
}

void bill_period_step(struct bill_period *p, const struct bill_sum *total, uint64_t now_ns,
		      const struct bill_rule *r)
{
	uint64_t need = r->min_windows ? r->min_windows : 1;
	uint64_t len;

	if (!p->begun || now_ns < p->start_ns) {
		p->begun = true;
		p->start_ns = now_ns;
		p->start = *total;
		return;
	}
	len = now_ns - p->start_ns;
	if (len < BILL_PERIOD_MAX_S * NSEC_PER_SEC &&
	    (!len || len < r->min_ns || total->windows - p->start.windows < need))
		return;
	sum_sub(total, &p->start, &p->last);
	p->last_ns = len;
	p->start = *total;
	p->start_ns = now_ns;
}

void bill_sum_add(struct bill_sum *a, const struct bill_sum *b)
{
	a->windows += b->windows;
	a->wakeups_avoided += b->wakeups_avoided;
	a->paid_ns += b->paid_ns;
	a->unpaid_ns += b->unpaid_ns;
	a->unknown += b->unknown;
	a->capped_ns += b->capped_ns;
	a->saved_ns += b->saved_ns;
}

void bill_host_forget(struct bill_host *h, const struct bill_ring *b)
{
	bill_sum_add(&h->gone, &b->total);
}

void bill_host_begin(struct bill_host *h)
{
	h->total = h->gone;
}

void bill_host_add(struct bill_host *h, const struct bill_ring *b)
{
	bill_sum_add(&h->total, &b->total);
}

void bill_host_end(struct bill_host *h, uint64_t now_ns, const struct bill_rule *r)
{
	bill_period_step(&h->period, &h->total, now_ns, r);
}

uint64_t bill_spin_ns(const struct bill_sum *s)
{
	return s->paid_ns + s->unpaid_ns;
}

bool bill_efficiency(const struct bill_sum *s, double *eff)
{
	uint64_t spin = bill_spin_ns(s);

	if (!s->windows || !spin)
		return false;
	*eff = (double)s->saved_ns / (double)spin;
	return true;
}

bool bill_hit_rate(const struct bill_sum *s, double *rate)
{
	if (!s->windows)
		return false;
	*rate = (double)s->wakeups_avoided / (double)s->windows;
	return true;
}

const char *bill_bound_state(enum bill_bound b)
{
	switch (b) {
	case BILL_BOUND_NONE:
		return NULL;
	case BILL_BOUND_CPU:
		return "known";
	case BILL_BOUND_UNASKED:
	case BILL_BOUND_NO_THREAD:
	case BILL_BOUND_THREAD_CHANGED:
	case BILL_BOUND_UNREAD:
		break;
	}
	return "unknown";
}

const char *bill_bound_why(enum bill_bound b)
{
	switch (b) {
	case BILL_BOUND_NONE:
	case BILL_BOUND_CPU:
		break;
	case BILL_BOUND_UNASKED:
		return "not_asked";
	case BILL_BOUND_NO_THREAD:
		return "no_thread";
	case BILL_BOUND_THREAD_CHANGED:
		return "thread_changed";
	case BILL_BOUND_UNREAD:
		return "unread";
	}
	return NULL;
}
