// SPDX-License-Identifier: GPL-2.0-only
/* Busy polling's bill in the status reply (status_bill.h). */
#include "status_bill.h"

static void spin_write(struct status_writer *w, const struct bill_sum *s)
{
	sw_object(w, "spin_ns");
	sw_u64(w, "paid", s->paid_ns);
	sw_u64(w, "unpaid", s->unpaid_ns);
	sw_object_end(w);
}

static void efficiency_write(struct status_writer *w, const struct bill_sum *s)
{
	double eff;

	if (bill_efficiency(s, &eff))
		sw_double(w, "efficiency", eff);
	else
		sw_null(w, "efficiency");
}

static void sum_write(struct status_writer *w, const struct bill_sum *s)
{
	spin_write(w, s);
	sw_u64(w, "unknown_windows", s->unknown);
	sw_u64(w, "capped_ns", s->capped_ns);
	sw_u64(w, "wakeups_avoided", s->wakeups_avoided);
	sw_u64(w, "saved_ns", s->saved_ns);
	efficiency_write(w, s);
}

static void hit_rate_write(struct status_writer *w, const struct bill_sum *s)
{
	double rate;

	sw_u64(w, "windows", s->windows);
	if (bill_hit_rate(s, &rate))
		sw_double(w, "hit_rate", rate);
	else
		sw_null(w, "hit_rate");
}

static void recent_write(struct status_writer *w, const struct bill_period *p)
{
	sw_object(w, "recent");
	sw_u64(w, "period_ns", p->last_ns);
	hit_rate_write(w, &p->last);
	sum_write(w, &p->last);
	sw_object_end(w);
}

/* the table's view: what its recent hit rate, EFF and SPIN% columns need */
static void recent_table_write(struct status_writer *w, const struct bill_period *p)
{
	sw_object(w, "recent");
	sw_u64(w, "period_ns", p->last_ns);
	hit_rate_write(w, &p->last);
	spin_write(w, &p->last);
	efficiency_write(w, &p->last);
	sw_object_end(w);
}

static void bound_write(struct status_writer *w, const struct bill_ring *b)
{
	const char *state = bill_bound_state(b->bound);

	if (state)
		sw_str(w, "cpu_bound", state);
	else
		sw_null(w, "cpu_bound");
	if (bill_bound_why(b->bound))
		sw_str(w, "cpu_bound_why", bill_bound_why(b->bound));
}

void status_bill_write(struct status_writer *w, const struct bill_ring *b, bool table)
{
	if (table) {
		recent_table_write(w, &b->period);
		return;
	}
	sum_write(w, &b->total);
	bound_write(w, b);
	recent_write(w, &b->period);
}

void status_bill_host_write(struct status_writer *w, const struct bill_host *h)
{
	sw_object(w, "host");
	sw_object(w, "busy_poll");
	hit_rate_write(w, &h->total);
	sum_write(w, &h->total);
	recent_write(w, &h->period);
	sw_object_end(w);
	sw_object_end(w);
}
