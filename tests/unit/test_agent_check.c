// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent's pure parts (agent/agent_check.c): URINGTUNE_AGENT_POLICY in
 * every form and error, the policy page header with each corruption, slot
 * copies under the sequence lock, slot checks, and what a decision turns
 * into (setup flags, NAPI register calls).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent_check.h"
#include "unit.h"

#define TOKEN	0x1234abcd5678ef90ULL

/* ---- policy ---- */

#define ASSERT_POLICY(str, h, n) do {					\
	struct agent_policy p = { 99, 99 };				\
	char err[128] = "stale";					\
	UT_ASSERT_EQ_INT(agent_policy_parse(str, &p, err, sizeof(err)), 0); \
	UT_ASSERT_EQ_INT(p.hybrid, h);					\
	UT_ASSERT_EQ_INT(p.napi, n);					\
	UT_ASSERT_STR_EQ(err, "");					\
} while (0)

#define ASSERT_POLICY_BAD(str, word) do {				\
	struct agent_policy p = { 99, 99 };				\
	char err[128] = "";						\
	UT_ASSERT_EQ_INT(agent_policy_parse(str, &p, err, sizeof(err)), -EINVAL); \
	UT_ASSERT_EQ_INT(p.hybrid, UT_WANT_UNSET);			\
	UT_ASSERT_EQ_INT(p.napi, UT_WANT_UNSET);			\
	UT_ASSERT_STR_CONTAINS(err, word);				\
} while (0)

UT_TEST(policy_unset)
{
	ASSERT_POLICY(NULL, UT_WANT_UNSET, UT_WANT_UNSET);
	ASSERT_POLICY("", UT_WANT_UNSET, UT_WANT_UNSET);
}

UT_TEST(policy_hybrid)
{
	ASSERT_POLICY("hybrid=on", UT_WANT_ON, UT_WANT_UNSET);
	ASSERT_POLICY("hybrid=off", UT_WANT_OFF, UT_WANT_UNSET);
	ASSERT_POLICY("hybrid=auto", UT_WANT_AUTO, UT_WANT_UNSET);
}

UT_TEST(policy_napi)
{
	ASSERT_POLICY("napi=on", UT_WANT_UNSET, UT_WANT_ON);
	ASSERT_POLICY("napi=off", UT_WANT_UNSET, UT_WANT_OFF);
}

UT_TEST(policy_both)
{
	ASSERT_POLICY("hybrid=on,napi=on", UT_WANT_ON, UT_WANT_ON);
	ASSERT_POLICY("napi=off,hybrid=auto", UT_WANT_AUTO, UT_WANT_OFF);
	ASSERT_POLICY("hybrid=off,napi=on", UT_WANT_OFF, UT_WANT_ON);
}

UT_TEST(policy_bad_value)
{
	ASSERT_POLICY_BAD("hybrid=yes", "hybrid: expected on, off or auto, got \"yes\"");
	ASSERT_POLICY_BAD("hybrid=", "got \"\"");
	ASSERT_POLICY_BAD("napi=auto", "napi: expected on or off, got \"auto\"");
	ASSERT_POLICY_BAD("napi=ON", "napi: expected on or off");
	ASSERT_POLICY_BAD("hybrid=on ", "got \"on \"");
	/* one bad item voids the good ones too */
	ASSERT_POLICY_BAD("hybrid=on,napi=1", "napi: expected on or off");
}

UT_TEST(policy_bad_key)
{
	ASSERT_POLICY_BAD("sqpoll=on", "unknown key \"sqpoll\" (expected hybrid or napi)");
	ASSERT_POLICY_BAD(" hybrid=on", "unknown key \" hybrid\"");
	ASSERT_POLICY_BAD("=on", "unknown key \"\"");
}

UT_TEST(policy_bad_shape)
{
	ASSERT_POLICY_BAD("hybrid", "\"hybrid\": expected hybrid=on|off|auto or napi=on|off");
	ASSERT_POLICY_BAD("hybrid=on,", "empty item");
	ASSERT_POLICY_BAD(",napi=on", "empty item");
	ASSERT_POLICY_BAD("hybrid=on,,napi=on", "empty item");
	ASSERT_POLICY_BAD(",", "empty item");
}

UT_TEST(policy_twice)
{
	ASSERT_POLICY_BAD("hybrid=on,hybrid=on", "hybrid given twice");
	ASSERT_POLICY_BAD("napi=on,hybrid=off,napi=off", "napi given twice");
}

UT_TEST(policy_error_text_is_safe)
{
	struct agent_policy p;
	char small[8], err[128];
	char long_key[200];

	/* truncated, still terminated */
	UT_ASSERT_EQ_INT(agent_policy_parse("bogus=1", &p, small, sizeof(small)), -EINVAL);
	UT_ASSERT_EQ_INT(strlen(small), sizeof(small) - 1);
	/* control bytes are not echoed to a terminal */
	UT_ASSERT_EQ_INT(agent_policy_parse("hybrid=\x1b[2J", &p, err, sizeof(err)), -EINVAL);
	UT_ASSERT(!strchr(err, '\x1b'));
	UT_ASSERT_STR_CONTAINS(err, "got \"?[2J\"");
	/* a long token is cut */
	memset(long_key, 'k', sizeof(long_key) - 1);
	long_key[sizeof(long_key) - 1] = '\0';
	UT_ASSERT_EQ_INT(agent_policy_parse(long_key, &p, err, sizeof(err)), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "...\"");
	UT_ASSERT(strlen(err) < 100);
	/* no buffer at all */
	UT_ASSERT_EQ_INT(agent_policy_parse("x", &p, NULL, 0), -EINVAL);
}

/* ---- the page header ---- */

static struct ut_agent_page *page_new(__u32 nslots)
{
	size_t size = UT_AGENT_PAGE_SIZE(nslots);
	struct ut_agent_page *pg = calloc(1, size);

	if (!pg)
		abort();
	pg->magic = UT_AGENT_PAGE_MAGIC;
	pg->version = UT_AGENT_PAGE_VERSION;
	pg->size = size;
	pg->nslots = nslots;
	pg->gen = 1;
	pg->daemon_pid = 1;
	return pg;
}

#define ASSERT_PAGE_BAD(pg, len, fsize, word) do {			\
	const char *why = "stale";					\
	UT_ASSERT_EQ_INT(agent_page_check(pg, len, fsize, &why), -EINVAL); \
	UT_ASSERT_STR_CONTAINS(why, word);				\
} while (0)

UT_TEST(page_valid)
{
	struct ut_agent_page *pg = page_new(UT_AGENT_PAGE_SLOTS);
	const char *why = NULL;
	int ret;

	ret = agent_page_check(pg, sizeof(*pg), UT_AGENT_PAGE_SIZE(UT_AGENT_PAGE_SLOTS), &why);
	free(pg);
	UT_ASSERT_EQ_INT(ret, 0);
	pg = page_new(1);
	ret = agent_page_check(pg, sizeof(*pg), UT_AGENT_PAGE_SIZE(1), &why);
	free(pg);
	UT_ASSERT_EQ_INT(ret, 0);
}

UT_TEST(page_bad_magic)
{
	struct ut_agent_page *pg = page_new(4);
	const char *why = NULL;
	int ret;

	pg->magic ^= 1;
	ret = agent_page_check(pg, sizeof(*pg), UT_AGENT_PAGE_SIZE(4), &why);
	free(pg);
	UT_ASSERT_EQ_INT(ret, -EINVAL);
	UT_ASSERT_STR_CONTAINS(why, "magic");
}

UT_TEST(page_bad_version)
{
	struct ut_agent_page *pg = page_new(4);
	const char *why = NULL;
	int ret;

	pg->version = UT_AGENT_PAGE_VERSION + 1;
	ret = agent_page_check(pg, sizeof(*pg), UT_AGENT_PAGE_SIZE(4), &why);
	free(pg);
	UT_ASSERT_EQ_INT(ret, -EINVAL);
	UT_ASSERT_STR_CONTAINS(why, "version");
}

UT_TEST(page_size_mismatch)
{
	struct ut_agent_page *pg = page_new(4);

	/* the file is longer or shorter than the header says */
	ASSERT_PAGE_BAD(pg, sizeof(*pg), UT_AGENT_PAGE_SIZE(4) + 1, "file's size");
	ASSERT_PAGE_BAD(pg, sizeof(*pg), UT_AGENT_PAGE_SIZE(4) - 80, "file's size");
	/* the header's size agrees with the file but not with nslots */
	pg->size = UT_AGENT_PAGE_SIZE(5);
	ASSERT_PAGE_BAD(pg, sizeof(*pg), UT_AGENT_PAGE_SIZE(5), "slot count");
	pg->size = UT_AGENT_PAGE_SIZE(4) + 40;
	ASSERT_PAGE_BAD(pg, sizeof(*pg), UT_AGENT_PAGE_SIZE(4) + 40, "slot count");
	free(pg);
}

UT_TEST(page_too_small)
{
	struct ut_agent_page *pg = page_new(4);

	ASSERT_PAGE_BAD(pg, sizeof(*pg), 0, "smaller");
	ASSERT_PAGE_BAD(pg, sizeof(*pg), 63, "smaller");
	/* fewer bytes given than a header */
	ASSERT_PAGE_BAD(pg, 32, UT_AGENT_PAGE_SIZE(4), "smaller");
	free(pg);
}

UT_TEST(page_nslots_range)
{
	struct ut_agent_page *pg = page_new(4);

	pg->nslots = 0;
	pg->size = UT_AGENT_PAGE_SIZE(0);
	ASSERT_PAGE_BAD(pg, sizeof(*pg), UT_AGENT_PAGE_SIZE(0), "slot count out of range");
	pg->nslots = AGENT_PAGE_MAX_SLOTS + 1;
	pg->size = UT_AGENT_PAGE_SIZE((__u64)AGENT_PAGE_MAX_SLOTS + 1);
	ASSERT_PAGE_BAD(pg, sizeof(*pg), pg->size, "slot count out of range");
	/* huge: size would wrap in 32 bits */
	pg->nslots = 0xffffffffu;
	pg->size = (__u32)UT_AGENT_PAGE_SIZE(0xffffffffULL);
	ASSERT_PAGE_BAD(pg, sizeof(*pg), pg->size, "slot count out of range");
	free(pg);
}

/* ---- slots ---- */

static void slot_fill(struct ut_agent_slot *s)
{
	memset(s, 0, sizeof(*s));
	s->seq = 2;
	s->token = TOKEN;
	s->flags = UT_SLOT_NAPI | UT_SLOT_HYBRID;
	s->napi_gen = 1;
	s->busy_poll_us = 50;
	s->napi_enabled = 1;
}

#define ASSERT_SLOT(s, token, verdict, word) do {			\
	const char *why = NULL;						\
	UT_ASSERT_EQ_INT(agent_slot_check(s, token, &why), verdict);	\
	UT_ASSERT(why);							\
	UT_ASSERT_STR_CONTAINS(why, word);				\
} while (0)

UT_TEST(slot_copy_consistent)
{
	struct ut_agent_slot s, out;

	slot_fill(&s);
	s.ids[7] = 0xdeadbeef;
	s.reserved[2] = 0x12345678;
	memset(&out, 0xaa, sizeof(out));
	UT_ASSERT(agent_slot_copy(&s, &out));
	UT_ASSERT(!memcmp(&s, &out, sizeof(s)));
}

UT_TEST(slot_copy_odd_seq)
{
	struct ut_agent_slot s, out;

	/* a writer that never finishes: given up, not spun on forever */
	slot_fill(&s);
	s.seq = 3;
	UT_ASSERT(!agent_slot_copy(&s, &out));
}

/* a writer that follows the daemon's protocol, and every copy must be whole */
struct writer_arg {
	struct ut_agent_slot *slot;
	bool stop;
	unsigned long writes;
};

static void *slot_writer(void *arg)
{
	struct writer_arg *a = arg;
	struct ut_agent_slot *s = a->slot;
	__u32 k, i, seq = 0;

	for (k = 1; !__atomic_load_n(&a->stop, __ATOMIC_RELAXED); k++) {
		__atomic_store_n(&s->seq, ++seq, __ATOMIC_RELAXED);	/* odd */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&s->flags, k, __ATOMIC_RELAXED);
		__atomic_store_n(&s->token, (__u64)k << 32 | k, __ATOMIC_RELAXED);
		__atomic_store_n(&s->napi_gen, k, __ATOMIC_RELAXED);
		__atomic_store_n(&s->busy_poll_us, k, __ATOMIC_RELAXED);
		for (i = 0; i < UT_AGENT_MAX_IDS; i++)
			__atomic_store_n(&s->ids[i], k, __ATOMIC_RELAXED);
		__atomic_store_n(&s->seq, ++seq, __ATOMIC_RELEASE);	/* even */
		a->writes++;
	}
	return NULL;
}

UT_TEST(slot_copy_concurrent_writer)
{
	static struct ut_agent_slot s;
	struct writer_arg a = { .slot = &s };
	unsigned long copies = 0, torn = 0, i;
	struct ut_agent_slot out;
	__u32 k;
	pthread_t t;

	UT_ASSERT_EQ_INT(pthread_create(&t, NULL, slot_writer, &a), 0);
	for (i = 0; i < 200000; i++) {
		if (!agent_slot_copy(&s, &out))
			continue;
		copies++;
		k = out.flags;
		if (out.seq & 1 || out.token != ((__u64)k << 32 | k) ||
		    out.napi_gen != k || out.busy_poll_us != k || out.ids[0] != k ||
		    out.ids[UT_AGENT_MAX_IDS - 1] != k)
			torn++;
	}
	__atomic_store_n(&a.stop, true, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	UT_ASSERT_EQ_INT(torn, 0);
	UT_ASSERT(copies > 0);
}

UT_TEST(slot_valid)
{
	struct ut_agent_slot s;

	slot_fill(&s);
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_OK, "");
	/* NAPI fields not live: not checked */
	slot_fill(&s);
	s.flags = UT_SLOT_HYBRID;
	s.busy_poll_us = 0;
	s.n_ids = 200;
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_OK, "");
	/* switching off needs no timeout */
	slot_fill(&s);
	s.napi_enabled = 0;
	s.busy_poll_us = 0;
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_OK, "");
	/* static with ids, and the edges of the timeout */
	slot_fill(&s);
	s.static_ids = 1;
	s.n_ids = UT_AGENT_MAX_IDS;
	s.busy_poll_us = UT_AGENT_MAX_BUSY_POLL_US;
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_OK, "");
	s.busy_poll_us = 1;
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_OK, "");
}

UT_TEST(slot_wrong_token)
{
	struct ut_agent_slot s;

	/* handed to another ring */
	slot_fill(&s);
	s.token = TOKEN + 1;
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_FOREIGN, "no longer ours");
	/* freed */
	s.token = 0;
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_FOREIGN, "no longer ours");
	/* a 0 token is no slot: a free slot is never ours */
	ASSERT_SLOT(&s, 0, AGENT_SLOT_FOREIGN, "no longer ours");
	/* the token is checked before the fields: someone else's junk is not "invalid" */
	slot_fill(&s);
	s.token = TOKEN ^ (1ULL << 63);
	s.busy_poll_us = 0;
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_FOREIGN, "no longer ours");
}

UT_TEST(slot_busy_poll_range)
{
	struct ut_agent_slot s;

	slot_fill(&s);
	s.busy_poll_us = 0;
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_INVALID, "busy_poll_us");
	s.busy_poll_us = UT_AGENT_MAX_BUSY_POLL_US + 1;
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_INVALID, "busy_poll_us");
	s.busy_poll_us = 0xffffffffu;
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_INVALID, "busy_poll_us");
}

UT_TEST(slot_n_ids_range)
{
	struct ut_agent_slot s;

	slot_fill(&s);
	s.n_ids = UT_AGENT_MAX_IDS + 1;
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_INVALID, "too many");
	s.n_ids = 255;
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_INVALID, "too many");
}

UT_TEST(slot_static_without_ids)
{
	struct ut_agent_slot s;

	slot_fill(&s);
	s.static_ids = 1;
	s.n_ids = 0;
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_INVALID, "static tracking without ids");
}

UT_TEST(slot_booleans)
{
	struct ut_agent_slot s;

	slot_fill(&s);
	s.napi_enabled = 2;
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_INVALID, "booleans");
	slot_fill(&s);
	s.prefer_busy_poll = 7;
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_INVALID, "booleans");
	slot_fill(&s);
	s.static_ids = 2;
	s.n_ids = 1;
	ASSERT_SLOT(&s, TOKEN, AGENT_SLOT_INVALID, "booleans");
}

/* ---- decisions ---- */

UT_TEST(setup_flags_hybrid)
{
	const struct agent_policy unset = { UT_WANT_UNSET, UT_WANT_UNSET };
	const struct agent_policy off = { UT_WANT_OFF, UT_WANT_UNSET };
	struct ut_agent_slot s;

	slot_fill(&s);
	UT_ASSERT_EQ_INT(agent_setup_flags(UT_SETUP_IOPOLL, &s, &unset),
			 UT_SETUP_IOPOLL | UT_SETUP_HYBRID_IOPOLL);
	/* the program's hybrid=off wins over the daemon */
	UT_ASSERT_EQ_INT(agent_setup_flags(UT_SETUP_IOPOLL, &s, &off), UT_SETUP_IOPOLL);
	/* never makes a ring IOPOLL */
	UT_ASSERT_EQ_INT(agent_setup_flags(0, &s, &unset), 0);
	UT_ASSERT_EQ_INT(agent_setup_flags(UT_SETUP_DEFER_TASKRUN, &s, &unset),
			 UT_SETUP_DEFER_TASKRUN);
	/* already hybrid: as is */
	UT_ASSERT_EQ_INT(agent_setup_flags(UT_SETUP_IOPOLL | UT_SETUP_HYBRID_IOPOLL, &s, &unset),
			 UT_SETUP_IOPOLL | UT_SETUP_HYBRID_IOPOLL);
	/* the daemon did not say hybrid, or said nothing */
	s.flags = UT_SLOT_NAPI;
	UT_ASSERT_EQ_INT(agent_setup_flags(UT_SETUP_IOPOLL, &s, &unset), UT_SETUP_IOPOLL);
	UT_ASSERT_EQ_INT(agent_setup_flags(UT_SETUP_IOPOLL, NULL, &unset), UT_SETUP_IOPOLL);
}

UT_TEST(napi_wanted)
{
	const struct agent_policy unset = { UT_WANT_UNSET, UT_WANT_UNSET };
	const struct agent_policy off = { UT_WANT_UNSET, UT_WANT_OFF };
	const __u32 dt = UT_SETUP_SINGLE_ISSUER | UT_SETUP_DEFER_TASKRUN;
	struct ut_agent_slot s;

	slot_fill(&s);
	UT_ASSERT(agent_napi_wanted(dt, &s, &unset, true));
	UT_ASSERT(agent_napi_wanted(UT_SETUP_SINGLE_ISSUER, &s, &unset, true));
	/* others are reached from outside at setup; later, the daemon's slot says */
	UT_ASSERT(!agent_napi_wanted(0, &s, &unset, true));
	UT_ASSERT(agent_napi_wanted(0, &s, &unset, false));
	/* IOPOLL refuses NAPI: EINVAL */
	UT_ASSERT(!agent_napi_wanted(UT_SETUP_IOPOLL | UT_SETUP_SINGLE_ISSUER, &s, &unset, true));
	UT_ASSERT(!agent_napi_wanted(UT_SETUP_IOPOLL, &s, &unset, false));
	/* napi=off: never switched on, may be switched off */
	UT_ASSERT(!agent_napi_wanted(dt, &s, &off, true));
	UT_ASSERT(!agent_napi_wanted(dt, &s, &off, false));
	s.napi_enabled = 0;
	UT_ASSERT(agent_napi_wanted(dt, &s, &off, false));
	/* a new ring has NAPI off already */
	UT_ASSERT(!agent_napi_wanted(dt, &s, &unset, true));
	/* fields not live */
	slot_fill(&s);
	s.flags = UT_SLOT_HYBRID;
	UT_ASSERT(!agent_napi_wanted(dt, &s, &unset, true));
	UT_ASSERT(!agent_napi_wanted(dt, &s, &unset, false));
}

UT_TEST(napi_ops_dynamic)
{
	struct agent_napi_op ops[AGENT_NAPI_MAX_OPS];
	struct ut_agent_slot s;

	slot_fill(&s);
	s.prefer_busy_poll = 1;
	UT_ASSERT_EQ_INT(agent_napi_ops(&s, ops), 1);
	UT_ASSERT_EQ_INT(ops[0].opcode, UT_IORING_REGISTER_NAPI);
	UT_ASSERT_EQ_INT(ops[0].arg.opcode, UT_NAPI_REGISTER_OP);
	UT_ASSERT_EQ_INT(ops[0].arg.op_param, UT_NAPI_TRACKING_DYNAMIC);
	UT_ASSERT_EQ_INT(ops[0].arg.busy_poll_to, 50);
	UT_ASSERT_EQ_INT(ops[0].arg.prefer_busy_poll, 1);
	/* the kernel refuses non-zero pad or resv: EINVAL */
	UT_ASSERT_EQ_INT(ops[0].arg.pad[0] | ops[0].arg.pad[1] | ops[0].arg.resv, 0);
}

UT_TEST(napi_ops_static)
{
	struct agent_napi_op ops[AGENT_NAPI_MAX_OPS];
	struct ut_agent_slot s;

	slot_fill(&s);
	s.static_ids = 1;
	s.n_ids = 2;
	s.ids[0] = 8193;
	s.ids[1] = 8200;
	s.ids[2] = 9999;	/* beyond n_ids: not added */
	UT_ASSERT_EQ_INT(agent_napi_ops(&s, ops), 3);
	UT_ASSERT_EQ_INT(ops[0].arg.opcode, UT_NAPI_REGISTER_OP);
	UT_ASSERT_EQ_INT(ops[0].arg.op_param, UT_NAPI_TRACKING_STATIC);
	UT_ASSERT_EQ_INT(ops[0].arg.busy_poll_to, 50);
	UT_ASSERT_EQ_INT(ops[1].opcode, UT_IORING_REGISTER_NAPI);
	UT_ASSERT_EQ_INT(ops[1].arg.opcode, UT_NAPI_STATIC_ADD_ID);
	UT_ASSERT_EQ_INT(ops[1].arg.op_param, 8193);
	UT_ASSERT_EQ_INT(ops[2].arg.opcode, UT_NAPI_STATIC_ADD_ID);
	UT_ASSERT_EQ_INT(ops[2].arg.op_param, 8200);

	s.n_ids = UT_AGENT_MAX_IDS;
	UT_ASSERT_EQ_INT(agent_napi_ops(&s, ops), AGENT_NAPI_MAX_OPS);
}

UT_TEST(napi_ops_off)
{
	struct agent_napi_op ops[AGENT_NAPI_MAX_OPS];
	struct ut_agent_slot s;

	slot_fill(&s);
	s.napi_enabled = 0;
	s.static_ids = 1;
	s.n_ids = 3;
	/* REGISTER_OP STATIC empties the list (UNREGISTER keeps it), then UNREGISTER */
	UT_ASSERT_EQ_INT(agent_napi_ops(&s, ops), 2);
	UT_ASSERT_EQ_INT(ops[0].opcode, UT_IORING_REGISTER_NAPI);
	UT_ASSERT_EQ_INT(ops[0].arg.opcode, UT_NAPI_REGISTER_OP);
	UT_ASSERT_EQ_INT(ops[0].arg.op_param, UT_NAPI_TRACKING_STATIC);
	UT_ASSERT_EQ_INT(ops[0].arg.busy_poll_to, 0);
	UT_ASSERT_EQ_INT(ops[1].opcode, UT_IORING_UNREGISTER_NAPI);
	UT_ASSERT_EQ_INT(ops[1].arg.busy_poll_to | ops[1].arg.opcode | ops[1].arg.op_param, 0);
}

int main(void)
{
	ut_run("policy_unset", policy_unset);
	ut_run("policy_hybrid", policy_hybrid);
	ut_run("policy_napi", policy_napi);
	ut_run("policy_both", policy_both);
	ut_run("policy_bad_value", policy_bad_value);
	ut_run("policy_bad_key", policy_bad_key);
	ut_run("policy_bad_shape", policy_bad_shape);
	ut_run("policy_twice", policy_twice);
	ut_run("policy_error_text_is_safe", policy_error_text_is_safe);
	ut_run("page_valid", page_valid);
	ut_run("page_bad_magic", page_bad_magic);
	ut_run("page_bad_version", page_bad_version);
	ut_run("page_size_mismatch", page_size_mismatch);
	ut_run("page_too_small", page_too_small);
	ut_run("page_nslots_range", page_nslots_range);
	ut_run("slot_copy_consistent", slot_copy_consistent);
	ut_run("slot_copy_odd_seq", slot_copy_odd_seq);
	ut_run("slot_copy_concurrent_writer", slot_copy_concurrent_writer);
	ut_run("slot_valid", slot_valid);
	ut_run("slot_wrong_token", slot_wrong_token);
	ut_run("slot_busy_poll_range", slot_busy_poll_range);
	ut_run("slot_n_ids_range", slot_n_ids_range);
	ut_run("slot_static_without_ids", slot_static_without_ids);
	ut_run("slot_booleans", slot_booleans);
	ut_run("setup_flags_hybrid", setup_flags_hybrid);
	ut_run("napi_wanted", napi_wanted);
	ut_run("napi_ops_dynamic", napi_ops_dynamic);
	ut_run("napi_ops_static", napi_ops_static);
	ut_run("napi_ops_off", napi_ops_off);
	return ut_finish();
}
