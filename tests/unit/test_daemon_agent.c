// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's pure side of the in-process agent: what it answers at ring
 * setup (agent_decide), the policy page's slots (sequence lock, allocation,
 * reuse checks) and which rings the agent makes tunable.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent_page.h"
#include "agent_policy.h"
#include "config.h"
#include "tunable.h"
#include "uring_abi.h"
#include "unit.h"

#define SI	(UT_SETUP_SINGLE_ISSUER)
#define DT	(UT_SETUP_SINGLE_ISSUER | UT_SETUP_DEFER_TASKRUN)
#define IOP	(UT_SETUP_IOPOLL)

static struct ut_config cfg;

static void setup(void)
{
	config_defaults(&cfg);
	cfg.mode = UT_MODE_TUNE;
}

static const struct agent_context tune_ctx = {
	.mode = UT_MODE_TUNE, .napi_supported = true, .selected = true,
	.bounds = { .min_saving = 0.25, .max_loss = 0.10 },
};

static void decide(uint32_t flags, enum ut_agent_want hybrid, enum ut_agent_want napi,
		   const char *comm, const struct agent_context *ctx, struct agent_decision *out)
{
	struct agent_request req = {
		.setup_flags = flags, .hybrid = hybrid, .napi = napi, .comm = comm,
	};

	agent_decide(&req, &cfg, ctx, out);
}

UT_TEST(hybrid_on_iopoll_only)
{
	struct agent_decision d;

	setup();
	decide(IOP, UT_WANT_ON, UT_WANT_UNSET, "fio", &tune_ctx, &d);
	UT_ASSERT(d.hybrid);
	UT_ASSERT(!d.napi);
	UT_ASSERT_STR_CONTAINS(d.why, "HYBRID_IOPOLL added");
	/* not an IOPOLL ring: nothing to add, said so */
	decide(0, UT_WANT_ON, UT_WANT_UNSET, "fio", &tune_ctx, &d);
	UT_ASSERT(!d.hybrid);
	UT_ASSERT_STR_CONTAINS(d.why, "not an IOPOLL ring");
	/* the program set it itself: nothing to add either */
	decide(IOP | UT_SETUP_HYBRID_IOPOLL, UT_WANT_ON, UT_WANT_UNSET, "fio", &tune_ctx, &d);
	UT_ASSERT(!d.hybrid);
	decide(IOP, UT_WANT_OFF, UT_WANT_UNSET, "fio", &tune_ctx, &d);
	UT_ASSERT(!d.hybrid);
	decide(IOP, UT_WANT_UNSET, UT_WANT_UNSET, "fio", &tune_ctx, &d);
	UT_ASSERT(!d.hybrid);
}

/* hybrid = auto: hybrid_auto.c's answer, within the bounds of the context */
UT_TEST(hybrid_auto_follows_advisor)
{
	struct hybrid_pred good = { .valid = true, .cpu_per_read_saving = 0.4,
				    .iops_change = -0.05 };
	struct hybrid_pred lossy = { .valid = true, .cpu_per_read_saving = 0.4,
				     .iops_change = -0.3 };
	struct agent_context ctx = tune_ctx;
	struct agent_decision d;

	setup();
	decide(IOP, UT_WANT_AUTO, UT_WANT_UNSET, "fio", &ctx, &d);
	UT_ASSERT(!d.hybrid);
	UT_ASSERT_STR_CONTAINS(d.why, "no IOPOLL history");
	ctx.live_pred = &good;
	decide(IOP, UT_WANT_AUTO, UT_WANT_UNSET, "fio", &ctx, &d);
	UT_ASSERT(d.hybrid);
	UT_ASSERT_STR_CONTAINS(d.why, "hybrid: added, predicted 40% less CPU per read, -5% IOPS");
	ctx.live_pred = &lossy;
	decide(IOP, UT_WANT_AUTO, UT_WANT_UNSET, "fio", &ctx, &d);
	UT_ASSERT(!d.hybrid);
	UT_ASSERT_STR_CONTAINS(d.why, "hybrid: classic, predicted -30% IOPS (bound 10%)");
	/* a stricter bound in the context: the same prediction is not enough */
	ctx.live_pred = &good;
	ctx.bounds.min_saving = 0.5;
	decide(IOP, UT_WANT_AUTO, UT_WANT_UNSET, "fio", &ctx, &d);
	UT_ASSERT(!d.hybrid);
	UT_ASSERT_STR_CONTAINS(d.why, "(needs 50%)");
}

/* QUERY said no HYBRID_IOPOLL: not asked for, said why; nothing else changes */
UT_TEST(hybrid_not_asked_when_kernel_lacks_it)
{
	struct hybrid_pred good = { .valid = true, .cpu_per_read_saving = 0.4,
				    .iops_change = -0.05 };
	struct agent_context ctx = tune_ctx;
	struct agent_decision d;

	setup();
	ctx.hybrid_absent = true;
	/* auto would pick hybrid on this prediction but for the kernel */
	ctx.live_pred = &good;
	decide(IOP, UT_WANT_ON, UT_WANT_UNSET, "fio", &ctx, &d);
	UT_ASSERT(!d.hybrid);
	UT_ASSERT_STR_EQ(d.why, "hybrid: this kernel has no HYBRID_IOPOLL (REGISTER_QUERY)");
	decide(IOP, UT_WANT_AUTO, UT_WANT_UNSET, "fio", &ctx, &d);
	UT_ASSERT(!d.hybrid);
	UT_ASSERT_STR_CONTAINS(d.why, "no HYBRID_IOPOLL (REGISTER_QUERY)");
	/* the other answers stay as they were */
	decide(0, UT_WANT_ON, UT_WANT_UNSET, "fio", &ctx, &d);
	UT_ASSERT_STR_EQ(d.why, "hybrid: not an IOPOLL ring");
	decide(IOP, UT_WANT_OFF, UT_WANT_UNSET, "fio", &ctx, &d);
	UT_ASSERT_STR_EQ(d.why, "hybrid: off as asked");
	decide(IOP, UT_WANT_UNSET, UT_WANT_UNSET, "fio", &ctx, &d);
	UT_ASSERT_STR_EQ(d.why, "hybrid: not asked for");
	decide(DT, UT_WANT_ON, UT_WANT_ON, "pingpong", &ctx, &d);
	UT_ASSERT(d.napi);
	/* unknown or yes: today's try-and-fall-back */
	ctx.hybrid_absent = false;
	decide(IOP, UT_WANT_ON, UT_WANT_UNSET, "fio", &ctx, &d);
	UT_ASSERT(d.hybrid);
}

UT_TEST(napi_single_issuer_only)
{
	struct agent_decision d;

	setup();
	decide(DT, UT_WANT_UNSET, UT_WANT_ON, "pingpong", &tune_ctx, &d);
	UT_ASSERT(d.napi);
	UT_ASSERT(d.napi_setting.enabled);
	UT_ASSERT_EQ_INT(d.napi_setting.busy_poll_us, cfg.napi.initial_us);
	UT_ASSERT(!d.napi_setting.static_ids);
	decide(SI, UT_WANT_UNSET, UT_WANT_ON, "pingpong", &tune_ctx, &d);
	UT_ASSERT(d.napi);
	/* a plain ring is registered from outside, like any other */
	decide(0, UT_WANT_UNSET, UT_WANT_ON, "pingpong", &tune_ctx, &d);
	UT_ASSERT(!d.napi);
	UT_ASSERT_STR_CONTAINS(d.why, "from outside");
	/* IOPOLL rings refuse NAPI (EINVAL) */
	decide(IOP | SI, UT_WANT_UNSET, UT_WANT_ON, "x", &tune_ctx, &d);
	UT_ASSERT(!d.napi);
	decide(DT, UT_WANT_UNSET, UT_WANT_OFF, "pingpong", &tune_ctx, &d);
	UT_ASSERT(!d.napi);
	decide(DT, UT_WANT_UNSET, UT_WANT_UNSET, "pingpong", &tune_ctx, &d);
	UT_ASSERT(!d.napi);
	UT_ASSERT_STR_CONTAINS(d.why, "nothing asked");
}

UT_TEST(napi_needs_kernel_and_select)
{
	struct agent_context ctx = tune_ctx;
	struct agent_decision d;

	setup();
	ctx.napi_supported = false;
	decide(DT, UT_WANT_UNSET, UT_WANT_ON, "pingpong", &ctx, &d);
	UT_ASSERT(!d.napi);
	UT_ASSERT_STR_CONTAINS(d.why, "6.9");
	ctx = tune_ctx;
	ctx.selected = false;
	ctx.select_why = "excluded by exclude_comm";
	decide(DT, UT_WANT_UNSET, UT_WANT_ON, "pingpong", &ctx, &d);
	UT_ASSERT(!d.napi);
	UT_ASSERT_STR_CONTAINS(d.why, "exclude_comm");
}

UT_TEST(observe_mode_changes_nothing)
{
	struct agent_context ctx = tune_ctx;
	struct agent_decision d;

	setup();
	ctx.mode = UT_MODE_OBSERVE;
	decide(IOP, UT_WANT_ON, UT_WANT_ON, "fio", &ctx, &d);
	UT_ASSERT(!d.hybrid);
	UT_ASSERT(!d.napi);
	UT_ASSERT_STR_CONTAINS(d.why, "observe");
}

UT_TEST(config_rules_by_comm)
{
	enum ut_agent_want h, n;
	struct agent_request req = { .comm = "fio" };
	struct agent_decision d;

	setup();
	strcpy(cfg.agent.hybrid_comm[0], "fio");
	cfg.agent.n_hybrid_comm = 1;
	strcpy(cfg.agent.hybrid_auto_comm[0], "postgres");
	cfg.agent.n_hybrid_auto_comm = 1;
	strcpy(cfg.agent.napi_comm[0], "redis-server");
	cfg.agent.n_napi_comm = 1;

	agent_effective_wants(&req, &cfg.agent, &h, &n);
	UT_ASSERT_EQ_INT(h, UT_WANT_ON);
	UT_ASSERT_EQ_INT(n, UT_WANT_UNSET);
	req.comm = "postgres";
	agent_effective_wants(&req, &cfg.agent, &h, &n);
	UT_ASSERT_EQ_INT(h, UT_WANT_AUTO);
	req.comm = "redis-server";
	agent_effective_wants(&req, &cfg.agent, &h, &n);
	UT_ASSERT_EQ_INT(h, UT_WANT_UNSET);
	UT_ASSERT_EQ_INT(n, UT_WANT_ON);
	/* the program's own word (uringtune exec) wins over the rules */
	req.comm = "fio";
	req.hybrid = UT_WANT_OFF;
	agent_effective_wants(&req, &cfg.agent, &h, &n);
	UT_ASSERT_EQ_INT(h, UT_WANT_OFF);

	decide(IOP, UT_WANT_UNSET, UT_WANT_UNSET, "fio", &tune_ctx, &d);
	UT_ASSERT(d.hybrid);
	decide(DT, UT_WANT_UNSET, UT_WANT_UNSET, "redis-server", &tune_ctx, &d);
	UT_ASSERT(d.napi);
	decide(DT, UT_WANT_UNSET, UT_WANT_UNSET, "other", &tune_ctx, &d);
	UT_ASSERT(!d.napi);
}

static struct ut_agent_page *new_page(uint32_t nslots)
{
	struct ut_agent_page *pg = calloc(1, UT_AGENT_PAGE_SIZE(nslots));

	if (pg)
		agent_page_init(pg, nslots, 99);
	return pg;
}

UT_TEST(page_layout_and_reuse)
{
	struct ut_agent_page *pg = new_page(UT_AGENT_PAGE_SLOTS);
	size_t size = UT_AGENT_PAGE_SIZE(UT_AGENT_PAGE_SLOTS);

	UT_ASSERT(pg);
	UT_ASSERT_EQ_INT(pg->magic, UT_AGENT_PAGE_MAGIC);
	UT_ASSERT_EQ_INT(pg->size, size);
	UT_ASSERT_EQ_INT(pg->daemon_pid, 99);
	/* every slot free: no token; nothing in the page names a process or a ring */
	UT_ASSERT_EQ_INT(pg->slots[0].token, 0);
	UT_ASSERT(agent_page_usable(pg, size));
	UT_ASSERT(!agent_page_usable(pg, size - 1));
	pg->version++;
	UT_ASSERT(!agent_page_usable(pg, size));
	pg->version--;
	pg->magic ^= 1;
	UT_ASSERT(!agent_page_usable(pg, size));
	free(pg);
}

UT_TEST(slots_seqlock_and_gen)
{
	struct ut_agent_page *pg = new_page(4);
	struct tuner_setting s = { .enabled = true, .busy_poll_us = 30, .prefer = true };
	struct ut_agent_slot sl;
	uint64_t gen;
	int a, b;

	UT_ASSERT(pg);
	gen = pg->gen;
	a = agent_slot_alloc(pg, 1234);
	b = agent_slot_alloc(pg, 1234);
	UT_ASSERT_EQ_INT(a, 0);
	UT_ASSERT_EQ_INT(b, 1);
	/* every change bumps the page's generation and leaves seq even */
	UT_ASSERT(pg->gen > gen);
	UT_ASSERT_EQ_INT(pg->slots[a].seq % 2, 0);
	UT_ASSERT_EQ_INT(pg->slots[a].token, 1234);

	gen = pg->gen;
	agent_slot_set_flags(pg, a, UT_SLOT_HYBRID);
	agent_slot_set_napi(pg, a, &s);
	UT_ASSERT_EQ_INT(pg->gen, gen + 2);
	agent_slot_read(pg, a, &sl);
	UT_ASSERT_EQ_INT(sl.flags, UT_SLOT_HYBRID | UT_SLOT_NAPI);
	UT_ASSERT_EQ_INT(sl.token, 1234);
	UT_ASSERT_EQ_INT(sl.napi_gen, 1);
	UT_ASSERT_EQ_INT(sl.busy_poll_us, 30);
	UT_ASSERT_EQ_INT(sl.napi_enabled, 1);
	UT_ASSERT_EQ_INT(sl.prefer_busy_poll, 1);
	UT_ASSERT_EQ_INT(sl.seq % 2, 0);

	/* off: no timeout, no ids; a new generation of the decision */
	s.enabled = false;
	agent_slot_set_napi(pg, a, &s);
	agent_slot_read(pg, a, &sl);
	UT_ASSERT_EQ_INT(sl.napi_gen, 2);
	UT_ASSERT_EQ_INT(sl.napi_enabled, 0);
	UT_ASSERT_EQ_INT(sl.busy_poll_us, 0);
	UT_ASSERT_EQ_INT(sl.prefer_busy_poll, 0);

	/* freed and taken again: napi_gen keeps counting, the rest starts over */
	agent_slot_free(pg, a);
	UT_ASSERT_EQ_INT(pg->slots[a].token, 0);
	UT_ASSERT_EQ_INT(agent_slot_alloc(pg, 555), a);
	agent_slot_read(pg, a, &sl);
	UT_ASSERT_EQ_INT(sl.token, 555);
	UT_ASSERT_EQ_INT(sl.flags, 0);
	UT_ASSERT_EQ_INT(sl.napi_gen, 2);
	free(pg);
}

UT_TEST(slots_static_ids_and_full)
{
	struct ut_agent_page *pg = new_page(2);
	struct tuner_setting s = {
		.enabled = true, .busy_poll_us = 50, .static_ids = true,
		.ids = { 257, 258 }, .n_ids = 2,
	};
	struct ut_agent_slot sl;

	UT_ASSERT(pg);
	UT_ASSERT_EQ_INT(agent_slot_alloc(pg, 1), 0);
	UT_ASSERT_EQ_INT(agent_slot_alloc(pg, 2), 1);
	UT_ASSERT_EQ_INT(agent_slot_alloc(pg, 3), -ENOSPC);
	agent_slot_set_napi(pg, 1, &s);
	agent_slot_read(pg, 1, &sl);
	UT_ASSERT_EQ_INT(sl.static_ids, 1);
	UT_ASSERT_EQ_INT(sl.n_ids, 2);
	UT_ASSERT_EQ_INT(sl.ids[0], 257);
	UT_ASSERT_EQ_INT(sl.ids[1], 258);
	UT_ASSERT_EQ_INT(sl.ids[2], 0);
	free(pg);
}

UT_TEST(agent_lifts_submitter_rule_only)
{
	const char *r = "stale";

	UT_ASSERT(!ring_tunable_agent(DT, true, UT_MANAGED_NONE, false, &r));
	UT_ASSERT_STR_CONTAINS(r, "EEXIST");
	UT_ASSERT(ring_tunable_agent(DT, true, UT_MANAGED_NONE, true, &r));
	UT_ASSERT_STR_EQ(r, "");
	UT_ASSERT(ring_tunable_agent(SI, true, UT_MANAGED_URINGTUNE, true, &r));
	/* everything else still holds */
	UT_ASSERT(!ring_tunable_agent(DT, false, UT_MANAGED_NONE, true, &r));
	UT_ASSERT_STR_CONTAINS(r, "6.9");
	UT_ASSERT(!ring_tunable_agent(DT, true, UT_MANAGED_APP, true, &r));
	UT_ASSERT(!ring_tunable_agent(IOP | SI, true, UT_MANAGED_NONE, true, &r));
	UT_ASSERT_STR_CONTAINS(r, "EINVAL");
}

int main(void)
{
	ut_run("hybrid_on_iopoll_only", hybrid_on_iopoll_only);
	ut_run("hybrid_auto_follows_advisor", hybrid_auto_follows_advisor);
	ut_run("hybrid_not_asked_when_kernel_lacks_it", hybrid_not_asked_when_kernel_lacks_it);
	ut_run("napi_single_issuer_only", napi_single_issuer_only);
	ut_run("napi_needs_kernel_and_select", napi_needs_kernel_and_select);
	ut_run("observe_mode_changes_nothing", observe_mode_changes_nothing);
	ut_run("config_rules_by_comm", config_rules_by_comm);
	ut_run("page_layout_and_reuse", page_layout_and_reuse);
	ut_run("slots_seqlock_and_gen", slots_seqlock_and_gen);
	ut_run("slots_static_ids_and_full", slots_static_ids_and_full);
	ut_run("agent_lifts_submitter_rule_only", agent_lifts_submitter_rule_only);
	return ut_finish();
}
