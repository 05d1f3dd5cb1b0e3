// SPDX-License-Identifier: GPL-2.0-only
/*
 * iopoll_window: windows close on time and reads, over busy time; restart on
 * another submitting thread or a long quiet; "recent" spans the last
 * WINDOW_KEEP. hybrid_sleep: the classic memo, the pair learned at the 2nd
 * hybrid window. sleep_probe: the summary of raw samples.
 */
#include <string.h>

#include "hybrid_sleep.h"
#include "iopoll_window.h"
#include "sleep_probe.h"
#include "unit.h"
#include "uring_abi.h"

#define MS	1000000ULL

/* @reads more, each @lat_ns long, busy @busy_ns of the step */
static void advance(struct ut_iopoll_stats *s, uint64_t reads, uint64_t lat_ns, uint64_t busy_ns,
		    double qd)
{
	s->completed += reads;
	s->dur_sum_ns += reads * lat_ns;
	s->fine_hist[hist_fine_slot(lat_ns)] += reads;
	s->busy_ns += busy_ns;
	s->inflight_ns += (uint64_t)(busy_ns * qd);
}

UT_TEST(window_closes_on_time_and_reads)
{
	struct ut_iopoll_stats s = { .submit_tid = 42, .setup_flags = UT_SETUP_IOPOLL };
	struct iopoll_window w = { 0 };
	uint64_t t = 1000 * MS;

	UT_ASSERT(!iopoll_window_step(&w, &s, t, true, 0));
	/* half a second: not yet, however many reads */
	advance(&s, 5000, 100000, 500 * MS, 1);
	UT_ASSERT(!iopoll_window_step(&w, &s, t + 500 * MS, true, 400 * MS));
	/* a second, busy half of it: IOPS over the busy time */
	advance(&s, 5000, 100000, 0, 1);
	UT_ASSERT(iopoll_window_step(&w, &s, t + 1000 * MS, true, 500 * MS));
	UT_ASSERT(w.have_last && w.closed == 1 && w.n_chain == 1);
	UT_ASSERT(w.last.reads == 10000);
	UT_ASSERT(w.last.busy_ns == 500 * MS);
	UT_ASSERT(w.last.iops > 19999 && w.last.iops < 20001);
	UT_ASSERT(w.last.cpu_known && w.last.cpu_util > 0.999 && w.last.cpu_util < 1.001);
	UT_ASSERT(w.last.mean_ns > 99999 && w.last.mean_ns < 100001);
	/* too few reads in the next second: it stays open */
	advance(&s, 100, 100000, 100 * MS, 1);
	UT_ASSERT(!iopoll_window_step(&w, &s, t + 2000 * MS, true, 600 * MS));
}

UT_TEST(window_recent_spans_the_chain)
{
	struct ut_iopoll_stats s = { .submit_tid = 7 };
	struct iopoll_window w = { 0 };
	uint64_t t = 0, cpu = 0;

	iopoll_window_step(&w, &s, t += MS, true, cpu);
	for (int i = 0; i < WINDOW_KEEP + 3; i++) {
		/* the last window's reads are twice as slow */
		advance(&s, 1000, i == WINDOW_KEEP + 2 ? 200000 : 100000, 1000 * MS, 2);
		cpu += 1000 * MS;
		UT_ASSERT(iopoll_window_step(&w, &s, t += 1000 * MS, true, cpu));
	}
	UT_ASSERT(w.n_chain == WINDOW_KEEP);
	UT_ASSERT(w.last.reads == 1000 && w.last.mean_ns > 199999);
	UT_ASSERT(w.recent.reads == 1000 * WINDOW_KEEP);
	/* one slow window of eight: the mean moves by an eighth */
	UT_ASSERT(w.recent.mean_ns > 112499 && w.recent.mean_ns < 112501);
	UT_ASSERT(w.recent.qd > 1.999 && w.recent.qd < 2.001);
}

UT_TEST(window_restarts)
{
	struct ut_iopoll_stats s = { .submit_tid = 7 };
	struct iopoll_window w = { 0 };
	uint64_t t = MS;

	iopoll_window_step(&w, &s, t, true, 0);
	advance(&s, 1000, 100000, 1000 * MS, 1);
	UT_ASSERT(iopoll_window_step(&w, &s, t += 1000 * MS, true, 900 * MS));
	/* another thread submits: its CPU is not the one read; the chain begins again */
	s.submit_tid = 8;
	advance(&s, 1000, 100000, 1000 * MS, 1);
	UT_ASSERT(!iopoll_window_step(&w, &s, t += 1000 * MS, true, 5));
	UT_ASSERT(w.n_chain == 0);
	advance(&s, 1000, 100000, 1000 * MS, 1);
	UT_ASSERT(iopoll_window_step(&w, &s, t += 1000 * MS, true, 5 + 800 * MS));
	UT_ASSERT(w.recent.reads == 1000 && w.recent.cpu_ns == 800 * MS);
	/* quiet past WINDOW_MAX_NS: a new start, nothing closed */
	advance(&s, 10, 100000, MS, 1);
	UT_ASSERT(!iopoll_window_step(&w, &s, t += WINDOW_MAX_NS, true, 5 + 801 * MS));
	UT_ASSERT(w.n_chain == 0 && w.closed == 2);
	/* the CPU unknown: the window closes without it */
	advance(&s, 1000, 100000, 1000 * MS, 1);
	UT_ASSERT(iopoll_window_step(&w, &s, t += 1000 * MS, false, 0));
	UT_ASSERT(!w.last.cpu_known);
}

static void classic_result(struct iopoll_window_result *r, double qd)
{
	memset(r, 0, sizeof(*r));
	r->reads = 10000;
	r->busy_ns = 1000 * MS;
	r->iops = 10000;
	r->mean_ns = 98000;
	r->qd = qd;
	r->cpu_known = true;
	r->cpu_ns = 1000 * MS;
	r->cpu_util = 1;
	r->turn_ns = 1000;
	r->fine[hist_fine_slot(98000)] = 10000;
}

UT_TEST(sleep_pairs)
{
	struct sleep_probe_result probe = { .samples = 100, .overshoot_ns = 30000, .cpu_ns = 10000,
					    .syscall_ns = 500, .asked_ns = 4000 };
	static struct hybrid_sleep_est e;
	struct iopoll_window_result c, h;
	struct hybrid_sleep_figures f;

	hybrid_sleep_figures(&e, NULL, &f);
	UT_ASSERT(f.source == HYBRID_SLEEP_NONE);
	hybrid_sleep_figures(&e, &probe, &f);
	UT_ASSERT(f.source == HYBRID_SLEEP_PROBE && f.off_ns == 20000 && f.cpu_ns == 10000);
	/* a classic window at depth 8 is not kept: a pair is depth ~1 */
	classic_result(&c, 8);
	hybrid_sleep_note_classic(&e, "fio", "/usr/bin/fio", &c);
	classic_result(&h, 1);
	h.hybrid_poll_time_ns = 20000;
	h.fine[hist_fine_slot(98000)] = 0;
	h.fine[hist_fine_slot(190000)] = 10000;
	h.cpu_ns = 500 * MS;
	UT_ASSERT(!hybrid_sleep_note_hybrid(&e, "fio", "/usr/bin/fio", &h, &probe));
	classic_result(&c, 1);
	hybrid_sleep_note_classic(&e, "fio", "/usr/bin/fio", &c);
	/* another program's hybrid window is no pair */
	UT_ASSERT(!hybrid_sleep_note_hybrid(&e, "fio", "/opt/fio", &h, &probe));
	/* the first hybrid window is learned from, the second skipped, the third learned */
	UT_ASSERT(hybrid_sleep_note_hybrid(&e, "fio", "/usr/bin/fio", &h, &probe));
	UT_ASSERT(e.pairs == 1);
	/* the hybrid median is ~90 us later: a tie, of tens of microseconds */
	UT_ASSERT(e.last_tie && e.tie_pairs == 1);
	UT_ASSERT(e.tied_ns > 20000 && e.tied_ns < 120000);
	hybrid_sleep_figures(&e, &probe, &f);
	UT_ASSERT(f.source == HYBRID_SLEEP_PAIRS);
	UT_ASSERT(f.tie ? f.tied_ns == e.tied_ns : f.tied_ns == 0);
	/* every hybrid window counted for the CPU share, paired or not: 500 of 1000 ms */
	UT_ASSERT(e.util_windows == 3);
	UT_ASSERT(f.hybrid_util > 0.499 && f.hybrid_util < 0.501);
	UT_ASSERT(!hybrid_sleep_note_hybrid(&e, "fio", "/usr/bin/fio", &h, &probe));
	UT_ASSERT(hybrid_sleep_note_hybrid(&e, "fio", "/usr/bin/fio", &h, &probe));
	UT_ASSERT(e.pairs == 2);
	/* another program's hybrid ring at 90% CPU: the host's share moves, fio's own does not */
	h.cpu_ns = 900 * MS;
	UT_ASSERT(!hybrid_sleep_note_hybrid(&e, "db", "/usr/bin/db", &h, &probe));
	hybrid_sleep_figures(&e, &probe, &f);
	UT_ASSERT(f.hybrid_util > 0.55);
	hybrid_sleep_figures_for(&e, &probe, "fio", "/usr/bin/fio", &f);
	UT_ASSERT(f.hybrid_util > 0.499 && f.hybrid_util < 0.501);
	hybrid_sleep_figures_for(&e, &probe, "db", "/usr/bin/db", &f);
	UT_ASSERT(f.hybrid_util > 0.55);
	UT_ASSERT_STR_EQ(hybrid_sleep_source_name(f.source), "probe+pairs");
}

UT_TEST(probe_summary)
{
	uint64_t wall[5] = { 54000, 14000, 24000, 34000, 44000 };
	uint64_t cpu[5] = { 3000, 1000, 2000, 5000, 4000 };
	uint64_t sys[5] = { 500, 400, 300, 200, 100 };
	struct sleep_probe_result r;

	sleep_probe_summarize(4000, wall, cpu, sys, 5, &r);
	UT_ASSERT(r.samples == 5 && r.asked_ns == 4000);
	UT_ASSERT(r.overshoot_ns == 30000);
	UT_ASSERT(r.overshoot_p90_ns == 40000);
	UT_ASSERT(r.cpu_ns == 3000 && r.syscall_ns == 300);
	sleep_probe_summarize(4000, wall, cpu, sys, 0, &r);
	UT_ASSERT(r.samples == 0 && r.overshoot_ns == 0);
}

int main(void)
{
	ut_run("window_closes_on_time_and_reads", window_closes_on_time_and_reads);
	ut_run("window_recent_spans_the_chain", window_recent_spans_the_chain);
	ut_run("window_restarts", window_restarts);
	ut_run("sleep_pairs", sleep_pairs);
	ut_run("probe_summary", probe_summary);
	return ut_finish();
}
