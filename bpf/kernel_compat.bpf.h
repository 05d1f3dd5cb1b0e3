/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every kernel field the BPF programs read that not all supported kernels
 * (6.1 .. 7.x) have, as CO-RE flavour structs: "struct foo___tag" holds only
 * the fields that differ, and libbpf matches it to the running kernel's
 * "struct foo" by name at load time. Code never names such a field on the
 * vmlinux.h type itself: then the programs compile against any supported
 * kernel's vmlinux.h (make VMLINUX_H=... or BTF=..., README "Building on
 * older kernels"), and every read is guarded by bpf_core_field_exists(),
 * so one object loads on all of them. (bcc's libbpf-tools keep theirs in
 * core_fixes.bpf.h the same way.)
 *
 *   field                               kernels     read by
 *   io_ring_ctx.napi_list               6.9+        napi_trace (list of struct io_napi_entry)
 *   io_ring_ctx.napi_prefer_busy_poll   6.9+        napi_trace
 *   io_ring_ctx.napi_busy_poll_to (us)  6.9, 6.10   napi_trace
 *   io_ring_ctx.napi_busy_poll_dt (ns)  6.11+       napi_trace
 *   io_ring_ctx.napi_enabled            6.9..6.12   napi_trace
 *   io_ring_ctx.napi_track_mode         6.13+       napi_trace
 *   struct io_napi_entry                6.9+        napi_trace
 *   io_ring_ctx.hybrid_poll_time        6.13+       iopoll_trace
 *   io_ring_ctx.work_llist (llist)      6.1..7.1    napi_trace (DEFER_TASKRUN work)
 *   io_ring_ctx.work_list (mpscq)       7.2+        napi_trace (DEFER_TASKRUN work)
 *   io_kiocb.task                       6.1..6.12   napi_trace (a request's task)
 *   io_kiocb.tctx, io_uring_task.task   6.13+       napi_trace (a request's task)
 *
 * The casts keep the pointer's kernel type for the verifier: a typed
 * (tp_btf) pointer cast to a flavour is still read with plain loads.
 */
#ifndef UT_KERNEL_COMPAT_BPF_H
#define UT_KERNEL_COMPAT_BPF_H

/* 6.9+: io_uring NAPI busy polling, the parts every NAPI kernel has */
struct io_ring_ctx___napi {
	struct list_head napi_list;
	bool napi_prefer_busy_poll;
} __attribute__((preserve_access_index));

/* 6.9+: one entry of ctx->napi_list */
struct io_napi_entry___v69 {
	unsigned int napi_id;
	struct list_head list;
} __attribute__((preserve_access_index));

/* 6.9, 6.10: the busy-poll timeout in microseconds */
struct io_ring_ctx___napi_v69 {
	unsigned int napi_busy_poll_to;
} __attribute__((preserve_access_index));

/* 6.11+: the timeout as a ktime (ns) */
struct io_ring_ctx___napi_v611 {
	ktime_t napi_busy_poll_dt;
} __attribute__((preserve_access_index));

/* 6.9 .. 6.12: NAPI on or off (dynamic tracking only) */
struct io_ring_ctx___napi_enabled {
	bool napi_enabled;
} __attribute__((preserve_access_index));

/* 6.13+: the tracking mode (dynamic, static, inactive) replaces napi_enabled */
struct io_ring_ctx___napi_v613 {
	u8 napi_track_mode;
} __attribute__((preserve_access_index));

/* 6.13+: HYBRID_IOPOLL's running minimum of completion times */
struct io_ring_ctx___hybrid {
	u64 hybrid_poll_time;
} __attribute__((preserve_access_index));

/* 6.1 .. 7.1: DEFER_TASKRUN work queued on the ring for its submitter */
struct io_ring_ctx___llist {
	struct llist_head work_llist;
} __attribute__((preserve_access_index));

/* 7.2+: the same work in an MPSC queue */
struct mpscq___v72 {
	struct llist_node *tail;
	struct llist_node stub;
} __attribute__((preserve_access_index));

struct io_ring_ctx___v72 {
	struct mpscq___v72 work_list;
} __attribute__((preserve_access_index));

/* 6.1 .. 6.12: a request named its task directly */
struct io_kiocb___v612 {
	struct task_struct *task;
} __attribute__((preserve_access_index));

/* 6.13+: through its io_uring_task */
struct io_uring_task___v613 {
	struct task_struct *task;
} __attribute__((preserve_access_index));

struct io_kiocb___v613 {
	struct io_uring_task___v613 *tctx;
} __attribute__((preserve_access_index));

/* Does this kernel have io_uring NAPI busy polling (6.9+)? */
#define ring_has_napi(ctx) \
	bpf_core_field_exists(((struct io_ring_ctx___napi *)(ctx))->napi_list)

/* &ctx->napi_list, the list head (only where ring_has_napi()) */
static __always_inline struct list_head *ring_napi_head(struct io_ring_ctx *ctx)
{
	struct io_ring_ctx___napi *n = (void *)ctx;

	return (void *)__builtin_preserve_access_index(&n->napi_list);
}

/* the NAPI ID of the ctx->napi_list entry whose list node is @pos (probe read) */
static __always_inline __u32 napi_entry_id(struct list_head *pos)
{
	struct io_napi_entry___v69 *e;

	e = (void *)pos - bpf_core_field_offset(struct io_napi_entry___v69, list);
	return BPF_CORE_READ(e, napi_id);
}

/* io_local_work_pending(): work queued on the ring for its submitter */
static __always_inline bool ring_local_work_pending(struct io_ring_ctx *ctx)
{
	struct io_ring_ctx___llist *ll = (void *)ctx;
	struct io_ring_ctx___v72 *v72 = (void *)ctx;

	if (bpf_core_field_exists(ll->work_llist))
		return BPF_CORE_READ(ll, work_llist.first) != NULL;
	if (bpf_core_field_exists(v72->work_list))
		/* mpscq_empty(): the tail points at the queue's own stub */
		return BPF_CORE_READ(v72, work_list.tail) !=
		       (void *)__builtin_preserve_access_index(&v72->work_list.stub);
	return false;
}

/* The task a request belongs to, with plain loads (a typed @req); NULL if none. */
static __always_inline struct task_struct *req_task(struct io_kiocb *req)
{
	struct io_kiocb___v613 *v613 = (void *)req;
	struct io_kiocb___v612 *v612 = (void *)req;

	if (bpf_core_field_exists(v613->tctx))
		return v613->tctx ? v613->tctx->task : NULL;
	return v612->task;
}

#endif /* UT_KERNEL_COMPAT_BPF_H */
