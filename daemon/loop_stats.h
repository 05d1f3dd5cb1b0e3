/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How long the event loop's dispatches take: the loop (loop.c) times every
 * sd_event_dispatch(), which runs one source's handler, and records it here.
 * Pure: no clock, no I/O; the caller brings the times and logs the lines.
 *
 * Kept: the number of dispatches and their total time, a log2 histogram of
 * their lengths (common/hist.h slots), the longest one (how long, when,
 * which source), and for the log the slow ones (over LOOP_SLOW_NS): a slow
 * dispatch is a line at once if none was logged in the last
 * LOOP_SLOW_LOG_EVERY_NS, else counted, with the worst of them, into the
 * next line, which is due once that minute is over. Fixed size: nothing
 * here grows with rings or with time.
 */
#ifndef UT_LOOP_STATS_H
#define UT_LOOP_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "hist.h"

/* a dispatch longer than this held up everything else: logged */
#define LOOP_SLOW_NS		(20 * UINT64_C(1000000))
/* at most one line about slow dispatches per minute */
#define LOOP_SLOW_LOG_EVERY_NS	(60 * UINT64_C(1000000000))
/* a source's description as kept, cut to fit */
#define LOOP_WHAT_SIZE		32

/* a dispatch: how long it took and what ran */
struct loop_dispatch {
	uint64_t ns;
	uint64_t at_ns;			/* when it started, CLOCK_MONOTONIC */
	char what[LOOP_WHAT_SIZE];	/* the source's description */
};

struct loop_stats {
	uint64_t dispatches;
	uint64_t total_ns;		/* of all dispatches */
	uint64_t slow;			/* dispatches over LOOP_SLOW_NS */
	__u64 hist[UT_HIST_SLOTS];	/* slot i: [2^i, 2^(i+1)) ns; the top slot takes the rest */
	struct loop_dispatch longest;	/* .ns 0: no dispatch yet */
	time_t longest_unix;		/* the longest's start, set by the caller (loop.c) */

	/* the log's rate limit */
	uint64_t logged_ns;		/* when the last line was, 0: never */
	uint64_t unlogged;		/* slow dispatches since then, not in a line yet */
	struct loop_dispatch worst;	/* the longest of those */
};

/* loop_stats_record()'s answer, bits */
#define LOOP_STATS_LONGEST	(1U << 0)	/* a new longest: its time is the caller's to set */
#define LOOP_STATS_LOG		(1U << 1)	/* a line is due: loop_stats_take() */

/* what one line about slow dispatches says */
struct loop_slow_line {
	uint64_t count;			/* slow dispatches it covers, at least 1 */
	struct loop_dispatch worst;	/* the longest of them */
	uint64_t since_ns;		/* the line before (CLOCK_MONOTONIC), 0: none before */
};

void loop_stats_init(struct loop_stats *st);

/*
 * A dispatch of source @what (NULL: "unnamed") that started at @at_ns and
 * took @ns. Returns LOOP_STATS_* bits.
 */
unsigned int loop_stats_record(struct loop_stats *st, const char *what, uint64_t at_ns,
			       uint64_t ns);

/* slow dispatches not yet logged whose minute is over at @now_ns: a line is due */
bool loop_stats_due(const struct loop_stats *st, uint64_t now_ns);

/* the line that is due, at @now_ns; what it covers is then logged */
void loop_stats_take(struct loop_stats *st, uint64_t now_ns, struct loop_slow_line *line);

/* @line as a log message, e.g. "event loop: a dispatch of tick took 35.2 ms ..." */
void loop_stats_format(const struct loop_slow_line *line, uint64_t now_ns, char *buf,
		       size_t len);

/*
 * Cumulative count of dispatches that took at most hist_slot_max(@slot) ns:
 * a Prometheus bucket with that le.
 */
uint64_t loop_stats_upto(const struct loop_stats *st, unsigned int slot);

/*
 * The buckets shown (metrics, status): the upper edges of these slots, every
 * other one from 65.5 us to 1.07 s, four times apart. 16.8 ms (slot 23) is
 * the last under LOOP_SLOW_NS.
 */
#define LOOP_STATS_BUCKETS	8
extern const unsigned int loop_stats_bucket_slots[LOOP_STATS_BUCKETS];

#endif /* UT_LOOP_STATS_H */
