// SPDX-License-Identifier: GPL-2.0-only
/* The hybrid model's figures in status JSON: see status_hybrid.h. */
#include "iopoll_window.h"
#include "status_hybrid.h"

static void double_or_null(struct status_writer *w, const char *key, bool have, double v)
{
	if (have)
		sw_double(w, key, v);
	else
		sw_null(w, key);
}

void status_iopoll_window_write(struct status_writer *w, const struct iopoll_window *win,
				bool table)
{
	const struct iopoll_window_result *r = win ? &win->recent : NULL;

	if (!win || !win->have_last) {
		sw_null(w, "window");
		return;
	}
	sw_object(w, "window");
	sw_u64(w, "period_ns", r->period_ns);
	sw_u64(w, "busy_ns", r->busy_ns);
	sw_u64(w, "reads", r->reads);
	sw_double(w, "iops", r->iops);
	double_or_null(w, "cpu_util", r->cpu_known, r->cpu_util);
	double_or_null(w, "cpu_per_read_ns", r->cpu_known && r->reads,
		       r->reads ? (double)r->cpu_ns / r->reads : 0);
	sw_double(w, "qd", r->qd);
	double_or_null(w, "min_ns", r->min_ns, (double)r->min_ns);
	sw_double(w, "mean_ns", r->mean_ns);
	double_or_null(w, "submit_ns", r->submit_ns > 0, r->submit_ns);
	double_or_null(w, "turnaround_ns", r->turn_ns > 0, r->turn_ns);
	sw_u64(w, "windows", win->n_chain);
	sw_u64(w, "windows_closed", win->closed);
	if (table) {
		sw_object_end(w);
		return;
	}
	/* the completion times the model drew from: fine slots, hist.h */
	sw_array(w, "hist_fine_ns");
	for (int i = 0; i < UT_FINE_SLOTS; i++)
		sw_u64(w, NULL, r->fine[i]);
	sw_array_end(w);
	sw_object_end(w);
}

void status_iopoll_advice_write(struct status_writer *w, const struct iopoll_window *win,
				bool hybrid, double min_saving, double max_loss)
{
	const struct hybrid_pred *p = win && !hybrid ? &win->pred : NULL;
	bool have = p && p->valid;

	sw_object(w, "advice");
	sw_bool(w, "predicted", have);
	double_or_null(w, "cpu_per_read_saving", have, have ? p->cpu_per_read_saving : 0);
	double_or_null(w, "iops_change", have, have ? p->iops_change : 0);
	double_or_null(w, "p50_ns", have, have ? p->p50_ns : 0);
	double_or_null(w, "p99_ns", have, have ? p->p99_ns : 0);
	double_or_null(w, "cpu_util", have, have ? p->cpu_util : 0);
	double_or_null(w, "sleep_ns", have, have ? p->sleep_ns : 0);
	sw_bool(w, "recommend_hybrid", have && hybrid_pred_within(p, min_saving, max_loss));
	if (hybrid)
		sw_str(w, "why", "a hybrid ring: its window is what hybrid does");
	else if (!win || !win->have_last)
		sw_str(w, "why", "no measurement window closed yet");
	else
		sw_str(w, "why", p->why);
	sw_object_end(w);
}

void status_sleep_probe_write(struct status_writer *w, const struct sleep_probe *p)
{
	const struct sleep_probe_result *r = sleep_probe_result(p);
	bool have = r && r->samples;

	sw_object(w, "sleep_probe");
	sw_bool(w, "done", r != NULL);
	sw_u64(w, "samples", r ? r->samples : 0);
	double_or_null(w, "asked_ns", have, have ? (double)r->asked_ns : 0);
	double_or_null(w, "overshoot_ns", have, have ? (double)r->overshoot_ns : 0);
	double_or_null(w, "overshoot_p90_ns", have, have ? (double)r->overshoot_p90_ns : 0);
	double_or_null(w, "cpu_ns", have, have ? (double)r->cpu_ns : 0);
	double_or_null(w, "syscall_ns", have, have ? (double)r->syscall_ns : 0);
	sw_object_end(w);
}

void status_hybrid_sleep_write(struct status_writer *w, const struct hybrid_sleep_est *e,
			       const struct sleep_probe *p)
{
	struct hybrid_sleep_figures f;
	bool have;

	hybrid_sleep_figures(e, sleep_probe_result(p), &f);
	have = f.source != HYBRID_SLEEP_NONE;
	sw_object(w, "hybrid_sleep");
	sw_str(w, "source", hybrid_sleep_source_name(f.source));
	sw_u64(w, "pairs", e->pairs);
	double_or_null(w, "overshoot_ns", have, f.off_ns);
	double_or_null(w, "cpu_ns", have, f.cpu_ns);
	sw_bool(w, "tie", f.tie);
	double_or_null(w, "tied_ns", f.tie, f.tied_ns);
	double_or_null(w, "tie_share", e->pairs, e->tie_share);
	double_or_null(w, "last_pair_tied_ns", e->pairs && e->last_tie, e->last_tied_ns);
	double_or_null(w, "hybrid_cpu_util", e->util_windows, e->util);
	sw_u64(w, "util_windows", e->util_windows);
	double_or_null(w, "hybrid_poll_time_ratio", e->h_pairs, e->h_ratio);
	sw_object_end(w);
}
