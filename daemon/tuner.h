/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The decision: a ring's statistics in, the NAPI settings it should have out.
 * Pure: no I/O, no clock (time comes in the input), unit-tested.
 *
 * Cost model. A wait that busy-polls spins for the window it takes; a wait
 * that sleeps pays a wake-up (the input's measured wakeup_ns, else the
 * policy's wakeup_cost_us, of latency) that a paid-off window saves. Over a decision period with W windows, P of them paid off:
 *   spun  = sum of paid window lengths + (W - P) * timeout
 *   saved = P * wakeup_cost
 *   efficiency = saved / spun   (latency saved per unit of CPU spun)
 * The timeout is sized from the paid windows' lengths (a high quantile with
 * headroom, within [min, max]); the steps are in tuner.c.
 *
 * Exploration. Windows that did not pay ran to the timeout, so the paid
 * windows are a censored sample: arrivals may lie just beyond the timeout,
 * and only a longer one can tell. The paid windows say whether that is
 * likely: "near the timeout" is its top half, [T/2, T) (hist slots taken as
 * evenly filled); if the paid windows keep the density they have there
 * over [T, 2T), the windows that would then pay, at their mean length, give
 * an efficiency estimate at 2T, and 2T is tried only if that pays off. A
 * ring whose windows (almost) never pay has no density to continue and goes
 * off at once, without trying longer timeouts; so does one whose paid
 * windows are all short (the arrivals are not just beyond the timeout) or
 * whose windows all pay already (nothing more to win). A low hit rate alone
 * is no reason to grow or to go off: when the paid windows are short and
 * the rest are waits with nothing coming soon (a server waiting for its
 * next request), the timeout is sized to the paid windows and the ring
 * keeps a busy poll that pays.
 *
 * Off and back on. A ring switched off (efficiency below min_efficiency) is
 * retried after retry_s; a retry that goes off again before it has paid off
 * for as long as the ring was off doubles the next interval (up to an hour,
 * or retry_s if longer); one that pays that long starts the count again. A
 * timeout change keeps the count: it is the same retry going on.
 *
 * Stable decisions. Each period's quantile is noisy, and the hist's slots
 * are a factor of 2 wide, so a quantile at a slot's edge jumps between two
 * slots from one period to the next: the sized timeout between, say, 26
 * and 50 us. Two things keep the timeout still. The evidence is an EWMA
 * over decision periods (a period: at least one tick and min_windows new
 * windows): a decision that changes nothing keeps 3/4 of the evidence's
 * weight for the next one, so about the last 7 periods count. And a longer
 * timeout is taken at once, a shorter one, while the current one pays off,
 * only when the quantile moved down by more than a slot: when even the
 * timeout sized from twice the quantile would be shorter than the current
 * one. (Sized timeouts of neighbouring slots differ by up to exactly 2x:
 * 99 and 198 us.) A timeout too short loses paid windows, each a wake-up on
 * the latency path; one up to twice too long only spins longer in the
 * windows that do not pay. When the current timeout no longer pays off, any sized
 * one that does is taken. Changes need settle_s since the last change, and
 * a new timeout must differ by more than change_pct percent.
 */
#ifndef UT_TUNER_H
#define UT_TUNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "uringtune.h"

enum tuner_tracking {
	TUNER_TRACK_DYNAMIC,	/* the kernel learns NAPI IDs from the ring's sockets */
	TUNER_TRACK_STATIC,	/* the IDs uringtune observed, fixed */
	TUNER_TRACK_AUTO,	/* dynamic, then static once the observed IDs are stable */
};

/* what a sleep is taken to cost when nothing says (as wakeup.h's prior) */
#define TUNER_WAKEUP_US		25

struct tuner_policy {
	unsigned int min_us;		/* timeout bounds, microseconds */
	unsigned int max_us;
	unsigned int initial_us;	/* given to a ring when it is first tuned */
	bool prefer;			/* prefer_busy_poll */
	enum tuner_tracking tracking;
	unsigned int static_after_s;	/* AUTO: IDs unchanged this long -> static */
	double min_efficiency;		/* below it (at max timeout): NAPI off */
	unsigned int wakeup_cost_us;	/* latency one avoided sleep saves, when the
					 * input has no measured figure; 0: TUNER_WAKEUP_US */
	unsigned int min_windows;	/* evidence needed before a decision */
	unsigned int settle_s;		/* at least this long between changes */
	unsigned int retry_s;		/* first retry after this long off, then backoff */
	unsigned int change_pct;	/* timeout changes smaller than this are skipped */
	unsigned int quantile_pct;	/* paid windows the timeout should cover */
	unsigned int headroom_pct;	/* added on top of that quantile */
};

/* What uringtune asks the kernel for on one ring. */
struct tuner_setting {
	bool enabled;
	unsigned int busy_poll_us;
	bool prefer;
	bool static_ids;		/* static tracking with ids[] */
	uint32_t ids[UT_MAX_NAPI_IDS];
	unsigned int n_ids;
};

/* One ring, one tick: what happened since the previous tick. */
struct tuner_input {
	uint64_t now_ns;
	uint64_t waits;
	uint64_t waits_nosleep;
	uint64_t busy_windows;
	uint64_t busy_paid;
	uint64_t hist[UT_HIST_SLOTS];	/* lengths of paid windows, a sample, log2(ns) slots */
	const uint32_t *napi_ids;	/* observed on the ring's sockets */
	unsigned int n_ids;
	uint64_t ids_changed_ns;	/* when the observed set last grew */
	/* the kernel's own list (ctx->napi_list), as last copied */
	const uint32_t *kernel_ids;
	unsigned int n_kernel_ids;	/* may exceed UT_MAX_NAPI_IDS: then not all known */
	bool kernel_ids_known;		/* copied at least once */
	uint64_t kernel_ids_reads;	/* copies so far: a miss is confirmed by a later one */
	bool no_static;			/* the kernel has no static lists (before 6.13) */
	uint64_t wakeup_ns;		/* what a sleep costs this ring's waiter; 0: the policy's */
};

/* Per-ring memory of the tuner; zero-initialised, kept by the caller. */
struct tuner_state {
	struct tuner_setting cur;	/* what the ring has now (our doing) */
	uint64_t last_change_ns;
	uint64_t off_since_ns;		/* switched off as not worth it, 0 if not */
	uint64_t retried_ns;		/* back on after a retry, not yet paid as long; 0 */
	uint8_t backoff;		/* retry interval = retry_s * 2^backoff, to 1 h */
	/* evidence since the last change, older decision periods weighing less */
	uint64_t windows;
	uint64_t paid;
	uint64_t hist[UT_HIST_SLOTS];
	uint64_t waits;
	uint64_t waits_nosleep;
	uint64_t fresh;			/* windows since the last decision */
	uint64_t wakeup_ns;		/* the latest input's, 0 if none came */
	/* an ID seen on the ring's sockets missing from the kernel's dynamic list */
	uint64_t miss_since_ns;		/* first seen missing; 0: none missing */
	uint64_t miss_reads;		/* the kernel list's copies then */
};

enum tuner_verdict {
	TUNER_KEEP,		/* nothing to do */
	TUNER_APPLY,		/* ask the kernel for *out */
};

/* The setting a ring gets when uringtune first takes it. */
void tuner_initial(const struct tuner_policy *pol, const uint32_t *ids, unsigned int n_ids,
		   uint64_t now_ns, struct tuner_state *st, struct tuner_setting *out);

/*
 * One tick. On TUNER_APPLY, *out is the new setting and why holds one line
 * with the numbers that drove it; the caller applies it and then calls
 * tuner_applied(). On TUNER_KEEP, *out and why are untouched.
 */
enum tuner_verdict tuner_decide(const struct tuner_policy *pol, struct tuner_state *st,
				const struct tuner_input *in, struct tuner_setting *out,
				char *why, size_t whylen);

/*
 * The kernel took *s: it is now the ring's current setting. Off to on after
 * the tuner switched it off is a retry; on to off counts for the backoff.
 */
void tuner_applied(struct tuner_state *st, const struct tuner_setting *s, uint64_t now_ns);

/* how long, in seconds, a ring that is off now stays off before a retry */
unsigned int tuner_retry_interval_s(const struct tuner_policy *pol, const struct tuner_state *st);

/*
 * A ring that does not busy-poll (in has no busy windows): the windows it
 * would have had at timeout_us, from its waits, written into in's
 * busy_windows, busy_paid and hist. A wait that did not sleep would have
 * had a short window that paid; one that slept and was woken by a
 * completion gap ns after it began (gap_hist: the tick's growth of
 * ut_ring_stats.sleep_gap_hist) one that paid if gap < timeout_us, lasting
 * gap, else one that spun the timeout for nothing; one that slept and ended
 * otherwise (timeout, signal) one that did not pay. The gaps are exact
 * counts where busy windows are a 1-in-16 sample: the tuner uses the hist
 * for shares and lengths only.
 */
void tuner_input_from_sleeps(struct tuner_input *in, const uint64_t *gap_hist,
			     unsigned int timeout_us);

/*
 * Shortest timeout, in microseconds, covering quantile_pct percent of the
 * windows in hist (log2(ns) slots; a slot counts at its upper edge:
 * hist_quantile_ns() at HIST_AT_SLOT_END, rounded up to a microsecond).
 * 0 if hist is empty.
 */
unsigned int tuner_hist_quantile_us(const uint64_t *hist, unsigned int quantile_pct);

#endif /* UT_TUNER_H */
