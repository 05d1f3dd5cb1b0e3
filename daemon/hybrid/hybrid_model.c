// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hybrid model: a classic ring's window and the host's sleep figures in,
 * what hybrid would change out. Both sides are simulated on the same
 * completion times (hybrid_sim.c); the difference per read is added to what
 * was measured on the ring, so the model's own idealisations (a thread that
 * does nothing else, a device whose times do not depend on load) cancel
 * out as far as they can.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hist.h"
#include "hybrid_model.h"
#include "hybrid_sim.h"

/* without a measured submission cost: this many trivial system calls */
#define SUBMIT_SYSCALLS		4
/* one poll of an NVMe queue against one submission */
#define POLL_PER_SUBMIT		0.25

/* the completion time at quantile u, evenly spread inside its fine slot */
static double fine_quantile(const __u64 *fine, double u)
{
	double total = 0, rank, below = 0;
	unsigned int i;

	for (i = 0; i < UT_FINE_SLOTS; i++)
		total += fine[i];
	rank = u * total;
	for (i = 0; i < UT_FINE_SLOTS - 1; i++) {
		if (below + fine[i] > rank)
			break;
		below += fine[i];
	}
	if (!fine[i])
		return hist_fine_lo(i);
	return hist_fine_lo(i) + (rank - below) / fine[i] *
	       (double)(hist_fine_hi(i) - hist_fine_lo(i));
}

/* the middle of a distribution: the mean of its quartiles and median */
static double fine_mid(const __u64 *fine)
{
	return (fine_quantile(fine, 0.25) + fine_quantile(fine, 0.5) + fine_quantile(fine, 0.75)) / 3;
}

/* the simulation's table: quantiles (k + 0.5) / SIM_QUANTILES, in one pass */
static void quantile_table(const __u64 *fine, double tq[SIM_QUANTILES])
{
	double total = 0, below = 0, rank;
	unsigned int i = 0, k;

	for (k = 0; k < UT_FINE_SLOTS; k++)
		total += fine[k];
	for (k = 0; k < SIM_QUANTILES; k++) {
		rank = (k + 0.5) / SIM_QUANTILES * total;
		while (i < UT_FINE_SLOTS - 1 && below + fine[i] <= rank)
			below += fine[i++];
		tq[k] = hist_fine_lo(i);
		if (fine[i])
			tq[k] += (rank - below) / fine[i] * (double)(hist_fine_hi(i) - hist_fine_lo(i));
	}
}

static bool have_inputs(const struct hybrid_model_in *in, struct hybrid_pred *out)
{
	if (in->reads < HYBRID_MODEL_MIN_READS || !in->fine || in->iops <= 0 || in->mean_ns <= 0) {
		snprintf(out->why, sizeof(out->why), "%llu reads in the last window: too few to predict",
			 (unsigned long long)in->reads);
		return false;
	}
	if (!in->have_sleep) {
		snprintf(out->why, sizeof(out->why),
			 "the host's sleep overshoot is not measured yet (daemon.sleep_probe)");
		return false;
	}
	return true;
}

/*
 * The program's depth: the one whose classic simulation has as many
 * requests in flight on average as were measured. Less than the depth is
 * in flight at any time (between a completion and the refill), so the
 * depth is the measured average rounded up, or a little more.
 */
static void choose_depth(struct sim_params *p, double qd)
{
	unsigned int lo = qd > 1 ? (unsigned int)qd : 1, hi = (unsigned int)(qd * 1.5) + 2, d;
	double best = -1;
	struct sim_out c;

	if (hi > SIM_MAX_DEPTH)
		hi = SIM_MAX_DEPTH;
	p->depth = lo;
	for (d = lo; d <= hi; d++) {
		struct sim_params t = *p;
		double miss;

		t.depth = d;
		sim_run(&t, false, &c);
		miss = c.qd > qd ? c.qd - qd : qd - c.qd;
		if (best < 0 || miss < best) {
			best = miss;
			p->depth = d;
		}
		/* deeper only adds in flight */
		if (c.qd > qd)
			break;
	}
}

static void params_of(const struct hybrid_model_in *in, struct sim_params *p, double *tq)
{
	double submit = in->submit_ns, h;

	memset(p, 0, sizeof(*p));
	if (submit <= 0)
		submit = in->turn_ns > 0 ? in->turn_ns : SUBMIT_SYSCALLS * in->syscall_ns;
	p->submit_ns = submit;
	p->poll_ns = POLL_PER_SUBMIT * submit;
	p->turn_ns = in->turn_ns;
	quantile_table(in->fine, tq);
	p->tq = tq;
	choose_depth(p, in->qd);
	/*
	 * The kernel asks half of hybrid_poll_time: the first request's issue
	 * to the end of its first poll, after the rest of its batch was issued.
	 */
	h = in->hybrid_poll_time_ns ? (double)in->hybrid_poll_time_ns :
	    (in->h_ratio > 0 ? in->h_ratio : HYBRID_H_RATIO) * in->min_ns + (p->depth - 1) * submit;
	/* tied: the device's completion, not the timer's overshoot, ends a sleep */
	p->sleep_off_ns = h / 2 + (in->tie ? 0 : in->overshoot_ns);
	p->sleep_cpu_ns = in->sleep_cpu_ns;
	p->tie = in->tie;
	p->tied_ns = in->tied_ns;
}

void hybrid_model_predict(const struct hybrid_model_in *in, struct hybrid_pred *out)
{
	double wall_m, cpu_m, wall_h, cpu_h, util;
	double tq[SIM_QUANTILES];
	struct sim_out c, h;
	struct sim_params p;

	memset(out, 0, sizeof(*out));
	if (!have_inputs(in, out))
		return;
	params_of(in, &p, tq);
	sim_run(&p, false, &c);
	sim_run(&p, true, &h);
	if (c.wall_per_read_ns <= 0 || c.cpu_per_read_ns <= 0) {
		snprintf(out->why, sizeof(out->why), "the simulation found no reads");
		return;
	}
	/* measured, classic; a thread not known is taken as polling all the time */
	util = in->cpu_util >= 0 ? in->cpu_util : 1;
	wall_m = 1e9 / in->iops;
	cpu_m = util * wall_m;
	/* ... plus what the simulation says hybrid changes, per read */
	wall_h = wall_m + h.wall_per_read_ns - c.wall_per_read_ns;
	cpu_h = cpu_m + h.cpu_per_read_ns - c.cpu_per_read_ns;
	/* what hybrid rings here measured beats what a sleep should cost */
	if (in->hybrid_util > 0)
		cpu_h = in->hybrid_util * wall_h;
	if (cpu_h < 0)
		cpu_h = 0;
	out->valid = true;
	out->iops_change = wall_m / wall_h - 1;
	out->cpu_per_read_saving = cpu_m > 0 ? 1 - cpu_h / cpu_m : 0;
	out->cpu_util = cpu_h / wall_h;
	out->p50_ns = h.p50_ns;
	out->p99_ns = h.p99_ns;
	out->sleep_ns = p.sleep_off_ns + p.sleep_cpu_ns;
	snprintf(out->why, sizeof(out->why),
		 "at depth %u, %.1f us per read: each hybrid sleep lasts %.1f us here "
		 "(%.2f per read): %+.0f%% CPU per read, %+.0f%% IOPS",
		 p.depth, wall_m / 1000, out->sleep_ns / 1000, h.sleeps_per_read,
		 -out->cpu_per_read_saving * 100, out->iops_change * 100);
}

/* bisection steps: the tie to within 2^-TIED_STEPS of its range */
#define TIED_STEPS		16
#define TIED_MAX_NS		(10.0 * 1000 * 1000)

/* the tie that makes the simulated hybrid's middle (p25, p50, p75) exceed classic's by @target */
static double fit_tied(struct sim_params *p, const struct sim_out *c, double target)
{
	double lo = 0, hi = TIED_MAX_NS;
	struct sim_out h;

	p->tie = true;
	p->tied_ns = 0;
	sim_run(p, true, &h);
	if (h.mid_ns - c->mid_ns >= target)
		return 0;
	for (int i = 0; i < TIED_STEPS; i++) {
		p->tied_ns = (lo + hi) / 2;
		sim_run(p, true, &h);
		if (h.mid_ns - c->mid_ns < target)
			lo = p->tied_ns;
		else
			hi = p->tied_ns;
	}
	return p->tied_ns = (lo + hi) / 2;
}

/* how far the simulated hybrid's median and 90th percentile are from @h's */
static double miss(const struct sim_params *p, const struct sim_out *c, const double meas[2])
{
	struct sim_out h;
	double a, b;

	sim_run(p, true, &h);
	a = h.mid_ns - c->mid_ns - meas[0];
	b = h.p90_ns - c->p90_ns - meas[1];

	return (a < 0 ? -a : a) + (b < 0 ? -b : b);
}

int hybrid_model_learn(const struct hybrid_model_in *classic, const struct hybrid_observed *h,
		       struct hybrid_learned *out)
{
	struct hybrid_model_in in = *classic;
	double tq[SIM_QUANTILES], d[2];
	struct hybrid_pred none;
	struct sim_params p, tp;
	struct sim_out c;

	memset(out, 0, sizeof(*out));
	if (!have_inputs(classic, &none) || h->mid_ns <= 0)
		return -EINVAL;
	in.tie = false;
	in.hybrid_poll_time_ns = h->hybrid_poll_time_ns;
	params_of(&in, &p, tq);
	sim_run(&p, false, &c);
	/* the measured differences, hybrid less classic, at the median and the 90th */
	d[0] = h->mid_ns - fine_mid(classic->fine);
	d[1] = h->p90_ns - fine_quantile(classic->fine, 0.9);
	/* tied: the timer's overshoot is the device's doing, and the tie is fitted */
	tp = p;
	tp.sleep_off_ns = h->hybrid_poll_time_ns / 2.0;
	out->tied_ns = fit_tied(&tp, &c, d[0]);
	out->tie = miss(&tp, &c, d) < miss(&p, &c, d);
	if (classic->min_ns && h->hybrid_poll_time_ns)
		out->h_ratio = (double)h->hybrid_poll_time_ns / classic->min_ns;
	return 0;
}

double hybrid_fine_mid(const __u64 *fine)
{
	return fine_mid(fine);
}

double hybrid_fine_quantile(const __u64 *fine, double u)
{
	return fine_quantile(fine, u);
}

bool hybrid_pred_within(const struct hybrid_pred *p, double min_saving, double max_loss)
{
	return p->valid && p->cpu_per_read_saving >= min_saving && -p->iops_change <= max_loss;
}
