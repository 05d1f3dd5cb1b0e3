// SPDX-License-Identifier: GPL-2.0-only
/* One hybrid sleep's cost on this host: see hybrid_sleep.h. */
#include <string.h>

#include "hybrid_sleep.h"

bool hybrid_sleep_learn(struct hybrid_sleep_est *e, const struct iopoll_window_result *r)
{
	double off, n;

	if (!r->cpu_known || !r->reads || !r->hybrid_poll_time_ns || r->qd > HYBRID_SLEEP_MAX_QD ||
	    r->cpu_ns > r->busy_ns)
		return false;
	off = (double)(r->busy_ns - r->cpu_ns) / r->reads - r->hybrid_poll_time_ns / 2.0;
	if (off < 0)
		off = 0;
	n = e->samples < HYBRID_SLEEP_WINDOWS ? e->samples + 1 : HYBRID_SLEEP_WINDOWS;
	e->off_ns += (off - e->off_ns) / n;
	e->samples++;
	return true;
}

void hybrid_sleep_figures(const struct hybrid_sleep_est *e, const struct sleep_probe_result *probe,
			  struct hybrid_sleep_figures *out)
{
	memset(out, 0, sizeof(*out));
	if (probe && probe->samples) {
		out->source = HYBRID_SLEEP_PROBE;
		out->cpu_ns = probe->cpu_ns;
		out->syscall_ns = probe->syscall_ns;
		/* the probe's sleep: asked + overshoot of wall, cpu_ns of it on the CPU */
		out->off_ns = probe->overshoot_ns > probe->cpu_ns ?
			      (double)(probe->overshoot_ns - probe->cpu_ns) : 0;
	}
	if (e && e->samples) {
		out->source = HYBRID_SLEEP_RINGS;
		out->off_ns = e->off_ns;
	}
}

const char *hybrid_sleep_source_name(enum hybrid_sleep_source s)
{
	switch (s) {
	case HYBRID_SLEEP_PROBE:
		return "probe";
	case HYBRID_SLEEP_RINGS:
		return "hybrid-rings";
	case HYBRID_SLEEP_NONE:
	default:
		return "none";
	}
}
