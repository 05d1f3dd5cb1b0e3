// SPDX-License-Identifier: GPL-2.0-only
/* One hybrid sleep's cost on this host: see hybrid_sleep.h. */
#include <string.h>

#include "hybrid_sleep.h"

void hybrid_sleep_figures(const struct hybrid_sleep_est *e, const struct sleep_probe_result *probe,
			  struct hybrid_sleep_figures *out)
{
	memset(out, 0, sizeof(*out));
	if (!probe || !probe->samples)
		return;
	out->source = HYBRID_SLEEP_PROBE;
	out->cpu_ns = probe->cpu_ns;
	out->syscall_ns = probe->syscall_ns;
	/* the probe's sleep: asked + overshoot of wall, cpu_ns of it on the CPU */
	out->off_ns = probe->overshoot_ns > probe->cpu_ns ?
		      (double)(probe->overshoot_ns - probe->cpu_ns) : 0;
	if (e && e->util_windows)
		out->hybrid_util = e->util;
	if (e && e->pairs) {
		out->source = HYBRID_SLEEP_PAIRS;
		out->tie = e->tie_share >= 0.5;
		out->h_ratio = e->h_pairs ? e->h_ratio : 0;
		out->tied_ns = out->tie ? e->tied_ns : 0;
	}
}

const char *hybrid_sleep_source_name(enum hybrid_sleep_source s)
{
	switch (s) {
	case HYBRID_SLEEP_PROBE:
		return "probe";
	case HYBRID_SLEEP_PAIRS:
		return "probe+pairs";
	case HYBRID_SLEEP_NONE:
	default:
		return "none";
	}
}

void hybrid_model_input(const struct iopoll_window_result *r, const struct hybrid_sleep_figures *f,
			struct hybrid_model_in *in)
{
	memset(in, 0, sizeof(*in));
	in->fine = r->fine;
	in->mean_ns = r->mean_ns;
	in->min_ns = r->min_ns;
	in->reads = r->reads;
	in->iops = r->iops;
	in->cpu_util = r->cpu_known ? r->cpu_util : -1;
	in->qd = r->qd;
	in->submit_ns = r->submit_ns;
	in->turn_ns = r->turn_ns;
	in->hybrid_poll_time_ns = r->hybrid_poll_time_ns;
	in->have_sleep = f->source != HYBRID_SLEEP_NONE;
	in->overshoot_ns = f->off_ns;
	in->sleep_cpu_ns = f->cpu_ns;
	in->syscall_ns = f->syscall_ns;
	in->tie = f->tie;
	in->hybrid_util = f->hybrid_util;
	in->h_ratio = f->h_ratio;
	in->tied_ns = f->tied_ns;
}

/* a running mean of the last @k values equally weighted (the first sets it) */
static void follow(double *mean, uint32_t *count, double v, uint32_t k)
{
	uint32_t n = *count < k ? *count + 1 : k;

	*mean += (v - *mean) / n;
	(*count)++;
}

/* the memo entry of (comm, exe), -1 if none */
static int memo_index(const struct hybrid_sleep_est *e, const char *comm, const char *exe)
{
	for (int i = 0; i < HYBRID_SLEEP_MEMO; i++) {
		const struct hybrid_classic_memo *m = &e->memo[i];

		if (m->seq && !strncmp(m->comm, comm, sizeof(m->comm)) &&
		    !strncmp(m->exe, exe, sizeof(m->exe)))
			return i;
	}
	return -1;
}

static struct hybrid_classic_memo *memo_find(struct hybrid_sleep_est *e, const char *comm,
					     const char *exe)
{
	int i = memo_index(e, comm, exe);

	return i < 0 ? NULL : &e->memo[i];
}

void hybrid_sleep_figures_for(const struct hybrid_sleep_est *e,
			      const struct sleep_probe_result *probe, const char *comm,
			      const char *exe, struct hybrid_sleep_figures *out)
{
	int i = memo_index(e, comm, exe);

	hybrid_sleep_figures(e, probe, out);
	if (out->source != HYBRID_SLEEP_NONE && i >= 0 && e->memo[i].util_windows)
		out->hybrid_util = e->memo[i].util;
}



void hybrid_sleep_note_classic(struct hybrid_sleep_est *e, const char *comm, const char *exe,
			       const struct iopoll_window_result *r)
{
	struct hybrid_classic_memo *m;

	if (r->qd > HYBRID_SLEEP_MAX_QD || r->hybrid_poll_time_ns)
		return;
	m = memo_find(e, comm, exe);
	if (!m) {
		/* an empty entry, else the least recent */
		m = &e->memo[0];
		for (int i = 1; i < HYBRID_SLEEP_MEMO && m->seq; i++)
			if (e->memo[i].seq < m->seq)
				m = &e->memo[i];
		memset(m, 0, sizeof(*m));
		strncpy(m->comm, comm, sizeof(m->comm) - 1);
		strncpy(m->exe, exe, sizeof(m->exe) - 1);
	}
	m->seq = ++e->seq;
	m->hybrid_windows = 0;
	m->r = *r;
}

bool hybrid_sleep_note_hybrid(struct hybrid_sleep_est *e, const char *comm, const char *exe,
			      const struct iopoll_window_result *r,
			      const struct sleep_probe_result *probe)
{
	struct hybrid_classic_memo *m = memo_find(e, comm, exe);
	struct hybrid_observed obs = {
		.mid_ns = hybrid_fine_mid(r->fine), .p90_ns = hybrid_fine_quantile(r->fine, 0.9),
		.hybrid_poll_time_ns = r->hybrid_poll_time_ns,
	};
	struct hybrid_sleep_figures f;
	struct hybrid_model_in in;
	struct hybrid_learned l;

	if (r->cpu_known && r->busy_ns && r->cpu_ns <= r->busy_ns)
		follow(&e->util, &e->util_windows, (double)r->cpu_ns / r->busy_ns, HYBRID_UTIL_WINDOWS);
	if (!m || !r->hybrid_poll_time_ns || r->qd > HYBRID_SLEEP_MAX_QD)
		return false;
	if (r->cpu_known && r->busy_ns && r->cpu_ns <= r->busy_ns)
		follow(&m->util, &m->util_windows, (double)r->cpu_ns / r->busy_ns, HYBRID_UTIL_WINDOWS);
	/* a fit is a few dozen simulations: not at every window */
	if (++m->hybrid_windows < HYBRID_LEARN_FIRST ||
	    (m->hybrid_windows - HYBRID_LEARN_FIRST) % HYBRID_LEARN_EVERY)
		return false;
	/* from the probe's figures alone: what was learned before does not feed itself */
	hybrid_sleep_figures(NULL, probe, &f);
	hybrid_model_input(&m->r, &f, &in);
	if (hybrid_model_learn(&in, &obs, &l))
		return false;
	follow(&e->tie_share, &e->pairs, l.tie ? 1.0 : 0.0, HYBRID_TIED_PAIRS);
	/* the tie's length follows the pairs that found one */
	if (l.tie)
		follow(&e->tied_ns, &e->tie_pairs, l.tied_ns, HYBRID_TIED_PAIRS);
	e->last_tie = l.tie;
	e->last_tied_ns = l.tied_ns;
	if (l.h_ratio > 0)
		follow(&e->h_ratio, &e->h_pairs, l.h_ratio, HYBRID_TIED_PAIRS);
	return true;
}
