// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent socket's pure guards (daemon/agent_guard.c): when two
 * identities are one process, when a ring is a peer's, the quotas, and the
 * per-uid rate limit of refusal warnings.
 */
#include "agent_guard.h"
#include "unit.h"

#define HZ		100
#define NS_PER_TICK	10000000ULL	/* 1e9 / HZ */
#define MIN		AGENT_RL_WINDOW_NS

UT_TEST(id_same_needs_pid_start_and_uid)
{
	const struct agent_id a = { .pid = 100, .uid = 65534, .start_ticks = 5 };
	struct agent_id b = a;

	UT_ASSERT(agent_id_same(&a, &b));
	/* the pid's next process: another start time */
	b.start_ticks = 6;
	UT_ASSERT(!agent_id_same(&a, &b));
	/* the same process seen as another user (it changed its euid) */
	b = a;
	b.uid = 0;
	UT_ASSERT(!agent_id_same(&a, &b));
	b = a;
	b.pid = 101;
	UT_ASSERT(!agent_id_same(&a, &b));
	/* no pid is no one */
	b = a;
	b.pid = 0;
	UT_ASSERT(!agent_id_same(&b, &b));
}

UT_TEST(id_holds_by_pid_and_start_tick)
{
	const struct agent_id id = { .pid = 100, .uid = 0, .start_ticks = 1234 };

	/* BPF's start_boottime in ns: the same tick, truncated as /proc does */
	UT_ASSERT(agent_id_holds(&id, 100, 1234 * NS_PER_TICK, HZ));
	UT_ASSERT(agent_id_holds(&id, 100, 1234 * NS_PER_TICK + NS_PER_TICK - 1, HZ));
	UT_ASSERT(!agent_id_holds(&id, 100, 1235 * NS_PER_TICK, HZ));
	UT_ASSERT(!agent_id_holds(&id, 100, 1233 * NS_PER_TICK, HZ));
	/* another process's ring */
	UT_ASSERT(!agent_id_holds(&id, 101, 1234 * NS_PER_TICK, HZ));
	/* a start time BPF did not know, or no clock: proves nothing */
	UT_ASSERT(!agent_id_holds(&id, 100, 0, HZ));
	UT_ASSERT(!agent_id_holds(&id, 100, 1234 * NS_PER_TICK, 0));
	UT_ASSERT(!agent_id_holds(&id, 100, 1234 * NS_PER_TICK, 2000000000L));
}

UT_TEST(quota_hello)
{
	const struct agent_limits l = { .slots_per_uid = 64, .pending_per_uid = 16 };

	UT_ASSERT_EQ_INT(agent_quota_hello(&l, 0, 0), AGENT_QUOTA_OK);
	UT_ASSERT_EQ_INT(agent_quota_hello(&l, 63, 15), AGENT_QUOTA_OK);
	UT_ASSERT_EQ_INT(agent_quota_hello(&l, 64, 0), AGENT_QUOTA_SLOTS);
	UT_ASSERT_EQ_INT(agent_quota_hello(&l, 20, 16), AGENT_QUOTA_PENDING);
	/* both: the slots say first (the bigger wall) */
	UT_ASSERT_EQ_INT(agent_quota_hello(&l, 64, 16), AGENT_QUOTA_SLOTS);
}

UT_TEST(conn_admit)
{
	const struct agent_limits l = { .conns = 64, .conns_per_uid = 8 };

	UT_ASSERT(agent_conn_admit(&l, 0, 0));
	UT_ASSERT(agent_conn_admit(&l, 63, 7));
	UT_ASSERT(!agent_conn_admit(&l, 10, 8));
	UT_ASSERT(!agent_conn_admit(&l, 64, 0));
}

/* a waiting connection's deadline: the agent's 250 ms budget, to the microsecond */
UT_TEST(conn_deadline)
{
	const uint64_t t0 = 7000000000ULL, d = agent_conn_deadline(t0);

	UT_ASSERT_EQ_INT(AGENT_CONN_BUDGET_US, UT_AGENT_REPLY_TIMEOUT_MS * 1000ULL);
	UT_ASSERT_EQ_INT(d, t0 + 250000);
	/* the whole budget at the start, 1 us a microsecond before it, none at it or after */
	UT_ASSERT_EQ_INT(agent_conn_time_left(d, t0), 250000);
	UT_ASSERT_EQ_INT(agent_conn_time_left(d, t0 + 100000), 150000);
	UT_ASSERT_EQ_INT(agent_conn_time_left(d, d - 1), 1);
	UT_ASSERT_EQ_INT(agent_conn_time_left(d, d), 0);
	UT_ASSERT_EQ_INT(agent_conn_time_left(d, d + 1), 0);
	UT_ASSERT_EQ_INT(agent_conn_time_left(d, UINT64_MAX), 0);
	/* a clock read before the connection came: never more than the budget */
	UT_ASSERT_EQ_INT(agent_conn_time_left(d, t0 - 5000), 250000);
	UT_ASSERT_EQ_INT(agent_conn_time_left(d, 0), 250000);
}

UT_TEST(ratelimit_one_line_per_uid_per_minute)
{
	struct agent_ratelimit rl = {};
	uint32_t sup;
	uid_t as;
	int i;

	UT_ASSERT(agent_ratelimit(&rl, 1000, MIN, &sup, &as));
	UT_ASSERT_EQ_INT(sup, 0);
	UT_ASSERT_EQ_INT(as, 1000);
	for (i = 0; i < 500; i++)
		UT_ASSERT(!agent_ratelimit(&rl, 1000, MIN + i * 1000000ULL, &sup, &as));
	/* another uid has its own line */
	UT_ASSERT(agent_ratelimit(&rl, 1001, MIN + 1, &sup, &as));
	UT_ASSERT(!agent_ratelimit(&rl, 1001, MIN + 2, &sup, &as));
	/* a minute on: a line, saying what was held back */
	UT_ASSERT(agent_ratelimit(&rl, 1000, 2 * MIN, &sup, &as));
	UT_ASSERT_EQ_INT(sup, 500);
	UT_ASSERT(!agent_ratelimit(&rl, 1000, 2 * MIN + 1, &sup, &as));
}

static uid_t said_uid[AGENT_RL_UIDS + 2];
static uint32_t said_count[AGENT_RL_UIDS + 2];
static unsigned int n_said;

static void say(void *arg, uid_t uid, uint32_t count)
{
	(void)arg;
	if (n_said < AGENT_RL_UIDS + 2) {
		said_uid[n_said] = uid;
		said_count[n_said] = count;
	}
	n_said++;
}

UT_TEST(ratelimit_flush_says_the_rest_once)
{
	struct agent_ratelimit rl = {};
	uint32_t sup;
	uid_t as;

	n_said = 0;
	agent_ratelimit(&rl, 7, MIN, &sup, &as);
	agent_ratelimit(&rl, 7, MIN + 1, &sup, &as);
	agent_ratelimit(&rl, 7, MIN + 2, &sup, &as);
	agent_ratelimit(&rl, 8, MIN, &sup, &as);
	/* within the window: nothing yet */
	agent_ratelimit_flush(&rl, MIN + 10, say, NULL);
	UT_ASSERT_EQ_INT(n_said, 0);
	/* over: uid 7's two, once; uid 8 had nothing held back */
	agent_ratelimit_flush(&rl, 2 * MIN, say, NULL);
	UT_ASSERT_EQ_INT(n_said, 1);
	UT_ASSERT_EQ_INT(said_uid[0], 7);
	UT_ASSERT_EQ_INT(said_count[0], 2);
	agent_ratelimit_flush(&rl, 3 * MIN, say, NULL);
	UT_ASSERT_EQ_INT(n_said, 1);
	/* and uid 7 logs again at once */
	UT_ASSERT(agent_ratelimit(&rl, 7, 3 * MIN, &sup, &as));
	UT_ASSERT_EQ_INT(sup, 0);
}

UT_TEST(ratelimit_bounded_by_uids)
{
	struct agent_ratelimit rl = {};
	unsigned int lines = 0;
	uint32_t sup;
	uid_t as, u;

	/* a thousand users at once: their own line for the first ones, one shared line after */
	for (u = 0; u < 1000; u++)
		lines += agent_ratelimit(&rl, u, MIN, &sup, &as);
	UT_ASSERT_EQ_INT(lines, AGENT_RL_UIDS + 1);
	UT_ASSERT(!agent_ratelimit(&rl, 5000, MIN + 1, &sup, &as));
	UT_ASSERT_EQ_INT(as, AGENT_RL_OTHERS);
	n_said = 0;
	agent_ratelimit_flush(&rl, 2 * MIN, say, NULL);
	UT_ASSERT_EQ_INT(n_said, 1);
	UT_ASSERT_EQ_INT(said_uid[0], AGENT_RL_OTHERS);
	UT_ASSERT_EQ_INT(said_count[0], 1000 - AGENT_RL_UIDS - 1 + 1);
	/* entries over and said are free again: a new user gets its own line */
	UT_ASSERT(agent_ratelimit(&rl, 9999, 2 * MIN, &sup, &as));
	UT_ASSERT_EQ_INT(as, 9999);
}

int main(void)
{
	ut_run("id_same_needs_pid_start_and_uid", id_same_needs_pid_start_and_uid);
	ut_run("id_holds_by_pid_and_start_tick", id_holds_by_pid_and_start_tick);
	ut_run("quota_hello", quota_hello);
	ut_run("conn_admit", conn_admit);
	ut_run("conn_deadline", conn_deadline);
	ut_run("ratelimit_one_line_per_uid_per_minute", ratelimit_one_line_per_uid_per_minute);
	ut_run("ratelimit_flush_says_the_rest_once", ratelimit_flush_says_the_rest_once);
	ut_run("ratelimit_bounded_by_uids", ratelimit_bounded_by_uids);
	return ut_finish();
}
