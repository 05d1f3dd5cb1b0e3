// SPDX-License-Identifier: GPL-2.0-only
/* An IOPOLL ring's measurement windows. */
#include <string.h>

#include "iopoll_window.h"
#include "uring_abi.h"

static void mark_now(struct iopoll_mark *m, const struct ut_iopoll_stats *s, uint64_t now_ns,
		     bool cpu_known, uint64_t cpu_ns)
{
	m->t_ns = now_ns;
	m->completed = s->completed;
	m->dur_sum_ns = s->dur_sum_ns;
	m->busy_ns = s->busy_ns;
	m->inflight_ns = s->inflight_ns;
	m->cpu_ns = cpu_ns;
	m->cpu_known = cpu_known;
	m->tid = s->submit_tid;
	memcpy(m->gap_sum_ns, s->gap_sum_ns, sizeof(m->gap_sum_ns));
	memcpy(m->gap_n, s->gap_n, sizeof(m->gap_n));
	memcpy(m->fine, s->fine_hist, sizeof(m->fine));
}

static double gap_mean(const struct iopoll_mark *m, const struct ut_iopoll_stats *s, int g)
{
	uint64_t n = s->gap_n[g] - m->gap_n[g];

	return n ? (double)(s->gap_sum_ns[g] - m->gap_sum_ns[g]) / n : 0;
}

/* the window from mark @m to now into @r */
static void measure(struct iopoll_window_result *r, const struct iopoll_mark *m,
		    const struct ut_iopoll_stats *s, uint64_t now_ns, bool cpu_known, uint64_t cpu_ns)
{
	memset(r, 0, sizeof(*r));
	r->period_ns = now_ns - m->t_ns;
	r->reads = s->completed - m->completed;
	r->busy_ns = s->busy_ns - m->busy_ns;
	/* no busy time seen (an old kernel's racing counters): the whole window */
	if (!r->busy_ns || r->busy_ns > r->period_ns)
		r->busy_ns = r->period_ns;
	r->iops = r->reads / (r->busy_ns / 1e9);
	r->mean_ns = (double)(s->dur_sum_ns - m->dur_sum_ns) / r->reads;
	r->qd = (double)(s->inflight_ns - m->inflight_ns) / r->busy_ns;
	r->min_ns = s->dur_min_ns;
	r->cpu_known = cpu_known && m->cpu_known && cpu_ns >= m->cpu_ns;
	if (r->cpu_known) {
		r->cpu_ns = cpu_ns - m->cpu_ns;
		r->cpu_util = (double)r->cpu_ns / r->busy_ns;
	}
	r->submit_ns = gap_mean(m, s, UT_IOP_GAP_SUBMIT);
	r->turn_ns = gap_mean(m, s, UT_IOP_GAP_TURN);
	if ((s->setup_flags & UT_SETUP_HYBRID_IOPOLL) && s->hybrid_poll_time_ns < (uint64_t)INT64_MAX)
		r->hybrid_poll_time_ns = s->hybrid_poll_time_ns;
	for (int i = 0; i < UT_FINE_SLOTS; i++)
		r->fine[i] = s->fine_hist[i] - m->fine[i];
}

static void close_window(struct iopoll_window *w, const struct ut_iopoll_stats *s,
			 uint64_t now_ns, bool cpu_known, uint64_t cpu_ns)
{
	if (w->n_chain == WINDOW_KEEP) {
		memmove(w->chain, w->chain + 1, (WINDOW_KEEP - 1) * sizeof(w->chain[0]));
		w->n_chain--;
	}
	w->chain[w->n_chain++] = w->mark;
	measure(&w->last, &w->mark, s, now_ns, cpu_known, cpu_ns);
	measure(&w->recent, &w->chain[0], s, now_ns, cpu_known, cpu_ns);
	w->have_last = true;
	w->closed++;
}

/* begin a window afresh, not adding to those before (another thread, a long quiet) */
static void restart(struct iopoll_window *w, const struct ut_iopoll_stats *s, uint64_t now_ns,
		    bool cpu_known, uint64_t cpu_ns)
{
	mark_now(&w->mark, s, now_ns, cpu_known, cpu_ns);
	w->n_chain = 0;
}

bool iopoll_window_step(struct iopoll_window *w, const struct ut_iopoll_stats *s,
			uint64_t now_ns, bool cpu_known, uint64_t cpu_ns)
{
	const struct iopoll_mark *m = &w->mark;
	uint64_t elapsed, reads;

	/* a new ring at a reused address, a clock gone backwards: begin again */
	if (!w->started || s->completed < m->completed || now_ns < m->t_ns) {
		restart(w, s, now_ns, cpu_known, cpu_ns);
		w->started = true;
		return false;
	}
	elapsed = now_ns - m->t_ns;
	reads = s->completed - m->completed;
	if (s->submit_tid != m->tid) {
		/* another thread submits now: the CPU read was the wrong one's */
		restart(w, s, now_ns, cpu_known, cpu_ns);
		return false;
	}
	if (elapsed >= WINDOW_MIN_NS && reads >= WINDOW_MIN_READS) {
		close_window(w, s, now_ns, cpu_known, cpu_ns);
		mark_now(&w->mark, s, now_ns, cpu_known, cpu_ns);
		return true;
	}
	if (elapsed >= WINDOW_MAX_NS)
		restart(w, s, now_ns, cpu_known, cpu_ns);
	return false;
}
