/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BPF edge of uringtuned: loads and attaches napi_trace, and gives the
 * rest of the daemon its events, its inventory sweeps and its map values.
 */
#ifndef UT_TRACE_H
#define UT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "uringtune.h"

struct napi_trace_bpf;
struct ring_buffer;

typedef int (*trace_event_cb)(const struct ut_event *ev, void *arg);
typedef void (*trace_rec_cb)(const struct ut_ring_rec *rec, void *arg);
typedef bool (*trace_keep_cb)(uint64_t ctx, void *arg);

struct ut_trace {
	struct napi_trace_bpf *skel;
	struct ring_buffer *rb;
	unsigned int max_rings;
	trace_event_cb event_cb;
	void *event_arg;
	struct ut_ring_stats *stats;	/* the ring_stats array, mapped read-write */
	size_t stats_len;
	bool pid_iter;			/* task_file iterators take a pid (6.1+) */
};

/*
 * Open, load and attach. On failure returns a negative errno and writes one
 * line for the operator to err: what failed, why, and what to do.
 */
int trace_open(struct ut_trace *t, unsigned int max_rings, trace_event_cb cb,
	       void *arg, char *err, size_t errlen);
void trace_close(struct ut_trace *t);

/* fd to poll for events, and draining them into the callback */
int trace_events_fd(const struct ut_trace *t);
int trace_consume(struct ut_trace *t);

/*
 * The iterators (trace_iter.c). Each returns the number of records passed to
 * the callback, or -errno. They may run on another thread than the one that
 * consumes events: they touch no state of struct ut_trace but its fds.
 *   trace_sweep       every (process, fd) on the host holding a ring: O(files)
 *   trace_scan_pid    the same within one process: O(its files); -ENOTSUP
 *                     on kernels without pid-filtered iterators (before 6.1)
 */
int trace_sweep(struct ut_trace *t, trace_rec_cb cb, void *arg);
int trace_scan_pid(struct ut_trace *t, pid_t pid, trace_rec_cb cb, void *arg);
int trace_iter_open(struct ut_trace *t, char *err, size_t errlen);
void trace_iter_close(struct ut_trace *t);

/*
 * A ring's statistics from the mapped array; *slot caches where they were
 * (-1: not known yet, looked up with a syscall; TRACE_SLOT_NONE: none then,
 * not looked up again) and is kept up to date. -ENOENT: no slot.
 */
#define TRACE_SLOT_NONE	(-2)
int trace_ring_stats(const struct ut_trace *t, uint64_t ctx, int32_t *slot,
		     struct ut_ring_stats *out);
/* the ring owning a slot, 0 if free: for finding the slots of rings that had none */
uint64_t trace_slot_ctx(const struct ut_trace *t, uint32_t slot);
/* a process holding a ring (its forks are reported), or no longer */
int trace_holder_set(const struct ut_trace *t, pid_t pid, bool holds);
/* ring_stats slots in use */
int trace_slots_used(const struct ut_trace *t);

/*
 * Delete map entries of rings that are gone: those keep() rejects and whose
 * entry is older than t0_ns. Returns the number of entries left, or -errno.
 */
int trace_prune(struct ut_trace *t, trace_keep_cb keep, void *arg, uint64_t t0_ns);

uint64_t trace_events_lost(const struct ut_trace *t);
uint64_t trace_rings_dropped(const struct ut_trace *t);

/* the kernel's io_uring has NAPI busy polling (6.9+), from its BTF */
bool trace_kernel_has_napi(void);
/* ... and tracking modes, static NAPI ID lists among them (6.13+) */
bool trace_kernel_has_napi_tracking(void);

#endif /* UT_TRACE_H */
