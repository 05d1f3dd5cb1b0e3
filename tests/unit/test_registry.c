// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ring registry: add/find/remove, the open-addressing hash under load and
 * heavy collisions (backward-shift deletion, wrap-around at the table's end),
 * registry_sorted(), sweep reconciliation (holders, forked children, rings
 * announced during a sweep) and the create / NAPI register event handlers.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lifecycle.h"
#include "registry.h"
#include "uring_abi.h"
#include "unit.h"

/*
 * Who manages a ring (ring->tune.managed_by) is the lifecycle's to say, from
 * what the registry observed: these two do what the daemon's inventory does
 * with a sweep record and a register event, so the assertions below hold
 * for the pair. An observe-mode lifecycle with no journal changes nothing.
 */
static struct ut_config lc_cfg;
static struct lifecycle lc;

static uint64_t lc_clock(void)
{
	return 0;
}

static bool lc_select_all(void *arg, pid_t pid, const char *comm, const char **why)
{
	(void)arg, (void)pid, (void)comm, (void)why;
	return true;
}

static void lc_bind(struct ut_registry *reg, pid_t self_pid)
{
	/* what the previous binding gathered (its burst of found rings) goes */
	lifecycle_fini(&lc);
	config_defaults(&lc_cfg);
	memset(&lc, 0, sizeof(lc));
	lc.reg = reg;
	lc.cfg = &lc_cfg;
	lc.self_pid = self_pid;
	lc.env = (struct lifecycle_env){ .now = lc_clock, .selects = lc_select_all };
}

static bool sweep_record(struct ut_registry *reg, const struct ut_ring_rec *rec, uint64_t now)
{
	bool found_new = registry_sweep_record(reg, rec, now);

	if (found_new) {
		lc_bind(reg, 0);
		lifecycle_ring_found(&lc, registry_find(reg, rec->ctx), true);
	}
	return found_new;
}

static bool napi_register(struct ut_registry *reg, const struct ut_event *ev, pid_t self_pid)
{
	struct ut_ring *ring = registry_find(reg, ev->ctx);

	if (!ring)
		return registry_on_napi_register(reg, ev, self_pid);
	lc_bind(reg, self_pid);
	return lifecycle_on_register(&lc, ring, ev, false);
}

/* run a helper that may fail through UT_ASSERT, and stop the test if it did */
#define CHECK(call) do {						\
	call;								\
	if (ut_msg[0])							\
		return;							\
} while (0)

#define SLAB_BASE	0xffff888100000000ULL

/* --- helpers ------------------------------------------------------------- */

/* the bit mixing of registry.c's slot_of(), before the mask */
static uint64_t mix(uint64_t ctx)
{
	ctx ^= ctx >> 33;
	ctx *= 0xff51afd7ed558ccdULL;
	ctx ^= ctx >> 33;
	return ctx;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

/* xorshift64: the same sequence on every run */
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void shuffle(size_t *v, size_t n)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = rnd() % (i + 1), t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
}

/* fill a comm field; 16 or more characters leave it without a NUL */
static void set_comm(char comm[UT_COMM_LEN], const char *s)
{
	size_t len = strlen(s);

	memset(comm, 0, UT_COMM_LEN);
	memcpy(comm, s, len < UT_COMM_LEN ? len : UT_COMM_LEN);
}

static struct ut_ring_rec make_rec(uint64_t ctx, pid_t pid, int fd, const char *comm,
				   bool napi_enabled)
{
	struct ut_ring_rec rec;

	memset(&rec, 0, sizeof(rec));
	rec.ctx = ctx;
	rec.tgid = pid;
	rec.fd = fd;
	rec.ino = 1000 + (uint64_t)pid * 100 + fd;
	rec.start_boottime = (uint64_t)pid * 1000000;
	set_comm(rec.comm, comm);
	rec.napi.supported = 1;
	rec.napi.enabled = napi_enabled;
	rec.napi.track_mode = napi_enabled ? UT_TRACK_DYNAMIC : UT_TRACK_INACTIVE;
	rec.napi.busy_poll_ns = napi_enabled ? 50000 : 0;
	return rec;
}

static struct ut_event make_create(uint64_t ctx, pid_t pid, int fd, const char *comm,
				   uint64_t ts_ns)
{
	struct ut_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = UT_EV_RING_CREATE;
	ev.tgid = pid;
	ev.tid = pid + 1;
	ev.fd = fd;
	ev.ctx = ctx;
	ev.ts_ns = ts_ns;
	ev.start_boottime = (uint64_t)pid * 1000000 + 7;
	ev.setup_flags = UT_SETUP_SQPOLL | UT_SETUP_CQSIZE;
	ev.napi.supported = 1;
	ev.napi.track_mode = UT_TRACK_INACTIVE;
	set_comm(ev.comm, comm);
	return ev;
}

static struct ut_event make_register(uint64_t ctx, pid_t pid, long long ret,
				     uint64_t busy_poll_ns)
{
	struct ut_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = UT_EV_NAPI_REGISTER;
	ev.tgid = pid;
	ev.tid = pid;
	ev.ctx = ctx;
	ev.ts_ns = 123456;
	ev.opcode = UT_IORING_REGISTER_NAPI;
	ev.ret = ret;
	ev.napi.busy_poll_ns = busy_poll_ns;
	ev.napi.supported = 1;
	ev.napi.enabled = 1;
	ev.napi.prefer = 1;
	ev.napi.track_mode = UT_TRACK_STATIC;
	return ev;
}

struct removed {
	size_t calls;
	uint64_t ctx[8];
	pid_t pid[8];
};

static void on_remove(const struct ut_ring *ring, void *arg)
{
	struct removed *r = arg;

	if (r->calls < 8) {
		r->ctx[r->calls] = ring->ctx;
		r->pid[r->calls] = ring->obs.holder.pid;
	}
	r->calls++;
}

/* counts removals per key of keys[] */
struct counted {
	const uint64_t *keys;
	size_t n;
	unsigned int *hits;
	size_t calls;
	size_t unknown;
};

static void count_remove(const struct ut_ring *ring, void *arg)
{
	struct counted *c = arg;

	c->calls++;
	for (size_t k = 0; k < c->n; k++) {
		if (c->keys[k] == ring->ctx) {
			c->hits[k]++;
			return;
		}
	}
	c->unknown++;
}

/*
 * n distinct slab-like keys, from base upwards, whose mixed low 16 bits are
 * one of a few values at the very end and start of the table: whatever the
 * capacity (up to 64k slots) they share six home slots, cap-4 to 3, and form
 * one long run that wraps past slot 0. The homes take turns, so the run
 * mixes them.
 */
static void colliding_keys(uint64_t *keys, size_t n, uint64_t base)
{
	static const uint16_t homes[] = { 0xfffc, 0xfffe, 0xffff, 0x0000, 0x0001, 0x0003 };
	enum { NH = sizeof(homes) / sizeof(homes[0]) };
	size_t k = 0;

	for (uint64_t a = base; k < n; a += 0x40)
		if ((uint16_t)mix(a) == homes[k % NH])
			keys[k++] = a;
}

/*
 * Every key in keys[] is found (as itself) iff present[], count matches,
 * and exactly count slots are in use.
 */
static void check_table(const struct ut_registry *reg, const uint64_t *keys,
			const bool *present, size_t n)
{
	size_t want = 0, used = 0;

	for (size_t k = 0; k < n; k++) {
		const struct ut_ring *ring = registry_find(reg, keys[k]);

		if (present[k]) {
			want++;
			if (!ring || ring->ctx != keys[k]) {
				ut_fail(__FILE__, __LINE__, "key %zu (%#llx) not found "
					"(count %zu, cap %zu)", k,
					(unsigned long long)keys[k], reg->count, reg->cap);
				return;
			}
		} else if (ring) {
			ut_fail(__FILE__, __LINE__, "removed key %zu (%#llx) still found",
				k, (unsigned long long)keys[k]);
			return;
		}
	}
	UT_ASSERT_EQ_INT(reg->count, want);
	for (size_t s = 0; s < reg->cap; s++)
		used += reg->slots[s] != NULL;
	UT_ASSERT_EQ_INT(used, want);
}

/*
 * Insert all keys, remove a pseudo-random half in random order checking the
 * whole table after every removal, put them back, then remove everything.
 */
static void stress(uint64_t *keys, size_t n)
{
	bool *present = calloc(n, sizeof(*present));
	size_t *order = malloc(n * sizeof(*order));
	struct ut_registry reg;

	UT_ASSERT(present && order);
	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	for (size_t k = 0; k < n; k++) {
		struct ut_ring *ring = registry_add(&reg, keys[k]);

		UT_ASSERT(ring != NULL);
		UT_ASSERT(ring->ctx == keys[k]);
		present[k] = true;
		order[k] = k;
	}
	CHECK(check_table(&reg, keys, present, n));
	/* the load factor stays under 70% */
	UT_ASSERT(reg.count * 10 <= reg.cap * 7);

	shuffle(order, n);
	for (size_t r = 0; r < n / 2; r++) {
		registry_remove(&reg, keys[order[r]]);
		present[order[r]] = false;
		CHECK(check_table(&reg, keys, present, n));
	}
	/* removing what is gone changes nothing */
	registry_remove(&reg, keys[order[0]]);
	CHECK(check_table(&reg, keys, present, n));

	/* no tombstones: the freed slots take the keys back */
	for (size_t r = 0; r < n / 2; r++) {
		UT_ASSERT(registry_add(&reg, keys[order[r]]) != NULL);
		present[order[r]] = true;
	}
	CHECK(check_table(&reg, keys, present, n));

	shuffle(order, n);
	for (size_t r = 0; r < n; r++) {
		registry_remove(&reg, keys[order[r]]);
		present[order[r]] = false;
		if (r % 64 == 0 || r + 64 > n)
			CHECK(check_table(&reg, keys, present, n));
	}
	UT_ASSERT_EQ_INT(reg.count, 0);
	registry_free(&reg);
	free(present);
	free(order);
}

/* --- add / find / remove ------------------------------------------------- */

UT_TEST(add_find_remove)
{
	const uint64_t a = SLAB_BASE + 0x1000, b = SLAB_BASE + 0x2000,
		       c = SLAB_BASE + 0x3000, missing = SLAB_BASE + 0x4000;
	struct ut_ring *ra, *rb, *rc, *ring;
	struct ut_registry reg;
	size_t i, seen = 0;

	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	UT_ASSERT_EQ_INT(reg.count, 0);
	UT_ASSERT(reg.cap > 0 && (reg.cap & (reg.cap - 1)) == 0);
	UT_ASSERT(registry_find(&reg, a) == NULL);

	ra = registry_add(&reg, a);
	rb = registry_add(&reg, b);
	rc = registry_add(&reg, c);
	UT_ASSERT(ra && rb && rc);
	UT_ASSERT(ra != rb && rb != rc && ra != rc);
	UT_ASSERT(ra->ctx == a && rb->ctx == b && rc->ctx == c);
	UT_ASSERT_EQ_INT(ra->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT_EQ_INT(ra->obs.holder.pid, 0);
	UT_ASSERT(!ra->obs.have_stats);
	UT_ASSERT_EQ_INT(reg.count, 3);

	UT_ASSERT(registry_find(&reg, a) == ra);
	UT_ASSERT(registry_find(&reg, b) == rb);
	UT_ASSERT(registry_find(&reg, c) == rc);
	UT_ASSERT(registry_find(&reg, missing) == NULL);

	/* adding a known key hands back the same ring, untouched */
	ra->obs.holder.pid = 42;
	UT_ASSERT(registry_add(&reg, a) == ra);
	UT_ASSERT_EQ_INT(ra->obs.holder.pid, 42);
	UT_ASSERT_EQ_INT(reg.count, 3);

	/* 0 is no ring address */
	UT_ASSERT(registry_add(&reg, 0) == NULL);
	UT_ASSERT(registry_find(&reg, 0) == NULL);
	UT_ASSERT_EQ_INT(reg.count, 3);

	registry_for_each(&reg, i, ring) {
		UT_ASSERT(ring == ra || ring == rb || ring == rc);
		seen++;
	}
	UT_ASSERT_EQ_INT(seen, 3);

	registry_remove(&reg, b);
	UT_ASSERT_EQ_INT(reg.count, 2);
	UT_ASSERT(registry_find(&reg, b) == NULL);
	UT_ASSERT(registry_find(&reg, a) == ra);
	UT_ASSERT(registry_find(&reg, c) == rc);
	registry_remove(&reg, b);
	registry_remove(&reg, missing);
	registry_remove(&reg, 0);
	UT_ASSERT_EQ_INT(reg.count, 2);

	/* a key added again is a fresh ring */
	rb = registry_add(&reg, b);
	UT_ASSERT(rb != NULL && rb->ctx == b);
	UT_ASSERT_EQ_INT(rb->obs.holder.pid, 0);
	UT_ASSERT_EQ_INT(reg.count, 3);

	registry_free(&reg);
	UT_ASSERT(reg.slots == NULL);
	UT_ASSERT_EQ_INT(reg.count, 0);
}

/* --- the hash under stress ----------------------------------------------- */

/* 10 000 page-aligned slab-like addresses: growth and plain deletion */
UT_TEST(stress_slab_keys)
{
	enum { N = 10000 };
	static uint64_t keys[N];

	for (size_t k = 0; k < N; k++)
		keys[k] = SLAB_BASE + k * 0x1000;
	CHECK(stress(keys, N));
}

/*
 * Keys sharing six home slots around the end of the table (colliding_keys()):
 * deleting from their run must shift entries back across the wrap, and must
 * not move an entry before its own home.
 */
UT_TEST(stress_colliding_keys)
{
	enum { N = 768 };
	static uint64_t keys[N];
	size_t run = 0;
	struct ut_registry reg;

	colliding_keys(keys, N, SLAB_BASE + 0x200000000ULL);

	/* precondition: the keys really collide (mix() still matches slot_of()?) */
	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	for (size_t k = 0; k < N; k++)
		UT_ASSERT(registry_add(&reg, keys[k]) != NULL);
	for (size_t s = reg.cap - 4; reg.slots[s]; s = (s + 1) & (reg.cap - 1))
		run++;
	registry_free(&reg);
	UT_ASSERT_EQ_INT(run, N);

	CHECK(stress(keys, N));
}

/* a mix of colliding and scattered keys, all going through one table */
UT_TEST(stress_mixed_keys)
{
	enum { N = 3000 };
	static uint64_t keys[N];
	size_t n = 0;

	for (uint64_t a = SLAB_BASE + 0x300000000ULL; n < N / 3; a += 0x40)
		if ((mix(a) & 0x7ff) >= 0x7f8)	/* the last 8 of 2048 slots */
			keys[n++] = a;
	while (n < N)
		keys[n++] = SLAB_BASE + 0x400000000ULL + (rnd() % 0x10000000) * 0x40;
	/* random keys could repeat: make them unique */
	for (size_t k = N / 3; k < N; k++)
		keys[k] = (keys[k] & ~0xfffffULL) | ((uint64_t)k << 6);
	for (size_t k = 0; k < N; k++) {
		size_t j = rnd() % N;
		uint64_t t = keys[k];

		keys[k] = keys[j];
		keys[j] = t;
	}
	CHECK(stress(keys, N));
}

/* --- registry_sorted ----------------------------------------------------- */

UT_TEST(sorted_by_pid_then_fd)
{
	static const struct {
		pid_t pid;
		int fd;
	} holders[] = {
		{ 300, 1 }, { 100, 9 }, { 100, 2 }, { 200, 5 }, { 100, 10 },
		{ 2, 100 }, { 1000, 0 }, { 200, 4 }, { 100, 3 },
	};
	static const int want[][2] = {
		{ 2, 100 }, { 100, 2 }, { 100, 3 }, { 100, 9 }, { 100, 10 },
		{ 200, 4 }, { 200, 5 }, { 300, 1 }, { 1000, 0 },
	};
	enum { NR = sizeof(holders) / sizeof(holders[0]) };
	struct ut_registry reg;
	struct ut_ring **v;
	size_t n = 12345;

	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	v = registry_sorted(&reg, &n);
	UT_ASSERT(v != NULL);
	UT_ASSERT_EQ_INT(n, 0);
	free(v);

	for (size_t i = 0; i < NR; i++) {
		/* ctx order differs from holder order */
		struct ut_ring *ring = registry_add(&reg, SLAB_BASE + (NR - i) * 0x1000);

		UT_ASSERT(ring != NULL);
		ring->obs.holder.pid = holders[i].pid;
		ring->obs.holder.fd = holders[i].fd;
	}
	v = registry_sorted(&reg, &n);
	UT_ASSERT(v != NULL);
	UT_ASSERT_EQ_INT(n, NR);
	for (size_t i = 0; i < NR; i++) {
		UT_ASSERT_EQ_INT(v[i]->obs.holder.pid, want[i][0]);
		UT_ASSERT_EQ_INT(v[i]->obs.holder.fd, want[i][1]);
		UT_ASSERT(registry_find(&reg, v[i]->ctx) == v[i]);
	}
	free(v);
	registry_free(&reg);
}

UT_TEST(sorted_many)
{
	enum { N = 2000 };
	struct ut_registry reg;
	struct ut_ring **v, *ring;
	size_t n, i;

	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	for (i = 0; i < N; i++) {
		ring = registry_add(&reg, SLAB_BASE + i * 0x800);
		UT_ASSERT(ring != NULL);
		ring->obs.holder.pid = 1 + rnd() % 50;
		ring->obs.holder.fd = rnd() % 300;
	}
	v = registry_sorted(&reg, &n);
	UT_ASSERT(v != NULL);
	UT_ASSERT_EQ_INT(n, N);
	for (i = 1; i < n; i++) {
		UT_ASSERT(v[i - 1]->obs.holder.pid <= v[i]->obs.holder.pid);
		if (v[i - 1]->obs.holder.pid == v[i]->obs.holder.pid)
			UT_ASSERT(v[i - 1]->obs.holder.fd <= v[i]->obs.holder.fd);
	}
	/* each ring exactly once */
	registry_for_each(&reg, i, ring)
		ring->obs.sweep_gen = 0;
	for (i = 0; i < n; i++) {
		UT_ASSERT_EQ_INT(v[i]->obs.sweep_gen, 0);
		v[i]->obs.sweep_gen = 1;
	}
	free(v);
	registry_free(&reg);
}

/* --- sweeps -------------------------------------------------------------- */

UT_TEST(sweep_adds_and_removes)
{
	const uint64_t a = SLAB_BASE + 0xa000, b = SLAB_BASE + 0xb000;
	struct ut_ring_rec ra = make_rec(a, 100, 5, "alpha", false);
	struct ut_ring_rec rb = make_rec(b, 200, 3, "bravo", true);
	struct removed removed = { 0 };
	struct ut_registry reg;
	struct ut_ring *ring;

	ra.setup_flags = UT_SETUP_SQPOLL | UT_SETUP_SQ_AFF;
	ra.napi.busy_poll_ns = 12345;
	ra.napi.prefer = 1;
	ra.napi.track_mode = UT_TRACK_STATIC;
	ra.n_kernel_ids = 2;
	ra.kernel_napi_ids[0] = 8193;
	ra.kernel_napi_ids[1] = 8194;
	rb.setup_flags = UT_SETUP_COOP_TASKRUN;
	/* more IDs than the array holds: the count is kept as is */
	rb.n_kernel_ids = UT_MAX_NAPI_IDS + 3;
	for (int k = 0; k < UT_MAX_NAPI_IDS; k++)
		rb.kernel_napi_ids[k] = 9000 + k;

	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	registry_sweep_begin(&reg, 0);
	UT_ASSERT(sweep_record(&reg, &ra, 1000));
	UT_ASSERT(sweep_record(&reg, &rb, 1000));
	UT_ASSERT_EQ_INT(registry_sweep_end(&reg, 1000, on_remove, &removed), 0);
	UT_ASSERT_EQ_INT(removed.calls, 0);
	UT_ASSERT_EQ_INT(reg.count, 2);

	ring = registry_find(&reg, a);
	UT_ASSERT(ring != NULL);
	UT_ASSERT_EQ_INT(ring->obs.holder.pid, 100);
	UT_ASSERT_EQ_INT(ring->obs.holder.fd, 5);
	UT_ASSERT_EQ_INT(ring->obs.holder.ino, ra.ino);
	UT_ASSERT_EQ_INT(ring->obs.holder.start_boottime, ra.start_boottime);
	UT_ASSERT_STR_EQ(ring->obs.holder.comm, "alpha");
	UT_ASSERT_EQ_INT(ring->obs.setup_flags, UT_SETUP_SQPOLL | UT_SETUP_SQ_AFF);
	UT_ASSERT_EQ_INT(ring->obs.napi.busy_poll_ns, 12345);
	UT_ASSERT_EQ_INT(ring->obs.napi.supported, 1);
	UT_ASSERT_EQ_INT(ring->obs.napi.enabled, 0);
	UT_ASSERT_EQ_INT(ring->obs.napi.prefer, 1);
	UT_ASSERT_EQ_INT(ring->obs.napi.track_mode, UT_TRACK_STATIC);
	UT_ASSERT_EQ_INT(ring->obs.n_kernel_ids, 2);
	UT_ASSERT_EQ_INT(ring->obs.kernel_napi_ids[0], 8193);
	UT_ASSERT_EQ_INT(ring->obs.kernel_napi_ids[1], 8194);
	UT_ASSERT_EQ_INT(ring->obs.kernel_napi_ids[2], 0);
	UT_ASSERT_EQ_INT(ring->obs.first_seen_ns, 1000);
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_NONE);

	ring = registry_find(&reg, b);
	UT_ASSERT(ring != NULL);
	UT_ASSERT_EQ_INT(ring->obs.holder.pid, 200);
	UT_ASSERT_EQ_INT(ring->obs.holder.fd, 3);
	UT_ASSERT_STR_EQ(ring->obs.holder.comm, "bravo");
	UT_ASSERT_EQ_INT(ring->obs.setup_flags, UT_SETUP_COOP_TASKRUN);
	UT_ASSERT_EQ_INT(ring->obs.napi.enabled, 1);
	UT_ASSERT_EQ_INT(ring->obs.n_kernel_ids, UT_MAX_NAPI_IDS + 3);
	UT_ASSERT_EQ_INT(ring->obs.kernel_napi_ids[UT_MAX_NAPI_IDS - 1], 9000 + UT_MAX_NAPI_IDS - 1);
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_APP);

	/* B is gone from the next sweep */
	registry_sweep_begin(&reg, 0);
	UT_ASSERT(!sweep_record(&reg, &ra, 2000));
	UT_ASSERT_EQ_INT(registry_sweep_end(&reg, 2000, on_remove, &removed), 1);
	UT_ASSERT_EQ_INT(removed.calls, 1);
	UT_ASSERT(removed.ctx[0] == b);
	UT_ASSERT_EQ_INT(removed.pid[0], 200);
	UT_ASSERT_EQ_INT(reg.count, 1);
	UT_ASSERT(registry_find(&reg, b) == NULL);
	ring = registry_find(&reg, a);
	UT_ASSERT(ring != NULL);
	/* still the first sighting */
	UT_ASSERT_EQ_INT(ring->obs.first_seen_ns, 1000);

	/* and A from the one after: a NULL callback is allowed */
	registry_sweep_begin(&reg, 0);
	UT_ASSERT_EQ_INT(registry_sweep_end(&reg, 3000, NULL, NULL), 1);
	UT_ASSERT_EQ_INT(reg.count, 0);
	UT_ASSERT(registry_find(&reg, a) == NULL);
	registry_free(&reg);
}

/* a later sweep refreshes what may change: comm, flags, NAPI state, IDs */
UT_TEST(sweep_refreshes_known_ring)
{
	const uint64_t a = SLAB_BASE + 0xa000;
	struct ut_ring_rec rec = make_rec(a, 100, 5, "before", false);
	struct ut_registry reg;
	struct ut_ring *ring;

	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	registry_sweep_begin(&reg, 0);
	UT_ASSERT(sweep_record(&reg, &rec, 1000));
	registry_sweep_end(&reg, 1000, NULL, NULL);

	set_comm(rec.comm, "after-a-very-long-name");
	rec.napi.enabled = 1;
	rec.napi.busy_poll_ns = 777;
	rec.n_kernel_ids = 1;
	rec.kernel_napi_ids[0] = 4242;
	registry_sweep_begin(&reg, 0);
	UT_ASSERT(!sweep_record(&reg, &rec, 2000));
	registry_sweep_end(&reg, 2000, NULL, NULL);

	ring = registry_find(&reg, a);
	UT_ASSERT(ring != NULL);
	/* 16 bytes without a NUL come out as 15 and a NUL */
	UT_ASSERT_STR_EQ(ring->obs.holder.comm, "after-a-very-lo");
	UT_ASSERT_EQ_INT(ring->obs.napi.enabled, 1);
	UT_ASSERT_EQ_INT(ring->obs.napi.busy_poll_ns, 777);
	UT_ASSERT_EQ_INT(ring->obs.n_kernel_ids, 1);
	UT_ASSERT_EQ_INT(ring->obs.kernel_napi_ids[0], 4242);
	UT_ASSERT_EQ_INT(ring->obs.first_seen_ns, 1000);
	registry_free(&reg);
}

/* a ring announced at or after the sweep's start may not be in it yet */
UT_TEST(sweep_keeps_rings_announced_during_it)
{
	const uint64_t x = SLAB_BASE + 0x1000, y = SLAB_BASE + 0x2000,
		       z = SLAB_BASE + 0x3000;
	struct ut_event ex = make_create(x, 10, 4, "x", 5000);
	struct ut_event ey = make_create(y, 11, 4, "y", 4999);
	struct ut_event ez = make_create(z, 12, 4, "z", 9000);
	struct removed removed = { 0 };
	struct ut_registry reg;

	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	UT_ASSERT(registry_on_create(&reg, &ex, 0) != NULL);
	UT_ASSERT(registry_on_create(&reg, &ey, 0) != NULL);
	UT_ASSERT(registry_on_create(&reg, &ez, 0) != NULL);

	registry_sweep_begin(&reg, 0);
	UT_ASSERT_EQ_INT(registry_sweep_end(&reg, 5000, on_remove, &removed), 1);
	UT_ASSERT_EQ_INT(removed.calls, 1);
	UT_ASSERT(removed.ctx[0] == y);
	UT_ASSERT(registry_find(&reg, x) != NULL);	/* ts == t0 */
	UT_ASSERT(registry_find(&reg, y) == NULL);	/* ts < t0 */
	UT_ASSERT(registry_find(&reg, z) != NULL);	/* ts > t0 */

	/* a later sweep without them: now they are gone */
	registry_sweep_begin(&reg, 0);
	UT_ASSERT_EQ_INT(registry_sweep_end(&reg, 9001, on_remove, &removed), 2);
	UT_ASSERT_EQ_INT(removed.calls, 3);
	UT_ASSERT_EQ_INT(reg.count, 0);
	registry_free(&reg);
}

/*
 * A sweep's removals shift colliding rings backwards, across the table's
 * end: each unseen ring is removed exactly once, every seen one is kept, and
 * those seen only under another holder all switch to it.
 */
UT_TEST(sweep_end_with_colliding_rings)
{
	enum { N = 300 };
	static uint64_t keys[N];
	static unsigned int hits[N];
	struct counted counted = { .keys = keys, .n = N, .hits = hits };
	struct ut_registry reg;
	struct ut_ring *ring;

	colliding_keys(keys, N, SLAB_BASE + 0x500000000ULL);
	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	for (size_t k = 0; k < N; k++) {
		struct ut_event ev = make_create(keys[k], 1000 + k, 3, "c", 100);

		UT_ASSERT(registry_on_create(&reg, &ev, 0) != NULL);
	}

	/* keep one in three, a third of those seen only under a forked child */
	registry_sweep_begin(&reg, 0);
	for (size_t k = 0; k < N; k += 3) {
		struct ut_ring_rec rec = make_rec(keys[k], 1000 + k, 3, "c", false);

		if (k % 9 == 0)
			rec.tgid = 5000 + k;
		UT_ASSERT(!sweep_record(&reg, &rec, 200));
	}
	UT_ASSERT_EQ_INT(registry_sweep_end(&reg, 200, count_remove, &counted),
			 N - N / 3);
	UT_ASSERT_EQ_INT(counted.calls, N - N / 3);
	UT_ASSERT_EQ_INT(counted.unknown, 0);
	UT_ASSERT_EQ_INT(reg.count, N / 3);

	for (size_t k = 0; k < N; k++) {
		ring = registry_find(&reg, keys[k]);
		if (k % 3) {
			UT_ASSERT(ring == NULL);
			UT_ASSERT_EQ_INT(hits[k], 1);
			continue;
		}
		UT_ASSERT_EQ_INT(hits[k], 0);
		UT_ASSERT(ring != NULL);
		UT_ASSERT_EQ_INT(ring->obs.holder.pid, k % 9 ? 1000 + k : 5000 + k);
	}
	registry_free(&reg);
}

/* a ring still held by someone else than its holder: status shows that one */
UT_TEST(sweep_switches_to_other_holder)
{
	const uint64_t a = SLAB_BASE + 0xa000;
	struct ut_event ev = make_create(a, 100, 4, "parent", 1000);
	struct ut_ring_rec child = make_rec(a, 101, 4, "child", false);
	struct ut_ring_rec parent = make_rec(a, 100, 4, "parent", false);
	struct ut_registry reg;
	struct ut_ring *ring;

	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	ring = registry_on_create(&reg, &ev, 55);
	UT_ASSERT(ring != NULL);

	/* the parent closed its fd after fork: only the child holds the ring */
	registry_sweep_begin(&reg, 0);
	UT_ASSERT(!sweep_record(&reg, &child, 2000));
	UT_ASSERT_EQ_INT(registry_sweep_end(&reg, 2000, NULL, NULL), 0);
	ring = registry_find(&reg, a);
	UT_ASSERT(ring != NULL);
	UT_ASSERT_EQ_INT(ring->obs.holder.pid, 101);
	UT_ASSERT_EQ_INT(ring->obs.holder.fd, 4);
	UT_ASSERT_EQ_INT(ring->obs.holder.ino, child.ino);
	UT_ASSERT_EQ_INT(ring->obs.holder.start_boottime, child.start_boottime);
	UT_ASSERT_STR_EQ(ring->obs.holder.comm, "child");

	/* the child is the holder now: seeing the parent too changes nothing */
	registry_sweep_begin(&reg, 0);
	UT_ASSERT(!sweep_record(&reg, &parent, 3000));
	UT_ASSERT(!sweep_record(&reg, &child, 3000));
	registry_sweep_end(&reg, 3000, NULL, NULL);
	UT_ASSERT_EQ_INT(ring->obs.holder.pid, 101);
	UT_ASSERT_STR_EQ(ring->obs.holder.comm, "child");

	/* an alternative from an earlier sweep does not linger */
	registry_sweep_begin(&reg, 0);
	UT_ASSERT(!sweep_record(&reg, &child, 4000));
	registry_sweep_end(&reg, 4000, NULL, NULL);
	UT_ASSERT_EQ_INT(ring->obs.holder.pid, 101);
	UT_ASSERT_EQ_INT(reg.count, 1);
	registry_free(&reg);
}

/* seen under its holder and another process: the holder stays, either order */
UT_TEST(sweep_keeps_holder_seen_with_child)
{
	const uint64_t b = SLAB_BASE + 0xb000, c = SLAB_BASE + 0xc000;
	struct ut_event eb = make_create(b, 300, 6, "owner-b", 1000);
	struct ut_event ec = make_create(c, 400, 8, "owner-c", 1000);
	struct ut_ring_rec b_owner = make_rec(b, 300, 6, "owner-b", false);
	struct ut_ring_rec b_child = make_rec(b, 301, 6, "child-b", false);
	struct ut_ring_rec c_owner = make_rec(c, 400, 8, "owner-c", false);
	struct ut_ring_rec c_other = make_rec(c, 402, 9, "other-c", false);
	/* same pid, other fd: a dup() is not the holder either */
	struct ut_ring_rec c_dup = make_rec(c, 400, 11, "owner-c", false);
	struct ut_registry reg;
	struct ut_ring *ring;

	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	UT_ASSERT(registry_on_create(&reg, &eb, 66) != NULL);
	UT_ASSERT(registry_on_create(&reg, &ec, 77) != NULL);

	registry_sweep_begin(&reg, 0);
	/* B: the child first */
	UT_ASSERT(!sweep_record(&reg, &b_child, 2000));
	UT_ASSERT(!sweep_record(&reg, &b_owner, 2000));
	/* C: the holder first */
	UT_ASSERT(!sweep_record(&reg, &c_owner, 2000));
	UT_ASSERT(!sweep_record(&reg, &c_other, 2000));
	UT_ASSERT(!sweep_record(&reg, &c_dup, 2000));
	UT_ASSERT_EQ_INT(registry_sweep_end(&reg, 2000, NULL, NULL), 0);

	ring = registry_find(&reg, b);
	UT_ASSERT(ring != NULL);
	UT_ASSERT_EQ_INT(ring->obs.holder.pid, 300);
	UT_ASSERT_EQ_INT(ring->obs.holder.fd, 6);
	UT_ASSERT_STR_EQ(ring->obs.holder.comm, "owner-b");
	ring = registry_find(&reg, c);
	UT_ASSERT(ring != NULL);
	UT_ASSERT_EQ_INT(ring->obs.holder.pid, 400);
	UT_ASSERT_EQ_INT(ring->obs.holder.fd, 8);
	UT_ASSERT_STR_EQ(ring->obs.holder.comm, "owner-c");

	/* only the dup left: the holder's fd is gone, the dup takes over */
	registry_sweep_begin(&reg, 0);
	UT_ASSERT(!sweep_record(&reg, &c_dup, 3000));
	registry_sweep_end(&reg, 3000, NULL, NULL);
	ring = registry_find(&reg, c);
	UT_ASSERT(ring != NULL);
	UT_ASSERT_EQ_INT(ring->obs.holder.pid, 400);
	UT_ASSERT_EQ_INT(ring->obs.holder.fd, 11);
	UT_ASSERT(registry_find(&reg, b) == NULL);
	registry_free(&reg);
}

/* NAPI already on when a sweep first finds a ring: its application did it */
UT_TEST(sweep_new_ring_managed_by)
{
	const uint64_t on = SLAB_BASE + 0x1000, off = SLAB_BASE + 0x2000;
	struct ut_ring_rec r_on = make_rec(on, 10, 3, "on", true);
	struct ut_ring_rec r_off = make_rec(off, 11, 3, "off", false);
	struct ut_registry reg;

	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	registry_sweep_begin(&reg, 0);
	UT_ASSERT(sweep_record(&reg, &r_on, 1000));
	UT_ASSERT(sweep_record(&reg, &r_off, 1000));
	registry_sweep_end(&reg, 1000, NULL, NULL);
	UT_ASSERT_EQ_INT(registry_find(&reg, on)->tune.managed_by, UT_MANAGED_APP);
	UT_ASSERT_EQ_INT(registry_find(&reg, off)->tune.managed_by, UT_MANAGED_NONE);
	registry_free(&reg);
}

/* true only for a ring the registry did not know before */
UT_TEST(sweep_record_reports_new_rings)
{
	const uint64_t a = SLAB_BASE + 0x1000, k = SLAB_BASE + 0x2000;
	struct ut_ring_rec ra = make_rec(a, 10, 3, "a", false);
	struct ut_ring_rec ra_child = make_rec(a, 11, 3, "a-child", false);
	struct ut_ring_rec rk = make_rec(k, 12, 5, "k", false);
	struct ut_event ek = make_create(k, 12, 5, "k", 500);
	struct ut_registry reg;

	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	UT_ASSERT(registry_on_create(&reg, &ek, 0) != NULL);

	registry_sweep_begin(&reg, 0);
	UT_ASSERT(sweep_record(&reg, &ra, 1000));
	UT_ASSERT(!sweep_record(&reg, &ra_child, 1000));
	UT_ASSERT(!sweep_record(&reg, &ra, 1000));
	UT_ASSERT(!sweep_record(&reg, &rk, 1000));
	registry_sweep_end(&reg, 1000, NULL, NULL);
	UT_ASSERT_EQ_INT(reg.count, 2);

	registry_sweep_begin(&reg, 0);
	UT_ASSERT(!sweep_record(&reg, &ra, 2000));
	UT_ASSERT(!sweep_record(&reg, &rk, 2000));
	registry_sweep_end(&reg, 2000, NULL, NULL);
	UT_ASSERT_EQ_INT(reg.count, 2);

	/* a record with no ring address makes no ring */
	ra.ctx = 0;
	registry_sweep_begin(&reg, 0);
	UT_ASSERT(!sweep_record(&reg, &ra, 3000));
	UT_ASSERT(registry_find(&reg, 0) == NULL);
	registry_free(&reg);
}

/* --- events -------------------------------------------------------------- */

UT_TEST(on_create_fills_ring)
{
	const uint64_t a = SLAB_BASE + 0x1000;
	struct ut_event ev = make_create(a, 321, 9, "sixteen-chars-xx", 4242);
	struct ut_registry reg;
	struct ut_ring *ring;

	ev.napi.busy_poll_ns = 99;
	ev.napi.prefer = 1;
	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	ring = registry_on_create(&reg, &ev, 8888);
	UT_ASSERT(ring != NULL);
	UT_ASSERT(registry_find(&reg, a) == ring);
	UT_ASSERT_EQ_INT(reg.count, 1);
	UT_ASSERT_EQ_INT(ring->obs.holder.pid, 321);
	UT_ASSERT_EQ_INT(ring->obs.holder.fd, 9);
	UT_ASSERT_EQ_INT(ring->obs.holder.ino, 8888);
	UT_ASSERT_EQ_INT(ring->obs.holder.start_boottime, ev.start_boottime);
	UT_ASSERT_STR_EQ(ring->obs.holder.comm, "sixteen-chars-x");
	UT_ASSERT_EQ_INT(ring->obs.setup_flags, UT_SETUP_SQPOLL | UT_SETUP_CQSIZE);
	UT_ASSERT_EQ_INT(ring->obs.napi.busy_poll_ns, 99);
	UT_ASSERT_EQ_INT(ring->obs.napi.prefer, 1);
	UT_ASSERT_EQ_INT(ring->obs.napi.supported, 1);
	UT_ASSERT_EQ_INT(ring->obs.first_seen_ns, 4242);
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_NONE);

	/* no ring address, no ring */
	ev.ctx = 0;
	UT_ASSERT(registry_on_create(&reg, &ev, 1) == NULL);
	UT_ASSERT_EQ_INT(reg.count, 1);
	registry_free(&reg);
}

/* a new ring at a freed ring's address: nothing of the old one survives */
UT_TEST(on_create_replaces_reused_address)
{
	const uint64_t a = SLAB_BASE + 0x1000, other = SLAB_BASE + 0x2000;
	struct ut_ring_rec old = make_rec(a, 100, 5, "old", true);
	struct ut_ring_rec rother = make_rec(other, 50, 3, "other", false);
	struct ut_event ev = make_create(a, 200, 7, "new", 5000);
	struct ut_event reg_ev = make_register(a, 100, 0, 1000);
	struct ut_registry reg;
	struct ut_ring *ring;

	old.n_kernel_ids = 1;
	old.kernel_napi_ids[0] = 8200;
	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	registry_sweep_begin(&reg, 0);
	UT_ASSERT(sweep_record(&reg, &old, 1000));
	UT_ASSERT(sweep_record(&reg, &rother, 1000));
	registry_sweep_end(&reg, 1000, NULL, NULL);
	ring = registry_find(&reg, a);
	UT_ASSERT(ring != NULL);
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_APP);
	ring->obs.have_stats = true;
	ring->obs.stats.waits = 17;

	ring = registry_on_create(&reg, &ev, 31);
	UT_ASSERT(ring != NULL);
	UT_ASSERT(registry_find(&reg, a) == ring);
	UT_ASSERT_EQ_INT(reg.count, 2);
	UT_ASSERT_EQ_INT(ring->obs.holder.pid, 200);
	UT_ASSERT_EQ_INT(ring->obs.holder.fd, 7);
	UT_ASSERT_EQ_INT(ring->obs.holder.ino, 31);
	UT_ASSERT_STR_EQ(ring->obs.holder.comm, "new");
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT_EQ_INT(ring->obs.n_kernel_ids, 0);
	UT_ASSERT_EQ_INT(ring->obs.kernel_napi_ids[0], 0);
	UT_ASSERT_EQ_INT(ring->obs.napi.enabled, 0);
	UT_ASSERT(!ring->obs.have_stats);
	UT_ASSERT_EQ_INT(ring->obs.stats.waits, 0);
	UT_ASSERT_EQ_INT(ring->obs.first_seen_ns, 5000);
	UT_ASSERT(registry_find(&reg, other) != NULL);

	/* the same after an event made it the application's */
	UT_ASSERT(napi_register(&reg, &reg_ev, 1));
	UT_ASSERT_EQ_INT(registry_find(&reg, a)->tune.managed_by, UT_MANAGED_APP);
	ev.tgid = 201;
	ring = registry_on_create(&reg, &ev, 32);
	UT_ASSERT(ring != NULL);
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT_EQ_INT(ring->obs.holder.pid, 201);
	UT_ASSERT_EQ_INT(reg.count, 2);
	registry_free(&reg);
}

/* the old ring seen by a sweep, then a new one at its address during it */
UT_TEST(on_create_during_sweep_of_old_ring)
{
	const uint64_t a = SLAB_BASE + 0x1000;
	struct ut_ring_rec old = make_rec(a, 100, 5, "old", false);
	struct ut_event ev = make_create(a, 200, 7, "new", 2500);
	struct ut_registry reg;
	struct ut_ring *ring;

	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	registry_sweep_begin(&reg, 0);
	UT_ASSERT(sweep_record(&reg, &old, 1000));
	registry_sweep_end(&reg, 1000, NULL, NULL);

	registry_sweep_begin(&reg, 0);
	UT_ASSERT(!sweep_record(&reg, &old, 2000));
	UT_ASSERT(registry_on_create(&reg, &ev, 0) != NULL);
	UT_ASSERT_EQ_INT(registry_sweep_end(&reg, 2000, NULL, NULL), 0);
	ring = registry_find(&reg, a);
	UT_ASSERT(ring != NULL);
	UT_ASSERT_EQ_INT(ring->obs.holder.pid, 200);
	UT_ASSERT_EQ_INT(ring->obs.holder.fd, 7);
	registry_free(&reg);
}

UT_TEST(napi_register_unknown_ring)
{
	struct ut_event ev = make_register(SLAB_BASE + 0x1000, 100, 0, 1000);
	struct ut_registry reg;

	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	UT_ASSERT(!napi_register(&reg, &ev, 1));
	UT_ASSERT_EQ_INT(reg.count, 0);
	UT_ASSERT(registry_find(&reg, ev.ctx) == NULL);
	registry_free(&reg);
}

UT_TEST(napi_register_by_app)
{
	const uint64_t a = SLAB_BASE + 0x1000;
	struct ut_event create = make_create(a, 100, 4, "app", 1000);
	struct ut_event ev = make_register(a, 100, 0, 50000);
	struct ut_registry reg;
	struct ut_ring *ring;

	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	ring = registry_on_create(&reg, &create, 0);
	UT_ASSERT(ring != NULL);
	UT_ASSERT_EQ_INT(ring->obs.napi.enabled, 0);

	UT_ASSERT(napi_register(&reg, &ev, 999));
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_APP);
	UT_ASSERT_EQ_INT(ring->obs.napi.busy_poll_ns, 50000);
	UT_ASSERT_EQ_INT(ring->obs.napi.enabled, 1);
	UT_ASSERT_EQ_INT(ring->obs.napi.prefer, 1);
	UT_ASSERT_EQ_INT(ring->obs.napi.track_mode, UT_TRACK_STATIC);

	/* once only, but the state still follows the events */
	ev = make_register(a, 100, 0, 20000);
	ev.napi.prefer = 0;
	UT_ASSERT(!napi_register(&reg, &ev, 999));
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_APP);
	UT_ASSERT_EQ_INT(ring->obs.napi.busy_poll_ns, 20000);
	UT_ASSERT_EQ_INT(ring->obs.napi.prefer, 0);
	UT_ASSERT_EQ_INT(reg.count, 1);
	registry_free(&reg);
}

UT_TEST(napi_register_failed_call)
{
	const uint64_t a = SLAB_BASE + 0x1000;
	struct ut_event create = make_create(a, 100, 4, "app", 1000);
	struct ut_event ev = make_register(a, 100, -22, 30000);
	struct ut_registry reg;
	struct ut_ring *ring;

	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	ring = registry_on_create(&reg, &create, 0);
	UT_ASSERT(ring != NULL);
	UT_ASSERT(!napi_register(&reg, &ev, 999));
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT_EQ_INT(ring->obs.napi.busy_poll_ns, 30000);
	UT_ASSERT_EQ_INT(ring->obs.napi.track_mode, UT_TRACK_STATIC);

	/* a positive result is no success either */
	ev.ret = 1;
	UT_ASSERT(!napi_register(&reg, &ev, 999));
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_NONE);
	registry_free(&reg);
}

/* uringtune's own register calls do not make a ring the application's */
UT_TEST(napi_register_by_self)
{
	const uint64_t a = SLAB_BASE + 0x1000;
	struct ut_event create = make_create(a, 100, 4, "app", 1000);
	struct ut_event ev = make_register(a, 777, 0, 64000);
	struct ut_registry reg;
	struct ut_ring *ring;

	UT_ASSERT_EQ_INT(registry_init(&reg), 0);
	ring = registry_on_create(&reg, &create, 0);
	UT_ASSERT(ring != NULL);
	UT_ASSERT(!napi_register(&reg, &ev, 777));
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT_EQ_INT(ring->obs.napi.busy_poll_ns, 64000);
	UT_ASSERT_EQ_INT(ring->obs.napi.enabled, 1);

	/* a ring uringtune manages stays so on its own calls */
	ring->tune.managed_by = UT_MANAGED_URINGTUNE;
	ev.napi.busy_poll_ns = 32000;
	UT_ASSERT(!napi_register(&reg, &ev, 777));
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_URINGTUNE);
	UT_ASSERT_EQ_INT(ring->obs.napi.busy_poll_ns, 32000);
	registry_free(&reg);
}

int main(void)
{
	ut_run("add_find_remove", add_find_remove);
	ut_run("stress_slab_keys", stress_slab_keys);
	ut_run("stress_colliding_keys", stress_colliding_keys);
	ut_run("stress_mixed_keys", stress_mixed_keys);
	ut_run("sorted_by_pid_then_fd", sorted_by_pid_then_fd);
	ut_run("sorted_many", sorted_many);
	ut_run("sweep_adds_and_removes", sweep_adds_and_removes);
	ut_run("sweep_refreshes_known_ring", sweep_refreshes_known_ring);
	ut_run("sweep_keeps_rings_announced_during_it", sweep_keeps_rings_announced_during_it);
	ut_run("sweep_end_with_colliding_rings", sweep_end_with_colliding_rings);
	ut_run("sweep_switches_to_other_holder", sweep_switches_to_other_holder);
	ut_run("sweep_keeps_holder_seen_with_child", sweep_keeps_holder_seen_with_child);
	ut_run("sweep_new_ring_managed_by", sweep_new_ring_managed_by);
	ut_run("sweep_record_reports_new_rings", sweep_record_reports_new_rings);
	ut_run("on_create_fills_ring", on_create_fills_ring);
	ut_run("on_create_replaces_reused_address", on_create_replaces_reused_address);
	ut_run("on_create_during_sweep_of_old_ring", on_create_during_sweep_of_old_ring);
	ut_run("napi_register_unknown_ring", napi_register_unknown_ring);
	ut_run("napi_register_by_app", napi_register_by_app);
	ut_run("napi_register_failed_call", napi_register_failed_call);
	ut_run("napi_register_by_self", napi_register_by_self);
	return ut_finish();
}
