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

struct hybrid_pred {
	bool valid;
	double cpu_per_read_saving;	/* 1 - hybrid / classic CPU per read */
	double iops_change;		/* hybrid / classic IOPS - 1 */
	double p50_ns, p99_ns;		/* completion time (issue to CQE), hybrid */
	double cpu_util;		/* the polling thread's CPU share, hybrid */
	double sleep_ns;		/* one hybrid sleep as it would last here */
	char why[200];
};

#endif /* UT_HYBRID_MODEL_H */
