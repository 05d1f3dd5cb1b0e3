// SPDX-License-Identifier: GPL-2.0-only
/*
 * hybrid_model: the fine histogram's slots, the poll loop's simulation
 * (classic and hybrid, the tie), the model's predictions on synthetic
 * completion times, learning the host's sleep back from a pair, and the
 * bounds.
 */
#include <string.h>

#include "hist.h"
#include "hybrid_model.h"
#include "hybrid_sim.h"
#include "unit.h"

#define US	1000.0

static double constant_tq[SIM_QUANTILES];

static void fill_tq(double *tq, double ns)
{
	for (int i = 0; i < SIM_QUANTILES; i++)
		tq[i] = ns;
}

static struct sim_params params(unsigned int depth, double t_ns, double sleep_wall, double sleep_cpu)
{
	fill_tq(constant_tq, t_ns);
	return (struct sim_params){
		.depth = depth, .submit_ns = 1 * US, .poll_ns = 0.25 * US, .turn_ns = 1 * US,
		.sleep_off_ns = sleep_wall - sleep_cpu, .sleep_cpu_ns = sleep_cpu, .tq = constant_tq,
	};
}

static bool near(double a, double b, double tol)
{
	return a > b - tol && a < b + tol;
}

/* quarter-log2 slots: edges meet, values land between them */
UT_TEST(fine_slots)
{
	UT_ASSERT(hist_fine_slot(0) == 0 && hist_fine_slot(1023) == 0);
	UT_ASSERT(hist_fine_slot(1024) == 0);
	UT_ASSERT(hist_fine_slot(1280) == 1);
	UT_ASSERT(hist_fine_slot(UINT64_C(1) << 40) == UT_FINE_SLOTS - 1);
	for (unsigned int i = 1; i < UT_FINE_SLOTS - 1; i++) {
		UT_ASSERT(hist_fine_hi(i) == hist_fine_lo(i + 1));
		UT_ASSERT(hist_fine_slot(hist_fine_lo(i)) == i);
		UT_ASSERT(hist_fine_slot(hist_fine_hi(i) - 1) == i);
		/* at most a quarter of the octave wide */
		UT_ASSERT(hist_fine_hi(i) - hist_fine_lo(i) <= hist_fine_lo(i) / 4 + 1);
	}
}

/* classic, depth 1: the thread spins through every completion; all CPU */
UT_TEST(sim_classic_depth1)
{
	struct sim_params p = params(1, 80 * US, 0, 0);
	struct sim_out o;

	sim_run(&p, false, &o);
	/* submit 1 + 80 device + a poll + turnaround 1 */
	UT_ASSERT(near(o.wall_per_read_ns, 82.25 * US, 0.5 * US));
	UT_ASSERT(near(o.cpu_per_read_ns, o.wall_per_read_ns, 1));
	UT_ASSERT(o.sleeps_per_read == 0);
	UT_ASSERT(near(o.p50_ns, 80.25 * US, 0.5 * US));
}

/* hybrid, a sleep shorter than the device: same pace, the sleep off the CPU */
UT_TEST(sim_hybrid_short_sleep)
{
	struct sim_params p = params(1, 80 * US, 30 * US, 5 * US);
	struct sim_out c, h;

	sim_run(&p, false, &c);
	sim_run(&p, true, &h);
	UT_ASSERT(near(h.sleeps_per_read, 1, 0.01));
	UT_ASSERT(near(h.wall_per_read_ns, c.wall_per_read_ns, 0.5 * US));
	/* 30 us asleep of which 5 on the CPU: 25 us less per read */
	UT_ASSERT(near(c.cpu_per_read_ns - h.cpu_per_read_ns, 25 * US, 1 * US));
}

/* hybrid, a sleep longer than the device: every read waits for the wake-up */
UT_TEST(sim_hybrid_long_sleep)
{
	struct sim_params p = params(1, 40 * US, 100 * US, 10 * US);
	struct sim_out c, h;

	sim_run(&p, false, &c);
	sim_run(&p, true, &h);
	UT_ASSERT(near(h.wall_per_read_ns - c.wall_per_read_ns, 60 * US, 1 * US));
	/* no spinning left: only the sleep's own CPU instead of 40 us */
	UT_ASSERT(near(c.cpu_per_read_ns - h.cpu_per_read_ns, 30 * US, 1 * US));
	UT_ASSERT(h.p50_ns > 100 * US);
}

/* the tie: a sleeper stays off until tied after the completion, then wakes */
UT_TEST(sim_tied)
{
	struct sim_params p = params(1, 80 * US, 10 * US, 5 * US);
	struct sim_out free_, h0, h1;

	sim_run(&p, true, &free_);
	p.tie = true;
	sim_run(&p, true, &h0);
	p.tied_ns = 50 * US;
	sim_run(&p, true, &h1);
	UT_ASSERT(near(h1.p50_ns - h0.p50_ns, 50 * US, 1 * US));
	/* tied at 0: the waking half of the sleep's CPU comes after the completion */
	UT_ASSERT(near(h0.p50_ns - free_.p50_ns, 2.5 * US, 0.5 * US));
	/* waiting for the wake-up is not spinning */
	UT_ASSERT(h0.cpu_per_read_ns < free_.cpu_per_read_ns);
	UT_ASSERT(near(h1.cpu_per_read_ns, h0.cpu_per_read_ns, 1));
}

/* at depth 8 one sleep covers several completions */
UT_TEST(sim_depth8)
{
	struct sim_params p = params(8, 200 * US, 60 * US, 5 * US);
	struct sim_out c, h;

	sim_run(&p, false, &c);
	sim_run(&p, true, &h);
	UT_ASSERT(h.sleeps_per_read > 0 && h.sleeps_per_read < 0.9);
	/* eight in flight over ~200 us: about 25 us per read for classic */
	UT_ASSERT(near(c.wall_per_read_ns, 25.5 * US, 2 * US));
	UT_ASSERT(h.cpu_per_read_ns < c.cpu_per_read_ns);
	UT_ASSERT(h.wall_per_read_ns >= c.wall_per_read_ns);
}

/* a fine histogram with every completion at @ns */
static void one_slot(__u64 *fine, double ns, uint64_t n)
{
	memset(fine, 0, UT_FINE_SLOTS * sizeof(*fine));
	fine[hist_fine_slot((uint64_t)ns)] = n;
}

static struct hybrid_model_in classic_in(const __u64 *fine, double t_ns)
{
	return (struct hybrid_model_in){
		.fine = fine, .mean_ns = t_ns, .reads = 10000, .iops = 1e9 / (t_ns + 2 * US),
		.cpu_util = 1, .qd = 1, .turn_ns = 1 * US, .submit_ns = 0, .have_sleep = true,
		.overshoot_ns = 20 * US, .sleep_cpu_ns = 5 * US, .syscall_ns = 0.2 * US,
	};
}

/* what is missing is said, nothing predicted */
UT_TEST(model_needs_inputs)
{
	__u64 fine[UT_FINE_SLOTS];
	struct hybrid_model_in in;
	struct hybrid_pred p;

	one_slot(fine, 100 * US, 10000);
	in = classic_in(fine, 100 * US);
	in.reads = 10;
	hybrid_model_predict(&in, &p);
	UT_ASSERT(!p.valid);
	UT_ASSERT_STR_CONTAINS(p.why, "too few");
	in = classic_in(fine, 100 * US);
	in.have_sleep = false;
	hybrid_model_predict(&in, &p);
	UT_ASSERT(!p.valid);
	UT_ASSERT_STR_CONTAINS(p.why, "sleep_probe");
}

/* slow completions: hybrid saves CPU and costs no IOPS; fast ones: the reverse */
UT_TEST(model_slow_and_fast_devices)
{
	__u64 fine[UT_FINE_SLOTS];
	struct hybrid_model_in in;
	struct hybrid_pred slow, fast;

	one_slot(fine, 400 * US, 10000);
	in = classic_in(fine, 400 * US);
	hybrid_model_predict(&in, &slow);
	UT_ASSERT(slow.valid);
	UT_ASSERT(slow.cpu_per_read_saving > 0.02);
	UT_ASSERT(near(slow.iops_change, 0, 0.01));
	UT_ASSERT(hybrid_pred_within(&slow, 0.01, 0.10));
	one_slot(fine, 10 * US, 10000);
	in = classic_in(fine, 10 * US);
	hybrid_model_predict(&in, &fast);
	UT_ASSERT(fast.valid);
	/* a 20+ us sleep for a 10 us read: far fewer IOPS */
	UT_ASSERT(fast.iops_change < -0.3);
	UT_ASSERT(!hybrid_pred_within(&fast, 0.0, 0.10));
	/* the CPU the program spends elsewhere is kept: util 0.5 halves the base */
	in.cpu_util = 0.5;
	hybrid_model_predict(&in, &fast);
	UT_ASSERT(fast.valid && fast.cpu_util < 0.5);
	/* the host's hybrid rings measured their CPU share: the CPU side is that share */
	in.hybrid_util = 0.45;
	hybrid_model_predict(&in, &fast);
	UT_ASSERT(near(fast.cpu_util, 0.45, 1e-9));
	UT_ASSERT(near(1 - fast.cpu_per_read_saving, 0.45 / 0.5 / (1 + fast.iops_change), 1e-9));
}

/* a pair made by the simulation with a known host is learned back */
UT_TEST(learn_recovers_the_host)
{
	struct hybrid_observed obs;
	struct hybrid_model_in in;
	struct hybrid_learned l;
	struct hybrid_pred truth;
	__u64 fine[UT_FINE_SLOTS];

	/* completion times spread over 60-140 us, so that the 90th percentile says something */
	memset(fine, 0, sizeof(fine));
	for (uint64_t ns = 60000; ns < 140000; ns += 4000)
		fine[hist_fine_slot(ns)] += 500;
	in = classic_in(fine, 100 * US);
	/* the truth: a tie of 70 us; what hybrid then measures */
	in.tie = true;
	in.tied_ns = 70 * US;
	hybrid_model_predict(&in, &truth);
	UT_ASSERT(truth.valid);
	/* the tie moves every read by about the same: the middle as the median */
	obs.mid_ns = hybrid_fine_mid(fine) + truth.p50_ns - hybrid_fine_quantile(fine, 0.5);
	obs.hybrid_poll_time_ns = 0;
	/* the predicted p90 is not an output: the tie moves every read by the same */
	obs.p90_ns = hybrid_fine_quantile(fine, 0.9) + (obs.mid_ns - hybrid_fine_mid(fine));
	/* what the daemon starts from: the probe alone, no tie */
	in.tie = false;
	in.tied_ns = 0;
	UT_ASSERT(hybrid_model_learn(&in, &obs, &l) == 0);
	UT_ASSERT(l.tie);
	UT_ASSERT(near(l.tied_ns, 70 * US, 8 * US));
	/* a hybrid no slower than classic: no tie */
	obs.mid_ns = hybrid_fine_mid(fine);
	obs.p90_ns = hybrid_fine_quantile(fine, 0.9);
	UT_ASSERT(hybrid_model_learn(&in, &obs, &l) == 0);
	UT_ASSERT(!l.tie);
	/* a pair with nothing to say */
	in.reads = 0;
	UT_ASSERT(hybrid_model_learn(&in, &obs, &l) < 0);
}

/* the bounds: a saving at the bound is in, a loss at the bound is in */
UT_TEST(bounds)
{
	struct hybrid_pred p = { .valid = true, .cpu_per_read_saving = 0.25, .iops_change = -0.10 };

	UT_ASSERT(hybrid_pred_within(&p, 0.25, 0.10));
	p.cpu_per_read_saving = 0.2499;
	UT_ASSERT(!hybrid_pred_within(&p, 0.25, 0.10));
	p.cpu_per_read_saving = 0.5;
	p.iops_change = -0.1001;
	UT_ASSERT(!hybrid_pred_within(&p, 0.25, 0.10));
	p.valid = false;
	p.iops_change = 0;
	UT_ASSERT(!hybrid_pred_within(&p, 0.25, 0.10));
}

int main(void)
{
	ut_run("fine_slots", fine_slots);
	ut_run("sim_classic_depth1", sim_classic_depth1);
	ut_run("sim_hybrid_short_sleep", sim_hybrid_short_sleep);
	ut_run("sim_hybrid_long_sleep", sim_hybrid_long_sleep);
	ut_run("sim_tied", sim_tied);
	ut_run("sim_depth8", sim_depth8);
	ut_run("model_needs_inputs", model_needs_inputs);
	ut_run("model_slow_and_fast_devices", model_slow_and_fast_devices);
	ut_run("learn_recovers_the_host", learn_recovers_the_host);
	ut_run("bounds", bounds);
	return ut_finish();
}
