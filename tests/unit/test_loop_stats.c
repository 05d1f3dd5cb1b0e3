// SPDX-License-Identifier: GPL-2.0-only
/*
 * The event loop's dispatch times (daemon/loop_stats.c): counts, the
 * histogram's slots and cumulative buckets (4.3 s and more in the top slot,
 * not wrapped), the longest dispatch and its source, and the rate limit of
 * the slow-dispatch log: the first at once, then at most one line a
 * minute with the count and the worst since the line before, due even
 * when no slow dispatch comes after the minute.
 */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "loop_stats.h"
#include "unit.h"

#define MS	UINT64_C(1000000)
#define S	UINT64_C(1000000000)

static struct loop_stats st;

UT_TEST(counts_and_histogram)
{
	loop_stats_init(&st);
	UT_ASSERT_EQ_INT(st.dispatches, 0);
	UT_ASSERT_EQ_INT(loop_stats_upto(&st, UT_HIST_SLOTS - 1), 0);
	loop_stats_record(&st, "tick", 1 * S, 0);
	loop_stats_record(&st, "tick", 2 * S, 1);
	loop_stats_record(&st, "tick", 3 * S, 1000);		/* slot 9: [512, 1024) */
	loop_stats_record(&st, "tick", 4 * S, 1023);
	loop_stats_record(&st, "tick", 5 * S, 1024);		/* slot 10 */
	loop_stats_record(&st, "tick", 6 * S, 5 * S);		/* over 2^32 ns: top slot */
	loop_stats_record(&st, "tick", 20 * S, UINT64_C(1) << 40);
	UT_ASSERT_EQ_INT(st.dispatches, 7);
	UT_ASSERT_EQ_INT(st.total_ns, 1 + 1000 + 1023 + 1024 + 5 * S + (UINT64_C(1) << 40));
	UT_ASSERT_EQ_INT(st.hist[0], 2);
	UT_ASSERT_EQ_INT(st.hist[9], 2);
	UT_ASSERT_EQ_INT(st.hist[10], 1);
	UT_ASSERT_EQ_INT(st.hist[UT_HIST_SLOTS - 1], 2);
	/* nothing wrapped to a low slot */
	UT_ASSERT_EQ_INT(st.hist[1] + st.hist[8] + st.hist[11], 0);
	/* cumulative: le = 2^(slot+1) - 1 ns */
	UT_ASSERT_EQ_INT(loop_stats_upto(&st, 0), 2);
	UT_ASSERT_EQ_INT(loop_stats_upto(&st, 8), 2);
	UT_ASSERT_EQ_INT(loop_stats_upto(&st, 9), 4);
	UT_ASSERT_EQ_INT(loop_stats_upto(&st, 10), 5);
	UT_ASSERT_EQ_INT(loop_stats_upto(&st, 30), 5);
	UT_ASSERT_EQ_INT(loop_stats_upto(&st, UT_HIST_SLOTS - 1), 7);
	/* past the last slot: all of them */
	UT_ASSERT_EQ_INT(loop_stats_upto(&st, 63), 7);
}

UT_TEST(longest_and_its_source)
{
	unsigned int r;

	loop_stats_init(&st);
	r = loop_stats_record(&st, "tick", 10 * S, 300000);
	UT_ASSERT(r & LOOP_STATS_LONGEST);
	UT_ASSERT_EQ_INT(st.longest.ns, 300000);
	UT_ASSERT_STR_EQ(st.longest.what, "tick");
	r = loop_stats_record(&st, "control-conn", 11 * S, 2 * MS);
	UT_ASSERT(r & LOOP_STATS_LONGEST);
	/* shorter, or as long: the first stays */
	r = loop_stats_record(&st, "export", 12 * S, 2 * MS);
	UT_ASSERT(!(r & LOOP_STATS_LONGEST));
	r = loop_stats_record(&st, "tick", 13 * S, 1 * MS);
	UT_ASSERT_EQ_INT(r, 0);
	UT_ASSERT_EQ_INT(st.longest.ns, 2 * MS);
	UT_ASSERT_EQ_INT(st.longest.at_ns, 11 * S);
	UT_ASSERT_STR_EQ(st.longest.what, "control-conn");
	/* no name, or one too long for the record */
	loop_stats_record(&st, NULL, 14 * S, 3 * MS);
	UT_ASSERT_STR_EQ(st.longest.what, "unnamed");
	loop_stats_record(&st, "", 15 * S, 4 * MS);
	UT_ASSERT_STR_EQ(st.longest.what, "unnamed");
	loop_stats_record(&st, "a-source-whose-name-is-far-too-long-to-keep", 16 * S, 5 * MS);
	UT_ASSERT_EQ_INT(strlen(st.longest.what), LOOP_WHAT_SIZE - 1);
	UT_ASSERT(!strncmp(st.longest.what, "a-source-whose-name", 19));
	/* slow ones are not counted as slow below the threshold, at it neither */
	loop_stats_record(&st, "tick", 17 * S, LOOP_SLOW_NS);
	UT_ASSERT_EQ_INT(st.slow, 0);
}

UT_TEST(slow_log_rate_limited)
{
	struct loop_slow_line line;
	uint64_t t = 100 * S;
	unsigned int r;

	loop_stats_init(&st);
	/* the first slow one: a line at once */
	r = loop_stats_record(&st, "tick", t, 35 * MS);
	UT_ASSERT(r & LOOP_STATS_LOG);
	loop_stats_take(&st, t + 35 * MS, &line);
	UT_ASSERT_EQ_INT(line.count, 1);
	UT_ASSERT_EQ_INT(line.worst.ns, 35 * MS);
	UT_ASSERT_STR_EQ(line.worst.what, "tick");
	UT_ASSERT_EQ_INT(line.since_ns, 0);
	UT_ASSERT_EQ_INT(st.slow, 1);

	/* three more within the minute: counted, no line */
	r = loop_stats_record(&st, "export", t + 10 * S, 25 * MS);
	UT_ASSERT(!(r & LOOP_STATS_LOG));
	r = loop_stats_record(&st, "control-conn", t + 20 * S, 90 * MS);
	UT_ASSERT(!(r & LOOP_STATS_LOG));
	r = loop_stats_record(&st, "export", t + 30 * S, 21 * MS);
	UT_ASSERT(!(r & LOOP_STATS_LOG));
	/* quick dispatches before the minute is over: not due */
	r = loop_stats_record(&st, "tick", t + 59 * S, 1000);
	UT_ASSERT(!(r & LOOP_STATS_LOG));
	UT_ASSERT(!loop_stats_due(&st, t + 59 * S));
	UT_ASSERT(loop_stats_due(&st, t + 35 * MS + 60 * S));
	/* the minute is over: a quick dispatch brings the summary */
	r = loop_stats_record(&st, "tick", t + 61 * S, 1000);
	UT_ASSERT(r & LOOP_STATS_LOG);
	loop_stats_take(&st, t + 61 * S, &line);
	UT_ASSERT_EQ_INT(line.count, 3);
	UT_ASSERT_EQ_INT(line.worst.ns, 90 * MS);
	UT_ASSERT_STR_EQ(line.worst.what, "control-conn");
	UT_ASSERT_EQ_INT(line.since_ns, t + 35 * MS);
	UT_ASSERT_EQ_INT(st.slow, 4);
	/* taken: nothing due, and a quiet minute after it a slow one is a line at once */
	UT_ASSERT(!loop_stats_due(&st, t + 1000 * S));
	r = loop_stats_record(&st, "tick", t + 62 * S, 30 * MS);
	UT_ASSERT(!(r & LOOP_STATS_LOG));
	r = loop_stats_record(&st, "tick", t + 200 * S, 40 * MS);
	UT_ASSERT(r & LOOP_STATS_LOG);
	loop_stats_take(&st, t + 200 * S + 40 * MS, &line);
	/* the one that waited comes with it */
	UT_ASSERT_EQ_INT(line.count, 2);
	UT_ASSERT_EQ_INT(line.worst.ns, 40 * MS);
}

UT_TEST(slow_line_text)
{
	struct loop_slow_line line = {
		.count = 1,
		.worst = { .ns = 35200000, .at_ns = 100 * S, .what = "tick" },
	};
	char buf[256];

	loop_stats_format(&line, 100 * S + 35200000, buf, sizeof(buf));
	UT_ASSERT_STR_EQ(buf, "event loop: a dispatch of tick took 35.2 ms (over 20 ms: "
			 "nothing else was answered meanwhile)");
	line.count = 3;
	line.since_ns = 100 * S;
	line.worst = (struct loop_dispatch){ .ns = 90 * MS, .at_ns = 120 * S,
					     .what = "control-conn" };
	loop_stats_format(&line, 161 * S, buf, sizeof(buf));
	UT_ASSERT_STR_EQ(buf, "event loop: 3 dispatches over 20 ms in the last 61 s, the "
			 "longest 90.0 ms (control-conn, 41 s ago)");
}

/* the buckets shown: rising, 0.0001 s to 1 s covered, one edge just under the slow mark */
UT_TEST(bucket_slots)
{
	unsigned int under = 0;

	for (unsigned int i = 0; i < LOOP_STATS_BUCKETS; i++) {
		UT_ASSERT(loop_stats_bucket_slots[i] < UT_HIST_SLOTS);
		if (i)
			UT_ASSERT(loop_stats_bucket_slots[i] > loop_stats_bucket_slots[i - 1]);
		under += hist_slot_max(loop_stats_bucket_slots[i]) < LOOP_SLOW_NS;
	}
	UT_ASSERT(hist_slot_max(loop_stats_bucket_slots[0]) <= 100000);
	UT_ASSERT(hist_slot_max(loop_stats_bucket_slots[LOOP_STATS_BUCKETS - 1]) >= S);
	UT_ASSERT(under >= 1 && under < LOOP_STATS_BUCKETS);
	/* the last edge under 20 ms is within a factor 2 of it */
	UT_ASSERT(hist_slot_max(loop_stats_bucket_slots[under - 1]) * 2 > LOOP_SLOW_NS);
}

int main(void)
{
	ut_run("counts_and_histogram", counts_and_histogram);
	ut_run("longest_and_its_source", longest_and_its_source);
	ut_run("slow_log_rate_limited", slow_log_rate_limited);
	ut_run("slow_line_text", slow_line_text);
	ut_run("bucket_slots", bucket_slots);
	return ut_finish();
}
