/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small, deterministic simulation of one thread driving an IOPOLL ring at
 * a fixed depth, classic or hybrid, as io_uring/rw.c and io_uring.c do it:
 *
 *   - the thread submits until depth requests are in flight, then enters the
 *     poll loop (io_iopoll_check -> io_do_iopoll);
 *   - a pass walks the in-flight list oldest first and stops at the first
 *     request already completed; each other request is polled, and on a
 *     hybrid ring a request polled for the first time is first slept on
 *     (asked sleep + the host's overshoot, off the CPU but for the sleep's
 *     own CPU cost); one poll finds every request the device has finished;
 *   - only the completed prefix of the list is reaped (in issue order);
 *     nothing reaped: the loop goes on polling (spinning) in the kernel;
 *   - back in the program: its turnaround, then it refills the depth.
 *
 * A hybrid sleep costs sleep_cpu_ns of CPU, half going to sleep and half
 * waking, and keeps the thread off the CPU for its asked time plus the
 * host's overshoot (sleep_off_ns). On a host where a sleeper cannot wake
 * while the device is working (tie: an emulated one, QEMU TCG, runs device
 * and timers on one thread), it stays off until tied_ns after the device's
 * next completion (and the overshoot is that: the model leaves it out). Whether there is a tie is learned
 * (hybrid_sleep.h); without one, timers wake sleepers on time.
 *
 * Completion times are drawn from the ring's measured distribution by
 * quantile, in a fixed low-discrepancy order: the same inputs give the same
 * answer, and classic and hybrid see the same device.
 */
#ifndef UT_HYBRID_SIM_H
#define UT_HYBRID_SIM_H

#include <stdbool.h>
#include <stdint.h>

#define SIM_MAX_DEPTH		64
#define SIM_READS		2000
#define SIM_WARMUP		200
#define SIM_QUANTILES		512

struct sim_params {
	unsigned int depth;
	double submit_ns;		/* CPU per submission */
	double poll_ns;			/* CPU per poll of the device */
	double turn_ns;			/* program turnaround per reaped batch */
	double sleep_off_ns;		/* a hybrid sleep off the CPU: asked + overshoot */
	double sleep_cpu_ns;		/* ... and its CPU, around it */
	bool tie;			/* ... and off until tied_ns after a completion */
	double tied_ns;
	/* completion times at SIM_QUANTILES evenly spread quantiles, ascending */
	const double *tq;
};

struct sim_out {
	double wall_per_read_ns;
	double cpu_per_read_ns;
	double p50_ns, p90_ns, p99_ns;	/* issue to reap */
	double mid_ns;			/* the mean of p25, p50 and p75 */
	double mean_ns;
	double qd;			/* in flight, time average */
	double sleeps_per_read;
};

void sim_run(const struct sim_params *p, bool hybrid, struct sim_out *out);

#endif /* UT_HYBRID_SIM_H */
