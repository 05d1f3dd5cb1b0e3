/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What one hybrid sleep costs on this host, for the model: how long it
 * keeps the polling thread off the CPU beyond what the kernel asked, and
 * its CPU. Two sources, the better first:
 *
 *   hybrid-rings  learned from the host's own hybrid rings at depth ~1,
 *                 where every read sleeps once: (busy time - the thread's
 *                 CPU) per read, less the asked half of hybrid_poll_time
 *   probe         the start-up probe's short sleeps (sleep_probe.h)
 *
 * The probe measures an idle host; a hybrid ring sleeps while its device
 * works, and on some hosts (emulated ones: QEMU TCG) that wakes it much
 * later. A ring that also waits for something else at depth ~1 reads as a
 * longer sleep: the learned figure is an upper bound for such programs.
 * Pure.
 */
#ifndef UT_HYBRID_SLEEP_H
#define UT_HYBRID_SLEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "iopoll_window.h"
#include "sleep_probe.h"

/* a learned figure follows this many recent windows, equally weighted */
#define HYBRID_SLEEP_WINDOWS	8
/* a hybrid window is one sleep per read below this depth */
#define HYBRID_SLEEP_MAX_QD	1.3

enum hybrid_sleep_source {
	HYBRID_SLEEP_NONE,
	HYBRID_SLEEP_PROBE,
	HYBRID_SLEEP_RINGS,
};

struct hybrid_sleep_est {
	uint32_t samples;		/* hybrid windows learned from */
	double off_ns;			/* off the CPU beyond the asked sleep */
};

/* learn from a hybrid ring's closed window; true if it was one to learn from */
bool hybrid_sleep_learn(struct hybrid_sleep_est *e, const struct iopoll_window_result *r);

struct hybrid_sleep_figures {
	enum hybrid_sleep_source source;
	double off_ns;			/* beyond the asked sleep, off the CPU */
	double cpu_ns;			/* CPU of one sleep (the probe's) */
	double syscall_ns;
};

void hybrid_sleep_figures(const struct hybrid_sleep_est *e, const struct sleep_probe_result *probe,
			  struct hybrid_sleep_figures *out);
const char *hybrid_sleep_source_name(enum hybrid_sleep_source s);

#endif /* UT_HYBRID_SLEEP_H */
