/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How long a short hrtimer sleep really lasts on this host, and what it
 * costs the sleeper in CPU: the figure a hybrid IOPOLL ring lives by (it
 * sleeps a few microseconds per request on an hrtimer without slack, so
 * what it loses is the wake-up latency). Measured once, at start, by a
 * thread of the daemon's own: timer slack 1 ns, PROBE_SAMPLES sleeps of a
 * few microseconds back to back, wall time and thread CPU time around each.
 * A few tens of milliseconds of sleeping, no CPU to speak of.
 */
#ifndef UT_SLEEP_PROBE_H
#define UT_SLEEP_PROBE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct sleep_probe_result {
	uint32_t samples;
	uint64_t asked_ns;		/* each sleep asked for this long */
	uint64_t overshoot_ns;		/* median of (wall - asked) */
	uint64_t overshoot_p90_ns;
	uint64_t cpu_ns;		/* median thread CPU time of one sleep */
	uint64_t syscall_ns;		/* median wall of a trivial system call */
};

struct sleep_probe {
	pthread_t thread;
	bool started;
	bool done;			/* written by the probe thread (atomic) */
	struct sleep_probe_result res;	/* valid once done reads true */
};

/* start the probe thread; the result appears later, never blocks */
int sleep_probe_start(struct sleep_probe *p);
/* the result if the probe finished, else NULL */
const struct sleep_probe_result *sleep_probe_result(const struct sleep_probe *p);
void sleep_probe_stop(struct sleep_probe *p);

/* pure: the result from raw samples (sorts them); for the probe and tests */
void sleep_probe_summarize(uint64_t asked_ns, uint64_t *wall_ns, uint64_t *cpu_ns,
			   uint64_t *sys_ns, uint32_t n, struct sleep_probe_result *out);

#endif /* UT_SLEEP_PROBE_H */
