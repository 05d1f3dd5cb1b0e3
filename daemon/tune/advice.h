/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Advice before action: in observe mode each ring tune mode would take gets
 * a shadow of the tuner's state (tuner.h), started as tune mode starts a
 * ring it takes (tuner_initial) and advanced each tick by tuner_decide() on
 * the same input tune mode would give it (lc_input_of()); what it decides is
 * "applied" to the shadow at once, since nothing is applied to the ring. So
 * the advice is what tune mode would have set by now, and why.
 *
 * A ring gets its shadow, and [select] is asked about it, at its first
 * tick with a wait: an idle ring has nothing to busy-poll, and 10 000 of
 * them cost neither memory nor /proc reads. [select] is asked again when
 * the ring's holder changes or a reload swaps the configuration.
 */
#ifndef UT_ADVICE_H
#define UT_ADVICE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "tuner.h"

struct lifecycle;
struct ut_ring;

struct ring_advice {
	struct tuner_state shadow;	/* shadow.cur: the advised setting */
	uint64_t since_ns;		/* advised since (CLOCK_MONOTONIC) */
	int64_t since_wall_ns;		/* ... (CLOCK_REALTIME, for display) */
	pid_t select_pid;		/* [select] was asked for this process ... */
	uint32_t select_gen;		/* ... under this configuration (lifecycle.select_gen) */
	bool started;			/* the shadow runs: selected, tuner_initial() done */
};

/*
 * The ring's advice, NULL when there is none: not observe mode, a ring tune
 * mode would not take (not tunable, excluded by [select], the
 * application's, pinned or reset), or no wait seen yet.
 */
const struct ring_advice *lifecycle_advice(const struct lifecycle *lc, const struct ut_ring *ring);

#endif /* UT_ADVICE_H */
