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
	c->unpaid_ns = s->unpaid_spin_ns;
	c->timed_ns = s->busy_ns;
	for (int i = 0; i < UT_HIST_SLOTS; i++)
		c->timed += s->busy_hist[i];
}

/* a - b; false if any counter went back */
static bool counts_sub(const struct bill_counts *a, const struct bill_counts *b,
		       struct bill_counts *d)
{
	if (a->windows < b->windows || a->paid < b->paid || a->unpaid_ns < b->unpaid_ns ||
	    a->timed < b->timed || a->timed_ns < b->timed_ns)
		return false;
	d->windows = a->windows - b->windows;
	d->paid = a->paid - b->paid;
	d->unpaid_ns = a->unpaid_ns - b->unpaid_ns;
	d->timed = a->timed - b->timed;
	d->timed_ns = a->timed_ns - b->timed_ns;
	return true;
}

/*
 * What @paid new paid windows spun: at the mean of this tick's timed ones,
 * else of all timed so far, else (none ever timed) at the timeout, their
 * upper bound. A double: paid x timed_ns may pass 2^64.
 */
static uint64_t paid_spin(uint64_t paid, const struct bill_counts *d,
			  const struct bill_counts *c, uint64_t timeout_ns)
{
	double mean = (double)timeout_ns;

	if (!paid)
		return 0;
	if (d->timed)
		mean = (double)d->timed_ns / (double)d->timed;
	else if (c->timed)
		mean = (double)c->timed_ns / (double)c->timed;
	return (uint64_t)((double)paid * mean + 0.5);
}

void bill_ring_step(struct bill_ring *b, const struct bill_counts *c, uint64_t wakeup_ns,
		    uint64_t timeout_ns, uint64_t now_ns, const struct bill_rule *r)
{
	struct bill_counts d;

	if (!counts_sub(c, &b->seen, &d))
		d = *c;
	b->seen = *c;
	b->total.windows += d.windows;
	b->total.wakeups_avoided += d.paid;
	b->total.paid_ns += paid_spin(d.paid, &d, c, timeout_ns);
	b->total.unpaid_ns += d.unpaid_ns;
	b->total.saved_ns += d.paid * wakeup_ns;
	bill_period_step(&b->period, &b->total, now_ns, r);
}

static void sum_sub(const struct bill_sum *a, const struct bill_sum *b, struct bill_sum *d)
{
	d->windows = a->windows - b->windows;
	d->wakeups_avoided = a->wakeups_avoided - b->wakeups_avoided;
	d->paid_ns = a->paid_ns - b->paid_ns;
	d->unpaid_ns = a->unpaid_ns - b->unpaid_ns;
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
