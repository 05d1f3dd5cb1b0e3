// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tuner's decisions, after the cost model in tuner.h (which also says
 * why (c) explores so little, how off rings are retried and why the timeout
 * stays still under steady traffic). Pure: the time comes in the input, the
 * memory is the caller's struct tuner_state.
 *
 * tuner_decide() adds the tick's deltas to the evidence, then:
 *
 *  1. settle: less than settle_s since the last change -> KEEP (first: no
 *     two changes closer than settle_s, switching NAPI back on included).
 *  2. off: tuner_retry_interval_s() since it went off and a wait seen since
 *     -> APPLY the initial setting again; else KEEP (an idle ring switched
 *     back on would only cost a register call).
 *  3. NAPI ID tracking, whatever the amount of evidence:
 *     - AUTO: dynamic goes static once the observed IDs have not grown for
 *       static_after_s, or once an observed ID has been missing from the
 *       kernel's dynamic list for settle_s (through a later copy of that
 *       list): static with the observed and the kernel's IDs; static goes
 *       back to dynamic as soon as an observed ID is not in the static list
 *       (its queue would not be polled);
 *     - STATIC: static with the observed IDs as soon as there are any, then
 *       fixed (the policy's trade-off: a queue used later is not polled);
 *     - DYNAMIC: a static ring (the policy changed) goes dynamic.
 *     A kernel without static lists (before 6.13) stays dynamic.
 *     The timeout is kept; the timeout decision waits for the next period.
 *  4. fewer than min_windows windows since the last decision -> KEEP.
 *  5. the timeout, from the evidence:
 *     Tq = quantile_pct quantile of the paid windows (hist) + headroom_pct,
 *     within [min_us, max_us] (the current timeout if the hist is empty).
 *     The cost model gives the efficiency at the current timeout and an
 *     estimate at Tq, assuming windows that did not pay stay unpaid.
 *     a. Tq pays off (efficiency >= min_efficiency): move to Tq if it differs
 *        from the current timeout by more than change_pct; while the current
 *        one pays off too, a shorter Tq only if the Tq of twice the quantile
 *        (a hist slot up) is shorter than the current timeout as well.
 *     b. Tq does not but the current timeout does: KEEP (a move would leave
 *        a setting that pays for one that, as far as we know, does not).
 *     c. Neither pays off: a longer timeout (twice the current one, within
 *        max_us) if the paid windows' density in the top half of the
 *        current timeout, continued beyond it, says the longer one would
 *        pay off (growth_at()); otherwise NAPI off at once.
 *     A decision that changes nothing keeps the evidence at 3/4 of its
 *     weight for the next one (the EWMA in tuner.h); a change clears it.
 *
 * Timeouts are 1 us (0 would be no busy poll while "enabled") to 10 ms (the
 * kernel's cap on busy_poll_to: beyond it a ring spins less than modelled).
 */
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hist.h"
#include "tuner.h"
#include "tuner_priv.h"

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_SEC	1000000000ULL

/* io_uring caps busy_poll_to at 10 ms (KERNEL_NOTES.md) */
#define TUNER_KERNEL_MAX_US	10000U

/* retry intervals double up to an hour (or retry_s, if that is longer) */
#define TUNER_BACKOFF_CAP_S	3600U
#define TUNER_BACKOFF_MAX	12U	/* 2^12 * retry_s: past the cap for any retry_s */


static uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

#define sec_ns(s)	((uint64_t)(s) * NSEC_PER_SEC)

/* part/whole in percent, rounded down, without overflow; part <= whole */
static unsigned int pct_of(uint64_t part, uint64_t whole)
{
	if (!whole)
		return 0;
	if (part > whole)
		part = whole;
	if (part <= UINT64_MAX / 100)
		return (unsigned int)(part * 100 / whole);
	/* whole >= part > UINT64_MAX / 100, so whole / 100 is not 0 */
	return (unsigned int)(part / (whole / 100));
}

static unsigned int max_timeout(const struct tuner_policy *pol)
{
	unsigned int hi = pol->max_us < TUNER_KERNEL_MAX_US ? pol->max_us : TUNER_KERNEL_MAX_US;

	return hi ? hi : 1;
}

static unsigned int min_timeout(const struct tuner_policy *pol)
{
	unsigned int lo = pol->min_us ? pol->min_us : 1, hi = max_timeout(pol);

	/* a policy with min > max gets max: never more than asked for */
	return lo < hi ? lo : hi;
}

static unsigned int clamp_timeout(const struct tuner_policy *pol, uint64_t us)
{
	if (us < min_timeout(pol))
		return min_timeout(pol);
	if (us > max_timeout(pol))
		return max_timeout(pol);
	return (unsigned int)us;
}

void tuner_say(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (!why || !whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

/* what a ring gets when first tuned, or when NAPI is tried again */
static void fresh_setting(const struct tuner_policy *pol, const uint32_t *ids,
			  unsigned int n_ids, struct tuner_setting *s)
{
	memset(s, 0, sizeof(*s));
	s->enabled = true;
	s->busy_poll_us = clamp_timeout(pol, pol->initial_us);
	s->prefer = pol->prefer;
	if (pol->tracking == TUNER_TRACK_STATIC && ids && n_ids)
		tuner_set_static(s, ids, n_ids);
}

static void clear_evidence(struct tuner_state *st)
{
	st->windows = 0;
	st->paid = 0;
	memset(st->hist, 0, sizeof(st->hist));
	st->waits = 0;
	st->waits_nosleep = 0;
	st->fresh = 0;
}

/* 3/4 of @c, rounded down (a count of 1 goes): c - ceil(c / 4), no overflow */
static uint64_t aged(uint64_t c)
{
	return c - (c / 4 + (c % 4 != 0));
}

/* after a decision that changed nothing: older periods weigh less (tuner.h) */
static void age_evidence(struct tuner_state *st)
{
	st->windows = aged(st->windows);
	st->paid = aged(st->paid);
	st->waits = aged(st->waits);
	st->waits_nosleep = aged(st->waits_nosleep);
	for (unsigned int i = 0; i < UT_HIST_SLOTS; i++)
		st->hist[i] = aged(st->hist[i]);
	st->fresh = 0;
}

static void accumulate(struct tuner_state *st, const struct tuner_input *in)
{
	st->windows = sat_add(st->windows, in->busy_windows);
	st->fresh = sat_add(st->fresh, in->busy_windows);
	st->paid = sat_add(st->paid, in->busy_paid);
	st->waits = sat_add(st->waits, in->waits);
	st->waits_nosleep = sat_add(st->waits_nosleep, in->waits_nosleep);
	for (unsigned int i = 0; i < UT_HIST_SLOTS; i++)
		st->hist[i] = sat_add(st->hist[i], in->hist[i]);
	if (in->wakeup_ns)
		st->wakeup_ns = in->wakeup_ns;
}

static unsigned int retry_interval(const struct tuner_policy *pol, unsigned int level)
{
	unsigned int s = pol->retry_s ? pol->retry_s : 1;
	unsigned int cap = s > TUNER_BACKOFF_CAP_S ? s : TUNER_BACKOFF_CAP_S;

	for (unsigned int i = 0; i < level && s < cap; i++)
		s = s > cap / 2 ? cap : s * 2;
	return s;
}

unsigned int tuner_retry_interval_s(const struct tuner_policy *pol, const struct tuner_state *st)
{
	return retry_interval(pol, st->backoff);
}

/* the backoff level a ring switched off now gets */
static unsigned int level_when_off(const struct tuner_state *st)
{
	/* a retry that did not pay: twice as long; else from retry_s */
	if (!st->retried_ns)
		return 0;
	return st->backoff < TUNER_BACKOFF_MAX ? st->backoff + 1U : TUNER_BACKOFF_MAX;
}

void tuner_applied(struct tuner_state *st, const struct tuner_setting *s, uint64_t now_ns)
{
	/* off_since_ns: switched off by the tuner, not merely never on */
	if (s->enabled && !st->cur.enabled && st->off_since_ns)
		st->retried_ns = now_ns ? now_ns : 1;
	if (!s->enabled && st->cur.enabled) {
		st->backoff = (uint8_t)level_when_off(st);
		st->retried_ns = 0;
	}
	st->cur = *s;
	st->last_change_ns = now_ns;
	st->off_since_ns = s->enabled ? 0 : now_ns;
	clear_evidence(st);
}

void tuner_initial(const struct tuner_policy *pol, const uint32_t *ids, unsigned int n_ids,
		   uint64_t now_ns, struct tuner_state *st, struct tuner_setting *out)
{
	struct tuner_setting s;

	if (n_ids > UT_MAX_NAPI_IDS)
		n_ids = UT_MAX_NAPI_IDS;
	fresh_setting(pol, ids, n_ids, &s);
	*out = s;
	/* nothing of an earlier life: no backoff, not a retry */
	memset(st, 0, sizeof(*st));
	/* the caller's tuner_applied() with the same setting changes nothing more */
	tuner_applied(st, &s, now_ns);
}

unsigned int tuner_hist_quantile_us(const uint64_t *hist, unsigned int quantile_pct)
{
	__u64 c[UT_HIST_SLOTS];

	if (!hist)
		return 0;
	/* uint64_t and __u64 are different types of the same width */
	for (unsigned int i = 0; i < UT_HIST_SLOTS; i++)
		c[i] = hist[i];
	/* a timeout must cover its windows: the slot's end, not a guess inside it */
	return (unsigned int)((hist_quantile_ns(c, quantile_pct, HIST_AT_SLOT_END) +
			       NSEC_PER_USEC - 1) / NSEC_PER_USEC);
}

/* The cost model over the evidence, for a timeout of t_us. */
struct cost {
	double efficiency;	/* saved / spun; DBL_MAX if nothing was spun */
	double paid;		/* windows that pay off */
	double mean_paid_ns;	/* their mean length */
};

/*
 * Paid windows count at their hist slot's middle (hist_slot_mid()). At or above the current
 * timeout every paid window still pays; below it only those whose slot ends
 * within t_us (slots count at their upper edge, as in the quantile). All
 * other windows spin t_us: windows that did not pay are assumed not to pay
 * at a longer timeout either, so a longer timeout is estimated pessimistically.
 * With no timed window, a paid window is taken to have lasted the timeout.
 */
/* a saved sleep's latency: measured if the input said, else the policy's */
static double wake_ns(const struct tuner_policy *pol, const struct tuner_state *st)
{
	if (st->wakeup_ns)
		return (double)st->wakeup_ns;
	return (double)(pol->wakeup_cost_us ? pol->wakeup_cost_us : TUNER_WAKEUP_US) * NSEC_PER_USEC;
}

static struct cost cost_at(const struct tuner_policy *pol, const struct tuner_state *st,
			   unsigned int t_us)
{
	const unsigned int cur = st->cur.busy_poll_us;
	const bool all = t_us >= cur;
	const double windows = (double)st->windows;
	double n = 0, n_in = 0, len_in = 0, spun, saved;
	struct cost c;

	for (unsigned int i = 0; i < UT_HIST_SLOTS; i++) {
		double k = (double)st->hist[i];

		if (!st->hist[i])
			continue;
		n += k;
		if (all || hist_slot_hi(i) <= (uint64_t)t_us * NSEC_PER_USEC) {
			n_in += k;
			len_in += k * hist_slot_mid(i);
		}
	}
	c.paid = (double)(st->paid < st->windows ? st->paid : st->windows);
	if (n > 0) {
		c.paid = c.paid * n_in / n;
		c.mean_paid_ns = n_in > 0 ? len_in / n_in : 0;
	} else {
		if (!all)
			c.paid = 0;
		c.mean_paid_ns = (double)(t_us < cur ? t_us : cur) * NSEC_PER_USEC;
	}
	spun = c.paid * c.mean_paid_ns + (windows - c.paid) * t_us * NSEC_PER_USEC;
	saved = c.paid * wake_ns(pol, st);
	c.efficiency = spun > 0 ? saved / spun : DBL_MAX;
	return c;
}

/* does moving from cur to t clear change_pct? */
static bool differs(const struct tuner_policy *pol, unsigned int cur, unsigned int t)
{
	uint64_t d = t > cur ? t - cur : cur - t;

	return d * 100 > (uint64_t)pol->change_pct * cur;
}

/* "45 s", "4 min", "1 h": how long until a retry, for the log */
static void fmt_span(char *buf, size_t len, unsigned int s)
{
	if (s < 120 || (s < 600 && s % 60))
		snprintf(buf, len, "%u s", s);
	else if (s % 3600 == 0)
		snprintf(buf, len, "%u h", s / 3600);
	else
		snprintf(buf, len, "%u min", (s + 30) / 60);
}

/* a longer timeout to try, and what the model expects of it (step 5c) */
struct growth {
	unsigned int t_us;
	double near;		/* share of the paid windows in [T/2, T) */
	bool timed;		/* the hist has paid windows: near means something */
	double efficiency;	/* estimated at t_us */
};

/*
 * The paid windows' density over the top half of the current timeout T,
 * continued over [T, t): the windows that would pay there in addition, at
 * their mean length (T + t) / 2, and the efficiency that would give.
 */
static struct growth growth_at(const struct tuner_policy *pol, const struct tuner_state *st,
			       const struct cost *at_cur)
{
	const double T = (double)st->cur.busy_poll_us * NSEC_PER_USEC, half = T / 2;
	const double windows = (double)st->windows, paid = at_cur->paid;
	double n = 0, n_near = 0, t, extra, spun, saved;
	struct growth g;

	for (unsigned int i = 0; i < UT_HIST_SLOTS; i++) {
		double k = (double)st->hist[i], lo = (double)hist_slot_lo(i);
		double hi = (double)hist_slot_hi(i) < T ? (double)hist_slot_hi(i) : T;

		if (!st->hist[i])
			continue;
		n += k;
		/* paid windows lie below T: a slot counts for its part below T */
		if (lo >= T)
			n_near += k;
		else if (hi > half)
			n_near += k * (hi - (lo > half ? lo : half)) / (hi - lo);
	}
	g.t_us = clamp_timeout(pol, (uint64_t)st->cur.busy_poll_us * 2);
	g.timed = n > 0;
	g.near = g.timed ? n_near / n : 0;
	t = (double)g.t_us * NSEC_PER_USEC;
	extra = t > T ? paid * g.near * (t - T) / half : 0;
	if (extra > windows - paid)
		extra = windows - paid;
	spun = paid * at_cur->mean_paid_ns + extra * (T + t) / 2 + (windows - paid - extra) * t;
	saved = (paid + extra) * wake_ns(pol, st);
	g.efficiency = spun > 0 ? saved / spun : 0;
	return g;
}

/* step 5c: neither the current nor the sized timeout pays off */
static enum tuner_verdict explore_or_off(const struct tuner_policy *pol,
					 const struct tuner_state *st, const struct cost *at_cur,
					 struct tuner_setting *next, char *why, size_t whylen)
{
	const unsigned int cur = st->cur.busy_poll_us, hit = pct_of(st->paid, st->windows);
	const struct growth g = growth_at(pol, st, at_cur);
	char retry[16], each[64];

	if (g.t_us > cur && g.efficiency >= pol->min_efficiency) {
		next->busy_poll_us = g.t_us;
		tuner_say(why, whylen, "hit rate %u%% at %u us, efficiency %.2f, %.0f%% of paid windows near the timeout: trying %u us",
		    hit, cur, at_cur->efficiency, g.near * 100, g.t_us);
		return TUNER_APPLY;
	}
	next->enabled = false;
	fmt_span(retry, sizeof(retry), retry_interval(pol, level_when_off(st)));
	/* no paid window timed: they count as lasting the timeout, none known near it */
	snprintf(each, sizeof(each), "none timed");
	if (g.timed)
		snprintf(each, sizeof(each), "~%.0f us each, %.0f%% near the timeout",
			 at_cur->mean_paid_ns / NSEC_PER_USEC, g.near * 100);
	if (at_cur->paid > 0)
		tuner_say(why, whylen, "off: %u%% of %llu windows paid at %u us (%s), efficiency %.2f < %.2f (a sleep costs %u us); retry in %s",
		    hit, (unsigned long long)st->windows, cur, each, at_cur->efficiency,
		    pol->min_efficiency, (unsigned int)(wake_ns(pol, st) / NSEC_PER_USEC), retry);
	else
		tuner_say(why, whylen, "off: %u%% of %llu windows paid at %u us; retry in %s", hit,
		    (unsigned long long)st->windows, cur, retry);
	return TUNER_APPLY;
}

/* Tq for a quantile of q_us: the quantile with headroom, within the bounds */
static unsigned int sized(const struct tuner_policy *pol, uint64_t q_us)
{
	return clamp_timeout(pol, (q_us * (100 + (uint64_t)pol->headroom_pct) + 99) / 100);
}

/* step 5 of the header comment: the timeout, or NAPI off; *pays: still worth it */
static enum tuner_verdict timeout_decision(const struct tuner_policy *pol,
					   const struct tuner_state *st, struct tuner_setting *next,
					   bool *pays, char *why, size_t whylen)
{
	const unsigned int cur = st->cur.busy_poll_us;
	const unsigned int qpct = pol->quantile_pct > 100 ? 100 : pol->quantile_pct;
	const unsigned int q = tuner_hist_quantile_us(st->hist, qpct);
	const unsigned int t = q ? sized(pol, q) : cur;
	struct cost at_cur, at_t;
	bool cur_pays;

	at_cur = cost_at(pol, st, cur);
	at_t = t == cur ? at_cur : cost_at(pol, st, t);
	cur_pays = at_cur.efficiency >= pol->min_efficiency;
	*next = st->cur;
	*pays = true;

	if (at_t.efficiency >= pol->min_efficiency) {
		if (!differs(pol, cur, t))
			return TUNER_KEEP;
		/* hysteresis: while cur pays, down only if a quantile one slot up would be too */
		if (t < cur && cur_pays && sized(pol, (uint64_t)q * 2) >= cur)
			return TUNER_KEEP;
		next->busy_poll_us = t;
		tuner_say(why, whylen, "hit rate %u%%, %u%% of paid windows within %u us: timeout %u -> %u us",
		    pct_of(st->paid, st->windows), qpct, q, cur, t);
		return TUNER_APPLY;
	}
	if (cur_pays)
		return TUNER_KEEP;
	*pays = false;
	return explore_or_off(pol, st, &at_cur, next, why, whylen);
}

/* a retry that has paid off for as long as the ring was off: backoff over */
static void retry_paid(const struct tuner_policy *pol, struct tuner_state *st, uint64_t now)
{
	if (st->retried_ns &&
	    tuner_elapsed(now, st->retried_ns) >= sec_ns(retry_interval(pol, st->backoff))) {
		st->retried_ns = 0;
		st->backoff = 0;
	}
}

enum tuner_verdict tuner_decide(const struct tuner_policy *pol, struct tuner_state *st,
				const struct tuner_input *in, struct tuner_setting *out,
				char *why, size_t whylen)
{
	const uint64_t now = in->now_ns;
	const uint64_t need = pol->min_windows ? pol->min_windows : 1;
	const uint32_t *ids = in->napi_ids;
	unsigned int n_ids = ids ? in->n_ids : 0;
	struct tuner_setting next;
	char span[16];
	bool pays;

	if (n_ids > UT_MAX_NAPI_IDS)
		n_ids = UT_MAX_NAPI_IDS;
	accumulate(st, in);

	if (tuner_elapsed(now, st->last_change_ns) < sec_ns(pol->settle_s))
		return TUNER_KEEP;

	if (!st->cur.enabled) {
		uint64_t off = tuner_elapsed(now, st->off_since_ns);

		if (off < sec_ns(tuner_retry_interval_s(pol, st)) || !st->waits)
			return TUNER_KEEP;
		fresh_setting(pol, ids, n_ids, &next);
		fmt_span(span, sizeof(span), retry_interval(pol, st->backoff + 1U));
		tuner_say(why, whylen, "retrying NAPI busy poll after %llu s off: timeout %u us (if it does not pay, off for %s)",
		    (unsigned long long)(off / NSEC_PER_SEC), next.busy_poll_us, span);
		goto apply;
	}

	if (tuner_track_decision(pol, st, in, ids, n_ids, &next, why, whylen))
		goto apply;

	/* too little new since the last decision: keep gathering */
	if (st->fresh < need)
		return TUNER_KEEP;

	if (timeout_decision(pol, st, &next, &pays, why, whylen) == TUNER_KEEP) {
		retry_paid(pol, st, now);
		/* the next decision on this period and, less, on the ones before */
		age_evidence(st);
		return TUNER_KEEP;
	}
	if (pays)
		retry_paid(pol, st, now);
apply:
	clear_evidence(st);
	*out = next;
	return TUNER_APPLY;
}
