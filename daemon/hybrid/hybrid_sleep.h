/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What one hybrid sleep costs on this host, for the model (hybrid_sim.h):
 *
 *   overshoot, cpu  the start-up probe's short hrtimer sleeps on an idle
 *                   host (sleep_probe.h): how much longer than asked one
 *                   lasts off the CPU, and its CPU
 *   util            every hybrid window's share of busy time on the CPU:
 *                   what hybrid costs here in CPU, measured (the model's
 *                   CPU side once known: on an emulated host the sleeps'
 *                   CPU follows the emulator, not the kernel's code)
 *   pairs           learned from programs seen both ways on this host: a
 *                   classic window and then a hybrid window of the same
 *                   program (name and executable) at depth ~1: whether
 *                   there is a tie, a sleeper that cannot wake before the
 *                   device's next completion (QEMU TCG, where device and
 *                   timers share one thread), and how long after it, from
 *                   the completion times (hybrid_model_learn()).
 *
 * Pure: the caller brings windows and the probe's result.
 */
#ifndef UT_HYBRID_SLEEP_H
#define UT_HYBRID_SLEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "hybrid_model.h"
#include "iopoll_window.h"
#include "sleep_probe.h"

/* the learned tie follows this many recent pairs, equally weighted */
#define HYBRID_TIED_PAIRS	8
/* a window is one sleep per read below this depth */
#define HYBRID_SLEEP_MAX_QD	1.3
/* programs whose last classic window is kept, to pair with a hybrid one */
#define HYBRID_SLEEP_MEMO	16
#define HYBRID_COMM_LEN		16
/* the hybrid CPU share follows this many recent hybrid windows */
#define HYBRID_UTIL_WINDOWS	16
/* learn from the 1st hybrid window after a classic one, then every 2nd */
#define HYBRID_LEARN_FIRST	1
#define HYBRID_LEARN_EVERY	2

enum hybrid_sleep_source {
	HYBRID_SLEEP_NONE,
	HYBRID_SLEEP_PROBE,		/* the probe alone */
	HYBRID_SLEEP_PAIRS,		/* ... and a tie learned from pairs */
};

struct hybrid_classic_memo {
	char comm[HYBRID_COMM_LEN];
	char exe[UT_EXE_LEN];
	uint64_t seq;			/* larger: more recent */
	uint32_t hybrid_windows;	/* hybrid windows seen since r */
	/* the program's own hybrid windows' CPU share, when it has some */
	uint32_t util_windows;
	double util;
	struct iopoll_window_result r;
};

struct hybrid_sleep_est {
	uint32_t pairs;			/* pairs learned from */
	double tie_share;		/* running share of pairs that found a tie */
	uint32_t tie_pairs;		/* ... pairs that did */
	double tied_ns;			/* ... and how long, over those */
	bool last_tie;
	double last_tied_ns;
	uint32_t h_pairs;
	double h_ratio;			/* hybrid_poll_time / the classic fastest */
	/* every hybrid window with its thread's CPU, any depth: the CPU's share */
	uint32_t util_windows;
	double util;
	uint64_t seq;
	struct hybrid_classic_memo memo[HYBRID_SLEEP_MEMO];
};

struct hybrid_sleep_figures {
	enum hybrid_sleep_source source;
	double off_ns;			/* beyond the asked sleep, off the CPU */
	double cpu_ns;			/* CPU of one sleep (the probe's) */
	double syscall_ns;
	bool tie;
	double tied_ns;
	double hybrid_util;		/* 0: no hybrid window measured */
	double h_ratio;			/* 0: not learned */
};

void hybrid_sleep_figures(const struct hybrid_sleep_est *e, const struct sleep_probe_result *probe,
			  struct hybrid_sleep_figures *out);
const char *hybrid_sleep_source_name(enum hybrid_sleep_source s);

/*
 * ... for a ring of (comm, exe): the program's own hybrid CPU share where
 * the program (at depth ~1) has had hybrid rings, the host's otherwise
 */
void hybrid_sleep_figures_for(const struct hybrid_sleep_est *e,
			      const struct sleep_probe_result *probe, const char *comm,
			      const char *exe, struct hybrid_sleep_figures *out);

/* the model's input from a window and the host's figures */
void hybrid_model_input(const struct iopoll_window_result *r, const struct hybrid_sleep_figures *f,
			struct hybrid_model_in *in);

/* a classic ring's window closed: kept as its program's (depth ~1 only) */
void hybrid_sleep_note_classic(struct hybrid_sleep_est *e, const char *comm, const char *exe,
			       const struct iopoll_window_result *r);
/*
 * A hybrid ring's window closed: paired with its program's classic window,
 * the tie learned. True if it was learned from.
 */
bool hybrid_sleep_note_hybrid(struct hybrid_sleep_est *e, const char *comm, const char *exe,
			      const struct iopoll_window_result *r,
			      const struct sleep_probe_result *probe);

#endif /* UT_HYBRID_SLEEP_H */
