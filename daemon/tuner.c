// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tuner's decisions, after the cost model in tuner.h. Pure: the time
 * comes in the input, the memory is the caller's struct tuner_state.
 *
 * tuner_decide() adds the tick's deltas to the evidence, then:
 *
 *  1. settle: less than settle_s since the last change -> KEEP. This comes
 *     first so that no two changes are closer than settle_s, switching NAPI
 *     back on included.
 *  2. off (cur.enabled false): retry_s since it went off and a wait seen
 *     since -> APPLY the initial setting again; else KEEP. An idle ring is
 *     not switched back on: it would only cost a register call.
 *  3. NAPI ID tracking, whatever the amount of evidence:
 *     - AUTO: dynamic goes static once the observed IDs have not grown for
 *       static_after_s; static goes back to dynamic as soon as an observed
 *       ID is not in the static list (its queue would not be polled);
 *     - STATIC: static with the observed IDs as soon as there are any, then
 *       fixed (the policy's trade-off: a queue used later is not polled);
 *     - DYNAMIC: a static ring (the policy changed) goes dynamic.
 *     The timeout is kept; the timeout decision waits for the next period.
 *  4. fewer than min_windows windows of evidence -> KEEP, evidence kept.
 *  5. the timeout, from the evidence (which is then cleared):
 *     Tq = quantile_pct quantile of the paid windows (hist) + headroom_pct,
 *     within [min_us, max_us] (the current timeout if the hist is empty).
 *     The cost model gives the efficiency at the current timeout and an
 *     estimate at Tq, assuming windows that did not pay stay unpaid.
 *     a. Tq pays off (efficiency >= min_efficiency): move to Tq if it differs
 *        from the current timeout by more than change_pct, else KEEP.
 *     b. Tq does not but the current timeout does: KEEP (a move would leave
 *        a setting that pays for one that, as far as we know, does not).
 *     c. Neither pays off: below max_us, double the timeout; at max_us,
 *        NAPI off (nothing longer to try).
 *
 * The low-hit-rate rule is (c): a low hit rate grows the timeout only when
 * neither the current nor the sized timeout pays off. Windows that did not
 * pay ran to the timeout, so the paid windows are a censored sample and the
 * arrivals may lie just beyond it; only a longer timeout can tell. But a low
 * hit rate alone is no reason to grow: when the paid windows are short and
 * the rest are waits with nothing coming soon (a server waiting for its next
 * request), (a) shrinks the timeout to the paid windows and the ring keeps
 * a busy poll that pays, where growing would spin longer on the idle waits
 * all the way to max_us and off.
 *
 * Timeouts are at least 1 us (0 would be no busy poll while "enabled") and
 * at most 10 ms, the kernel's cap on busy_poll_to: beyond it the ring would
 * spin less than the model assumes.
 */
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hist.h"
#include "tuner.h"

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_SEC	1000000000ULL

/* io_uring caps busy_poll_to at 10 ms (KERNEL_NOTES.md) */
#define TUNER_KERNEL_MAX_US	10000U

/* room for UT_MAX_NAPI_IDS IDs of up to 10 digits with commas */
#define IDS_BUFLEN		(UT_MAX_NAPI_IDS * 11 + 1)

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* time from @since to @now; 0 if the clock seems to have gone backwards */
static uint64_t elapsed(uint64_t now, uint64_t since)
{
	return now > since ? now - since : 0;
}

static uint64_t sec_ns(unsigned int s)
{
	return (uint64_t)s * NSEC_PER_SEC;
}

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

__attribute__((format(printf, 3, 4)))
static void say(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (!why || !whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

/* "257,258" */
static void fmt_ids(char *buf, size_t len, const uint32_t *ids, unsigned int n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < n && off < len; i++) {
		int w = snprintf(buf + off, len - off, "%s%u", i ? "," : "", ids[i]);

		if (w < 0)
			break;
		off += (size_t)w;
	}
}

static bool has_id(const struct tuner_setting *s, uint32_t id)
{
	for (unsigned int i = 0; i < s->n_ids; i++)
		if (s->ids[i] == id)
			return true;
	return false;
}

static void set_static(struct tuner_setting *s, const uint32_t *ids, unsigned int n)
{
	s->static_ids = true;
	s->n_ids = n;
	memset(s->ids, 0, sizeof(s->ids));
	memcpy(s->ids, ids, n * sizeof(*ids));
}

static void set_dynamic(struct tuner_setting *s)
{
	s->static_ids = false;
	s->n_ids = 0;
	memset(s->ids, 0, sizeof(s->ids));
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
		set_static(s, ids, n_ids);
}

static void clear_evidence(struct tuner_state *st)
{
	st->windows = 0;
	st->paid = 0;
	memset(st->hist, 0, sizeof(st->hist));
	st->waits = 0;
	st->waits_nosleep = 0;
}

static void accumulate(struct tuner_state *st, const struct tuner_input *in)
{
	st->windows = sat_add(st->windows, in->busy_windows);
	st->paid = sat_add(st->paid, in->busy_paid);
	st->waits = sat_add(st->waits, in->waits);
	st->waits_nosleep = sat_add(st->waits_nosleep, in->waits_nosleep);
	for (unsigned int i = 0; i < UT_HIST_SLOTS; i++)
		st->hist[i] = sat_add(st->hist[i], in->hist[i]);
}

void tuner_applied(struct tuner_state *st, const struct tuner_setting *s, uint64_t now_ns)
{
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
	saved = c.paid * pol->wakeup_cost_us * NSEC_PER_USEC;
	c.efficiency = spun > 0 ? saved / spun : DBL_MAX;
	return c;
}

/* does moving from cur to t clear change_pct? */
static bool differs(const struct tuner_policy *pol, unsigned int cur, unsigned int t)
{
	uint64_t d = t > cur ? t - cur : cur - t;

	return d * 100 > (uint64_t)pol->change_pct * cur;
}

/* step 3 of the header comment: static or dynamic NAPI ID tracking */
static bool track_decision(const struct tuner_policy *pol, const struct tuner_state *st,
			   const struct tuner_input *in, const uint32_t *ids, unsigned int n_ids,
			   struct tuner_setting *next, char *why, size_t whylen)
{
	const struct tuner_setting *cur = &st->cur;
	char list[IDS_BUFLEN], seen[IDS_BUFLEN];
	uint64_t stable;

	*next = *cur;
	fmt_ids(list, sizeof(list), cur->ids, cur->n_ids);
	fmt_ids(seen, sizeof(seen), ids, n_ids);
	switch (pol->tracking) {
	case TUNER_TRACK_DYNAMIC:
		if (!cur->static_ids)
			return false;
		/* the policy changed under a static ring */
		set_dynamic(next);
		say(why, whylen, "policy is dynamic tracking: dropping static NAPI IDs %s", list);
		return true;
	case TUNER_TRACK_STATIC:
		/* a static ring without IDs (re-adopted from the kernel) polls nothing */
		if ((cur->static_ids && cur->n_ids) || !n_ids)
			return false;
		set_static(next, ids, n_ids);
		say(why, whylen, "NAPI IDs %s known: static tracking", seen);
		return true;
	case TUNER_TRACK_AUTO:
	default:
		break;
	}

	if (cur->static_ids) {
		for (unsigned int i = 0; i < n_ids; i++) {
			if (has_id(cur, ids[i]))
				continue;
			/* busy polling would miss the queue the new ID stands for */
			set_dynamic(next);
			say(why, whylen, "NAPI ID %u appeared (static list %s): dynamic tracking",
			    ids[i], list);
			return true;
		}
		return false;
	}
	stable = elapsed(in->now_ns, in->ids_changed_ns);
	if (n_ids && stable >= sec_ns(pol->static_after_s)) {
		set_static(next, ids, n_ids);
		say(why, whylen, "NAPI IDs %s unchanged for %llu s: static tracking", seen,
		    (unsigned long long)(stable / NSEC_PER_SEC));
		return true;
	}
	return false;
}

/* step 5 of the header comment: the timeout, or NAPI off */
static enum tuner_verdict timeout_decision(const struct tuner_policy *pol,
					   const struct tuner_state *st,
					   struct tuner_setting *next, char *why, size_t whylen)
{
	const unsigned int cur = st->cur.busy_poll_us;
	const unsigned int qpct = pol->quantile_pct > 100 ? 100 : pol->quantile_pct;
	const unsigned int hit = pct_of(st->paid, st->windows);
	const unsigned int q = tuner_hist_quantile_us(st->hist, qpct);
	unsigned int t = cur;
	struct cost at_cur, at_t;

	if (q)
		t = clamp_timeout(pol, ((uint64_t)q * (100 + (uint64_t)pol->headroom_pct) + 99) / 100);
	at_cur = cost_at(pol, st, cur);
	at_t = t == cur ? at_cur : cost_at(pol, st, t);
	*next = st->cur;

	if (at_t.efficiency >= pol->min_efficiency) {
		if (!differs(pol, cur, t))
			return TUNER_KEEP;
		next->busy_poll_us = t;
		say(why, whylen, "hit rate %u%%, %u%% of paid windows within %u us: timeout %u -> %u us",
		    hit, qpct, q, cur, t);
		return TUNER_APPLY;
	}
	if (at_cur.efficiency >= pol->min_efficiency)
		return TUNER_KEEP;

	if (cur < max_timeout(pol)) {
		uint64_t longer = (uint64_t)cur * 2;

		next->busy_poll_us = clamp_timeout(pol, longer > cur ? longer : cur + 1);
		say(why, whylen, "hit rate %u%% at %u us, efficiency %.2f: trying %u us",
		    hit, cur, at_cur.efficiency, next->busy_poll_us);
		return TUNER_APPLY;
	}

	next->enabled = false;
	if (at_cur.paid > 0)
		say(why, whylen, "efficiency %.2f < %.2f at %u us (hit rate %u%%, paid windows ~%.0f us, a sleep costs %u us): NAPI busy poll off",
		    at_cur.efficiency, pol->min_efficiency, cur, hit,
		    at_cur.mean_paid_ns / NSEC_PER_USEC, pol->wakeup_cost_us);
	else
		say(why, whylen, "efficiency %.2f < %.2f at %u us (hit rate %u%%, no window paid off): NAPI busy poll off",
		    at_cur.efficiency, pol->min_efficiency, cur, hit);
	return TUNER_APPLY;
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

	if (n_ids > UT_MAX_NAPI_IDS)
		n_ids = UT_MAX_NAPI_IDS;
	accumulate(st, in);

	if (elapsed(now, st->last_change_ns) < sec_ns(pol->settle_s))
		return TUNER_KEEP;

	if (!st->cur.enabled) {
		uint64_t off = elapsed(now, st->off_since_ns);

		if (off < sec_ns(pol->retry_s) || !st->waits)
			return TUNER_KEEP;
		fresh_setting(pol, ids, n_ids, &next);
		say(why, whylen, "retrying NAPI busy poll after %llu s off: timeout %u us",
		    (unsigned long long)(off / NSEC_PER_SEC), next.busy_poll_us);
		goto apply;
	}

	if (track_decision(pol, st, in, ids, n_ids, &next, why, whylen))
		goto apply;

	/* too little to go on: keep gathering */
	if (st->windows < need)
		return TUNER_KEEP;

	if (timeout_decision(pol, st, &next, why, whylen) == TUNER_KEEP) {
		/* each decision on fresh data: the ring may have changed */
		clear_evidence(st);
		return TUNER_KEEP;
	}
apply:
	clear_evidence(st);
	*out = next;
	return TUNER_APPLY;
}
