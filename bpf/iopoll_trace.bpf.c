// SPDX-License-Identifier: GPL-2.0-only
/*
 * iopoll_trace: per IOPOLL ring, the time from each request's submission to
 * its CQE, by operation class, as log2 histograms; requests in flight; and
 * the kernel's hybrid_poll_time for HYBRID_IOPOLL rings (6.13+).
 *
 * Hooks: io_uring_create (a ring at a reused address starts from zero),
 * io_uring_submit_req (io_uring_submit_sqe before 6.3; user space loads the
 * one the kernel has) and io_uring_complete. Both fire for every
 * request on every ring: for rings that are not IOPOLL they do one cached
 * test and return. A request's start time waits in an LRU hash keyed by the
 * request, so a request that never completes (cancelled, ring torn down)
 * cannot leak an entry for good. hybrid_poll_time (6.13+) is read through
 * kernel_compat.bpf.h's flavour struct.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "uringtune.h"
#include "kernel_compat.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define IORING_SETUP_IOPOLL	(1U << 0)

/* include/uapi/linux/io_uring.h opcodes, stable ABI */
#define OP_READV	1
#define OP_WRITEV	2
#define OP_READ_FIXED	4
#define OP_WRITE_FIXED	5
#define OP_READ		22
#define OP_WRITE	23
#define OP_URING_CMD	46

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, __u64);		/* struct io_ring_ctx * */
	__type(value, struct ut_iopoll_stats);
} iopoll_rings SEC(".maps");

struct req_start {
	__u64 ts;
	__u32 class;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);	/* requests in flight on IOPOLL rings */
	__type(key, __u64);		/* struct io_kiocb * */
	__type(value, struct req_start);
} iopoll_start SEC(".maps");

/* per CPU: was the last ring seen here an IOPOLL ring? saves a probe read */
struct ring_kind {
	__u64 ctx;
	__u32 iopoll;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ring_kind);
} last_kind SEC(".maps");

/* a new ring's value: too large for the stack or an inline memset */
const struct ut_iopoll_stats zero_stats = {};

__u64 iopoll_rings_dropped;

static __always_inline __u32 op_class(__u8 opcode)
{
	switch (opcode) {
	case OP_READ:
	case OP_READV:
	case OP_READ_FIXED:
		return UT_IOP_READ;
	case OP_WRITE:
	case OP_WRITEV:
	case OP_WRITE_FIXED:
		return UT_IOP_WRITE;
	case OP_URING_CMD:
		return UT_IOP_URING_CMD;
	default:
		return UT_IOP_OTHER;
	}
}

static struct ut_iopoll_stats *iopoll_ring(__u64 key, __u32 flags)
{
	struct ut_iopoll_stats *st;

	st = bpf_map_lookup_elem(&iopoll_rings, &key);
	if (st)
		return st;
	/* another CPU may win the insert: then use its entry */
	bpf_map_update_elem(&iopoll_rings, &key, &zero_stats, BPF_NOEXIST);
	st = bpf_map_lookup_elem(&iopoll_rings, &key);
	if (!st) {
		__sync_fetch_and_add(&iopoll_rings_dropped, 1);
		return NULL;
	}
	if (!st->created_ns) {
		st->created_ns = bpf_ktime_get_ns();
		st->setup_flags = flags;
	}
	return st;
}

/*
 * A submission's gap from the thread's previous event on the ring: after a
 * submission, one submission's cost; after a completion, the turnaround.
 * Racy between CPUs like the rest: a lost or odd gap is one sample of many.
 */
static __always_inline void note_gap(struct ut_iopoll_stats *st, __u32 tid, __u64 now)
{
	__u64 gap = now - st->last_ns;
	__u32 kind = st->last_kind;

	if (st->last_tid == tid && gap < UT_IOP_GAP_MAX_NS &&
	    (kind == UT_IOP_EV_SUBMIT || kind == UT_IOP_EV_COMPLETE)) {
		kind = kind == UT_IOP_EV_SUBMIT ? UT_IOP_GAP_SUBMIT : UT_IOP_GAP_TURN;
		__sync_fetch_and_add(&st->gap_sum_ns[kind & 1], gap);
		__sync_fetch_and_add(&st->gap_n[kind & 1], 1);
	}
	st->last_ns = now;
	st->last_kind = UT_IOP_EV_SUBMIT;
	st->last_tid = tid;
}

/*
 * The busy time and its depth integral, from the ring's last event
 * (last_ns, which the caller then moves to @now) to @now; before the
 * counters move.
 */
static __always_inline void note_busy(struct ut_iopoll_stats *st, __u64 now)
{
	__u64 prev = st->last_ns, done = st->completed, inflight = st->submitted - done;

	/* idle: nothing in flight for a while (a short gap is the program's turnaround) */
	if (!prev || now <= prev || inflight > (1 << 20) ||
	    (!inflight && now - prev >= UT_IOP_IDLE_NS))
		return;
	__sync_fetch_and_add(&st->busy_ns, now - prev);
	__sync_fetch_and_add(&st->inflight_ns, (now - prev) * inflight);
}

static __always_inline int on_submit(struct io_kiocb *req)
{
	struct io_ring_ctx *ctx = req->ctx;
	struct ut_iopoll_stats *st;
	struct req_start start;
	__u64 key = (__u64)req;
	__u32 flags = ctx->flags, tid;

	/* typed loads: the cost for every other ring is this test */
	if (!(flags & IORING_SETUP_IOPOLL))
		return 0;
	st = iopoll_ring((__u64)ctx, flags);
	if (!st)
		return 0;
	start.ts = bpf_ktime_get_ns();
	note_busy(st, start.ts);
	start.class = op_class(req->opcode);
	start.pad = 0;
	bpf_map_update_elem(&iopoll_start, &key, &start, BPF_ANY);
	__sync_fetch_and_add(&st->submitted, 1);
	tid = (__u32)bpf_get_current_pid_tgid();
	st->submit_tid = tid;
	note_gap(st, tid, start.ts);
	return 0;
}

/* the ring's address is untyped before 6.x: one probe read, cached per CPU */
static __always_inline bool ring_is_iopoll(void *ctxp)
{
	struct io_ring_ctx *ctx = ctxp;
	struct ring_kind *k;
	__u32 zero = 0;

	k = bpf_map_lookup_elem(&last_kind, &zero);
	if (!k)
		return false;
	if (k->ctx != (__u64)ctx) {
		k->ctx = (__u64)ctx;
		k->iopoll = !!(BPF_CORE_READ(ctx, flags) & IORING_SETUP_IOPOLL);
	}
	return k->iopoll;
}

/*
 * io_uring_complete(ctx, req, ...): the trailing arguments changed over time.
 * Defined before the submission hooks so that the skeleton attaches it
 * first: a request timed at submission must never complete unseen (it would
 * count as in flight for the ring's life).
 */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(iop_complete, void *ctxp, void *reqp)
{
	struct io_ring_ctx___hybrid *h = ctxp;
	struct ut_iopoll_stats *st;
	struct req_start *start;
	__u64 key = (__u64)reqp, ring = (__u64)ctxp, dur, start_ts, now;
	__u32 class;

	if (!ring_is_iopoll(ctxp))
		return 0;
	start = bpf_map_lookup_elem(&iopoll_start, &key);
	if (!start)
		return 0;
	start_ts = start->ts;
	now = bpf_ktime_get_ns();
	dur = now - start_ts;
	class = start->class & (UT_IOP_CLASSES - 1);
	bpf_map_delete_elem(&iopoll_start, &key);

	st = bpf_map_lookup_elem(&iopoll_rings, &ring);
	if (!st)
		return 0;
	note_busy(st, now);
	__sync_fetch_and_add(&st->completions[class], 1);
	__sync_fetch_and_add(&st->hist[class][hist_slot(dur)], 1);
	__sync_fetch_and_add(&st->completed, 1);
	__sync_fetch_and_add(&st->dur_sum_ns, dur);
	__sync_fetch_and_add(&st->fine_hist[hist_fine_slot(dur)], 1);
	/* two CPUs may race here: the minimum may miss one value, never take a wrong one */
	if (!st->dur_min_ns || dur < st->dur_min_ns)
		st->dur_min_ns = dur;
	st->last_ns = now;
	st->last_kind = UT_IOP_EV_COMPLETE;
	st->last_tid = (__u32)bpf_get_current_pid_tgid();
	if (bpf_core_field_exists(h->hybrid_poll_time))
		st->hybrid_poll_time_ns = BPF_CORE_READ(h, hybrid_poll_time);
	return 0;
}

/* a new ring may sit at a closed ring's address: its counts start at zero */
SEC("tp_btf/io_uring_create")
int BPF_PROG(iop_ring_create, int fd, void *ctxp)
{
	__u64 key = (__u64)ctxp;

	bpf_map_delete_elem(&iopoll_rings, &key);
	return 0;
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(iop_submit, struct io_kiocb *req)
{
	return on_submit(req);
}

/* before 6.3 the same tracepoint was io_uring_submit_sqe(req, force_nonblock) */
SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(iop_submit_sqe, struct io_kiocb *req)
{
	return on_submit(req);
}
