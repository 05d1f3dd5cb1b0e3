/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Map keys, values and events shared by the BPF programs and user space.
 * Nothing else crosses that boundary (but the histogram convention, hist.h);
 * both sides include this file.
 *
 * A ring is keyed by its struct io_ring_ctx address (an opaque u64 that is
 * never shown to users): it is what every io_uring tracepoint carries.
 */
#ifndef UT_URINGTUNE_H
#define UT_URINGTUNE_H

#include "hist.h"	/* UT_HIST_SLOTS: log2(ns), slot i holds [2^i, 2^(i+1)) */

#define UT_COMM_LEN		16
#define UT_MAX_NAPI_IDS		8

/* napi tracking mode as the kernel names it (io_uring_napi_tracking_strategy) */
#define UT_TRACK_DYNAMIC	0
#define UT_TRACK_STATIC		1
#define UT_TRACK_INACTIVE	255

/* The kernel's NAPI settings of one ring, read from the ring itself. */
struct ut_napi_state {
	__u64 busy_poll_ns;	/* ctx->napi_busy_poll_dt */
	__u8 supported;		/* kernel has io_uring NAPI (6.9+) */
	__u8 enabled;		/* what fdinfo prints as "NAPI: enabled" */
	__u8 prefer;		/* ctx->napi_prefer_busy_poll */
	__u8 track_mode;	/* UT_TRACK_* */
	__u32 pad;
};

/*
 * Per-ring statistics, a slot of the "ring_stats" array. Counters only grow;
 * user space takes differences. Updated from several CPUs at once, so every
 * counter is bumped with an atomic add.
 */
struct ut_ring_stats {
	__u64 ctx;		/* the ring owning this slot, 0 if free */
	__u64 created_ns;	/* bpf_ktime_get_ns() when the entry was made */
	__u32 tgid;		/* creator, 0 if the ring predates the programs */
	__u32 setup_flags;

	__u64 waits;		/* io_uring_cqring_wait: the task had to wait */
	__u64 waits_nosleep;	/* ... and had its events before it slept */
	__u64 busy_windows;	/* waits that busy-polled NAPI first */
	__u64 busy_paid;	/* ... and were satisfied without sleeping */
	/*
	 * Windows are timed on a 1-in-16 sample (a clock read costs ~50 ns),
	 * from the first busy-poll iteration the waiting thread ran
	 * (napi:napi_poll with the busy-poll budget, on its CPU) to the end of
	 * the busy loop (io_uring_cqring_wait), whatever armed the receive: a
	 * poll before each wait, or a multishot receive armed once.
	 */
	__u64 busy_ns;		/* paid windows timed: sum of their lengths */
	__u64 busy_hist[UT_HIST_SLOTS];	/* ... and their lengths */
	__u64 unpaid_timed;	/* windows that did not pay, timed */
	__u64 unpaid_timed_ns;	/* ... sum of their lengths */
	__u64 windows_sampled;	/* windows in the sample, timed or not */
	/*
	 * ... not timed: no busy-poll iteration of the waiting thread was seen
	 * on its CPU (the NAPI was being polled elsewhere, or the thread was
	 * switched out or moved during the window), or the window measured
	 * longer than the timeout allows. Their length is not known.
	 */
	__u64 windows_unstamped;
	__u64 windows_overlong;

	__u32 napi_ids[UT_MAX_NAPI_IDS];	/* seen on the ring's sockets */
	__u32 last_napi_id;			/* fast path: same as last time */
	__u32 napi_ids_overflow;		/* distinct IDs beyond the array */
	__u64 napi_ids_changed_ns;		/* when napi_ids last grew */

	struct ut_napi_state napi;	/* as of the last wait or register */

	__u32 user_tgid;	/* the process that last waited on the ring */
	__u32 wait_tid;		/* ... and its thread: whose CPU the bill is bounded by */
	/* the kernel's napi_list, copied now and then (read_kernel_ids) */
	__u32 n_kernel_ids;	/* entries (may exceed the array) */
	__u32 kernel_napi_ids[UT_MAX_NAPI_IDS];
	__u32 pad2;
	__u64 kernel_ids_reads;	/* 0: never copied */

	/*
	 * Waits that slept, and what each sleep cost (napi_trace's sleepers):
	 * a sleep starts at io_uring_cqring_wait (the wait not satisfied), its
	 * wake-up is triggered by the first completion for the waiter
	 * (io_uring_task_add: a poll woke), and it ends when the waiter runs
	 * that work (io_uring_task_work_run / io_uring_local_work_run).
	 */
	__u64 sleeps_woken;	/* sleeps ended by a completion */
	/* sleep start to that completion: the window a busy poll would have needed */
	__u64 sleep_gap_hist[UT_HIST_SLOTS];
	__u64 wakes;		/* of those, timed to the waiter running its work */
	__u64 wake_ns;		/* sum of those times: the latency the sleeps cost */
	__u64 wakes_long;	/* not counted: longer than UT_WAKE_MAX_NS (preempted) */
};

/* a wake-up timed longer than this was the waiter's CPU being busy, not the wake-up */
#define UT_WAKE_MAX_NS		(10 * 1000 * 1000ULL)

enum ut_event_type {
	UT_EV_RING_CREATE = 1,	/* io_uring_create */
	UT_EV_NAPI_REGISTER = 2,	/* IORING_(UN)REGISTER_NAPI on a ring */
	UT_EV_RING_GONE = 3,	/* the ring's last file reference went: it is being freed */
	UT_EV_HOLDER_FORK = 4,	/* a process in "holders" forked: tid is the child's pid */
};

/* The one ring-buffer record; fields not used by a type are zero. */
struct ut_event {
	__u32 type;
	__u32 tgid;
	__u32 tid;
	__s32 fd;		/* RING_CREATE: the new ring's fd */
	__u64 ctx;
	__u64 ts_ns;
	__u64 start_boottime;	/* RING_CREATE: process start, as in ut_ring_rec;
				 * HOLDER_FORK: the child's */
	__u64 ino;		/* RING_CREATE: the ring file's inode, 0 if unknown */
	__u32 setup_flags;
	__u32 opcode;		/* NAPI_REGISTER: 27 register, 28 unregister */
	__s64 ret;		/* NAPI_REGISTER: the call's result */
	struct ut_napi_state napi;	/* the ring's NAPI state after the event */
	char comm[UT_COMM_LEN];	/* process (thread-group leader) name */
};

/* One ring found by the task_file iterator (rings_iter). */
struct ut_ring_rec {
	__u64 ctx;
	__u64 ino;		/* the ring file's inode number */
	__u64 start_boottime;	/* process start, ns since boot (/proc stat field 22) */
	__u32 tgid;
	__s32 fd;
	__u32 setup_flags;
	__u32 n_kernel_ids;	/* entries in the kernel's napi_list (may exceed the array) */
	__u32 kernel_napi_ids[UT_MAX_NAPI_IDS];
	struct ut_napi_state napi;
	char comm[UT_COMM_LEN];
};

/* IOPOLL rings (iopoll_trace): completion times by operation class */
enum ut_iop_class {
	UT_IOP_READ,
	UT_IOP_WRITE,
	UT_IOP_URING_CMD,
	UT_IOP_OTHER,
	UT_IOP_CLASSES,
};

enum ut_iop_event {
	UT_IOP_EV_NONE,
	UT_IOP_EV_SUBMIT,
	UT_IOP_EV_COMPLETE,
};

enum ut_iop_gap {
	UT_IOP_GAP_SUBMIT,		/* submission after submission */
	UT_IOP_GAP_TURN,		/* submission after completion */
	UT_IOP_GAPS,
};

#define UT_IOP_GAP_MAX_NS	(1000 * 1000)
/* nothing in flight this long is idle time, not a turnaround */
#define UT_IOP_IDLE_NS		(1000 * 1000)

/* value of the "iopoll_rings" hash, keyed by ring address like the rest */
struct ut_iopoll_stats {
	__u64 created_ns;
	__u64 completions[UT_IOP_CLASSES];
	/* submission to CQE, log2(ns) slots as busy_hist */
	__u64 hist[UT_IOP_CLASSES][UT_HIST_SLOTS];
	__u64 submitted;		/* completions + submitted - ... = in flight */
	__u64 hybrid_poll_time_ns;	/* ctx->hybrid_poll_time (6.13+); 0 unknown */
	__u32 setup_flags;
	__u32 submit_tid;		/* the thread that last submitted: whose CPU is read */
	/* for the hybrid model (daemon/hybrid/): every class together */
	__u64 completed;
	__u64 dur_sum_ns;		/* completion times summed: the exact mean */
	__u64 dur_min_ns;		/* the shortest completion time, exact; 0 none */
	__u64 fine_hist[UT_FINE_SLOTS];	/* completion times, quarter-log2 (hist.h) */
	/*
	 * What the submitting thread spends around a request: the gap from a
	 * submission to the next one of the same batch (the kernel's cost of
	 * one submission), and from a completion to the next submission (the
	 * program's turnaround). Gaps over UT_IOP_GAP_MAX_NS are not counted.
	 */
	__u64 last_ns;
	__u32 last_kind;		/* enum ut_iop_event */
	__u32 last_tid;
	__u64 gap_sum_ns[UT_IOP_GAPS];
	__u64 gap_n[UT_IOP_GAPS];
	/*
	 * Busy time (requests in flight, or none for less than UT_IOP_IDLE_NS:
	 * the program's turnaround), and its integral of requests in flight:
	 * IOPS and depth over busy time only, whatever idle gaps a window
	 * holds. Stepped at every submission and completion, from last_ns.
	 */
	__u64 busy_ns;
	__u64 inflight_ns;
};

#endif /* UT_URINGTUNE_H */
