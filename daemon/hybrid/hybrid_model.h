/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What HYBRID_IOPOLL would do to a classic IOPOLL ring: CPU per read and
 * IOPS, predicted from what the daemon measured on the ring (completion
 * times, requests in flight, IOPS, the polling thread's CPU) and on the host
 * (how long a short hrtimer sleep really lasts, and what it costs in CPU).
 * Pure.
 *
 * The kernel's rule (io_uring/rw.c, 6.13+): the first time a request is
 * polled the task sleeps hybrid_poll_time / 2 on an hrtimer (no slack), then
 * polls as classic IOPOLL does. hybrid_poll_time is the ring's running
 * minimum of "issue to poll return, less the asked sleep": it starts at
 * LLONG_MAX, so the ring's very first request does not sleep, and its first
 * poll (moments after its issue) sets it low for good. So a hybrid sleep is
 * short by request, and what it lasts in practice is the host's wake-up
 * latency: the overshoot, measured by daemon/observe/sleep_probe.c.
 */
#ifndef UT_HYBRID_MODEL_H
#define UT_HYBRID_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

struct hybrid_pred {
	bool valid;
	double cpu_per_read_saving;	/* 1 - hybrid / classic CPU per read */
	double iops_change;		/* hybrid / classic IOPS - 1 */
	double p50_ns, p99_ns;		/* completion time (issue to CQE), hybrid */
	double cpu_util;		/* the polling thread's CPU share, hybrid */
	double sleep_ns;		/* one hybrid sleep as it would last here */
	char why[200];
};

/* the bounds `auto` applies hybrid within ([agent] hybrid_min_saving, hybrid_max_loss) */
#define HYBRID_MIN_SAVING_DEFAULT	0.25
#define HYBRID_MAX_LOSS_DEFAULT		0.10
/* hybrid_poll_time over the fastest completion, until a pair says otherwise */
#define HYBRID_H_RATIO			0.5
/* below this many reads in the window there is nothing to say */
#define HYBRID_MODEL_MIN_READS		200

/* what the model is given: a classic ring's last window, and the host */
struct hybrid_model_in {
	const __u64 *fine;		/* completion times, UT_FINE_SLOTS (hist.h) */
	double mean_ns;			/* their exact mean */
	uint64_t min_ns;		/* ... and minimum */
	uint64_t reads;
	double iops;
	double cpu_util;		/* the polling thread's; < 0 not known */
	double qd;			/* requests in flight, time average */
	double submit_ns;		/* one submission's cost; 0 not seen */
	double turn_ns;			/* completion to next submission; 0 not seen */
	/*
	 * The host (hybrid_sleep.h): a hybrid sleep keeps the thread off the
	 * CPU this long beyond the asked time, and costs sleep_cpu_ns of CPU.
	 * have_sleep false: not known yet.
	 */
	bool have_sleep;
	double overshoot_ns;
	double sleep_cpu_ns;
	double syscall_ns;
	bool tie;			/* hybrid_sim.h: a sleeper waits for the device */
	double tied_ns;
	/*
	 * The share of busy time the host's hybrid rings keep their polling
	 * thread on the CPU, measured (0: none seen): where it is known, the
	 * CPU side is that share of the predicted time per read.
	 */
	double hybrid_util;
	/*
	 * The kernel's hybrid_poll_time if known (the ring is hybrid), else
	 * estimated: h_ratio times the fastest completion (the first request's
	 * issue to its first poll is most of a completion's own overhead) plus
	 * a submission for each other request of the first batch. h_ratio is
	 * learned from pairs (0: HYBRID_H_RATIO).
	 */
	uint64_t hybrid_poll_time_ns;
	double h_ratio;
};

/*
 * Predict @out from @in; out->valid false (and out->why saying what is
 * missing) when the window or the host's figures are not there yet.
 */
void hybrid_model_predict(const struct hybrid_model_in *in, struct hybrid_pred *out);

/* what a hybrid window of the same program measured, to learn from */
struct hybrid_observed {
	double mid_ns, p90_ns;		/* completion time: mean of p25/p50/p75, p90 */
	uint64_t hybrid_poll_time_ns;
};

struct hybrid_learned {
	bool tie;			/* a sleeper waits for the device's next completion */
	double tied_ns;			/* ... and this long after it */
	double h_ratio;			/* hybrid_poll_time / the classic fastest; 0 unknown */
};

/*
 * The host's sleep, learned from one program's pair of windows at depth ~1:
 * @classic (a classic window as the model's input) and @h. Tie or not:
 * with a tie (the sleep ends at the device's completion, not the timer's),
 * tied_ns makes the simulated hybrid's middle (the mean of p25, p50, p75)
 * exceed the classic one's by what was measured, and the tie is taken if
 * that matches the middle and the 90th percentile better than the timer
 * alone (with the probe's overshoot) does. Quantiles, not means: one stall of the host must not teach a long
 * tie. -EINVAL when the pair says nothing (no sleep figures, too few reads).
 */
int hybrid_model_learn(const struct hybrid_model_in *classic, const struct hybrid_observed *h,
		       struct hybrid_learned *out);

/* the mean of p25, p50 and p75 of a fine histogram */
double hybrid_fine_mid(const __u64 *fine);
/* the completion time at quantile u of a fine histogram (hist.h), interpolated */
double hybrid_fine_quantile(const __u64 *fine, double u);

/* within the bounds: saving >= min_saving and IOPS loss <= max_loss */
bool hybrid_pred_within(const struct hybrid_pred *p, double min_saving, double max_loss);

#endif /* UT_HYBRID_MODEL_H */
