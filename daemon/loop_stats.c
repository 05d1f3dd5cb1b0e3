// SPDX-License-Identifier: GPL-2.0-only
/* The event loop's dispatch times: see loop_stats.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "loop_stats.h"

#define NS_PER_MS	1000000.0
#define NS_PER_S	UINT64_C(1000000000)

const unsigned int loop_stats_bucket_slots[LOOP_STATS_BUCKETS] = {
	15, 17, 19, 21, 23, 25, 27, 29
};

void loop_stats_init(struct loop_stats *st)
{
	memset(st, 0, sizeof(*st));
}

static void set_dispatch(struct loop_dispatch *d, const char *what, uint64_t at_ns,
			 uint64_t ns)
{
	d->ns = ns;
	d->at_ns = at_ns;
	snprintf(d->what, sizeof(d->what), "%s", what);
}

unsigned int loop_stats_record(struct loop_stats *st, const char *what, uint64_t at_ns,
			       uint64_t ns)
{
	unsigned int slot = hist_log2(ns), ret = 0;
	uint64_t now = at_ns + ns;

	if (!what || !what[0])
		what = "unnamed";
	/* not hist_slot(): 4.3 s and more belong in the top slot, not wrapped to a low one */
	st->hist[slot < UT_HIST_SLOTS ? slot : UT_HIST_SLOTS - 1]++;
	st->dispatches++;
	st->total_ns += ns;
	if (ns > st->longest.ns) {
		set_dispatch(&st->longest, what, at_ns, ns);
		ret |= LOOP_STATS_LONGEST;
	}
	if (ns <= LOOP_SLOW_NS)
		return ret | (loop_stats_due(st, now) ? LOOP_STATS_LOG : 0);
	st->slow++;
	st->unlogged++;
	if (ns > st->worst.ns)
		set_dispatch(&st->worst, what, at_ns, ns);
	/* the first slow one after a quiet minute is a line of its own, at once */
	if (!st->logged_ns || now - st->logged_ns >= LOOP_SLOW_LOG_EVERY_NS)
		ret |= LOOP_STATS_LOG;
	return ret;
}

bool loop_stats_due(const struct loop_stats *st, uint64_t now_ns)
{
	return st->unlogged &&
	       (!st->logged_ns || now_ns - st->logged_ns >= LOOP_SLOW_LOG_EVERY_NS);
}

void loop_stats_take(struct loop_stats *st, uint64_t now_ns, struct loop_slow_line *line)
{
	line->count = st->unlogged;
	line->worst = st->worst;
	line->since_ns = st->logged_ns;
	st->logged_ns = now_ns ? now_ns : 1;
	st->unlogged = 0;
	memset(&st->worst, 0, sizeof(st->worst));
}

void loop_stats_format(const struct loop_slow_line *line, uint64_t now_ns, char *buf,
		       size_t len)
{
	double ms = line->worst.ns / NS_PER_MS;

	if (line->count <= 1) {
		snprintf(buf, len, "event loop: a dispatch of %s took %.1f ms (over %" PRIu64
			 " ms: nothing else was answered meanwhile)", line->worst.what, ms,
			 LOOP_SLOW_NS / 1000000);
		return;
	}
	snprintf(buf, len, "event loop: %" PRIu64 " dispatches over %" PRIu64 " ms in the last "
		 "%" PRIu64 " s, the longest %.1f ms (%s, %" PRIu64 " s ago)", line->count,
		 LOOP_SLOW_NS / 1000000,
		 /* none before: since the first of them */
		 (now_ns - (line->since_ns ? line->since_ns : line->worst.at_ns)) / NS_PER_S,
		 ms, line->worst.what, (now_ns - line->worst.at_ns) / NS_PER_S);
}

uint64_t loop_stats_upto(const struct loop_stats *st, unsigned int slot)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i <= slot && i < UT_HIST_SLOTS; i++)
		n += st->hist[i];
	return n;
}
