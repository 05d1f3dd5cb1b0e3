/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ring registry: every io_uring ring on the host that uringtuned knows
 * of, keyed by the kernel's ring address, and the only writer of what was
 * observed of each (struct ring_obs, ring.h). Fed by ring-buffer events (new
 * rings, NAPI register calls) and reconciled with the kernel by periodic
 * sweeps of the task_file iterator. No I/O here: callers bring the data.
 */
#ifndef UT_REGISTRY_H
#define UT_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "ring.h"
#include "uringtune.h"

/*
 * Told whenever a ring's holder process changes: a ring added (old_pid 0),
 * moved to another process, or removed (new_pid 0). The inventory keeps its
 * per-process watches with it.
 */
typedef void (*registry_holder_cb)(void *arg, pid_t old_pid, const struct ut_holder *now);

struct ut_registry {
	struct ut_ring **slots;		/* open addressing, linear probing */
	size_t cap;			/* power of two */
	size_t count;
	uint64_t gen;			/* current sweep */
	uint64_t sweep_t0;		/* ... and when it began reading */
	registry_holder_cb on_holder;	/* optional */
	void *on_holder_arg;
	/* the host's busy-poll bill: a ring removed leaves its totals here */
	struct bill_host bill;
	/* the host's histogram of paid windows: rings gone included (paid_hist.h) */
	struct paid_hist paid_hist;
};

int registry_init(struct ut_registry *reg);
void registry_free(struct ut_registry *reg);

struct ut_ring *registry_find(const struct ut_registry *reg, uint64_t ctx);
/* the ring process @pid holds as @fd (a scan: for commands and agents, not per event) */
struct ut_ring *registry_find_holder(const struct ut_registry *reg, pid_t pid, int fd);
/* a zeroed ring with ctx set; NULL on allocation failure or ctx 0 */
struct ut_ring *registry_add(struct ut_registry *reg, uint64_t ctx);
void registry_remove(struct ut_registry *reg, uint64_t ctx);

/* all rings sorted by pid, then fd; caller frees the array */
struct ut_ring **registry_sorted(const struct ut_registry *reg, size_t *n);

#define registry_for_each(reg, i, ring)					\
	for ((i) = 0; (i) < (reg)->cap; (i)++)				\
		if (((ring) = (reg)->slots[(i)]) != NULL)

/*
 * A sweep: begin (t0_ns: when the iterator began reading), one record per
 * (process, fd) holding a ring, end. Rings not
 * found are removed unless they were first seen at or after t0_ns (the
 * sweep's start), so a ring announced by an event during the sweep stays.
 * registry_sweep_record() returns true for a ring new to the registry;
 * registry_sweep_end() returns how many rings it removed. A ring seen only
 * under other (pid, fd) pairs than its holder's (a forked child, an fd passed
 * over SCM_RIGHTS) moves to the first of them.
 */
void registry_sweep_begin(struct ut_registry *reg, uint64_t t0_ns);
bool registry_sweep_record(struct ut_registry *reg, const struct ut_ring_rec *rec,
			   uint64_t now_ns);
typedef void (*registry_remove_cb)(const struct ut_ring *ring, void *arg);
size_t registry_sweep_end(struct ut_registry *reg, uint64_t t0_ns,
			  registry_remove_cb cb, void *arg);

/*
 * The ring's holder is now @h (a child that inherited it, the process it was
 * passed to, another fd of the same process); clears holder_lost.
 */
void registry_move_holder(struct ut_registry *reg, struct ut_ring *ring,
			  const struct ut_holder *h);
/* ... its holder let go of it, where it went is not known yet */
void registry_mark_lost(struct ut_ring *ring);
/* a record of a per-process scan: a new ring (true), or a lost ring's new holder */
bool registry_scan_record(struct ut_registry *reg, const struct ut_ring_rec *rec,
			  uint64_t now_ns);

/* io_uring_create event; ino from the caller's stat of /proc/PID/fd/FD (0 if unknown) */
struct ut_ring *registry_on_create(struct ut_registry *reg, const struct ut_event *ev,
				   uint64_t ino);
/*
 * NAPI (un)register event: the ring's new NAPI state. Returns true when the
 * call is its application's own on a ring not yet the application's: a
 * successful register or unregister call from a process other than
 * self_pid (switching NAPI off is a choice too). The lifecycle then makes
 * the ring the application's (lifecycle_on_register()).
 */
bool registry_on_napi_register(struct ut_registry *reg, const struct ut_event *ev,
			       pid_t self_pid);
/* a change the kernel took (ours, or our agent's): shown until a sweep or event says more */
void registry_napi_set(struct ut_ring *ring, const struct ut_napi_state *napi);

#endif /* UT_REGISTRY_H */
