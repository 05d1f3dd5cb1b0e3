// SPDX-License-Identifier: GPL-2.0-only
/* The ring registry: a hash of rings by kernel address, and its reconciliation. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "registry.h"

#define REGISTRY_MIN_CAP	64

static size_t slot_of(uint64_t ctx, size_t cap)
{
	/* ring addresses are slab-aligned: mix the bits before masking */
	ctx ^= ctx >> 33;
	ctx *= 0xff51afd7ed558ccdULL;
	ctx ^= ctx >> 33;
	return ctx & (cap - 1);
}

int registry_init(struct ut_registry *reg)
{
	memset(reg, 0, sizeof(*reg));
	reg->slots = calloc(REGISTRY_MIN_CAP, sizeof(*reg->slots));
	if (!reg->slots)
		return -ENOMEM;
	reg->cap = REGISTRY_MIN_CAP;
	return 0;
}

void registry_free(struct ut_registry *reg)
{
	for (size_t i = 0; i < reg->cap; i++)
		ring_free(reg->slots[i]);
	free(reg->slots);
	memset(reg, 0, sizeof(*reg));
}

struct ut_ring *registry_find(const struct ut_registry *reg, uint64_t ctx)
{
	size_t i = slot_of(ctx, reg->cap);

	while (reg->slots[i]) {
		if (reg->slots[i]->ctx == ctx)
			return reg->slots[i];
		i = (i + 1) & (reg->cap - 1);
	}
	return NULL;
}

struct ut_ring *registry_find_holder(const struct ut_registry *reg, pid_t pid, int fd)
{
	for (size_t i = 0; i < reg->cap; i++)
		if (reg->slots[i] && reg->slots[i]->obs.holder.pid == pid &&
		    reg->slots[i]->obs.holder.fd == fd)
			return reg->slots[i];
	return NULL;
}

static void insert_slot(struct ut_ring **slots, size_t cap, struct ut_ring *ring)
{
	size_t i = slot_of(ring->ctx, cap);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = ring;
}

static int grow(struct ut_registry *reg)
{
	size_t cap = reg->cap * 2;
	struct ut_ring **slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < reg->cap; i++)
		if (reg->slots[i])
			insert_slot(slots, cap, reg->slots[i]);
	free(reg->slots);
	reg->slots = slots;
	reg->cap = cap;
	return 0;
}

struct ut_ring *registry_add(struct ut_registry *reg, uint64_t ctx)
{
	struct ut_ring *ring;

	if (!ctx)
		return NULL;
	ring = registry_find(reg, ctx);
	if (ring)
		return ring;
	/* keep the load under 70% so probes stay short */
	if ((reg->count + 1) * 10 > reg->cap * 7 && grow(reg))
		return NULL;
	ring = calloc(1, sizeof(*ring));
	if (!ring)
		return NULL;
	ring->ctx = ctx;
	ring->obs.holder.fd = -1;
	ring->obs.slot = -1;
	insert_slot(reg->slots, reg->cap, ring);
	reg->count++;
	return ring;
}

/* every change of a ring's holder goes through here, for the hook */
static void set_holder(struct ut_registry *reg, struct ut_ring *ring, const struct ut_holder *h)
{
	pid_t old = ring->obs.holder.pid;

	ring->obs.holder = *h;
	ring->obs.holder.comm[sizeof(ring->obs.holder.comm) - 1] = '\0';
	if (reg->on_holder && (old != h->pid || !old))
		reg->on_holder(reg->on_holder_arg, old, &ring->obs.holder);
}

void registry_remove(struct ut_registry *reg, uint64_t ctx)
{
	static const struct ut_holder none = { .fd = -1 };
	size_t mask = reg->cap - 1;
	size_t i = slot_of(ctx, reg->cap);
	size_t j;

	while (reg->slots[i] && reg->slots[i]->ctx != ctx)
		i = (i + 1) & mask;
	if (!reg->slots[i])
		return;
	if (reg->on_holder && reg->slots[i]->obs.holder.pid)
		reg->on_holder(reg->on_holder_arg, reg->slots[i]->obs.holder.pid, &none);
	/* the host's bill keeps what the ring spent and saved: its counters never go back */
	bill_host_forget(&reg->bill, &reg->slots[i]->obs.bill);
	ring_free(reg->slots[i]);
	reg->slots[i] = NULL;
	reg->count--;

	/* backward-shift deletion: no tombstones, probes stay exact */
	for (j = (i + 1) & mask; reg->slots[j]; j = (j + 1) & mask) {
		size_t home = slot_of(reg->slots[j]->ctx, reg->cap);

		/* move slot j into the hole at i unless its home lies in (i, j] */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && (home <= i && home > j))) {
			reg->slots[i] = reg->slots[j];
			reg->slots[j] = NULL;
			i = j;
		}
	}
}

static int cmp_ring(const void *a, const void *b)
{
	const struct ut_ring *x = *(const struct ut_ring *const *)a;
	const struct ut_ring *y = *(const struct ut_ring *const *)b;

	if (x->obs.holder.pid != y->obs.holder.pid)
		return x->obs.holder.pid < y->obs.holder.pid ? -1 : 1;
	if (x->obs.holder.fd != y->obs.holder.fd)
		return x->obs.holder.fd < y->obs.holder.fd ? -1 : 1;
	return x->ctx < y->ctx ? -1 : x->ctx > y->ctx;
}

struct ut_ring **registry_sorted(const struct ut_registry *reg, size_t *n)
{
	struct ut_ring **out = malloc((reg->count ? reg->count : 1) * sizeof(*out));
	struct ut_ring *ring;
	size_t i, k = 0;

	if (!out)
		return NULL;
	registry_for_each(reg, i, ring)
		out[k++] = ring;
	qsort(out, k, sizeof(*out), cmp_ring);
	*n = k;
	return out;
}

static void holder_from_rec(struct ut_holder *h, const struct ut_ring_rec *rec)
{
	h->pid = rec->tgid;
	h->fd = rec->fd;
	h->ino = rec->ino;
	h->start_boottime = rec->start_boottime;
	memcpy(h->comm, rec->comm, sizeof(h->comm));
	h->comm[sizeof(h->comm) - 1] = '\0';
}

void registry_sweep_begin(struct ut_registry *reg, uint64_t t0_ns)
{
	reg->gen++;
	reg->sweep_t0 = t0_ns;
}

bool registry_sweep_record(struct ut_registry *reg, const struct ut_ring_rec *rec,
			   uint64_t now_ns)
{
	struct ut_ring *ring = registry_find(reg, rec->ctx);
	bool found_new = false;

	struct ut_holder h;

	if (!ring) {
		ring = registry_add(reg, rec->ctx);
		if (!ring)
			return false;
		holder_from_rec(&h, rec);
		set_holder(reg, ring, &h);
		ring->obs.first_seen_ns = now_ns;
		found_new = true;
	}
	if (ring->obs.sweep_gen != reg->gen) {
		ring->obs.sweep_gen = reg->gen;
		ring->obs.holder_seen = false;
		ring->obs.have_alt = false;
	}
	if (ring->obs.holder.pid == (pid_t)rec->tgid && ring->obs.holder.fd == rec->fd) {
		/* the process may have renamed itself since */
		holder_from_rec(&ring->obs.holder, rec);
		ring->obs.holder_seen = true;
	} else if (!ring->obs.have_alt) {
		/* forked child or SCM_RIGHTS receiver: used if the holder is gone */
		holder_from_rec(&ring->obs.alt, rec);
		ring->obs.have_alt = true;
	}
	ring->obs.setup_flags = rec->setup_flags;
	/* read by the sweep that began at sweep_t0: a later event is newer */
	if (ring->obs.napi_ns <= reg->sweep_t0) {
		ring->obs.napi = rec->napi;
		ring->obs.napi_ns = reg->sweep_t0;
	}
	memcpy(ring->obs.kernel_napi_ids, rec->kernel_napi_ids, sizeof(ring->obs.kernel_napi_ids));
	ring->obs.n_kernel_ids = rec->n_kernel_ids;
	return found_new;
}

size_t registry_sweep_end(struct ut_registry *reg, uint64_t t0_ns,
			  registry_remove_cb cb, void *arg)
{
	struct ut_ring *ring;
	size_t i, removed = 0;

	/* removal shifts slots backwards: restart the scan after each one */
	for (i = 0; i < reg->cap; i++) {
		ring = reg->slots[i];
		if (!ring)
			continue;
		if (ring->obs.sweep_gen == reg->gen) {
			if (!ring->obs.holder_seen && ring->obs.have_alt)
				registry_move_holder(reg, ring, &ring->obs.alt);
			else if (ring->obs.holder_seen)
				ring->obs.holder_lost = false;
			continue;
		}
		if (ring->obs.first_seen_ns >= t0_ns)
			continue;
		if (cb)
			cb(ring, arg);
		registry_remove(reg, ring->ctx);
		removed++;
		i = (size_t)-1;
	}
	return removed;
}

struct ut_ring *registry_on_create(struct ut_registry *reg, const struct ut_event *ev,
				   uint64_t ino)
{
	struct ut_ring *ring = registry_find(reg, ev->ctx);
	struct ut_holder h;

	/* a new ring at a freed ring's address: start over */
	if (ring)
		registry_remove(reg, ev->ctx);
	ring = registry_add(reg, ev->ctx);
	if (!ring)
		return NULL;
	h = (struct ut_holder){
		.pid = ev->tgid, .fd = ev->fd, .ino = ino, .start_boottime = ev->start_boottime,
	};
	memcpy(h.comm, ev->comm, sizeof(h.comm));
	set_holder(reg, ring, &h);
	ring->obs.setup_flags = ev->setup_flags;
	ring->obs.napi = ev->napi;
	ring->obs.first_seen_ns = ev->ts_ns;
	return ring;
}

bool registry_on_napi_register(struct ut_registry *reg, const struct ut_event *ev,
			       pid_t self_pid)
{
	struct ut_ring *ring = registry_find(reg, ev->ctx);

	/* unknown ring: the next sweep brings it, with its state */
	if (!ring)
		return false;
	ring->obs.napi = ev->napi;
	ring->obs.napi_ns = ev->ts_ns;
	return (pid_t)ev->tgid != self_pid && ev->ret == 0 &&
	       ring->tune.managed_by != UT_MANAGED_APP;
}

void registry_napi_set(struct ut_ring *ring, const struct ut_napi_state *napi)
{
	ring->obs.napi = *napi;
	ring->obs.napi_ns = now_ns();
}

void registry_mark_lost(struct ut_ring *ring)
{
	ring->obs.holder_lost = true;
}

void registry_move_holder(struct ut_registry *reg, struct ut_ring *ring,
			  const struct ut_holder *h)
{
	set_holder(reg, ring, h);
	ring->obs.holder_lost = false;
}

bool registry_scan_record(struct ut_registry *reg, const struct ut_ring_rec *rec,
			  uint64_t now_ns)
{
	struct ut_ring *ring = registry_find(reg, rec->ctx);
	struct ut_holder h;

	if (!ring) {
		ring = registry_add(reg, rec->ctx);
		if (!ring)
			return false;
		ring->obs.first_seen_ns = now_ns;
		ring->obs.setup_flags = rec->setup_flags;
		ring->obs.napi = rec->napi;
		holder_from_rec(&h, rec);
		set_holder(reg, ring, &h);
		return true;
	}
	/* the same file (a new ring at a freed one's address has another inode) */
	if (ring->obs.holder_lost && (!ring->obs.holder.ino || ring->obs.holder.ino == rec->ino)) {
		holder_from_rec(&h, rec);
		registry_move_holder(reg, ring, &h);
	}
	return false;
}
