// SPDX-License-Identifier: GPL-2.0-only
/*
 * A ring's decision log: allocated at its first entry, grown 1, 2, 4, 8, 16,
 * then the oldest overwritten; entries oldest first; the why copied, cut at
 * DECISION_WHY_MAX; the bytes it holds.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decision_log.h"
#include "unit.h"

static struct decision entry(unsigned int i)
{
	return (struct decision){ .mono_ns = 1000ULL * i, .wall_ns = 2000LL * i,
				  .busy_poll_us = i, .enabled = i != 0, .prefer = i & 1 };
}

static int add(struct decision_log **log, unsigned int i)
{
	const struct decision d = entry(i);
	char why[32];

	snprintf(why, sizeof(why), "why %u", i);
	return decision_log_add(log, &d, why);
}

UT_TEST(empty_is_null)
{
	UT_ASSERT_EQ_INT(decision_log_count(NULL), 0);
	UT_ASSERT(!decision_log_get(NULL, 0));
	UT_ASSERT(!decision_log_last(NULL));
	UT_ASSERT_EQ_INT(decision_log_bytes(NULL), 0);
	decision_log_free(NULL);
}

UT_TEST(grows_by_doubling_to_16)
{
	static const unsigned int caps[] = { 1, 2, 4, 4, 8, 8, 8, 8, 16 };
	struct decision_log *log = NULL;

	for (unsigned int i = 0; i < 9; i++) {
		UT_ASSERT_EQ_INT(add(&log, i), 0);
		UT_ASSERT_EQ_INT(log->cap, caps[i]);
		UT_ASSERT_EQ_INT(decision_log_count(log), i + 1);
	}
	for (unsigned int i = 9; i < DECISION_LOG_MAX; i++)
		UT_ASSERT_EQ_INT(add(&log, i), 0);
	UT_ASSERT_EQ_INT(log->cap, DECISION_LOG_MAX);
	for (unsigned int i = 0; i < DECISION_LOG_MAX; i++) {
		const struct decision *d = decision_log_get(log, i);
		char why[32];

		snprintf(why, sizeof(why), "why %u", i);
		UT_ASSERT(d && d->busy_poll_us == i && d->mono_ns == 1000ULL * i);
		UT_ASSERT_STR_EQ(d->why, why);
	}
	UT_ASSERT(!decision_log_get(log, DECISION_LOG_MAX));
	decision_log_free(log);
}

/* full: each new entry drops the oldest, the order stays oldest first */
UT_TEST(wraps_oldest_first)
{
	struct decision_log *log = NULL;

	for (unsigned int i = 0; i < 3 * DECISION_LOG_MAX + 5; i++)
		UT_ASSERT_EQ_INT(add(&log, i), 0);
	UT_ASSERT_EQ_INT(decision_log_count(log), DECISION_LOG_MAX);
	UT_ASSERT_EQ_INT(log->cap, DECISION_LOG_MAX);
	for (unsigned int i = 0; i < DECISION_LOG_MAX; i++) {
		const unsigned int want = 2 * DECISION_LOG_MAX + 5 + i;
		const struct decision *d = decision_log_get(log, i);
		char why[32];

		snprintf(why, sizeof(why), "why %u", want);
		UT_ASSERT(d && d->busy_poll_us == want && d->wall_ns == 2000LL * want);
		UT_ASSERT_EQ_INT(d->prefer, want & 1);
		UT_ASSERT_STR_EQ(d->why, why);
	}
	UT_ASSERT_EQ_INT(decision_log_last(log)->busy_poll_us, 3 * DECISION_LOG_MAX + 4);
	decision_log_free(log);
}

/* the why is a copy, cut at DECISION_WHY_MAX; NULL is "" */
UT_TEST(why_copied_and_cut)
{
	struct decision_log *log = NULL;
	const struct decision d = entry(1);
	char why[DECISION_WHY_MAX + 50];

	memset(why, 'x', sizeof(why) - 1);
	why[sizeof(why) - 1] = '\0';
	UT_ASSERT_EQ_INT(decision_log_add(&log, &d, why), 0);
	why[0] = 'y';
	UT_ASSERT_EQ_INT((long long)strlen(decision_log_last(log)->why), DECISION_WHY_MAX);
	UT_ASSERT_EQ_INT(decision_log_last(log)->why[0], 'x');
	UT_ASSERT_EQ_INT(decision_log_add(&log, &d, NULL), 0);
	UT_ASSERT_STR_EQ(decision_log_last(log)->why, "");
	decision_log_free(log);
}

/* what glibc gives for the log's allocations, its chunk headers included */
static size_t heap_bytes(const struct decision_log *log)
{
	size_t n = malloc_usable_size((void *)log) + sizeof(size_t);

	for (size_t i = 0; i < log->n; i++)
		n += malloc_usable_size(log->e[i].why) + sizeof(size_t);
	return n;
}

/* what a ring pays: the log and its whys, with 1 and with 16 entries */
UT_TEST(bytes_per_ring)
{
	const char *why = "hit rate 97%, 95% of paid windows within 17 us: timeout 50 -> 26 us";
	struct decision_log *log = NULL;
	const struct decision d = entry(1);
	size_t one, full, heap_one;

	UT_ASSERT_EQ_INT(decision_log_add(&log, &d, why), 0);
	one = decision_log_bytes(log);
	heap_one = heap_bytes(log);
	UT_ASSERT_EQ_INT(one, sizeof(*log) + sizeof(log->e[0]) + strlen(why) + 1);
	for (unsigned int i = 1; i < DECISION_LOG_MAX; i++)
		UT_ASSERT_EQ_INT(decision_log_add(&log, &d, why), 0);
	full = decision_log_bytes(log);
	UT_ASSERT_EQ_INT(full, sizeof(*log) + DECISION_LOG_MAX * (sizeof(log->e[0]) +
			 strlen(why) + 1));
	fprintf(stderr, "decision log, whys of %zu bytes: %zu bytes asked for with 1 entry "
		"(%zu from the heap), %zu with %d (%zu); +8 for the ring's pointer\n",
		strlen(why), one, heap_one, full, DECISION_LOG_MAX, heap_bytes(log));
	decision_log_free(log);
}

int main(void)
{
	ut_run("empty_is_null", empty_is_null);
	ut_run("grows_by_doubling_to_16", grows_by_doubling_to_16);
	ut_run("wraps_oldest_first", wraps_oldest_first);
	ut_run("why_copied_and_cut", why_copied_and_cut);
	ut_run("bytes_per_ring", bytes_per_ring);
	return ut_finish();
}
