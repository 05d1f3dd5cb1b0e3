/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An IOPOLL ring measured over windows: reads, IOPS and depth over the time
 * it had requests in flight (BPF's busy time), the polling thread's CPU,
 * the completion times' exact mean and shape, and what the submitting
 * thread spends around each request. A window closes after WINDOW_MIN_NS
 * with at least WINDOW_MIN_READS reads; a quieter one is restarted after
 * WINDOW_MAX_NS, and so is one whose submitting thread changed (whose CPU
 * was read would then be wrong). The per-program verdicts take each closed
 * window; the hybrid model and status take the last WINDOW_KEEP closed
 * windows together ("recent": a few seconds, so that one stall of an
 * emulated or busy host weighs little). Pure: the caller reads the map and
 * /proc.
 */
#ifndef UT_IOPOLL_WINDOW_H
#define UT_IOPOLL_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "hybrid_model.h"
#include "uringtune.h"

#define WINDOW_MIN_NS		(1000ULL * 1000 * 1000)
#define WINDOW_MIN_READS	200
#define WINDOW_MAX_NS		(30ULL * 1000 * 1000 * 1000)
#define UT_EXE_LEN		256
#define WINDOW_KEEP		8

struct iopoll_window_result {
	uint64_t period_ns;
	uint64_t busy_ns;		/* ... of which with requests in flight */
	uint64_t reads;
	bool cpu_known;
	uint64_t cpu_ns;		/* the submitting thread's, over the window */
	double iops;			/* over busy time */
	double cpu_util;		/* cpu_ns / busy_ns */
	double mean_ns;			/* exact */
	double qd;			/* requests in flight, busy time's average */
	uint64_t min_ns;		/* the ring's shortest completion, exact */
	double submit_ns;		/* one submission's cost; 0 not seen */
	double turn_ns;			/* completion to next submission; 0 not seen */
	uint64_t hybrid_poll_time_ns;	/* hybrid rings: the kernel's; else 0 */
	__u64 fine[UT_FINE_SLOTS];	/* completion times of the window */
};

/* the moment a window began: the counters then */
struct iopoll_mark {
	uint64_t t_ns;
	uint64_t completed;
	uint64_t dur_sum_ns;
	uint64_t busy_ns;
	uint64_t inflight_ns;
	uint64_t cpu_ns;
	uint32_t tid;
	bool cpu_known;
	__u64 gap_sum_ns[UT_IOP_GAPS];
	__u64 gap_n[UT_IOP_GAPS];
	__u64 fine[UT_FINE_SLOTS];
};

struct iopoll_window {
	bool started;
	struct iopoll_mark mark;	/* where the window being filled began */
	/* where the last closed windows began, oldest first: recent's span */
	struct iopoll_mark chain[WINDOW_KEEP];
	uint32_t n_chain;
	bool have_last;
	struct iopoll_window_result last;	/* the last closed window */
	struct iopoll_window_result recent;	/* ... and those before it, together */
	uint32_t closed;		/* windows closed so far */
	/* the model's answer on the last closed window of a classic ring */
	struct hybrid_pred pred;
	char exe[UT_EXE_LEN];		/* the holder's executable ("" not known) */
};

/*
 * One look at the ring: its map value @s, the time, and @cpu_ns of thread
 * s->submit_tid (@cpu_known false if it could not be read). Returns true
 * when this look closed a window (w->last is new).
 */
bool iopoll_window_step(struct iopoll_window *w, const struct ut_iopoll_stats *s,
			uint64_t now_ns, bool cpu_known, uint64_t cpu_ns);

#endif /* UT_IOPOLL_WINDOW_H */
