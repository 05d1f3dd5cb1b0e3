// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tuner driven by synthetic statistics: a simulated ring whose waits
 * each see their event arrive a fixed time after the wait starts. A wait
 * busy-polls for the ring's timeout; it pays off when the arrival comes
 * within it. Ticks are one second, as in the daemon.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tuner.h"
#include "unit.h"

/* run a helper that may fail through ut_fail(), and stop the test if it did */
#define CHECK(call) do {						\
	call;								\
	if (ut_msg[0])							\
		return;							\
} while (0)

#define NSEC		1000000000ULL
/* rings are taken some time after boot: time 0 is no special case */
#define T0		(1000 * NSEC)
/* an arrival no timeout reaches: a wait with nothing coming soon */
#define NEVER_US	1000000U

/* --- helpers ------------------------------------------------------------- */

static struct tuner_policy default_policy(void)
{
	struct tuner_policy pol = {
		.min_us = 10,
		.max_us = 200,
		.initial_us = 50,
		.prefer = false,
		.tracking = TUNER_TRACK_AUTO,
		.static_after_s = 30,
		.min_efficiency = 0.2,
		.wakeup_cost_us = 10,
		.min_windows = 1000,
		.settle_s = 5,
		.retry_s = 60,
		.change_pct = 25,
		.quantile_pct = 95,
		.headroom_pct = 50,
	};

	return pol;
}

static unsigned int slot_of(uint64_t ns)
{
	unsigned int s = 63 - __builtin_clzll(ns | 1);

	return s < UT_HIST_SLOTS ? s : UT_HIST_SLOTS - 1;
}

/* waits in one tick whose events all arrive arrival_us after the wait starts */
struct load {
	uint64_t waits;
	unsigned int arrival_us;
};

/* one ring under the tuner, and what the tuner did to it */
struct sim {
	struct tuner_policy pol;
	struct tuner_state st;
	struct tuner_setting ring;	/* what the kernel has */
	uint64_t now;
	uint32_t ids[UT_MAX_NAPI_IDS];
	unsigned int n_ids;
	uint64_t ids_changed;
	/* the kernel's dynamic list, copied again each tick unless frozen */
	uint32_t kernel_ids[UT_MAX_NAPI_IDS];
	unsigned int n_kernel_ids;
	bool kernel_known;
	bool kernel_frozen;
	uint64_t kernel_reads;
	bool no_static;

	unsigned int applies;
	unsigned int offs;
	unsigned int retries;
	uint64_t last_apply;
	uint64_t min_gap;		/* shortest time between two changes */
	uint64_t min_off;		/* shortest time NAPI stayed off */
	char why[256];			/* of the last APPLY */
};

static void sim_init(struct sim *s, const struct tuner_policy *pol,
		     const uint32_t *ids, unsigned int n_ids)
{
	struct tuner_setting again;

	memset(s, 0, sizeof(*s));
	s->pol = *pol;
	s->now = T0;
	s->min_gap = UINT64_MAX;
	s->min_off = UINT64_MAX;
	if (n_ids)
		memcpy(s->ids, ids, n_ids * sizeof(*ids));
	s->n_ids = n_ids;
	s->ids_changed = T0;
	tuner_initial(&s->pol, s->ids, s->n_ids, s->now, &s->st, &s->ring);
	/* the daemon applies, then reports it: the same state either way */
	again = s->ring;
	tuner_applied(&s->st, &again, s->now);
	s->last_apply = s->now;
}

static void sim_add_id(struct sim *s, uint32_t id)
{
	s->ids[s->n_ids++] = id;
	s->ids_changed = s->now;
}

/*
 * The tuner decides on one tick's input. Returns true on APPLY, which is
 * then applied. Checks on every tick what must always hold.
 */
static bool sim_step(struct sim *s, struct tuner_input *in)
{
	struct tuner_setting out, before;
	char why[sizeof(s->why)];
	enum tuner_verdict v;

	in->napi_ids = s->ids;
	in->n_ids = s->n_ids;
	in->ids_changed_ns = s->ids_changed;
	if (s->kernel_known) {
		if (!s->kernel_frozen)
			s->kernel_reads++;
		in->kernel_ids = s->kernel_ids;
		in->n_kernel_ids = s->n_kernel_ids;
		in->kernel_ids_known = true;
		in->kernel_ids_reads = s->kernel_reads;
	}
	in->no_static = s->no_static;

	memset(&out, 0xa5, sizeof(out));
	before = out;
	strcpy(why, "untouched");
	v = tuner_decide(&s->pol, &s->st, in, &out, why, sizeof(why));
	if (v == TUNER_KEEP) {
		if (strcmp(why, "untouched") || memcmp(&out, &before, sizeof(out)))
			ut_fail(__FILE__, __LINE__, "KEEP wrote *out or why (\"%s\")", why);
		return false;
	}
	if (v != TUNER_APPLY) {
		ut_fail(__FILE__, __LINE__, "verdict %d", (int)v);
		return false;
	}

	if (!why[0] || strchr(why, '\n') || !strcmp(why, "untouched"))
		ut_fail(__FILE__, __LINE__, "bad why \"%s\"", why);
	if (out.enabled && (out.busy_poll_us < s->pol.min_us || out.busy_poll_us > s->pol.max_us))
		ut_fail(__FILE__, __LINE__, "timeout %u out of [%u, %u] (%s)", out.busy_poll_us,
			s->pol.min_us, s->pol.max_us, why);
	if (out.prefer != s->pol.prefer)
		ut_fail(__FILE__, __LINE__, "prefer %d (%s)", out.prefer, why);
	if (s->now - s->last_apply < s->min_gap)
		s->min_gap = s->now - s->last_apply;
	if (!s->ring.enabled && out.enabled) {
		s->retries++;
		if (s->now - s->st.off_since_ns < s->min_off)
			s->min_off = s->now - s->st.off_since_ns;
	}
	if (s->ring.enabled && !out.enabled)
		s->offs++;
	s->applies++;
	s->last_apply = s->now;
	s->ring = out;
	strcpy(s->why, why);
	tuner_applied(&s->st, &out, s->now);
	return true;
}

/*
 * One second with up to two groups of waits. Busy-poll windows are the waits
 * while NAPI is on; those whose arrival comes before the timeout pay off,
 * last the arrival time, and 1 in 16 of them is timed into the hist.
 */
static bool sim_tick2(struct sim *s, struct load a, struct load b)
{
	const struct load loads[2] = { a, b };
	struct tuner_input in;

	memset(&in, 0, sizeof(in));
	s->now += NSEC;
	in.now_ns = s->now;
	for (int g = 0; g < 2; g++) {
		const struct load *l = &loads[g];

		in.waits += l->waits;
		if (!s->ring.enabled || !l->waits)
			continue;
		in.busy_windows += l->waits;
		if (l->arrival_us >= s->ring.busy_poll_us)
			continue;
		in.busy_paid += l->waits;
		in.waits_nosleep += l->waits;
		in.hist[slot_of((uint64_t)l->arrival_us * 1000)] += l->waits / 16;
	}
	return sim_step(s, &in);
}

static bool sim_tick(struct sim *s, uint64_t waits, unsigned int arrival_us)
{
	return sim_tick2(s, (struct load){ waits, arrival_us }, (struct load){ 0, 0 });
}

/* tick until an APPLY, at most max_ticks; the number of ticks it took, or 0 */
static unsigned int sim_until_apply(struct sim *s, unsigned int max_ticks, uint64_t waits,
				    unsigned int arrival_us)
{
	for (unsigned int i = 1; i <= max_ticks; i++) {
		if (sim_tick(s, waits, arrival_us))
			return i;
		if (ut_msg[0])
			return 0;
	}
	return 0;
}

/* the setting the ring has is the one the tuner believes it has */
static void check_consistent(const struct sim *s)
{
	UT_ASSERT(!memcmp(&s->st.cur, &s->ring, sizeof(s->ring)));
}

/* --- random traffic ----------------------------------------------------------- */

static uint64_t rng = 88172645463325252ULL;

/* xorshift64*: uniform in [0, 1) */
static double rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (double)((rng * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
}

/* arrivals spread evenly over [lo_us, hi_us), w of the waits that see an event soon */
struct range {
	double lo_us, hi_us, w;
};

/*
 * One second of @waits waits: a share @gap sees nothing coming soon (the
 * wait that starts an idle gap), the others' events arrive within one of
 * the ranges, picked by weight. Windows shorter than the timeout pay off
 * and last their arrival time; the hist gets 1 in 16 of them, drawn at
 * random from that distribution (the paid count itself is its expectation).
 * *raw: what sizing on this tick's hist alone would give (0 if it has none).
 */
static bool sim_tick_mix(struct sim *s, uint64_t waits, double gap, const struct range *r,
			 unsigned int n, unsigned int *raw)
{
	const struct tuner_policy *pol = &s->pol;
	const double t_us = s->ring.busy_poll_us;
	double total = 0, paid = 0, part[8];
	struct tuner_input in;
	unsigned int q;

	memset(&in, 0, sizeof(in));
	s->now += NSEC;
	in.now_ns = s->now;
	in.waits = waits;
	n = n < 8 ? n : 8;
	for (unsigned int i = 0; i < n; i++)
		total += r[i].w;
	/* the share of all waits that come from range i and pay */
	for (unsigned int i = 0; i < n; i++) {
		double below = (t_us - r[i].lo_us) / (r[i].hi_us - r[i].lo_us);

		below = below < 0 ? 0 : below > 1 ? 1 : below;
		part[i] = (1 - gap) * r[i].w / total * below;
		paid += part[i];
	}
	if (s->ring.enabled) {
		in.busy_windows = waits;
		in.busy_paid = (uint64_t)(waits * paid + 0.5);
		in.waits_nosleep = in.busy_paid;
	}
	for (uint64_t k = 0; paid > 0 && k < in.busy_paid / 16; k++) {
		double x = rnd() * paid, hi;
		unsigned int i, pick = 0;

		/* the range x falls in, never one with nothing below the timeout */
		for (i = 0; i < n; i++) {
			if (part[i] <= 0)
				continue;
			pick = i;
			if (x < part[i])
				break;
			x -= part[i];
		}
		i = pick;
		hi = r[i].hi_us < t_us ? r[i].hi_us : t_us;
		in.hist[slot_of((uint64_t)((r[i].lo_us + rnd() * (hi - r[i].lo_us)) * 1000))]++;
	}
	q = tuner_hist_quantile_us(in.hist, pol->quantile_pct);
	*raw = q ? (q * (100 + pol->headroom_pct) + 99) / 100 : 0;
	if (*raw && *raw < pol->min_us)
		*raw = pol->min_us;
	if (*raw > pol->max_us)
		*raw = pol->max_us;
	return sim_step(s, &in);
}

/*
 * Bursty traffic as bench/bursty.sh's server ring sees it (bursts of 10
 * pings, 1 ms apart; docs/BENCHMARKS.md): 1 wait in 10 starts a gap, most
 * replies come in 4-8 us, and the shares of slower ones vary from second to
 * second, enough to move the 95th percentile of a second's paid windows
 * across the 16.4 us slot edge and back.
 */
static bool sim_bursty(struct sim *s, unsigned int *raw)
{
	double a = 0.02 + 0.18 * rnd(), b = 0.02 + 0.06 * rnd();
	const struct range r[] = {
		{ 4.2, 8.1, 0.99 - a - b }, { 8.3, 16, a }, { 16.5, 26, b }, { 26, 60, 0.01 },
	};

	return sim_tick_mix(s, 8000, 0.1, r, 4, raw);
}

/*
 * The same benchmark's client ring: nearly every window pays, most within
 * 10-60 us, a varying share in 66-130 us, so the 95th percentile moves
 * across the 65.5 us edge, where the timeouts sized from neighbouring slots
 * are exactly 2x apart (99 and 198 us).
 */
static bool sim_bursty_client(struct sim *s, unsigned int *raw)
{
	double c = 0.02 + 0.10 * rnd();
	const struct range r[] = { { 10, 60, 1 - c }, { 66, 130, c } };

	return sim_tick_mix(s, 8000, 0.01, r, 2, raw);
}

/* a 1 s tick input with the given window counts and all paid windows in one slot */
static struct tuner_input input_at(uint64_t now, uint64_t windows, uint64_t paid,
				   unsigned int arrival_us)
{
	struct tuner_input in;

	memset(&in, 0, sizeof(in));
	in.now_ns = now;
	in.waits = windows;
	in.busy_windows = windows;
	in.busy_paid = paid;
	in.waits_nosleep = paid;
	in.hist[slot_of((uint64_t)arrival_us * 1000)] = paid / 16;
	return in;
}

/* --- converging and staying put ----------------------------------------- */

/* 20k waits/s, events 8 us after the wait: a timeout just above 8 us */
UT_TEST(steady_low_latency_converges)
{
	struct tuner_policy pol = default_policy();
	struct sim s;
	unsigned int ticks;

	sim_init(&s, &pol, NULL, 0);
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 50);

	ticks = sim_until_apply(&s, 20, 20000, 8);
	UT_ASSERT(!ut_msg[0]);
	/* the first decision: settle_s after the ring was taken */
	UT_ASSERT_EQ_INT(ticks, pol.settle_s);
	UT_ASSERT(s.ring.enabled);
	/* 8 us sits in slot [4.1, 8.2) us: 9 us, +50% headroom */
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 14);
	UT_ASSERT(s.ring.busy_poll_us * 100 >= 8 * (100 + pol.headroom_pct));
	UT_ASSERT_STR_CONTAINS(s.why, "hit rate 100%");
	UT_ASSERT_STR_CONTAINS(s.why, "95% of paid windows within 9 us");
	UT_ASSERT_STR_CONTAINS(s.why, "timeout 50 -> 14 us");

	/* no flapping: nothing to change for the next 100 s */
	for (int i = 0; i < 100; i++)
		CHECK(UT_ASSERT(!sim_tick(&s, 20000, 8)));
	UT_ASSERT_EQ_INT(s.applies, 1);
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 14);
	CHECK(check_consistent(&s));
}

/* a ring with no waits gives nothing to decide on */
UT_TEST(idle_ring_never_changes)
{
	struct tuner_policy pol = default_policy();
	struct tuner_setting initial;
	struct sim s;

	sim_init(&s, &pol, NULL, 0);
	initial = s.ring;
	for (int i = 0; i < 5000; i++)
		CHECK(UT_ASSERT(!sim_tick(&s, 0, 0)));
	UT_ASSERT_EQ_INT(s.applies, 0);
	UT_ASSERT(!memcmp(&s.st.cur, &initial, sizeof(initial)));
	UT_ASSERT_EQ_INT(s.st.windows, 0);
}

/* every other second busy, the rest idle: same result, no flapping */
UT_TEST(bursts_with_idle_gaps)
{
	struct tuner_policy pol = default_policy();
	struct sim s;

	sim_init(&s, &pol, NULL, 0);
	for (int i = 1; i <= 300; i++) {
		sim_tick(&s, i % 2 ? 20000 : 0, 8);
		if (ut_msg[0])
			return;
		if (i == 20)
			UT_ASSERT_EQ_INT(s.applies, 1);
	}
	UT_ASSERT_EQ_INT(s.applies, 1);
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 14);
	UT_ASSERT(s.ring.enabled);
}

/* converged, then the traffic stops for good */
UT_TEST(traffic_stops)
{
	struct tuner_policy pol = default_policy();
	struct sim s;

	sim_init(&s, &pol, NULL, 0);
	UT_ASSERT(sim_until_apply(&s, 20, 20000, 8) > 0);
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 14);
	for (int i = 0; i < 1000; i++)
		CHECK(UT_ASSERT(!sim_tick(&s, 0, 8)));
	UT_ASSERT_EQ_INT(s.applies, 1);
	UT_ASSERT(s.ring.enabled);
	/* and when it comes back the same, the setting still fits */
	for (int i = 0; i < 50; i++)
		CHECK(UT_ASSERT(!sim_tick(&s, 20000, 8)));
}

/*
 * 40% of the waits get their event after 8 us, the others not for a long
 * time (a client thinking). The hit rate is low, but the paid windows are
 * short: the timeout shrinks to them rather than growing to max and off.
 */
UT_TEST(low_hit_rate_with_short_paid_windows_shrinks)
{
	struct tuner_policy pol = default_policy();
	struct load fast = { 8000, 8 }, idle = { 12000, NEVER_US };
	struct sim s;

	sim_init(&s, &pol, NULL, 0);
	for (int i = 0; i < 300; i++)
		CHECK(sim_tick2(&s, fast, idle));
	UT_ASSERT_EQ_INT(s.applies, 1);
	UT_ASSERT(s.ring.enabled);
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 14);
	UT_ASSERT_STR_CONTAINS(s.why, "hit rate 40%");
	UT_ASSERT_STR_CONTAINS(s.why, "timeout 50 -> 14 us");
}

/*
 * 20% of the events at 13 us, 80% at 20 us, the timeout at 15 us: at 15 us
 * only the 13 us ones pay, not enough to be worth it, but they all lie in
 * the top half of the timeout: twice as long is tried. There all pay, and
 * the timeout is sized to them.
 */
UT_TEST(timeout_grows_when_paid_windows_crowd_it)
{
	struct tuner_policy pol = default_policy();
	struct load near = { 4000, 13 }, beyond = { 16000, 20 };
	struct sim s;
	unsigned int ticks = 0;

	pol.initial_us = 15;
	sim_init(&s, &pol, NULL, 0);
	while (!sim_tick2(&s, near, beyond) && ++ticks < 20)
		if (ut_msg[0])
			return;
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 30);
	UT_ASSERT_EQ_INT(s.now - T0, pol.settle_s * NSEC);
	/* 13 us is in slot [8.2, 16.4) us: its part below 15 us is all in [7.5, 15) */
	UT_ASSERT_STR_EQ(s.why, "hit rate 20% at 15 us, efficiency 0.14, 100% of paid windows near the timeout: trying 30 us");
	/* at 30 us all pay: 20 us is in slot [16.4, 32.8) us, 33 us + 50% */
	for (int i = 0; i < 20 && s.applies < 2; i++)
		CHECK(sim_tick2(&s, near, beyond));
	UT_ASSERT_EQ_INT(s.applies, 2);
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 50);
	UT_ASSERT_STR_CONTAINS(s.why, "hit rate 100%, 95% of paid windows within 33 us");
	UT_ASSERT_STR_CONTAINS(s.why, "timeout 30 -> 50 us");
	for (int i = 0; i < 200; i++)
		CHECK(UT_ASSERT(!sim_tick2(&s, near, beyond)));
}

/* a sized timeout within change_pct of the current one is not worth a change */
UT_TEST(small_changes_skipped)
{
	struct tuner_policy pol = default_policy();
	struct sim s;

	/* 20 us sizes to 50 us: 11% off 45 us */
	pol.initial_us = 45;
	sim_init(&s, &pol, NULL, 0);
	for (int i = 0; i < 100; i++)
		CHECK(UT_ASSERT(!sim_tick(&s, 20000, 20)));
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 45);
	/* exactly change_pct (40 -> 50 us) is not more than it */
	pol.initial_us = 40;
	sim_init(&s, &pol, NULL, 0);
	for (int i = 0; i < 100; i++)
		CHECK(UT_ASSERT(!sim_tick(&s, 20000, 20)));
	/* 32% off: changed */
	pol.initial_us = 38;
	sim_init(&s, &pol, NULL, 0);
	UT_ASSERT_EQ_INT(sim_until_apply(&s, 20, 20000, 20), 5);
	UT_ASSERT_STR_CONTAINS(s.why, "timeout 38 -> 50 us");
}

/*
 * 5% of the responses take 6 ms, the rest 8 us, on a ring left at 10 ms:
 * the quantile drops the slow ones, and without them a short timeout pays
 * off well. Counting them as still paid at the short timeout would call
 * the ring hopeless and switch NAPI off.
 */
UT_TEST(rare_slow_windows_do_not_hold_timeout_high)
{
	struct tuner_policy pol = default_policy();
	struct load fast = { 19000, 8 }, slow = { 1000, 6000 };
	struct sim s;

	pol.max_us = 10000;
	pol.initial_us = 10000;
	sim_init(&s, &pol, NULL, 0);
	for (int i = 0; i < 200; i++)
		CHECK(sim_tick2(&s, fast, slow));
	UT_ASSERT_EQ_INT(s.applies, 1);
	UT_ASSERT(s.ring.enabled);
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 14);
	UT_ASSERT_STR_CONTAINS(s.why, "hit rate 100%, 95% of paid windows within 9 us");
	UT_ASSERT_STR_CONTAINS(s.why, "timeout 10000 -> 14 us");
}

/*
 * 62% of the waits get their event after 30 us, at a 35 us timeout. That
 * pays off (efficiency 0.22); the sized 50 us would not (0.18: the misses
 * would spin longer). Stay, rather than move or give up.
 */
UT_TEST(keeps_paying_timeout_over_unprofitable_sized_one)
{
	struct tuner_policy pol = default_policy();
	struct load paid = { 12400, 30 }, idle = { 7600, NEVER_US };
	struct sim s;

	pol.initial_us = 35;
	sim_init(&s, &pol, NULL, 0);
	for (int i = 0; i < 200; i++)
		CHECK(sim_tick2(&s, paid, idle));
	UT_ASSERT_EQ_INT(s.applies, 0);
	UT_ASSERT(s.ring.enabled);
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 35);
}

/* --- growing, switching off, retrying ----------------------------------- */

/*
 * Events at 120 us with a 50 us timeout: nothing pays, and nothing says a
 * longer timeout would: off at the first decision, never 100 or 200 us.
 * Retried after retry_s, then after twice as long each time the retry goes
 * off again, up to an hour.
 */
UT_TEST(arrivals_beyond_timeout_off_then_backoff)
{
	static const unsigned int want[] = { 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600 };
	static const char *const span[] = { "2 min", "4 min", "8 min", "16 min", "32 min",
					    "1 h", "1 h", "1 h", "1 h" };
	struct tuner_policy pol = default_policy();
	struct sim s;

	sim_init(&s, &pol, NULL, 0);
	UT_ASSERT_EQ_INT(sim_until_apply(&s, 20, 20000, 120), pol.settle_s);
	UT_ASSERT(!s.ring.enabled);
	UT_ASSERT_EQ_INT(s.applies, 1);
	UT_ASSERT_EQ_INT(s.st.off_since_ns, s.now);
	UT_ASSERT_STR_EQ(s.why, "off: 0% of 100000 windows paid at 50 us; retry in 60 s");
	UT_ASSERT_EQ_INT(tuner_retry_interval_s(&pol, &s.st), 60);

	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char off[64];

		/* off for exactly the interval, the ring still waiting */
		UT_ASSERT_EQ_INT(sim_until_apply(&s, 4000, 20000, 120), want[i]);
		UT_ASSERT(s.ring.enabled);
		UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 50);
		snprintf(off, sizeof(off), "after %u s off: timeout 50 us", want[i]);
		UT_ASSERT_STR_CONTAINS(s.why, off);
		snprintf(off, sizeof(off), "(if it does not pay, off for %s)", span[i]);
		UT_ASSERT_STR_CONTAINS(s.why, off);
		/* and off again at its first decision, told when the next retry is */
		UT_ASSERT_EQ_INT(sim_until_apply(&s, 20, 20000, 120), pol.settle_s);
		UT_ASSERT(!s.ring.enabled);
		UT_ASSERT_EQ_INT(tuner_retry_interval_s(&pol, &s.st),
				 i + 1 < sizeof(want) / sizeof(want[0]) ? want[i + 1] : 3600);
		snprintf(off, sizeof(off), "; retry in %s", span[i]);
		UT_ASSERT_STR_CONTAINS(s.why, off);
	}
	UT_ASSERT_EQ_INT(s.offs, 10);
	UT_ASSERT_EQ_INT(s.retries, 9);
	UT_ASSERT(s.min_off >= pol.retry_s * NSEC);
	UT_ASSERT(s.min_gap >= pol.settle_s * NSEC);
}

/*
 * A retry that pays for as long as the ring was off clears the backoff: the
 * next time the ring goes off, it is retried after retry_s again. One that
 * goes off sooner doubles it.
 */
UT_TEST(backoff_reset_when_retry_pays)
{
	struct tuner_policy pol = default_policy();
	struct sim s;
	unsigned int ticks;

	sim_init(&s, &pol, NULL, 0);
	/* off, and three retries that did not pay: 8 min */
	UT_ASSERT(sim_until_apply(&s, 20, 20000, 120) > 0);
	for (int i = 0; i < 3; i++) {
		UT_ASSERT(sim_until_apply(&s, 4000, 20000, 120) > 0);
		UT_ASSERT(sim_until_apply(&s, 20, 20000, 120) > 0);
	}
	UT_ASSERT(!s.ring.enabled);
	UT_ASSERT_EQ_INT(tuner_retry_interval_s(&pol, &s.st), 480);

	/* the traffic changed while it was off: the retry pays and the ring stays on */
	UT_ASSERT_EQ_INT(sim_until_apply(&s, 4000, 20000, 8), 480);
	UT_ASSERT(sim_until_apply(&s, 20, 20000, 8) > 0);
	UT_ASSERT(s.ring.enabled);
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 14);
	/* it pays, but not yet for 480 s: going off now would mean 16 min */
	for (int i = 0; i < 400; i++)
		CHECK(UT_ASSERT(!sim_tick(&s, 20000, 8)));
	UT_ASSERT(s.st.retried_ns != 0);
	UT_ASSERT_EQ_INT(s.st.backoff, 3);
	for (int i = 0; i < 80; i++)
		CHECK(UT_ASSERT(!sim_tick(&s, 20000, 8)));
	UT_ASSERT_EQ_INT(s.st.retried_ns, 0);
	UT_ASSERT_EQ_INT(s.st.backoff, 0);

	/* hopeless again: off within a few periods, and retried after retry_s */
	ticks = sim_until_apply(&s, 20, 20000, 5000);
	UT_ASSERT(ticks > 0 && ticks <= 5);
	UT_ASSERT(!s.ring.enabled);
	UT_ASSERT_STR_CONTAINS(s.why, "retry in 60 s");
	UT_ASSERT_EQ_INT(sim_until_apply(&s, 4000, 20000, 5000), pol.retry_s);
	UT_ASSERT(s.ring.enabled);

	/* a retry that goes off before it paid as long: twice as long */
	UT_ASSERT(sim_until_apply(&s, 20, 20000, 5000) > 0);
	UT_ASSERT_EQ_INT(tuner_retry_interval_s(&pol, &s.st), 120);
	UT_ASSERT_STR_CONTAINS(s.why, "retry in 2 min");
}

/* retry_s beyond the hour: no doubling; a short one doubles to the hour exactly */
UT_TEST(backoff_cap)
{
	struct tuner_policy pol = default_policy();
	struct tuner_state st;

	memset(&st, 0, sizeof(st));
	pol.retry_s = 7200;
	UT_ASSERT_EQ_INT(tuner_retry_interval_s(&pol, &st), 7200);
	st.backoff = 5;
	UT_ASSERT_EQ_INT(tuner_retry_interval_s(&pol, &st), 7200);
	pol.retry_s = 1;
	st.backoff = 0;
	UT_ASSERT_EQ_INT(tuner_retry_interval_s(&pol, &st), 1);
	st.backoff = 11;
	UT_ASSERT_EQ_INT(tuner_retry_interval_s(&pol, &st), 2048);
	st.backoff = 12;
	UT_ASSERT_EQ_INT(tuner_retry_interval_s(&pol, &st), 3600);
	st.backoff = 255;
	UT_ASSERT_EQ_INT(tuner_retry_interval_s(&pol, &st), 3600);
	pol.retry_s = 2500;
	st.backoff = 1;
	UT_ASSERT_EQ_INT(tuner_retry_interval_s(&pol, &st), 3600);
}

/* events 5 ms after the wait: no timeout helps, off at the first decision */
UT_TEST(hopeless_traffic_turns_off)
{
	struct tuner_policy pol = default_policy();
	struct sim s;

	sim_init(&s, &pol, NULL, 0);
	for (int i = 0; i < 60 && s.ring.enabled; i++)
		CHECK(sim_tick(&s, 20000, 5000));
	UT_ASSERT(!s.ring.enabled);
	UT_ASSERT_EQ_INT(s.applies, 1);
	UT_ASSERT_EQ_INT(s.now - T0, pol.settle_s * NSEC);
	UT_ASSERT_STR_EQ(s.why, "off: 0% of 100000 windows paid at 50 us; retry in 60 s");
}

/*
 * A hit rate near 0 is no reason to try longer timeouts, even when the few
 * windows that pay lie near the timeout: 1% of the waits get their event at
 * 40 us, the rest much later. Off at once, never a longer timeout.
 */
UT_TEST(no_doubling_on_hit_rate_near_zero)
{
	struct tuner_policy pol = default_policy();
	struct load few = { 200, 40 }, rest = { 19800, NEVER_US };
	unsigned int top = 0;
	struct sim s;

	sim_init(&s, &pol, NULL, 0);
	for (int i = 0; i < 60 && s.ring.enabled; i++) {
		CHECK(sim_tick2(&s, few, rest));
		if (s.ring.enabled && s.ring.busy_poll_us > top)
			top = s.ring.busy_poll_us;
	}
	UT_ASSERT(!s.ring.enabled);
	UT_ASSERT_EQ_INT(top, 50);
	UT_ASSERT_EQ_INT(s.applies, 1);
	UT_ASSERT_STR_CONTAINS(s.why, "off: 1% of 100000 windows paid at 50 us (~49 us each, 100% near the timeout), efficiency 0.00 < 0.20");
	UT_ASSERT_STR_CONTAINS(s.why, "; retry in 60 s");

	/* 3% spread evenly over 0-50 us (as many near the timeout as below): the same */
	{
		struct range r[] = { { 0.5, 50, 1 } };
		unsigned int raw;

		sim_init(&s, &pol, NULL, 0);
		for (int i = 0; i < 60 && s.ring.enabled; i++)
			CHECK(sim_tick_mix(&s, 20000, 0.97, r, 1, &raw));
		UT_ASSERT(!s.ring.enabled);
		UT_ASSERT_EQ_INT(s.applies, 1);
		UT_ASSERT_STR_CONTAINS(s.why, "off: 3% of 100000 windows paid at 50 us");
	}
}

/*
 * Windows pay but none was timed (the hist is a sample): nothing says the
 * paid windows crowd the timeout, so no longer timeout is tried, and the why
 * does not make up their lengths.
 */
UT_TEST(no_growth_without_timed_windows)
{
	struct tuner_policy pol = default_policy();
	struct tuner_setting cur, out;
	struct tuner_state st;
	struct tuner_input in;
	char why[200];

	memset(&st, 0, sizeof(st));
	tuner_initial(&pol, NULL, 0, T0, &st, &cur);
	in = input_at(T0 + pol.settle_s * NSEC, 20000, 8000, 40);
	memset(in.hist, 0, sizeof(in.hist));
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_APPLY);
	UT_ASSERT(!out.enabled);
	/* counted as lasting the timeout: 0.4 * 10 / 50 */
	UT_ASSERT_STR_EQ(why, "off: 40% of 20000 windows paid at 50 us (none timed), efficiency 0.08 < 0.20 (a sleep costs 10 us); retry in 60 s");
}

/* an off ring whose traffic stopped is not switched back on until it waits */
UT_TEST(off_ring_retried_only_when_waiting)
{
	struct tuner_policy pol = default_policy();
	struct sim s;
	uint64_t off_at;

	sim_init(&s, &pol, NULL, 0);
	for (int i = 0; i < 60 && s.ring.enabled; i++)
		CHECK(sim_tick(&s, 20000, 5000));
	UT_ASSERT(!s.ring.enabled);
	off_at = s.now;
	for (int i = 0; i < 10 * (int)pol.retry_s; i++)
		CHECK(UT_ASSERT(!sim_tick(&s, 0, 0)));
	/* the first wait after that: retry at once, with the time off in why */
	UT_ASSERT(sim_tick(&s, 3, 5000));
	UT_ASSERT(s.ring.enabled);
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, pol.initial_us);
	UT_ASSERT_EQ_INT(s.now - off_at, 601 * NSEC);
	UT_ASSERT_STR_CONTAINS(s.why, "after 601 s off");
}

/*
 * Every window pays, but each spins too long for the sleep it saves: a
 * longer timeout can win nothing more (no window is left unpaid), so off
 * at once rather than after trying max_us.
 */
UT_TEST(inefficient_at_high_hit_rate_off_without_growing)
{
	struct tuner_policy pol = default_policy();
	struct sim s;

	pol.initial_us = 100;
	sim_init(&s, &pol, NULL, 0);
	UT_ASSERT_EQ_INT(sim_until_apply(&s, 20, 20000, 80), pol.settle_s);
	UT_ASSERT(!s.ring.enabled);
	/* 80 us is in slot [65.5, 131) us: ~98 us midpoint, 10/98 */
	UT_ASSERT_STR_EQ(s.why, "off: 100% of 100000 windows paid at 100 us (~98 us each, 100% near the timeout), efficiency 0.10 < 0.20 (a sleep costs 10 us); retry in 60 s");
}

/* a max above the kernel's 10 ms cap: growth stops at 10 ms */
UT_TEST(kernel_cap_on_timeout)
{
	struct tuner_policy pol = default_policy();
	struct load near = { 8000, 7000 }, beyond = { 12000, 9000 };
	struct sim s;

	/* a sleep this dear makes ms-long spins worth it */
	pol.max_us = 50000;
	pol.initial_us = 8000;
	pol.wakeup_cost_us = 10000;
	pol.min_efficiency = 0.6;
	sim_init(&s, &pol, NULL, 0);
	for (int i = 0; i < 200 && s.ring.enabled; i++)
		CHECK(sim_tick2(&s, near, beyond));
	UT_ASSERT(s.ring.enabled);
	UT_ASSERT_EQ_INT(s.applies, 1);
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 10000);
	UT_ASSERT_STR_CONTAINS(s.why, "hit rate 40% at 8000 us");
	UT_ASSERT_STR_CONTAINS(s.why, "trying 10000 us");
}

/* --- what a sleep costs --------------------------------------------------- */

/*
 * The same windows (10% pay, at ~8 us) are not worth their spin when a sleep
 * costs the policy's 10 us, and are when the input says it costs 300 us (a
 * measured figure, as after an idle gap on this VM): the tuner prices the
 * saved wake-ups with the input's figure, else the policy's.
 */
UT_TEST(measured_wakeup_cost_prices_the_windows)
{
	struct tuner_policy pol = default_policy();
	struct tuner_setting cur, out;
	struct tuner_state st;
	struct tuner_input in;
	char why[200];

	for (int dear = 0; dear < 2; dear++) {
		memset(&st, 0, sizeof(st));
		tuner_initial(&pol, NULL, 0, T0, &st, &cur);
		tuner_applied(&st, &cur, T0);
		in = input_at(T0 + 10 * NSEC, 10000, 1000, 8);
		in.wakeup_ns = dear ? 300000 : 0;
		UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_APPLY);
		if (dear) {
			UT_ASSERT(out.enabled);
			UT_ASSERT(out.busy_poll_us < 50);
		} else {
			UT_ASSERT(!out.enabled);
			UT_ASSERT_STR_CONTAINS(why, "a sleep costs 10 us");
		}
	}
	/* no figure in the input and none in the policy: TUNER_WAKEUP_US */
	pol.wakeup_cost_us = 0;
	memset(&st, 0, sizeof(st));
	tuner_initial(&pol, NULL, 0, T0, &st, &cur);
	tuner_applied(&st, &cur, T0);
	in = input_at(T0 + 10 * NSEC, 10000, 1000, 8);
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_APPLY);
	UT_ASSERT(!out.enabled);
	UT_ASSERT_STR_CONTAINS(why, "a sleep costs 25 us");
}

/* the windows a ring without busy polling would have had, from its waits */
UT_TEST(input_from_sleeps)
{
	struct tuner_input in;
	uint64_t gaps[UT_HIST_SLOTS] = { 0 };

	gaps[slot_of(20000)] = 600;		/* woken 20 us into the sleep */
	gaps[slot_of(5000000)] = 300;		/* ... 5 ms into it */
	memset(&in, 0, sizeof(in));
	in.waits = 1000;
	in.waits_nosleep = 100;
	tuner_input_from_sleeps(&in, gaps, 50);
	UT_ASSERT(in.busy_windows == 1000);
	UT_ASSERT(in.busy_paid == 700);
	UT_ASSERT(in.hist[slot_of(1024)] == 100 && in.hist[slot_of(20000)] == 600);
	UT_ASSERT(in.hist[slot_of(5000000)] == 0);
	/* 25 us cuts the 20 us slot, [16.4, 32.8) us: its share below 25 us */
	tuner_input_from_sleeps(&in, gaps, 25);
	UT_ASSERT(in.busy_paid == 100 + 315);
	UT_ASSERT(in.hist[slot_of(20000)] == 315);
	/* sleeps that ended without a completion (a timeout) are windows that did not pay */
	gaps[slot_of(5000000)] = 0;
	tuner_input_from_sleeps(&in, gaps, 50);
	UT_ASSERT(in.busy_windows == 1000 && in.busy_paid == 700);
}

/* --- pacing ---------------------------------------------------------------- */

/* evidence that calls for a change waits for settle_s, and is kept meanwhile */
UT_TEST(settle_respected)
{
	struct tuner_policy pol = default_policy();
	struct tuner_state st;
	struct tuner_setting cur, out;
	struct tuner_input in;
	char why[128];

	memset(&st, 0, sizeof(st));
	tuner_initial(&pol, NULL, 0, T0, &st, &cur);
	tuner_applied(&st, &cur, T0);

	in = input_at(T0 + pol.settle_s * NSEC - 1, 100000, 100000, 8);
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_KEEP);
	UT_ASSERT_EQ_INT(st.windows, 100000);
	/* an empty tick at settle_s decides on what was kept */
	memset(&in, 0, sizeof(in));
	in.now_ns = T0 + pol.settle_s * NSEC;
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_APPLY);
	UT_ASSERT_EQ_INT(out.busy_poll_us, 14);
	UT_ASSERT_EQ_INT(st.windows, 0);
	tuner_applied(&st, &out, in.now_ns);

	/* the traffic changes at once: still settle_s before the next change */
	in = input_at(in.now_ns + NSEC, 100000, 0, 0);
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_KEEP);
	in = input_at(in.now_ns + (pol.settle_s - 2) * NSEC, 100000, 0, 0);
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_KEEP);
	in = input_at(in.now_ns + NSEC, 100000, 0, 0);
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_APPLY);
	/* nothing pays: off (no longer timeout is tried on a hit rate of 0) */
	UT_ASSERT(!out.enabled);
}

/* traffic that keeps changing: the tuner follows, never faster than settle_s */
UT_TEST(changing_traffic_never_faster_than_settle)
{
	struct tuner_policy pol = default_policy();
	static const unsigned int arrivals[] = { 8, 40, 3, 120, 25, 5000, 60 };
	struct sim s;

	sim_init(&s, &pol, NULL, 0);
	for (int i = 0; i < 3000; i++)
		CHECK(sim_tick(&s, 20000, arrivals[(i / 3) % 7]));
	/* fewer than before issue 14 (over 20): off rings wait longer each time */
	UT_ASSERT(s.applies > 10);
	UT_ASSERT(s.retries >= 4);
	UT_ASSERT(s.min_gap >= pol.settle_s * NSEC);
	UT_ASSERT(s.min_off >= pol.retry_s * NSEC);
}

/* --- stability --------------------------------------------------------------- */

#define STEADY_S	(2 * 3600)	/* simulated seconds of steady bursty traffic */
#define CONVERGED_S	120		/* changes before this are convergence */

/*
 * Two hours of bursty traffic around a steady mean, from @initial; changes
 * after CONVERGED_S at least 10 minutes apart. The input does flap a
 * decision on each second's figures: the timeout sized on one second's hist
 * alone changes from one second to the next in over a fifth of the seconds.
 */
static void steady_run(struct sim *s, bool (*traffic)(struct sim *, unsigned int *),
		       unsigned int initial)
{
	struct tuner_policy pol = default_policy();
	unsigned int raw, prev_raw = 0, raw_moves = 0, late = 0;
	uint64_t last_change = 0;

	pol.initial_us = initial;
	sim_init(s, &pol, NULL, 0);
	for (unsigned int i = 1; i <= STEADY_S; i++) {
		bool changed = traffic(s, &raw);

		if (ut_msg[0])
			return;
		raw_moves += prev_raw && raw != prev_raw;
		prev_raw = raw;
		if (!changed)
			continue;
		UT_ASSERT(s->ring.enabled);
		if (i <= CONVERGED_S)
			continue;
		late++;
		if (last_change && s->now - last_change < 600 * NSEC)
			ut_fail(__FILE__, __LINE__, "from %u us: changes %llu s apart at %u s (%s)",
				initial, (unsigned long long)((s->now - last_change) / NSEC), i,
				s->why);
		last_change = s->now;
	}
	UT_ASSERT(raw_moves > STEADY_S / 5);
	UT_ASSERT(late <= STEADY_S / 600);
	if (!s->ring.enabled)
		ut_fail(__FILE__, __LINE__, "from %u us: off (%s)", initial, s->why);
}

/*
 * The server's and the client's rings of bursty traffic, from four starting
 * timeouts each: the tuner converges, then changes the timeout at most once
 * per 10 minutes.
 */
UT_TEST(bursty_traffic_at_most_one_change_per_10_min)
{
	static const unsigned int initial[] = { 14, 26, 50, 99 }, client[] = { 50, 99, 198 };
	struct sim s;

	for (unsigned int k = 0; k < sizeof(initial) / sizeof(initial[0]); k++) {
		CHECK(steady_run(&s, sim_bursty, initial[k]));
		/* a timeout covering the replies, not one of a second's outliers */
		UT_ASSERT(s.ring.busy_poll_us >= 26 && s.ring.busy_poll_us <= 99);
		/* from 14 and 26 it grew to 50 within the convergence time, once or twice */
		if (initial[k] < 50) {
			UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 50);
			UT_ASSERT(s.applies <= 2);
		}
	}
	for (unsigned int k = 0; k < sizeof(client) / sizeof(client[0]); k++) {
		CHECK(steady_run(&s, sim_bursty_client, client[k]));
		UT_ASSERT(s.ring.busy_poll_us == 99 || s.ring.busy_poll_us == 198);
	}
}

/*
 * Converged on bursty traffic, the traffic really changes: the tuner
 * follows within a few decision periods (one a second here). Longer replies
 * grow the timeout at the next decision; much shorter ones shrink it once
 * the older periods have faded (about 10); replies that stop coming switch
 * NAPI off once the smoothed hit rate has dropped.
 */
UT_TEST(real_change_followed)
{
	struct tuner_policy pol = default_policy();
	const struct range slow[] = { { 30, 45, 1 } }, fast[] = { { 2.1, 4, 1 } };
	unsigned int raw, ticks;
	struct sim s;

	pol.initial_us = 26;
	sim_init(&s, &pol, NULL, 0);
	for (int i = 0; i < 600; i++)
		CHECK(sim_bursty(&s, &raw));
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 50);

	/* replies at 30-45 us: 45 us is in slot [32.8, 65.5) us, 66 us + 50% */
	for (ticks = 1; ticks <= 30; ticks++) {
		if (sim_tick_mix(&s, 8000, 0.1, slow, 1, &raw))
			break;
		if (ut_msg[0])
			return;
	}
	UT_ASSERT(ticks <= 2);
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 99);
	UT_ASSERT_STR_CONTAINS(s.why, "95% of paid windows within 66 us: timeout 50 -> 99 us");

	/* replies at 2-4 us: down to min_us, once settle_s has passed */
	for (ticks = 1; ticks <= 60; ticks++) {
		if (sim_tick_mix(&s, 8000, 0.1, fast, 1, &raw))
			break;
		if (ut_msg[0])
			return;
	}
	UT_ASSERT(ticks >= pol.settle_s && ticks <= 15);
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 10);
	UT_ASSERT_STR_CONTAINS(s.why, "timeout 99 -> 10 us");

	/* the replies stop coming soon: off */
	for (ticks = 1; ticks <= 60 && s.ring.enabled; ticks++)
		CHECK(sim_tick(&s, 8000, NEVER_US));
	UT_ASSERT(!s.ring.enabled);
	UT_ASSERT(ticks <= pol.settle_s + 5);
	UT_ASSERT_STR_CONTAINS(s.why, "off: ");
}

/* fewer than min_windows: evidence is kept, not decided on */
UT_TEST(min_windows_respected)
{
	struct tuner_policy pol = default_policy();
	struct tuner_state st;
	struct tuner_setting cur, out;
	struct tuner_input in;
	char why[128];

	memset(&st, 0, sizeof(st));
	tuner_initial(&pol, NULL, 0, T0, &st, &cur);
	in = input_at(T0 + 10 * NSEC, 999, 999, 8);
	in.hist[slot_of(8000)] = 999;
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_KEEP);
	UT_ASSERT_EQ_INT(st.windows, 999);
	UT_ASSERT_EQ_INT(st.hist[slot_of(8000)], 999);
	in = input_at(T0 + 11 * NSEC, 1, 1, 8);
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_APPLY);
	UT_ASSERT_EQ_INT(out.busy_poll_us, 14);

	/* a KEEP on enough evidence keeps 3/4 of it for the next decision */
	tuner_applied(&st, &out, in.now_ns);
	in = input_at(in.now_ns + 10 * NSEC, 5000, 5000, 8);
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_KEEP);
	UT_ASSERT_EQ_INT(st.windows, 3750);
	UT_ASSERT_EQ_INT(st.paid, 3750);
	UT_ASSERT_EQ_INT(st.hist[slot_of(8000)], 5000 / 16 * 3 / 4);
	/* and the next decision needs min_windows new windows again */
	in = input_at(in.now_ns + NSEC, 999, 999, 8);
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_KEEP);
	UT_ASSERT_EQ_INT(st.windows, 3750 + 999);
	UT_ASSERT_EQ_INT(st.fresh, 999);
	in = input_at(in.now_ns + NSEC, 1, 1, 8);
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_KEEP);
	UT_ASSERT_EQ_INT(st.windows, (3750 + 1000) * 3 / 4);
	UT_ASSERT_EQ_INT(st.fresh, 0);
	/* counts of 1 fade out */
	memset(&st.hist, 0, sizeof(st.hist));
	st.hist[3] = 1;
	in = input_at(in.now_ns + NSEC, 1000, 1000, 8);
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_KEEP);
	UT_ASSERT_EQ_INT(st.hist[3], 0);
}

/* --- NAPI ID tracking -------------------------------------------------------- */

UT_TEST(auto_goes_static_then_dynamic_on_new_id)
{
	struct tuner_policy pol = default_policy();
	const uint32_t ids[] = { 257, 258 };
	struct sim s;

	sim_init(&s, &pol, ids, 2);
	/* AUTO starts dynamic even with IDs known */
	UT_ASSERT(!s.ring.static_ids);
	UT_ASSERT_EQ_INT(s.ring.n_ids, 0);

	/* the timeout first (T0+5), then static_after_s after the IDs last grew */
	UT_ASSERT_EQ_INT(sim_until_apply(&s, 40, 20000, 8), 5);
	UT_ASSERT(!s.ring.static_ids);
	UT_ASSERT_EQ_INT(sim_until_apply(&s, 40, 20000, 8), 25);
	UT_ASSERT_EQ_INT(s.now - s.ids_changed, pol.static_after_s * NSEC);
	UT_ASSERT(s.ring.static_ids);
	UT_ASSERT_EQ_INT(s.ring.n_ids, 2);
	UT_ASSERT_EQ_INT(s.ring.ids[0], 257);
	UT_ASSERT_EQ_INT(s.ring.ids[1], 258);
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 14);
	UT_ASSERT_STR_EQ(s.why, "NAPI IDs 257,258 unchanged for 30 s: static tracking");

	/* stays static while the IDs stay */
	for (int i = 0; i < 10; i++)
		CHECK(UT_ASSERT(!sim_tick(&s, 20000, 8)));

	/* a new queue shows up: dynamic at once, whatever the evidence */
	sim_add_id(&s, 259);
	UT_ASSERT(sim_tick(&s, 0, 0));
	UT_ASSERT(!s.ring.static_ids);
	UT_ASSERT_EQ_INT(s.ring.n_ids, 0);
	UT_ASSERT_EQ_INT(s.ring.busy_poll_us, 14);
	UT_ASSERT_STR_CONTAINS(s.why, "NAPI ID 259 appeared");
	UT_ASSERT_STR_CONTAINS(s.why, "static list 257,258");
	UT_ASSERT_STR_CONTAINS(s.why, "dynamic");

	/* and static again, with all three, once those are stable */
	UT_ASSERT_EQ_INT(sim_until_apply(&s, 40, 20000, 8), 29);
	UT_ASSERT_EQ_INT(s.now - s.ids_changed, pol.static_after_s * NSEC);
	UT_ASSERT(s.ring.static_ids);
	UT_ASSERT_EQ_INT(s.ring.n_ids, 3);
	UT_ASSERT_EQ_INT(s.ring.ids[2], 259);
	UT_ASSERT_STR_CONTAINS(s.why, "NAPI IDs 257,258,259 unchanged for 30 s");
	CHECK(check_consistent(&s));
}

/*
 * A multishot receive armed before its socket's first packet: the kernel's
 * dynamic list never learns the ID uringtune saw. AUTO goes static with it
 * once the miss has lasted settle_s, through a later copy of the list.
 */
UT_TEST(auto_static_when_kernel_misses_an_id)
{
	struct tuner_policy pol = default_policy();
	const uint32_t ids[] = { 341 };
	struct sim s;

	sim_init(&s, &pol, ids, 1);
	s.kernel_known = true;
	/* settle_s after the first change, then settle_s more of the miss */
	UT_ASSERT_EQ_INT(sim_until_apply(&s, 40, 0, 0), 10);
	UT_ASSERT(s.ring.static_ids);
	UT_ASSERT_EQ_INT(s.ring.n_ids, 1);
	UT_ASSERT_EQ_INT(s.ring.ids[0], 341);
	UT_ASSERT_STR_EQ(s.why, "NAPI ID 341 seen on the ring's sockets is not in the kernel's "
			 "dynamic list (empty): static tracking with 341");
	CHECK(check_consistent(&s));
}

/* the kernel polls 257, the ring's sockets also receive on 341: both polled */
UT_TEST(kernel_miss_static_keeps_the_kernels_ids)
{
	struct tuner_policy pol = default_policy();
	const uint32_t ids[] = { 341, 257 };
	struct sim s;

	sim_init(&s, &pol, ids, 2);
	s.kernel_known = true;
	s.kernel_ids[0] = 257;
	s.kernel_ids[1] = 400;
	s.n_kernel_ids = 2;
	UT_ASSERT_EQ_INT(sim_until_apply(&s, 40, 0, 0), 10);
	UT_ASSERT(s.ring.static_ids);
	UT_ASSERT_EQ_INT(s.ring.n_ids, 3);
	UT_ASSERT_EQ_INT(s.ring.ids[0], 341);
	UT_ASSERT_EQ_INT(s.ring.ids[1], 257);
	UT_ASSERT_EQ_INT(s.ring.ids[2], 400);
	UT_ASSERT_STR_CONTAINS(s.why, "dynamic list (257,400)");
}

/* no copy of the kernel's list since the miss was seen: not confirmed */
UT_TEST(kernel_miss_needs_a_later_copy)
{
	struct tuner_policy pol = default_policy();
	const uint32_t ids[] = { 341 };
	struct sim s;

	sim_init(&s, &pol, ids, 1);
	s.kernel_known = true;
	s.kernel_frozen = true;
	s.kernel_reads = 3;
	/* only the IDs' own stability (static_after_s) makes it static */
	UT_ASSERT_EQ_INT(sim_until_apply(&s, 40, 0, 0), 30);
	UT_ASSERT_STR_CONTAINS(s.why, "unchanged for 30 s");
}

/* all the IDs the kernel has: nothing missed, dynamic stays */
UT_TEST(kernel_has_every_id_no_early_static)
{
	struct tuner_policy pol = default_policy();
	const uint32_t ids[] = { 257 };
	struct sim s;

	sim_init(&s, &pol, ids, 1);
	s.kernel_known = true;
	s.kernel_ids[0] = 257;
	s.n_kernel_ids = 1;
	UT_ASSERT_EQ_INT(sim_until_apply(&s, 40, 0, 0), 30);
	UT_ASSERT_STR_CONTAINS(s.why, "unchanged for 30 s");
}

/* before 6.13 there are no static lists: AUTO and STATIC stay dynamic */
UT_TEST(no_static_lists_before_6_13)
{
	struct tuner_policy pol = default_policy();
	const uint32_t ids[] = { 257 };
	struct sim s;

	sim_init(&s, &pol, ids, 1);
	s.no_static = true;
	s.kernel_known = true;
	for (int i = 0; i < 60; i++)
		CHECK(UT_ASSERT(!sim_tick(&s, 0, 0)));
	UT_ASSERT(!s.ring.static_ids);
	pol.tracking = TUNER_TRACK_STATIC;
	sim_init(&s, &pol, ids, 1);
	s.no_static = true;
	s.ring.static_ids = false;
	s.st.cur.static_ids = false;
	for (int i = 0; i < 60; i++)
		CHECK(UT_ASSERT(!sim_tick(&s, 0, 0)));
}

/* a new ID right after a change waits for settle_s like any change */
UT_TEST(new_id_waits_for_settle)
{
	struct tuner_policy pol = default_policy();
	const uint32_t ids[] = { 257 };
	struct sim s;

	pol.static_after_s = 0;
	sim_init(&s, &pol, ids, 1);
	UT_ASSERT_EQ_INT(sim_until_apply(&s, 10, 0, 0), 5);
	UT_ASSERT(s.ring.static_ids);
	sim_add_id(&s, 300);
	UT_ASSERT_EQ_INT(sim_until_apply(&s, 10, 0, 0), 5);
	UT_ASSERT(!s.ring.static_ids);
	UT_ASSERT_STR_CONTAINS(s.why, "NAPI ID 300 appeared");
}

UT_TEST(static_policy)
{
	struct tuner_policy pol = default_policy();
	const uint32_t ids[] = { 257, 258 };
	struct sim s;

	pol.tracking = TUNER_TRACK_STATIC;
	/* IDs known when the ring is taken: static from the start */
	sim_init(&s, &pol, ids, 2);
	UT_ASSERT(s.ring.static_ids);
	UT_ASSERT_EQ_INT(s.ring.n_ids, 2);
	UT_ASSERT_EQ_INT(s.ring.ids[0], 257);
	UT_ASSERT_EQ_INT(s.ring.ids[1], 258);
	/* the list stays fixed, a new ID included: the policy's documented trade-off */
	for (int i = 0; i < 10; i++)
		CHECK(UT_ASSERT(!sim_tick(&s, 0, 0)));
	sim_add_id(&s, 300);
	for (int i = 0; i < 100; i++)
		CHECK(UT_ASSERT(!sim_tick(&s, 0, 0)));
	UT_ASSERT(s.ring.static_ids);
	UT_ASSERT_EQ_INT(s.ring.n_ids, 2);

	/* none known yet: dynamic, then static as soon as one is seen */
	sim_init(&s, &pol, NULL, 0);
	UT_ASSERT(!s.ring.static_ids);
	for (int i = 0; i < 10; i++)
		CHECK(UT_ASSERT(!sim_tick(&s, 0, 0)));
	sim_add_id(&s, 257);
	UT_ASSERT(sim_tick(&s, 0, 0));
	UT_ASSERT(s.ring.static_ids);
	UT_ASSERT_EQ_INT(s.ring.n_ids, 1);
	UT_ASSERT_STR_EQ(s.why, "NAPI IDs 257 known: static tracking");

	/* re-adopted as static with no IDs known: it gets the observed ones */
	sim_init(&s, &pol, NULL, 0);
	s.ring.static_ids = true;
	tuner_applied(&s.st, &s.ring, s.now);
	for (int i = 0; i < 10; i++)
		CHECK(UT_ASSERT(!sim_tick(&s, 0, 0)));
	sim_add_id(&s, 260);
	UT_ASSERT(sim_tick(&s, 0, 0));
	UT_ASSERT_EQ_INT(s.ring.n_ids, 1);
	UT_ASSERT_EQ_INT(s.ring.ids[0], 260);
}

UT_TEST(dynamic_policy_never_static)
{
	struct tuner_policy pol = default_policy();
	const uint32_t ids[] = { 257, 258 };
	struct sim s;

	pol.tracking = TUNER_TRACK_DYNAMIC;
	sim_init(&s, &pol, ids, 2);
	UT_ASSERT(!s.ring.static_ids);
	for (int i = 0; i < 300; i++) {
		CHECK(sim_tick(&s, 20000, 8));
		UT_ASSERT(!s.ring.static_ids);
	}
	UT_ASSERT_EQ_INT(s.applies, 1);

	/* a ring left static (the policy was reloaded): dynamic again */
	s.ring.static_ids = true;
	s.ring.n_ids = 2;
	s.ring.ids[0] = 257;
	s.ring.ids[1] = 258;
	tuner_applied(&s.st, &s.ring, s.now);
	UT_ASSERT_EQ_INT(sim_until_apply(&s, 20, 20000, 8), 5);
	UT_ASSERT(!s.ring.static_ids);
	UT_ASSERT_EQ_INT(s.ring.n_ids, 0);
	UT_ASSERT_STR_EQ(s.why, "policy is dynamic tracking: dropping static NAPI IDs 257,258");
}

/* the off ring comes back with the policy's tracking */
UT_TEST(retry_uses_policy_tracking)
{
	struct tuner_policy pol = default_policy();
	const uint32_t ids[] = { 257 };
	struct sim s;

	pol.tracking = TUNER_TRACK_STATIC;
	sim_init(&s, &pol, ids, 1);
	for (int i = 0; i < 100 && s.ring.enabled; i++)
		CHECK(sim_tick(&s, 20000, 5000));
	UT_ASSERT(!s.ring.enabled);
	UT_ASSERT_EQ_INT(sim_until_apply(&s, 100, 20000, 5000), pol.retry_s);
	UT_ASSERT(s.ring.enabled);
	UT_ASSERT(s.ring.static_ids);
	UT_ASSERT_EQ_INT(s.ring.ids[0], 257);
}

/* --- the first setting ------------------------------------------------------- */

UT_TEST(initial_setting)
{
	struct tuner_policy pol = default_policy();
	const uint32_t ids[UT_MAX_NAPI_IDS + 2] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	struct tuner_setting out;
	struct tuner_state st;

	/* leftovers of an earlier life are forgotten */
	memset(&st, 0x5a, sizeof(st));
	pol.prefer = true;
	tuner_initial(&pol, ids, 2, T0, &st, &out);
	UT_ASSERT(out.enabled);
	UT_ASSERT(out.prefer);
	UT_ASSERT_EQ_INT(out.busy_poll_us, 50);
	UT_ASSERT(!out.static_ids);
	UT_ASSERT_EQ_INT(out.n_ids, 0);
	UT_ASSERT(!memcmp(&st.cur, &out, sizeof(out)));
	UT_ASSERT_EQ_INT(st.last_change_ns, T0);
	UT_ASSERT_EQ_INT(st.off_since_ns, 0);
	UT_ASSERT_EQ_INT(st.windows, 0);
	UT_ASSERT_EQ_INT(st.paid, 0);
	UT_ASSERT_EQ_INT(st.waits, 0);
	UT_ASSERT_EQ_INT(st.waits_nosleep, 0);
	for (int i = 0; i < UT_HIST_SLOTS; i++)
		UT_ASSERT_EQ_INT(st.hist[i], 0);

	/* static: at most UT_MAX_NAPI_IDS IDs */
	pol.tracking = TUNER_TRACK_STATIC;
	tuner_initial(&pol, ids, UT_MAX_NAPI_IDS + 2, T0, &st, &out);
	UT_ASSERT(out.static_ids);
	UT_ASSERT_EQ_INT(out.n_ids, UT_MAX_NAPI_IDS);
	UT_ASSERT_EQ_INT(out.ids[UT_MAX_NAPI_IDS - 1], UT_MAX_NAPI_IDS);
	tuner_initial(&pol, NULL, 0, T0, &st, &out);
	UT_ASSERT(!out.static_ids);

	/* initial_us outside the bounds is brought within them */
	pol.initial_us = 5000;
	tuner_initial(&pol, NULL, 0, T0, &st, &out);
	UT_ASSERT_EQ_INT(out.busy_poll_us, 200);
	pol.initial_us = 0;
	tuner_initial(&pol, NULL, 0, T0, &st, &out);
	UT_ASSERT_EQ_INT(out.busy_poll_us, 10);
	/* a policy with min > max gets max */
	pol.min_us = 300;
	tuner_initial(&pol, NULL, 0, T0, &st, &out);
	UT_ASSERT_EQ_INT(out.busy_poll_us, 200);
}

/* tuner_applied: the setting, the time, off_since, no evidence */
UT_TEST(applied_records_setting)
{
	struct tuner_policy pol = default_policy();
	struct tuner_setting s;
	struct tuner_state st;
	struct tuner_input in = input_at(T0 + NSEC, 500, 400, 8);
	char why[64];

	memset(&st, 0, sizeof(st));
	tuner_initial(&pol, NULL, 0, T0, &st, &s);
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &s, why, sizeof(why)), TUNER_KEEP);
	UT_ASSERT_EQ_INT(st.paid, 400);
	s.enabled = false;
	tuner_applied(&st, &s, T0 + 2 * NSEC);
	UT_ASSERT(!st.cur.enabled);
	UT_ASSERT_EQ_INT(st.off_since_ns, T0 + 2 * NSEC);
	UT_ASSERT_EQ_INT(st.last_change_ns, T0 + 2 * NSEC);
	UT_ASSERT_EQ_INT(st.paid, 0);
	UT_ASSERT_EQ_INT(st.windows, 0);
	s.enabled = true;
	s.busy_poll_us = 77;
	tuner_applied(&st, &s, T0 + 3 * NSEC);
	UT_ASSERT_EQ_INT(st.off_since_ns, 0);
	UT_ASSERT_EQ_INT(st.cur.busy_poll_us, 77);
}

/* --- the quantile ------------------------------------------------------------ */

UT_TEST(quantile_edge_cases)
{
	uint64_t h[UT_HIST_SLOTS];

	memset(h, 0, sizeof(h));
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 95), 0);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 100), 0);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 0), 0);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(NULL, 95), 0);

	/* one slot: its upper edge whatever the percentage, 8192 ns -> 9 us */
	h[12] = 1;
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 95), 9);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 100), 9);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 0), 9);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 250), 9);

	/* sub-microsecond slots round up to 1 us; 1024 ns exactly is 2 us */
	memset(h, 0, sizeof(h));
	h[0] = 7;
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 95), 1);
	h[0] = 0;
	h[9] = 7;
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 95), 2);

	/* 94 windows in [1, 2) us, 6 in [8, 16) us */
	memset(h, 0, sizeof(h));
	h[10] = 94;
	h[13] = 6;
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 94), 3);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 95), 17);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 0), 3);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 100), 17);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 101), 17);
	/* exactly 95% covered counts */
	h[10] = 95;
	h[13] = 5;
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 95), 3);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 96), 17);
	/* fractional targets round up: 95% of 3 windows is all 3 */
	h[10] = 2;
	h[13] = 1;
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 95), 17);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 66), 3);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 67), 17);
}

UT_TEST(quantile_no_overflow)
{
	uint64_t h[UT_HIST_SLOTS];

	/* the top slot ends at 2^32 ns */
	memset(h, 0, sizeof(h));
	h[UT_HIST_SLOTS - 1] = UINT64_MAX;
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 95), 4294968);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 100), 4294968);

	/* counts whose sum overflows */
	h[0] = UINT64_MAX;
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 50), 1);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 51), 4294968);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 100), 4294968);

	for (int i = 0; i < UT_HIST_SLOTS; i++)
		h[i] = UINT64_MAX;
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 50), 66);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 100), 4294968);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 0), 1);

	/* one window in the top slot among 2^65 short ones still counts at 100% */
	memset(h, 0, sizeof(h));
	h[5] = UINT64_MAX;
	h[6] = UINT64_MAX;
	h[UT_HIST_SLOTS - 1] = 1;
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 100), 4294968);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 99), 1);

	/* large but not overflowing: the percentage math must not overflow */
	memset(h, 0, sizeof(h));
	h[10] = UINT64_MAX / 2;
	h[20] = UINT64_MAX / 2;
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 50), 3);
	UT_ASSERT_EQ_INT(tuner_hist_quantile_us(h, 51), 2098);
}

/* --- robustness ---------------------------------------------------------------- */

/* counters at their limits, paid beyond windows: saturation, sane settings */
UT_TEST(huge_and_inconsistent_counters)
{
	struct tuner_policy pol = default_policy();
	struct tuner_setting cur, out;
	struct tuner_state st;
	struct tuner_input in;
	char why[160];

	memset(&st, 0, sizeof(st));
	tuner_initial(&pol, NULL, 0, T0, &st, &cur);
	memset(&in, 0xff, sizeof(in));
	in.now_ns = T0 + NSEC;
	in.napi_ids = NULL;
	in.n_ids = 1000;	/* with no array: no IDs */
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_KEEP);
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_KEEP);
	UT_ASSERT(st.windows == UINT64_MAX);
	UT_ASSERT(st.hist[7] == UINT64_MAX);

	/* more paid than windows: a hit rate of at most 100% */
	memset(&st, 0, sizeof(st));
	tuner_initial(&pol, NULL, 0, T0, &st, &cur);
	in = input_at(T0 + 10 * NSEC, 2000, 4000, 8);
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_APPLY);
	UT_ASSERT_STR_CONTAINS(why, "hit rate 100%,");
	UT_ASSERT(out.enabled);

	/* a clock going backwards is no elapsed time */
	tuner_applied(&st, &out, T0 + 10 * NSEC);
	in = input_at(T0, 100000, 0, 0);
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_KEEP);

	/* more IDs than fit: the first UT_MAX_NAPI_IDS */
	{
		uint32_t many[UT_MAX_NAPI_IDS + 4];

		for (unsigned int i = 0; i < UT_MAX_NAPI_IDS + 4; i++)
			many[i] = 1000000000u + i;
		memset(&in, 0, sizeof(in));
		in.now_ns = T0 + 100 * NSEC;
		in.napi_ids = many;
		in.n_ids = UT_MAX_NAPI_IDS + 4;
		UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, why, sizeof(why)), TUNER_APPLY);
		UT_ASSERT(out.static_ids);
		UT_ASSERT_EQ_INT(out.n_ids, UT_MAX_NAPI_IDS);
		UT_ASSERT(strlen(why) < sizeof(why));
	}
}

/* why never overflows its buffer, and may be absent */
UT_TEST(why_fits_its_buffer)
{
	struct tuner_policy pol = default_policy();
	struct tuner_setting cur, out;
	struct tuner_state st;
	struct tuner_input in;
	char buf[32];

	memset(&st, 0, sizeof(st));
	tuner_initial(&pol, NULL, 0, T0, &st, &cur);
	memset(buf, '#', sizeof(buf));
	in = input_at(T0 + 10 * NSEC, 20000, 20000, 8);
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, buf, 16), TUNER_APPLY);
	UT_ASSERT_EQ_INT(strlen(buf), 15);
	UT_ASSERT_STR_EQ(buf, "hit rate 100%, ");
	for (size_t i = 16; i < sizeof(buf); i++)
		UT_ASSERT_EQ_INT(buf[i], '#');

	memset(&st, 0, sizeof(st));
	tuner_initial(&pol, NULL, 0, T0, &st, &cur);
	UT_ASSERT_EQ_INT(tuner_decide(&pol, &st, &in, &out, NULL, 0), TUNER_APPLY);
	UT_ASSERT_EQ_INT(out.busy_poll_us, 14);
}

int main(void)
{
	ut_run("steady_low_latency_converges", steady_low_latency_converges);
	ut_run("idle_ring_never_changes", idle_ring_never_changes);
	ut_run("bursts_with_idle_gaps", bursts_with_idle_gaps);
	ut_run("traffic_stops", traffic_stops);
	ut_run("low_hit_rate_with_short_paid_windows_shrinks",
	       low_hit_rate_with_short_paid_windows_shrinks);
	ut_run("timeout_grows_when_paid_windows_crowd_it", timeout_grows_when_paid_windows_crowd_it);
	ut_run("small_changes_skipped", small_changes_skipped);
	ut_run("rare_slow_windows_do_not_hold_timeout_high",
	       rare_slow_windows_do_not_hold_timeout_high);
	ut_run("keeps_paying_timeout_over_unprofitable_sized_one",
	       keeps_paying_timeout_over_unprofitable_sized_one);
	ut_run("arrivals_beyond_timeout_off_then_backoff", arrivals_beyond_timeout_off_then_backoff);
	ut_run("backoff_reset_when_retry_pays", backoff_reset_when_retry_pays);
	ut_run("backoff_cap", backoff_cap);
	ut_run("hopeless_traffic_turns_off", hopeless_traffic_turns_off);
	ut_run("no_doubling_on_hit_rate_near_zero", no_doubling_on_hit_rate_near_zero);
	ut_run("no_growth_without_timed_windows", no_growth_without_timed_windows);
	ut_run("off_ring_retried_only_when_waiting", off_ring_retried_only_when_waiting);
	ut_run("inefficient_at_high_hit_rate_off_without_growing",
	       inefficient_at_high_hit_rate_off_without_growing);
	ut_run("kernel_cap_on_timeout", kernel_cap_on_timeout);
	ut_run("measured_wakeup_cost_prices_the_windows", measured_wakeup_cost_prices_the_windows);
	ut_run("input_from_sleeps", input_from_sleeps);
	ut_run("settle_respected", settle_respected);
	ut_run("changing_traffic_never_faster_than_settle",
	       changing_traffic_never_faster_than_settle);
	ut_run("bursty_traffic_at_most_one_change_per_10_min",
	       bursty_traffic_at_most_one_change_per_10_min);
	ut_run("real_change_followed", real_change_followed);
	ut_run("min_windows_respected", min_windows_respected);
	ut_run("auto_goes_static_then_dynamic_on_new_id", auto_goes_static_then_dynamic_on_new_id);
	ut_run("auto_static_when_kernel_misses_an_id", auto_static_when_kernel_misses_an_id);
	ut_run("kernel_miss_static_keeps_the_kernels_ids", kernel_miss_static_keeps_the_kernels_ids);
	ut_run("kernel_miss_needs_a_later_copy", kernel_miss_needs_a_later_copy);
	ut_run("kernel_has_every_id_no_early_static", kernel_has_every_id_no_early_static);
	ut_run("no_static_lists_before_6_13", no_static_lists_before_6_13);
	ut_run("new_id_waits_for_settle", new_id_waits_for_settle);
	ut_run("static_policy", static_policy);
	ut_run("dynamic_policy_never_static", dynamic_policy_never_static);
	ut_run("retry_uses_policy_tracking", retry_uses_policy_tracking);
	ut_run("initial_setting", initial_setting);
	ut_run("applied_records_setting", applied_records_setting);
	ut_run("quantile_edge_cases", quantile_edge_cases);
	ut_run("quantile_no_overflow", quantile_no_overflow);
	ut_run("huge_and_inconsistent_counters", huge_and_inconsistent_counters);
	ut_run("why_fits_its_buffer", why_fits_its_buffer);
	return ut_finish();
}
