// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ring lifecycle's orchestration, without a kernel: a fake backend that
 * records every call and answers as told, an injected clock, and a journal
 * in a temporary directory. What must hold: no change without a journal
 * entry on disk first; a refusal leaves no entry and a refused ring; a start
 * after a crash drops, re-adopts or restores each entry as the ring and the
 * mode say; an application taking a ring over keeps its own settings.
 *
 * The journal's commits are synchronous here but for the tests named
 * threaded_*: there the daemon's committer thread writes, held at a gate
 * (commit_gate.h) for as long as a test wants its fsync to last.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commit_gate.h"
#include "lifecycle.h"
#include "log.h"
#include "uring_abi.h"
#include "unit.h"

#define RING_A	0xffff888100001000ULL
#define RING_B	0xffff888100002000ULL
#define SELF	4000

/* the fake backend: what it was asked, and what it answers */
struct fake {
	unsigned int applies, restores;
	struct tuner_setting last;
	struct journal_entry restored;
	int apply_ret, restore_ret;
	unsigned int journal_n_at_apply;	/* entries in the journal when it was called */
	bool not_durable;		/* a ring changed before its entry was on disk */
	pid_t last_pid;			/* the ring it was last asked to change */
	struct lifecycle *lc;
};

static struct fake fake;
static uint64_t clock_ns;
static bool select_ok = true;
static char dir[64];
static unsigned int host;	/* each test its own state directory */

static uint64_t fake_now(void)
{
	return clock_ns;
}

/* the daemon tuning the host, as instance_tuner() would say (0: none) */
static pid_t tuner_pid;

static pid_t fake_tuner(void *arg)
{
	(void)arg;
	return tuner_pid;
}

/* the rings that daemon journaled: those of pid 7000's journal here, by pid */
static pid_t elsewhere_pid;

static bool fake_tuned_elsewhere(void *arg, const struct ut_ring *ring)
{
	(void)arg;
	return tuner_pid && tuner_pid != SELF && ring->obs.holder.pid == elsewhere_pid;
}

/* a process [select] leaves out, whatever select_ok says (0: none) */
static pid_t deselected_pid;

static bool fake_selects(void *arg, pid_t pid, const char *comm, const char **why)
{
	(void)arg, (void)comm;
	*why = "excluded by exclude_comm";
	return select_ok && pid != deselected_pid;
}

static int fake_apply(void *arg, const struct ut_ring *ring, const struct tuner_setting *s,
		      char *err, size_t errlen)
{
	struct fake *f = arg;

	f->applies++;
	f->last = *s;
	f->last_pid = ring->obs.holder.pid;
	f->journal_n_at_apply = f->lc->journal.n;
	/* the journaled backend: never a change before the entry is on disk */
	if (f == &fake && !journal_durable(&f->lc->journal, ring->ctx))
		f->not_durable = true;
	if (f->apply_ret)
		snprintf(err, errlen, "refused by the fake backend");
	return f->apply_ret;
}

static int fake_restore(void *arg, const struct journal_entry *e, char *err, size_t errlen)
{
	struct fake *f = arg;

	f->restores++;
	f->restored = *e;
	if (f->restore_ret)
		snprintf(err, errlen, "restore refused by the fake backend");
	return f->restore_ret;
}

static struct ut_config cfg;
static struct ut_registry reg;
static struct lifecycle lc;

/* a lifecycle in mode over a fresh registry and the journal this host has */
static void restart(enum ut_mode mode)
{
	const struct lifecycle_env env = {
		.now = fake_now, .selects = fake_selects, .tuner = fake_tuner,
		.tuned_elsewhere = fake_tuned_elsewhere,
	};
	char err[256];

	config_defaults(&cfg);
	cfg.mode = mode;
	snprintf(cfg.state_dir, sizeof(cfg.state_dir), "%s/state%u", dir, host);
	memset(&fake, 0, sizeof(fake));
	memset(&lc, 0, sizeof(lc));
	fake.lc = &lc;
	select_ok = true;
	deselected_pid = 0;
	tuner_pid = mode == UT_MODE_TUNE ? SELF : 0;
	clock_ns = 1000000000ULL;
	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	lc.self_pid = SELF;
	lc.napi_supported = true;
	lc.pidfd = (struct tune_backend){
		.name = "register", .journaled = true,
		.apply = fake_apply, .restore = fake_restore, .arg = &fake,
	};
	UT_ASSERT_EQ_INT(lifecycle_init(&lc, &reg, &cfg, &env, err, sizeof(err)), 0);
}

/* a new host: nothing left by an earlier test */
static void start(enum ut_mode mode)
{
	host++;
	restart(mode);
}

/* a crash: memory gone, the journal stays on disk */
static void crash(void)
{
	lifecycle_fini(&lc);
	registry_free(&reg);
}

static struct ut_ring *add_ring(uint64_t ctx, pid_t pid, int fd, uint32_t flags, bool napi_on)
{
	struct ut_event ev = {
		.type = UT_EV_RING_CREATE, .tgid = pid, .fd = fd, .ctx = ctx,
		.ts_ns = clock_ns, .start_boottime = 77, .ino = 500 + fd, .setup_flags = flags,
	};
	struct ut_ring *ring;

	snprintf(ev.comm, sizeof(ev.comm), "app%d", pid);
	ev.napi.supported = 1;
	ev.napi.enabled = napi_on;
	ev.napi.busy_poll_ns = napi_on ? 50000 : 0;
	ev.napi.track_mode = napi_on ? UT_TRACK_DYNAMIC : UT_TRACK_INACTIVE;
	ring = registry_on_create(&reg, &ev, ev.ino);
	if (!ring)
		abort();	/* out of memory: nothing below would mean anything */
	return ring;
}

/* found by the first sweep of a new run (NAPI on: the app's, or ours left behind) */
static struct ut_ring *sweep_ring(uint64_t ctx, pid_t pid, int fd, bool napi_on)
{
	struct ut_ring *ring = add_ring(ctx, pid, fd, 0, napi_on);

	lifecycle_ring_found(&lc, ring, true);
	return ring;
}

static struct ut_event register_event(const struct ut_ring *ring, pid_t pid, int ret,
				      unsigned int us)
{
	struct ut_event ev = {
		.type = UT_EV_NAPI_REGISTER, .tgid = pid, .ctx = ring->ctx, .opcode = 27, .ret = ret,
	};

	ev.napi.supported = 1;
	ev.napi.enabled = us != 0;
	ev.napi.busy_poll_ns = us * 1000ULL;
	ev.napi.track_mode = us ? UT_TRACK_DYNAMIC : UT_TRACK_INACTIVE;
	return ev;
}

UT_TEST(take_journals_before_the_backend)
{
	struct ut_ring *ring;

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	ring = add_ring(RING_A, 100, 5, 0, false);
	lifecycle_ring_found(&lc, ring, false);
	UT_ASSERT(ring->tune.queued);
	UT_ASSERT_EQ_INT(fake.applies, 0);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(fake.applies, 1);
	/* the entry was on disk when the backend was called */
	UT_ASSERT_EQ_INT(fake.journal_n_at_apply, 1);
	UT_ASSERT(!fake.not_durable);
	UT_ASSERT(fake.last.enabled);
	UT_ASSERT_EQ_INT(fake.last.busy_poll_us, cfg.napi.initial_us);
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_URINGTUNE);
	UT_ASSERT_EQ_INT(lc.actions_ok, 1);
	UT_ASSERT(ring->obs.napi.enabled);
	UT_ASSERT(journal_find(&lc.journal, RING_A) != NULL);
	/* its reaction time comes from the injected clock */
	UT_ASSERT_EQ_INT(ring->tune.reaction_ns, 0);
	crash();
}

UT_TEST(journal_write_fails_backend_never_called)
{
	char state[PATH_MAX], err[160];
	struct ut_ring *ring;

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	/* the state directory vanishes: no temporary file can be made */
	snprintf(state, sizeof(state), "%s", cfg.state_dir);
	UT_ASSERT_EQ_INT(rmdir(state), 0);
	ring = add_ring(RING_A, 100, 5, 0, false);
	lifecycle_ring_found(&lc, ring, false);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(fake.applies, 0);
	UT_ASSERT_EQ_INT(lc.actions_failed, 1);
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT_STR_CONTAINS(ring->tune.error, "cannot write the journal");
	/* uringtune set too: no change without a way back */
	UT_ASSERT(lifecycle_set(&lc, 100, 5, &(struct tuner_setting){ .enabled = true,
				.busy_poll_us = 30 }, false, err, sizeof(err)) < 0);
	UT_ASSERT_STR_CONTAINS(err, "cannot write the journal");
	UT_ASSERT_EQ_INT(fake.applies, 0);
	UT_ASSERT_EQ_INT(mkdir(state, 0700), 0);
	crash();
}

UT_TEST(backend_refuses_entry_dropped_ring_refused)
{
	struct ut_ring *ring;

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	fake.apply_ret = -EEXIST;
	ring = add_ring(RING_A, 100, 5, 0, false);
	lifecycle_ring_found(&lc, ring, false);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(fake.applies, 1);
	UT_ASSERT_EQ_INT(fake.journal_n_at_apply, 1);
	/* nothing was changed: the entry undoes nothing and is gone */
	UT_ASSERT_EQ_INT(lc.journal.n, 0);
	UT_ASSERT(ring->tune.refused);
	UT_ASSERT_STR_CONTAINS(ring->tune.error, "refused by the fake backend");
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT_EQ_INT(lc.actions_failed, 1);
	/* not retried at the next tick */
	lifecycle_tick(&lc);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(fake.applies, 1);
	crash();
}

/* a ring that went away before it could be changed is no refusal worth a warning */
UT_TEST(backend_ring_gone)
{
	struct ut_ring *ring;

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	fake.apply_ret = -ESRCH;
	ring = add_ring(RING_A, 100, 5, 0, false);
	lifecycle_ring_found(&lc, ring, false);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(lc.journal.n, 0);
	UT_ASSERT_STR_CONTAINS(ring->tune.error, "ring went away");
	/* nor a failure: counted apart */
	UT_ASSERT_EQ_INT(lc.actions_failed, 0);
	UT_ASSERT_EQ_INT(lc.actions_vanished, 1);
	crash();
}

/* run 1 takes two rings and dies; run 2 finds one gone, one still on */
static void crash_with_two_rings(void)
{
	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	lifecycle_ring_found(&lc, add_ring(RING_A, 100, 5, 0, false), false);
	lifecycle_ring_found(&lc, add_ring(RING_B, 200, 6, 0, false), false);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(lc.journal.n, 2);
	crash();
}

UT_TEST(settle_ring_gone_dropped)
{
	crash_with_two_rings();
	restart(UT_MODE_TUNE);
	UT_ASSERT_EQ_INT(lc.journal.n, 2);
	/* only B is still there, and it is another ring at B's address now */
	sweep_ring(RING_B, 201, 6, false);
	lifecycle_settle_journal(&lc);
	UT_ASSERT_EQ_INT(lc.journal.n, 0);
	UT_ASSERT_EQ_INT(fake.restores, 0);
	UT_ASSERT(lc.ready);
	crash();
}

UT_TEST(settle_tune_mode_readopts)
{
	struct ut_ring *a;

	crash_with_two_rings();
	restart(UT_MODE_TUNE);
	/* A as run 1 left it: NAPI on (so it looks like an app's at first) */
	a = sweep_ring(RING_A, 100, 5, true);
	UT_ASSERT_EQ_INT(a->tune.managed_by, UT_MANAGED_APP);
	lifecycle_settle_journal(&lc);
	UT_ASSERT_EQ_INT(a->tune.managed_by, UT_MANAGED_URINGTUNE);
	UT_ASSERT_EQ_INT(a->tune.tuner.cur.busy_poll_us, 50);
	UT_ASSERT_EQ_INT(fake.restores, 0);
	UT_ASSERT_EQ_INT(fake.applies, 0);
	/* still journaled: a stop puts it back */
	UT_ASSERT(journal_find(&lc.journal, RING_A) != NULL);
	UT_ASSERT_EQ_INT(lc.journal.n, 1);
	UT_ASSERT_EQ_INT(lifecycle_stop(&lc), 0);
	UT_ASSERT_EQ_INT(fake.restores, 1);
	UT_ASSERT_EQ_INT(fake.restored.ctx, RING_A);
	UT_ASSERT(!fake.restored.enabled);
	UT_ASSERT_EQ_INT(lc.journal.n, 0);
	UT_ASSERT_EQ_INT(a->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT(!a->obs.napi.enabled);
	crash();
}

UT_TEST(settle_observe_mode_restores)
{
	struct ut_ring *a;

	crash_with_two_rings();
	restart(UT_MODE_OBSERVE);
	a = sweep_ring(RING_A, 100, 5, true);
	lifecycle_settle_journal(&lc);
	UT_ASSERT_EQ_INT(fake.restores, 1);
	UT_ASSERT_EQ_INT(fake.restored.pid, 100);
	UT_ASSERT_EQ_INT(fake.restored.fd, 5);
	UT_ASSERT_EQ_INT(a->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT(!a->obs.napi.enabled);
	UT_ASSERT_EQ_INT(lc.journal.n, 0);
	crash();
}

/* a restore the kernel refuses keeps the entry for the next start */
UT_TEST(settle_restore_refused_kept)
{
	crash_with_two_rings();
	restart(UT_MODE_OBSERVE);
	sweep_ring(RING_A, 100, 5, true);
	sweep_ring(RING_B, 200, 6, true);
	fake.restore_ret = -EPERM;
	lifecycle_settle_journal(&lc);
	UT_ASSERT_EQ_INT(fake.restores, 2);
	UT_ASSERT_EQ_INT(lc.journal.n, 2);
	crash();
}

UT_TEST(app_takeover_forgets_undoes_nothing)
{
	struct ut_event ev;
	struct ut_ring *a;

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	a = add_ring(RING_A, 100, 5, 0, false);
	lifecycle_ring_found(&lc, a, false);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(lc.journal.n, 1);
	/* our own register call is not the application's */
	ev = register_event(a, SELF, 0, 26);
	UT_ASSERT(!lifecycle_on_register(&lc, a, &ev, false));
	UT_ASSERT_EQ_INT(a->tune.managed_by, UT_MANAGED_URINGTUNE);
	/* the application's is */
	ev = register_event(a, 100, 0, 200);
	UT_ASSERT(lifecycle_on_register(&lc, a, &ev, false));
	UT_ASSERT_EQ_INT(a->tune.managed_by, UT_MANAGED_APP);
	UT_ASSERT_EQ_INT(a->obs.napi.busy_poll_ns, 200000);
	UT_ASSERT_EQ_INT(lc.journal.n, 0);
	/* a stop restores nothing over the application's choice */
	UT_ASSERT_EQ_INT(lifecycle_stop(&lc), 0);
	UT_ASSERT_EQ_INT(fake.restores, 0);
	/* and the tuner leaves it alone */
	lifecycle_tick(&lc);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(fake.applies, 1);
	crash();
}

UT_TEST(observe_mode_changes_nothing)
{
	start(UT_MODE_OBSERVE);
	lifecycle_settle_journal(&lc);
	lifecycle_ring_found(&lc, add_ring(RING_A, 100, 5, 0, false), false);
	lifecycle_tick(&lc);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(fake.applies, 0);
	UT_ASSERT_EQ_INT(lc.journal.n, 0);
	crash();
}

/* nothing is taken before the previous run's journal is settled */
UT_TEST(nothing_before_settle)
{
	start(UT_MODE_TUNE);
	lifecycle_ring_found(&lc, add_ring(RING_A, 100, 5, 0, false), false);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(fake.applies, 0);
	crash();
}

UT_TEST(select_and_flags_gate_taking)
{
	struct ut_ring *si;

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	select_ok = false;
	lifecycle_ring_found(&lc, add_ring(RING_A, 100, 5, 0, false), false);
	/* SINGLE_ISSUER: EEXIST from outside; not taken without an agent */
	select_ok = true;
	si = add_ring(RING_B, 200, 6, UT_SETUP_SINGLE_ISSUER, false);
	lifecycle_ring_found(&lc, si, false);
	/* our own rings neither */
	lifecycle_ring_found(&lc, add_ring(RING_A + 0x100, SELF, 7, 0, false), false);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(fake.applies, 0);
	UT_ASSERT_EQ_INT(lc.journal.n, 0);
	crash();
}

/* a gone ring's entry goes with it; a stop then has nothing to restore */
UT_TEST(ring_gone_drops_entry)
{
	struct ut_ring *a;

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	a = add_ring(RING_A, 100, 5, 0, false);
	lifecycle_ring_found(&lc, a, false);
	lifecycle_flush(&lc);
	lifecycle_ring_gone(&lc, a);
	lifecycle_drop_gone(&lc);
	UT_ASSERT_EQ_INT(lc.journal.n, 0);
	UT_ASSERT_EQ_INT(lifecycle_stop(&lc), 0);
	UT_ASSERT_EQ_INT(fake.restores, 0);
	crash();
}

/* many rings gone in one sweep: one journal write, and only their entries */
UT_TEST(rings_gone_dropped_in_one_write)
{
	struct ut_ring *rings[50], *b;
	uint64_t before;

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	for (int i = 0; i < 50; i++) {
		rings[i] = add_ring(RING_A + 0x1000 * (uint64_t)i, 100 + i, 5, 0, false);
		lifecycle_ring_found(&lc, rings[i], false);
	}
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(lc.journal.n, 50);
	before = lc.journal.writes;
	/* 49 go (the last one stays), in reverse order, and nothing is written yet */
	for (int i = 48; i >= 0; i--)
		lifecycle_ring_gone(&lc, rings[i]);
	UT_ASSERT_EQ_INT(lc.journal.n, 50);
	UT_ASSERT_EQ_INT(lc.journal.writes, before);
	/* a new ring at a gone one's address, taken before the drop: its entry stays */
	registry_remove(&reg, RING_A);
	b = add_ring(RING_A, 900, 9, 0, false);
	lifecycle_ring_found(&lc, b, false);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(lc.journal.n, 50);
	before = lc.journal.writes;
	lifecycle_drop_gone(&lc);
	UT_ASSERT_EQ_INT(lc.journal.writes, before + 1);
	UT_ASSERT_EQ_INT(lc.journal.n, 2);
	UT_ASSERT(journal_find(&lc.journal, RING_A) != NULL);
	UT_ASSERT_EQ_INT(journal_find(&lc.journal, RING_A)->pid, 900);
	UT_ASSERT(journal_find(&lc.journal, RING_A + 0x1000 * 49ULL) != NULL);
	/* nothing gone since: no write */
	before = lc.journal.writes;
	lifecycle_drop_gone(&lc);
	UT_ASSERT_EQ_INT(lc.journal.writes, before);
	crash();
}

/*
 * Rings born and closed at one address between two drops (the kernel reuses
 * a freed ring's memory at once): the entry of the last one taken goes, whichever
 * of them a search of the gone rings meets first.
 */
UT_TEST(rings_gone_at_one_address_dropped)
{
	struct ut_ring *r;

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	for (int i = 0; i < 5; i++) {
		registry_remove(&reg, RING_A);
		r = add_ring(RING_A, 100, 5, 0, false);
		r->obs.holder.ino = 1000 + (uint64_t)i;	/* a new file each time */
		lifecycle_ring_found(&lc, r, false);
		lifecycle_flush(&lc);
		UT_ASSERT_EQ_INT(lc.journal.n, 1);
		UT_ASSERT_EQ_INT(journal_find(&lc.journal, RING_A)->ino, 1000 + i);
		lifecycle_ring_gone(&lc, r);
	}
	lifecycle_drop_gone(&lc);
	UT_ASSERT_EQ_INT(lc.journal.n, 0);
	crash();
}

/* a start after a crash: every gone ring's entry dropped in one write */
UT_TEST(settle_gone_in_one_write)
{
	uint64_t before;

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	for (int i = 0; i < 20; i++)
		lifecycle_ring_found(&lc, add_ring(RING_A + 0x1000 * (uint64_t)i, 100 + i, 5, 0,
						   false), false);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(lc.journal.n, 20);
	crash();
	restart(UT_MODE_TUNE);
	/* only ring 3 is still there, still tuned */
	sweep_ring(RING_A + 0x3000, 103, 5, true);
	before = lc.journal.writes;
	lifecycle_settle_journal(&lc);
	UT_ASSERT_EQ_INT(lc.journal.n, 1);
	UT_ASSERT(journal_find(&lc.journal, RING_A + 0x3000) != NULL);
	UT_ASSERT_EQ_INT(lc.journal.writes, before + 1);
	UT_ASSERT_EQ_INT(fake.restores, 0);
	crash();
}

/*
 * Another daemon tunes this host, this one observes: that daemon's register
 * calls are uringtune's, not the application's, and so is a ring found with
 * NAPI on that it journaled.
 */
UT_TEST(other_daemons_calls_are_not_the_apps)
{
	struct ut_event ev;
	struct ut_ring *a, *b;

	start(UT_MODE_OBSERVE);
	tuner_pid = 7000;
	lifecycle_settle_journal(&lc);
	a = add_ring(RING_A, 100, 5, 0, false);
	lifecycle_ring_found(&lc, a, false);
	ev = register_event(a, 7000, 0, 50);
	UT_ASSERT(!lifecycle_on_register(&lc, a, &ev, false));
	UT_ASSERT_EQ_INT(a->tune.managed_by, UT_MANAGED_NONE);
	/* the kernel's state is noted all the same */
	UT_ASSERT(a->obs.napi.enabled);
	/* found with NAPI on: that daemon's doing if its journal has the ring */
	elsewhere_pid = 200;
	b = sweep_ring(RING_B, 200, 6, true);
	UT_ASSERT_EQ_INT(b->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT_EQ_INT(sweep_ring(RING_B + 0x300, 203, 6, true)->tune.managed_by,
			 UT_MANAGED_APP);
	/* the application's own call still makes it the application's */
	ev = register_event(a, 100, 0, 200);
	UT_ASSERT(lifecycle_on_register(&lc, a, &ev, false));
	UT_ASSERT_EQ_INT(a->tune.managed_by, UT_MANAGED_APP);
	/* no daemon tunes: NAPI on at the first sweep is the application's */
	tuner_pid = 0;
	UT_ASSERT_EQ_INT(sweep_ring(RING_B + 0x100, 201, 6, true)->tune.managed_by,
			 UT_MANAGED_APP);
	/* this daemon tunes: its own calls never were the app's, another pid's are */
	tuner_pid = SELF;
	elsewhere_pid = 202;
	UT_ASSERT_EQ_INT(sweep_ring(RING_B + 0x200, 202, 6, true)->tune.managed_by,
			 UT_MANAGED_APP);
	ev = register_event(b, 7000, 0, 50);
	UT_ASSERT(lifecycle_on_register(&lc, b, &ev, false));
	UT_ASSERT_EQ_INT(b->tune.managed_by, UT_MANAGED_APP);
	crash();
}

/* `set` on a ring [select] leaves out: refused naming the rule, unless forced */
UT_TEST(set_respects_select_unless_forced)
{
	struct tuner_setting s = { .enabled = true, .busy_poll_us = 30 };
	struct ut_ring *a;
	char err[256];

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	select_ok = false;
	a = add_ring(RING_A, 100, 5, 0, false);
	lifecycle_ring_found(&lc, a, false);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(lifecycle_set(&lc, 100, 5, &s, false, err, sizeof(err)), -EPERM);
	UT_ASSERT_STR_CONTAINS(err, "excluded by exclude_comm; use --force to tune it anyway");
	UT_ASSERT_EQ_INT(fake.applies, 0);
	UT_ASSERT_EQ_INT(lc.journal.n, 0);
	UT_ASSERT_EQ_INT(lifecycle_set(&lc, 100, 5, &s, true, err, sizeof(err)), 0);
	UT_ASSERT_EQ_INT(fake.applies, 1);
	UT_ASSERT_EQ_INT(lc.journal.n, 1);
	UT_ASSERT(a->tune.pinned && a->tune.forced);
	/* reset forgets the force with the pin */
	UT_ASSERT_EQ_INT(lifecycle_reset(&lc, 100, 5, err, sizeof(err)), 0);
	UT_ASSERT(!a->tune.pinned && !a->tune.forced);
	crash();
}

/*
 * A reload narrows [select]: the tuned ring and the ring pinned without
 * --force go back through the journal; the one pinned with --force stays.
 */
UT_TEST(reselect_restores_what_select_releases)
{
	struct tuner_setting s = { .enabled = true, .busy_poll_us = 30 };
	struct ut_ring *a, *b, *c;
	char err[256];

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	a = add_ring(RING_A, 100, 5, 0, false);
	b = add_ring(RING_B, 101, 6, 0, false);
	c = add_ring(RING_A + 0x100, 102, 7, 0, false);
	lifecycle_ring_found(&lc, a, false);
	lifecycle_ring_found(&lc, b, false);
	lifecycle_ring_found(&lc, c, false);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(lifecycle_set(&lc, 101, 6, &s, false, err, sizeof(err)), 0);
	UT_ASSERT_EQ_INT(lifecycle_set(&lc, 102, 7, &s, true, err, sizeof(err)), 0);
	UT_ASSERT_EQ_INT(lc.journal.n, 3);
	/* nothing left out: nothing happens */
	lifecycle_reselect(&lc);
	UT_ASSERT_EQ_INT(fake.restores, 0);
	select_ok = false;
	lifecycle_reselect(&lc);
	UT_ASSERT_EQ_INT(fake.restores, 2);
	UT_ASSERT_EQ_INT(lc.journal.n, 1);
	UT_ASSERT(journal_find(&lc.journal, c->ctx) != NULL);
	UT_ASSERT_EQ_INT(a->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT_EQ_INT(b->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT(!b->tune.pinned);
	UT_ASSERT_EQ_INT(c->tune.managed_by, UT_MANAGED_URINGTUNE);
	/* and not taken again while [select] leaves them out */
	lifecycle_tick(&lc);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(fake.applies, 5);
	/* a wider [select] later takes them again */
	select_ok = true;
	lifecycle_tick(&lc);
	lifecycle_flush(&lc);
	UT_ASSERT_EQ_INT(fake.applies, 7);
	UT_ASSERT_EQ_INT(lc.journal.n, 3);
	crash();
}

/* stderr into a file while @fn runs; its text, or "" */
static const char *captured(void (*fn)(void))
{
	static char buf[16384];
	char path[PATH_MAX];
	int fd, saved;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/stderr", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	saved = dup(STDERR_FILENO);
	if (fd < 0 || saved < 0)
		return "";
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	fn();
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

static unsigned int burst_n;

static void find_and_flush(void)
{
	static uint64_t next = RING_A;

	for (unsigned int i = 0; i < burst_n; i++) {
		next += 0x1000;
		lifecycle_ring_found(&lc, add_ring(next, 1000 + i, 5, i % 4 ? 0 :
						   UT_SETUP_SINGLE_ISSUER, false), false);
	}
	lifecycle_flush(&lc);
}

static unsigned int count_lines(const char *text, const char *s)
{
	unsigned int n = 0;

	for (const char *p = text; (p = strstr(p, s)); p++)
		n++;
	return n;
}

/* many rings at once: one summary line at info, each ring's at debug */
UT_TEST(burst_logs_one_summary_line)
{
	int level = log_get_level();
	const char *out;

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	log_set_level(LOG_INFO);
	burst_n = 40;
	out = captured(find_and_flush);
	UT_ASSERT_EQ_INT(fake.applies, 30);
	UT_ASSERT_EQ_INT(count_lines(out, "\n"), 1);
	UT_ASSERT_STR_CONTAINS(out, "found 40 rings (30 tuned, 10 not tunable from outside)");
	/* a few rings: a line each, no summary */
	burst_n = 3;
	out = captured(find_and_flush);
	UT_ASSERT_EQ_INT(count_lines(out, "NAPI busy polling on"), 2);
	UT_ASSERT_EQ_INT(count_lines(out, "found"), 0);
	/* at debug, the burst's rings each get their line too */
	log_set_level(LOG_DEBUG);
	burst_n = 20;
	out = captured(find_and_flush);
	UT_ASSERT_EQ_INT(count_lines(out, "NAPI busy polling on"), 15);
	UT_ASSERT_STR_CONTAINS(out, "found 20 rings (15 tuned, 5 not tunable from outside)");
	log_set_level(level);
	crash();
}

/* the agent backend: deferred, unjournaled, confirmed by the register event */
static struct fake agent_fake;

UT_TEST(agent_backend_deferred_until_confirmed)
{
	struct tuner_setting s = { .enabled = true, .busy_poll_us = 30 };
	struct ut_event ev;
	char err[160];
	struct ut_ring *r;

	start(UT_MODE_TUNE);
	memset(&agent_fake, 0, sizeof(agent_fake));
	agent_fake.lc = &lc;
	lc.agent = (struct tune_backend){
		.name = "agent", .deferred = true, .apply = fake_apply, .arg = &agent_fake,
	};
	lifecycle_settle_journal(&lc);
	r = add_ring(RING_A, 100, 5, UT_SETUP_SINGLE_ISSUER | UT_SETUP_DEFER_TASKRUN, false);
	r->agent.via = true;
	lifecycle_ring_found(&lc, r, false);
	UT_ASSERT(lifecycle_via_agent(&lc, 100, 5));
	clock_ns += 5000000;
	UT_ASSERT_EQ_INT(lifecycle_set(&lc, 100, 5, &s, false, err, sizeof(err)), 0);
	UT_ASSERT_EQ_INT(agent_fake.applies, 1);
	UT_ASSERT_EQ_INT(fake.applies, 0);
	/* the page is its record: no journal entry */
	UT_ASSERT_EQ_INT(lc.journal.n, 0);
	UT_ASSERT(r->tune.pending);
	UT_ASSERT_EQ_INT(r->tune.published_ns, clock_ns);
	UT_ASSERT_EQ_INT(r->tune.managed_by, UT_MANAGED_URINGTUNE);
	/* the kernel state is what the event says, not what was asked */
	UT_ASSERT(!r->obs.napi.enabled);
	/* the agent's call, from the program's pid, confirms it */
	ev = register_event(r, 100, 0, 30);
	UT_ASSERT(!lifecycle_on_register(&lc, r, &ev, false));
	UT_ASSERT(!r->tune.pending);
	UT_ASSERT_EQ_INT(lc.agent_applied, 1);
	UT_ASSERT(r->obs.napi.enabled);
	/* later, a call the agent would not make is the program's own */
	ev = register_event(r, 100, 0, 99);
	UT_ASSERT(lifecycle_on_register(&lc, r, &ev, false));
	UT_ASSERT_EQ_INT(r->tune.managed_by, UT_MANAGED_APP);
	crash();
}


/* --- the daemon's committer: a thread, its write held at the gate ------- */

static struct journal_committer jc;

static void threaded(bool open)
{
	gate_reset(open);
	if (journal_committer_thread(&jc, gated_write, &lc.journal))
		abort();
	lc.commit = &jc;
}

/* the loop: the committer's fd readable, the lifecycle told; until nothing is in flight */
static bool commits_done(void)
{
	while (lc.inflight) {
		if (!fd_readable(jc.fd, GATE_WAIT_S * 1000))
			return false;
		lifecycle_journal_done(&lc);
	}
	return true;
}

static void threaded_crash(void)
{
	/* a write still held would hold the crash too */
	gate_set(true, 0);
	crash();
	journal_committer_fini(&jc);
}

static struct ut_ring *found(uint64_t ctx, pid_t pid, int fd)
{
	struct ut_ring *ring = add_ring(ctx, pid, fd, 0, false);

	lifecycle_ring_found(&lc, ring, false);
	lifecycle_flush(&lc);
	return ring;
}

/* a slow fsync: the flush returns, nothing else waits, the ring is changed once it is done */
UT_TEST(threaded_slow_commit_does_not_block_staging)
{
	struct lifecycle_commit_stats st;
	struct ut_ring *a, *b, *c;

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	threaded(false);
	a = found(RING_A, 100, 5);
	UT_ASSERT(gate_wait_started(1));
	UT_ASSERT_EQ_INT(fake.applies, 0);
	UT_ASSERT(a->tune.queued);
	UT_ASSERT_EQ_INT(a->tune.managed_by, UT_MANAGED_NONE);
	/* a tick meanwhile queues it no second time */
	lifecycle_tick(&lc);
	lifecycle_flush(&lc);
	/* rings arriving meanwhile are staged for the next commit: one in flight at a time */
	b = found(RING_B, 200, 6);
	c = found(RING_A + 0x100, 300, 7);
	UT_ASSERT_EQ_INT(gate_count(&gate.started), 1);
	UT_ASSERT_EQ_INT(lc.journal.n, 3);
	/* a wake-up with nothing done changes nothing */
	lifecycle_journal_done(&lc);
	UT_ASSERT_EQ_INT(fake.applies, 0);
	clock_ns += 7000000;
	gate_set(true, 0);
	UT_ASSERT(commits_done());
	UT_ASSERT_EQ_INT(fake.applies, 3);
	UT_ASSERT(!fake.not_durable);
	UT_ASSERT_EQ_INT(a->tune.managed_by, UT_MANAGED_URINGTUNE);
	UT_ASSERT_EQ_INT(b->tune.managed_by, UT_MANAGED_URINGTUNE);
	UT_ASSERT_EQ_INT(c->tune.managed_by, UT_MANAGED_URINGTUNE);
	UT_ASSERT(!a->tune.queued && !b->tune.queued && !c->tune.queued);
	/* two commits: a's, then b's and c's together */
	UT_ASSERT_EQ_INT(gate.writes, 2);
	UT_ASSERT_EQ_INT(gate.last_n, 3);
	lifecycle_commit_stats(&lc, &st);
	UT_ASSERT_EQ_INT(st.commits, 2);
	UT_ASSERT_EQ_INT(st.rings, 3);
	UT_ASSERT_EQ_INT(st.waiting, 0);
	UT_ASSERT_EQ_INT(st.wait_max_ns, 7000000);
	UT_ASSERT(!journal_dirty(&lc.journal));
	threaded_crash();
}

/* ten flushes while one commit is held: one commit more carries them all */
UT_TEST(threaded_group_commit_coalesces)
{
	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	threaded(false);
	found(RING_A, 100, 5);
	UT_ASSERT(gate_wait_started(1));
	for (int i = 1; i <= 10; i++)
		found(RING_A + 0x1000 * (uint64_t)i, 100 + i, 5);
	gate_set(true, 0);
	UT_ASSERT(commits_done());
	UT_ASSERT_EQ_INT(gate.writes, 2);
	UT_ASSERT_EQ_INT(gate.last_n, 11);
	UT_ASSERT_EQ_INT(fake.applies, 11);
	UT_ASSERT(!fake.not_durable);
	threaded_crash();
}

/* a commit that fails: its rings are not tuned, as when a write failed on the loop */
UT_TEST(threaded_commit_fails_rings_not_tuned)
{
	struct lifecycle_commit_stats st;
	struct ut_ring *a;

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	threaded(true);
	gate_set(true, -EIO);
	a = found(RING_A, 100, 5);
	UT_ASSERT(commits_done());
	UT_ASSERT_EQ_INT(fake.applies, 0);
	UT_ASSERT_EQ_INT(a->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT_STR_CONTAINS(a->tune.error, "cannot write the journal: Input/output error");
	UT_ASSERT(!a->tune.queued);
	UT_ASSERT_EQ_INT(lc.actions_failed, 1);
	/* its entry undoes nothing: forgotten */
	UT_ASSERT_EQ_INT(lc.journal.n, 0);
	lifecycle_commit_stats(&lc, &st);
	UT_ASSERT_EQ_INT(st.failed, 1);
	/* not tried again in a loop */
	UT_ASSERT_EQ_INT(gate.writes, 1);
	/* the disk is back: the next tick takes the ring */
	gate_set(true, 0);
	lifecycle_tick(&lc);
	lifecycle_flush(&lc);
	UT_ASSERT(commits_done());
	UT_ASSERT_EQ_INT(fake.applies, 1);
	UT_ASSERT(!fake.not_durable);
	UT_ASSERT_EQ_INT(a->tune.managed_by, UT_MANAGED_URINGTUNE);
	UT_ASSERT_STR_EQ(a->tune.error, "");
	threaded_crash();
}

/*
 * While its commit is written a ring goes away and another takes its
 * address, an application registers NAPI itself, the operator resets one,
 * a reload's [select] leaves one out: none of them is changed on what was
 * staged. Only the new ring at the old address is taken.
 */
UT_TEST(threaded_ring_changed_while_committing_not_touched)
{
	struct ut_ring *a, *a2, *b, *c, *d;
	struct ut_event ev;
	char err[160];

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	threaded(false);
	a = add_ring(RING_A, 100, 5, 0, false);
	b = add_ring(RING_B, 200, 6, 0, false);
	c = add_ring(RING_A + 0x100, 300, 7, 0, false);
	d = add_ring(RING_B + 0x100, 400, 8, 0, false);
	lifecycle_ring_found(&lc, a, false);
	lifecycle_ring_found(&lc, b, false);
	lifecycle_ring_found(&lc, c, false);
	lifecycle_ring_found(&lc, d, false);
	lifecycle_flush(&lc);
	UT_ASSERT(gate_wait_started(1));
	lifecycle_ring_gone(&lc, a);
	registry_remove(&reg, RING_A);
	a2 = found(RING_A, 900, 9);
	lifecycle_drop_gone(&lc);
	ev = register_event(b, 200, 0, 100);
	UT_ASSERT(lifecycle_on_register(&lc, b, &ev, false));
	UT_ASSERT_EQ_INT(lifecycle_reset(&lc, 300, 7, err, sizeof(err)), 0);
	deselected_pid = 400;
	lifecycle_reselect(&lc);
	gate_set(true, 0);
	UT_ASSERT(commits_done());
	UT_ASSERT_EQ_INT(fake.applies, 1);
	UT_ASSERT_EQ_INT(fake.last_pid, 900);
	UT_ASSERT(!fake.not_durable);
	UT_ASSERT_EQ_INT(a2->tune.managed_by, UT_MANAGED_URINGTUNE);
	UT_ASSERT_EQ_INT(b->tune.managed_by, UT_MANAGED_APP);
	UT_ASSERT_EQ_INT(c->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT_EQ_INT(d->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT(!b->tune.queued && !c->tune.queued && !d->tune.queued);
	/* the journal names the one ring changed, on disk too */
	UT_ASSERT_EQ_INT(lc.journal.n, 1);
	UT_ASSERT_EQ_INT(journal_find(&lc.journal, RING_A)->pid, 900);
	UT_ASSERT(!journal_dirty(&lc.journal));
	threaded_crash();
}

/* a stop waits for the commit in flight, changes none of its rings, and leaves nothing */
UT_TEST(threaded_stop_waits_changes_nothing)
{
	struct journal disk;
	pthread_t opener;
	char err[256];

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	threaded(false);
	found(RING_A, 100, 5);
	found(RING_B, 200, 6);
	UT_ASSERT_EQ_INT(pthread_create(&opener, NULL, gate_opener, NULL), 0);
	UT_ASSERT_EQ_INT(lifecycle_stop(&lc), 0);
	pthread_join(opener, NULL);
	UT_ASSERT_EQ_INT(fake.applies, 0);
	UT_ASSERT_EQ_INT(fake.restores, 0);
	UT_ASSERT_EQ_INT(lc.journal.n, 0);
	UT_ASSERT(!lc.inflight && !journal_dirty(&lc.journal));
	UT_ASSERT_EQ_INT(journal_open(&disk, cfg.state_dir, err, sizeof(err)), 0);
	UT_ASSERT_EQ_INT(disk.n, 0);
	journal_close(&disk);
	threaded_crash();
}

/* `set` replies whether the ring took it: on a ring waiting for its commit, it waits too */
UT_TEST(threaded_set_waits_for_its_commit)
{
	struct tuner_setting s = { .enabled = true, .busy_poll_us = 30 };
	struct ut_ring *a;
	pthread_t opener;
	char err[256];

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	threaded(false);
	a = found(RING_A, 100, 5);
	UT_ASSERT_EQ_INT(pthread_create(&opener, NULL, gate_opener, NULL), 0);
	UT_ASSERT_EQ_INT(lifecycle_set(&lc, 100, 5, &s, false, err, sizeof(err)), 0);
	pthread_join(opener, NULL);
	UT_ASSERT(!fake.not_durable);
	UT_ASSERT_EQ_INT(fake.applies, 2);
	UT_ASSERT_EQ_INT(fake.last.busy_poll_us, 30);
	UT_ASSERT(a->tune.pinned);
	UT_ASSERT_EQ_INT(a->tune.managed_by, UT_MANAGED_URINGTUNE);
	UT_ASSERT(journal_durable(&lc.journal, RING_A));
	threaded_crash();
}

/* a disk that keeps failing a drop: one warning, not one a tick; its return, one line */
static void gone_then_ticks(void)
{
	lifecycle_drop_gone(&lc);
	commits_done();
	for (int i = 0; i < 3; i++) {
		lifecycle_tick(&lc);
		commits_done();
	}
}

UT_TEST(threaded_failing_drop_said_once)
{
	int level = log_get_level();
	struct ut_ring *a;
	const char *out;

	start(UT_MODE_TUNE);
	lifecycle_settle_journal(&lc);
	threaded(true);
	a = found(RING_A, 100, 5);
	UT_ASSERT(commits_done());
	UT_ASSERT_EQ_INT(lc.journal.n, 1);
	gate_set(true, -EIO);
	lifecycle_ring_gone(&lc, a);
	log_set_level(LOG_INFO);
	out = captured(gone_then_ticks);
	UT_ASSERT_EQ_INT(count_lines(out, "tried again every tick"), 1);
	UT_ASSERT_EQ_INT(gate.writes, 5);
	/* memory already without it: the drop waits for the disk, no ring does */
	UT_ASSERT_EQ_INT(lc.journal.n, 0);
	gate_set(true, 0);
	lifecycle_tick(&lc);
	UT_ASSERT(commits_done());
	UT_ASSERT(!journal_dirty(&lc.journal));
	log_set_level(level);
	threaded_crash();
}

int main(void)
{
	char tmpl[] = "/tmp/uringtune-lifecycle-XXXXXX";

	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s", tmpl);
	ut_run("take_journals_before_the_backend", take_journals_before_the_backend);
	ut_run("journal_write_fails_backend_never_called", journal_write_fails_backend_never_called);
	ut_run("backend_refuses_entry_dropped_ring_refused", backend_refuses_entry_dropped_ring_refused);
	ut_run("backend_ring_gone", backend_ring_gone);
	ut_run("settle_ring_gone_dropped", settle_ring_gone_dropped);
	ut_run("settle_tune_mode_readopts", settle_tune_mode_readopts);
	ut_run("settle_observe_mode_restores", settle_observe_mode_restores);
	ut_run("settle_restore_refused_kept", settle_restore_refused_kept);
	ut_run("app_takeover_forgets_undoes_nothing", app_takeover_forgets_undoes_nothing);
	ut_run("observe_mode_changes_nothing", observe_mode_changes_nothing);
	ut_run("nothing_before_settle", nothing_before_settle);
	ut_run("select_and_flags_gate_taking", select_and_flags_gate_taking);
	ut_run("ring_gone_drops_entry", ring_gone_drops_entry);
	ut_run("rings_gone_dropped_in_one_write", rings_gone_dropped_in_one_write);
	ut_run("rings_gone_at_one_address_dropped", rings_gone_at_one_address_dropped);
	ut_run("settle_gone_in_one_write", settle_gone_in_one_write);
	ut_run("other_daemons_calls_are_not_the_apps", other_daemons_calls_are_not_the_apps);
	ut_run("agent_backend_deferred_until_confirmed", agent_backend_deferred_until_confirmed);
	ut_run("set_respects_select_unless_forced", set_respects_select_unless_forced);
	ut_run("reselect_restores_what_select_releases", reselect_restores_what_select_releases);
	ut_run("burst_logs_one_summary_line", burst_logs_one_summary_line);
	ut_run("threaded_slow_commit_does_not_block_staging",
	       threaded_slow_commit_does_not_block_staging);
	ut_run("threaded_group_commit_coalesces", threaded_group_commit_coalesces);
	ut_run("threaded_commit_fails_rings_not_tuned", threaded_commit_fails_rings_not_tuned);
	ut_run("threaded_ring_changed_while_committing_not_touched",
	       threaded_ring_changed_while_committing_not_touched);
	ut_run("threaded_stop_waits_changes_nothing", threaded_stop_waits_changes_nothing);
	ut_run("threaded_set_waits_for_its_commit", threaded_set_waits_for_its_commit);
	ut_run("threaded_failing_drop_said_once", threaded_failing_drop_said_once);
	return ut_finish();
}
