// SPDX-License-Identifier: GPL-2.0-only
/*
 * Observe mode's advice through the lifecycle, without a kernel (as
 * test_lifecycle.c, with synthetic statistics): a ring gets advice at its
 * first wait, the advice is what the tuner itself decides on the same input
 * (checked against a tuner run beside it), each change lands in the ring's
 * decisions, nothing is applied; a ring [select] leaves out gets none and
 * [select] is asked once, not each tick; tune mode records what it did.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice.h"
#include "lifecycle.h"
#include "uring_abi.h"
#include "unit.h"

#define NSEC	1000000000ULL
#define CTX	0xffff888100001000ULL

static uint64_t clock_ns;
static pid_t deselected_pid;
static unsigned int select_calls, applies;
static char dir[64];
static unsigned int host;

static uint64_t fake_now(void)
{
	return clock_ns;
}

static bool fake_selects(void *arg, pid_t pid, const char *comm, const char **why)
{
	(void)arg, (void)comm;
	select_calls++;
	*why = "excluded by exclude_comm";
	return pid != deselected_pid;
}

static int fake_apply(void *arg, const struct ut_ring *ring, const struct tuner_setting *s,
		      char *err, size_t errlen)
{
	(void)arg, (void)ring, (void)s, (void)err, (void)errlen;
	applies++;
	return 0;
}

static int fake_restore(void *arg, const struct journal_entry *e, char *err, size_t errlen)
{
	(void)arg, (void)e, (void)err, (void)errlen;
	return 0;
}

static struct ut_config cfg;
static struct ut_registry reg;
static struct lifecycle lc;

static void start(enum ut_mode mode)
{
	const struct lifecycle_env env = { .now = fake_now, .selects = fake_selects };
	char err[256];

	host++;
	config_defaults(&cfg);
	cfg.mode = mode;
	snprintf(cfg.state_dir, sizeof(cfg.state_dir), "%s/state%u", dir, host);
	memset(&lc, 0, sizeof(lc));
	clock_ns = 1000 * NSEC;
	deselected_pid = 0;
	select_calls = applies = 0;
	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	lc.self_pid = 4000;
	lc.napi_supported = true;
	lc.pidfd = (struct tune_backend){
		.name = "register", .journaled = true, .apply = fake_apply,
		.restore = fake_restore,
	};
	UT_ASSERT_EQ_INT(lifecycle_init(&lc, &reg, &cfg, &env, err, sizeof(err)), 0);
	lifecycle_settle_journal(&lc);
}

static void stop(void)
{
	lifecycle_fini(&lc);
	registry_free(&reg);
}

static struct ut_ring *add_ring(pid_t pid, uint32_t flags)
{
	struct ut_event ev = {
		.type = UT_EV_RING_CREATE, .tgid = pid, .fd = 5, .ctx = CTX, .ts_ns = clock_ns,
		.start_boottime = 77, .ino = 505, .setup_flags = flags,
	};
	struct ut_ring *ring;

	snprintf(ev.comm, sizeof(ev.comm), "app%d", pid);
	ev.napi.supported = 1;
	ev.napi.track_mode = UT_TRACK_INACTIVE;
	ring = registry_on_create(&reg, &ev, ev.ino);
	if (!ring)
		abort();
	ring->obs.have_stats = true;
	lifecycle_ring_found(&lc, ring, false);
	lifecycle_flush(&lc);
	return ring;
}

/* a second of traffic whose windows (almost) never pay, then a tick */
static void sparse_second(struct ut_ring *ring)
{
	struct ut_ring_stats *s = &ring->obs.stats;

	s->waits += 2000;
	s->busy_windows += 2000;
	s->busy_paid += 10;
	clock_ns += NSEC;
	lifecycle_tick(&lc);
}

static bool same(const struct tuner_setting *a, const struct tuner_setting *b)
{
	return a->enabled == b->enabled && (!a->enabled || (a->busy_poll_us == b->busy_poll_us &&
	       a->prefer == b->prefer && a->static_ids == b->static_ids));
}

UT_TEST(advice_is_the_tuners_decision)
{
	struct ut_ring *ring;
	const struct ring_advice *a;
	struct tuner_state ref;
	struct tuner_setting s;
	struct tuner_input in = { 0 };
	const struct decision *d;
	uint64_t t0;
	char why[200];

	start(UT_MODE_OBSERVE);
	ring = add_ring(100, 0);
	t0 = ring->obs.first_seen_ns;
	/* idle ticks: no advice, no decision, no [select] */
	for (int i = 0; i < 3; i++) {
		clock_ns += NSEC;
		lifecycle_tick(&lc);
	}
	UT_ASSERT(!lifecycle_advice(&lc, ring));
	UT_ASSERT_EQ_INT(decision_log_count(ring->tune.decisions), 0);
	UT_ASSERT_EQ_INT(select_calls, 0);

	/* the tuner beside it, started as tune mode starts a ring it takes */
	tuner_initial(&cfg.napi, NULL, 0, t0, &ref, &s);
	tuner_applied(&ref, &s, t0);
	for (int i = 0; i < 120; i++) {
		sparse_second(ring);
		in = (struct tuner_input){ .now_ns = clock_ns, .waits = 2000, .busy_windows = 2000,
					   .busy_paid = 10 };
		if (tuner_decide(&cfg.napi, &ref, &in, &s, why, sizeof(why)) == TUNER_APPLY)
			tuner_applied(&ref, &s, clock_ns);
		a = lifecycle_advice(&lc, ring);
		UT_ASSERT(a);
		UT_ASSERT(same(&a->shadow.cur, &ref.cur));
	}
	/* on at 50 us, off at the first decision, a retry after retry_s, off again */
	UT_ASSERT_EQ_INT(decision_log_count(ring->tune.decisions), 4);
	d = decision_log_get(ring->tune.decisions, 0);
	UT_ASSERT(d->enabled && d->busy_poll_us == 50);
	UT_ASSERT_STR_CONTAINS(d->why, "initial");
	d = decision_log_get(ring->tune.decisions, 1);
	UT_ASSERT(!d->enabled);
	UT_ASSERT_STR_CONTAINS(d->why, "off: ");
	d = decision_log_get(ring->tune.decisions, 2);
	UT_ASSERT(d->enabled);
	UT_ASSERT_STR_CONTAINS(d->why, "retrying");
	UT_ASSERT(!decision_log_last(ring->tune.decisions)->enabled);
	a = lifecycle_advice(&lc, ring);
	UT_ASSERT_EQ_INT(a->since_ns, decision_log_last(ring->tune.decisions)->mono_ns);
	/* advice only: the ring was never changed, [select] asked once */
	UT_ASSERT_EQ_INT(applies, 0);
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT(!ring->obs.napi.enabled);
	UT_ASSERT_EQ_INT(select_calls, 1);
	fprintf(stderr, "advice: %zu bytes per ring with advice\n", sizeof(struct ring_advice));
	stop();
}

/*
 * A ring without busy polling, as they all are in observe mode: its waits
 * say what the advice's timeout would have done. Woken ~5 ms into each
 * sleep (a server between sparse requests): off at the first decision.
 * Woken ~5 us in (a client waiting for its reply): on, sized to them.
 */
static void sleeps_second(struct ut_ring *ring, uint64_t gap_ns)
{
	struct ut_ring_stats *s = &ring->obs.stats;

	s->waits += 2000;
	s->waits_nosleep += 20;
	s->sleeps_woken += 1980;
	s->sleep_gap_hist[63 - __builtin_clzll(gap_ns)] += 1980;
	clock_ns += NSEC;
	lifecycle_tick(&lc);
}

UT_TEST(advice_from_the_waits)
{
	const struct ring_advice *a;
	struct ut_ring *ring;

	start(UT_MODE_OBSERVE);
	ring = add_ring(100, 0);
	ring->obs.stats.napi_ids[0] = 300;
	/* (its NAPI ID goes static after static_after_s: a decision of its own) */
	for (int i = 0; i < 20; i++)
		sleeps_second(ring, 5000000);
	a = lifecycle_advice(&lc, ring);
	UT_ASSERT(a && !a->shadow.cur.enabled);
	UT_ASSERT_STR_CONTAINS(decision_log_last(ring->tune.decisions)->why, "off: 1% of");
	stop();

	start(UT_MODE_OBSERVE);
	ring = add_ring(100, 0);
	ring->obs.stats.napi_ids[0] = 300;
	for (int i = 0; i < 30; i++)
		sleeps_second(ring, 5000);
	a = lifecycle_advice(&lc, ring);
	UT_ASSERT(a && a->shadow.cur.enabled);
	/* the 5 us slot ends at 8.2 us, plus headroom: ~14 us, not the initial 50 us */
	UT_ASSERT(a->shadow.cur.busy_poll_us >= 9 && a->shadow.cur.busy_poll_us <= 20);
	UT_ASSERT_STR_CONTAINS(decision_log_last(ring->tune.decisions)->why, "us");
	UT_ASSERT_EQ_INT(applies, 0);
	stop();
}

UT_TEST(excluded_ring_has_none)
{
	struct ut_ring *ring;

	start(UT_MODE_OBSERVE);
	deselected_pid = 100;
	ring = add_ring(100, 0);
	clock_ns += NSEC;
	lifecycle_tick(&lc);
	for (int i = 0; i < 30; i++)
		sparse_second(ring);
	UT_ASSERT(!lifecycle_advice(&lc, ring));
	UT_ASSERT_EQ_INT(decision_log_count(ring->tune.decisions), 0);
	UT_ASSERT_STR_EQ(ring->tune.excluded, "excluded by exclude_comm");
	/* asked once, not each tick: it reads /proc */
	UT_ASSERT_EQ_INT(select_calls, 1);
	/* a reload that selects it: asked again, advice from the next tick */
	deselected_pid = 0;
	lifecycle_reselect(&lc);
	sparse_second(ring);
	UT_ASSERT_EQ_INT(select_calls, 2);
	UT_ASSERT(!ring->tune.excluded);
	UT_ASSERT(lifecycle_advice(&lc, ring));
	UT_ASSERT_STR_CONTAINS(decision_log_get(ring->tune.decisions, 0)->why, "initial");
	/* ... and one that leaves it out again: no advice */
	deselected_pid = 100;
	lifecycle_reselect(&lc);
	sparse_second(ring);
	UT_ASSERT(!lifecycle_advice(&lc, ring));
	UT_ASSERT(ring->tune.excluded);
	stop();
}

/* rings tune mode would not take get none: SINGLE_ISSUER from outside, IOPOLL */
UT_TEST(untunable_ring_has_none)
{
	struct ut_ring *ring;

	start(UT_MODE_OBSERVE);
	ring = add_ring(100, UT_SETUP_SINGLE_ISSUER);
	clock_ns += NSEC;
	lifecycle_tick(&lc);
	for (int i = 0; i < 10; i++)
		sparse_second(ring);
	UT_ASSERT(!lifecycle_advice(&lc, ring));
	UT_ASSERT(!ring->tune.advice);
	UT_ASSERT_EQ_INT(select_calls, 0);
	stop();
	start(UT_MODE_OBSERVE);
	ring = add_ring(100, UT_SETUP_IOPOLL);
	clock_ns += NSEC;
	lifecycle_tick(&lc);
	for (int i = 0; i < 10; i++)
		sparse_second(ring);
	UT_ASSERT(!lifecycle_advice(&lc, ring));
	stop();
}

/* tune mode: no advice, the real changes in the history: the take, the tuner's, set, reset */
UT_TEST(tune_mode_records_its_changes)
{
	struct ut_ring *ring;
	const struct decision *d;
	char why[256];

	start(UT_MODE_TUNE);
	ring = add_ring(100, 0);
	UT_ASSERT_EQ_INT(applies, 1);
	UT_ASSERT_EQ_INT(decision_log_count(ring->tune.decisions), 1);
	d = decision_log_get(ring->tune.decisions, 0);
	UT_ASSERT(d->enabled && d->busy_poll_us == 50);
	UT_ASSERT_STR_CONTAINS(d->why, "taken: ");
	clock_ns += NSEC;
	lifecycle_tick(&lc);
	for (int i = 0; i < 10; i++)
		sparse_second(ring);
	UT_ASSERT_EQ_INT(applies, 2);
	UT_ASSERT(!lifecycle_advice(&lc, ring));
	UT_ASSERT(!ring->tune.advice);
	UT_ASSERT_EQ_INT(decision_log_count(ring->tune.decisions), 2);
	d = decision_log_last(ring->tune.decisions);
	UT_ASSERT(!d->enabled);
	UT_ASSERT_STR_EQ(d->why, ring->tune.last_decision);
	/* the operator's set, then reset: back as the application had it (NAPI off) */
	UT_ASSERT_EQ_INT(lifecycle_set(&lc, 100, 5, &(struct tuner_setting){ .enabled = true,
			 .busy_poll_us = 30 }, false, why, sizeof(why)), 0);
	d = decision_log_last(ring->tune.decisions);
	UT_ASSERT(d->enabled && d->busy_poll_us == 30);
	UT_ASSERT_STR_CONTAINS(d->why, "pinned by uringtune set");
	UT_ASSERT_EQ_INT(lifecycle_reset(&lc, 100, 5, why, sizeof(why)), 0);
	UT_ASSERT_EQ_INT(decision_log_count(ring->tune.decisions), 4);
	d = decision_log_last(ring->tune.decisions);
	UT_ASSERT(!d->enabled);
	UT_ASSERT_STR_CONTAINS(d->why, "restored: ");
	stop();
}

int main(void)
{
	char tmpl[] = "/tmp/uringtune-advice-XXXXXX";

	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s", tmpl);
	ut_run("advice_is_the_tuners_decision", advice_is_the_tuners_decision);
	ut_run("advice_from_the_waits", advice_from_the_waits);
	ut_run("excluded_ring_has_none", excluded_ring_has_none);
	ut_run("untunable_ring_has_none", untunable_ring_has_none);
	ut_run("tune_mode_records_its_changes", tune_mode_records_its_changes);
	return ut_finish();
}
