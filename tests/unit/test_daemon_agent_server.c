// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent server's message handling through its seam,
 * agent_server_handle(): a peer identity and message bytes in, the answer
 * out, against a fake kernel (struct agent_sys, fake_kernel.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemd/sd-event.h>

#include "agent_conn.h"
#include "agent_server.h"
#include "agent_server_priv.h"
#include "config.h"
#include "fake_kernel.h"
#include "lifecycle.h"
#include "registry.h"
#include "agent_wire.h"
#include "uring_abi.h"
#include "unit.h"

#define HZ	100
#define TICK_NS	10000000ULL
#define DT	(UT_SETUP_SINGLE_ISSUER | UT_SETUP_DEFER_TASKRUN)

/* ---- the daemon's side ---- */

static char dir[] = "/tmp/ut-agent-server.XXXXXX";
static struct ut_config cfg;
static struct ut_registry reg;
static struct lifecycle lc;
static struct ut_agent_server as;
static struct agent_peer peers[FAKE_MAX_PROCS];
static bool lc_open;

static uint64_t fake_now(void)
{
	return 5000000000ULL;
}

static bool fake_selects(void *arg, pid_t pid, const char *comm, const char **why)
{
	(void)arg, (void)pid, (void)comm, (void)why;
	return true;
}

static void setup(void)
{
	const struct lifecycle_env env = { .now = fake_now, .selects = fake_selects };
	char err[256];

	fake_kernel_reset();
	for (unsigned int i = 0; i < FAKE_MAX_PROCS; i++)
		if (peers[i].pidfd > 0)
			agent_peer_close(&peers[i]);
	if (as.info)
		agent_server_close(&as);
	if (lc_open)
		lifecycle_fini(&lc);
	config_defaults(&cfg);
	cfg.mode = UT_MODE_TUNE;
	snprintf(cfg.state_dir, sizeof(cfg.state_dir), "%s/state", dir);
	memset(&lc, 0, sizeof(lc));
	registry_free(&reg);
	registry_init(&reg);
	lc.napi_supported = true;
	lc_open = !lifecycle_init(&lc, &reg, &cfg, &env, err, sizeof(err));
	agent_server_init(&as, &reg, &lc, &cfg);
	as.sys = &fake_kernel_sys;
	as.hz = HZ;
	agent_server_open_mem(&as);
	agent_server_backend(&as, &lc.agent);
}

/* the create event of a ring of process @pr at @fd */
static struct ut_ring *ring_created(const struct fake_proc *pr, uint64_t ctx, int fd, uint64_t ino,
				    uint32_t flags)
{
	struct ut_event ev = {
		.type = UT_EV_RING_CREATE, .tgid = pr->pid, .fd = fd, .ctx = ctx,
		.start_boottime = pr->start * TICK_NS + 1234, .ino = ino, .setup_flags = flags,
	};

	return registry_on_create(&reg, &ev, ino);
}

static void hello(const struct agent_peer *p, struct agent_answer *ans)
{
	struct ut_agent_hello h = {
		.type = UT_AGENT_HELLO, .version = UT_AGENT_PROTO_VERSION, .setup_flags = DT,
		.napi = UT_WANT_ON, .entry = UT_ENTRY_LIBURING,
	};

	agent_server_handle(&as, p, &h, sizeof(h), ans);
}

static void ring_msg(const struct agent_peer *p, uint32_t type, const struct agent_answer *a,
		     int fd, uint64_t ino)
{
	struct ut_agent_ring m = {
		.type = type, .version = UT_AGENT_PROTO_VERSION, .slot = a->reply.slot,
		.token = a->reply.token, .fd = fd, .ino = ino, .setup_flags = DT,
		.hybrid_added = 1, .napi_tried = 1, .napi_ret = 0,
	};
	struct agent_answer none;

	agent_server_handle(&as, p, &m, sizeof(m), &none);
}

/* an IOPOLL ring's HELLO asking for hybrid, and its RING saying how the setup went */
static void hybrid_hello(const struct agent_peer *p, struct agent_answer *ans)
{
	struct ut_agent_hello h = {
		.type = UT_AGENT_HELLO, .version = UT_AGENT_PROTO_VERSION,
		.setup_flags = UT_SETUP_IOPOLL, .hybrid = UT_WANT_ON, .entry = UT_ENTRY_SYSCALL,
	};

	agent_server_handle(&as, p, &h, sizeof(h), ans);
}

static void hybrid_ring_msg(const struct agent_peer *p, const struct agent_answer *a, int fd,
			    uint64_t ino, bool fallback)
{
	struct ut_agent_ring m = {
		.type = UT_AGENT_RING, .version = UT_AGENT_PROTO_VERSION, .slot = a->reply.slot,
		.token = a->reply.token, .fd = fd, .ino = ino, .setup_flags = UT_SETUP_IOPOLL,
		.hybrid_added = !fallback, .hybrid_fallback = fallback,
	};
	struct agent_answer none;

	agent_server_handle(&as, p, &m, sizeof(m), &none);
}

/* ---- tests ---- */

UT_TEST(hello_ring_attach)
{
	struct agent_answer a;
	struct fake_proc *pr;
	struct ut_ring *ring;

	setup();
	pr = fake_spawn(100, 1000, 50, &peers[0]);
	hello(&peers[0], &a);
	UT_ASSERT(a.send && a.with_page);
	UT_ASSERT_EQ_INT(a.reply.status, 0);
	UT_ASSERT(a.reply.token != 0);
	UT_ASSERT_EQ_INT(a.slot, (int)a.reply.slot);
	/* the page holds the token, the owners file who it is for */
	UT_ASSERT_EQ_INT(as.page.pg->slots[a.reply.slot].token, a.reply.token);
	UT_ASSERT_EQ_INT(as.page.own->recs[a.reply.slot].pid, 100);
	ring = ring_created(pr, 0xa0, 5, 777, DT);
	fake_hold_ring(pr, 5, 777);
	ring_msg(&peers[0], UT_AGENT_RING, &a, 5, 777);
	UT_ASSERT(ring->agent.via);
	UT_ASSERT_EQ_INT(ring->agent.slot, a.reply.slot);
	UT_ASSERT_EQ_INT(as.page.own->recs[a.reply.slot].ino, 777);
	UT_ASSERT_EQ_INT(agent_server_slots_used(&as), 1);
	/* the owner's pidfd is let go once the ring is attached */
	UT_ASSERT_EQ_INT(as.info[a.reply.slot].owner.pidfd, -1);
}

UT_TEST(claims_decide_nothing)
{
	struct agent_answer a;
	struct fake_proc *pr;
	struct ut_ring *ring;

	/* the RING claims hybrid added and NAPI registered; BPF saw no register call */
	setup();
	pr = fake_spawn(100, 1000, 50, &peers[0]);
	hello(&peers[0], &a);
	ring = ring_created(pr, 0xa0, 5, 777, DT);
	fake_hold_ring(pr, 5, 777);
	ring_msg(&peers[0], UT_AGENT_RING, &a, 5, 777);
	UT_ASSERT(ring->agent.via);
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_NONE);
	UT_ASSERT(!ring->tune.refused);
	UT_ASSERT_EQ_INT(as.napi_registered + as.hybrid_added, 0);
	UT_ASSERT(as.info[a.reply.slot].reported.napi_tried);
}

/* QUERY said no HYBRID_IOPOLL: the answer does not ask the agent to add it */
UT_TEST(hybrid_absent_not_asked)
{
	struct hybrid_support hs;
	struct agent_answer a;

	setup();
	hybrid_support_init(&hs, 0, UT_SETUP_HYBRID_IOPOLL - 1, "6.18.44");
	as.hybrid = &hs;
	fake_spawn(100, 1000, 50, &peers[0]);
	hybrid_hello(&peers[0], &a);
	UT_ASSERT_EQ_INT(a.reply.status, 0);
	UT_ASSERT_STR_CONTAINS(a.reply.why, "no HYBRID_IOPOLL (REGISTER_QUERY)");
	UT_ASSERT(!as.info[a.reply.slot].hybrid_decided);
	UT_ASSERT(!(as.page.pg->slots[a.reply.slot].flags & UT_SLOT_HYBRID));
	as.hybrid = NULL;
}

/*
 * No QUERY: the agent is asked, and its fallback (EINVAL, and no
 * HYBRID_IOPOLL in the ring's flags as BPF read them) is a "no"; a claimed
 * fallback on a ring whose flags have it is none.
 */
UT_TEST(hybrid_fallback_teaches)
{
	struct hybrid_support hs;
	struct agent_answer a;
	struct fake_proc *pr;

	setup();
	hybrid_support_init(&hs, -EOPNOTSUPP, 0, "6.15.2");
	as.hybrid = &hs;
	pr = fake_spawn(100, 1000, 50, &peers[0]);
	hybrid_hello(&peers[0], &a);
	UT_ASSERT(as.info[a.reply.slot].hybrid_decided);
	ring_created(pr, 0xa0, 5, 777, UT_SETUP_IOPOLL | UT_SETUP_HYBRID_IOPOLL);
	fake_hold_ring(pr, 5, 777);
	hybrid_ring_msg(&peers[0], &a, 5, 777, true);
	UT_ASSERT_EQ_INT(as.hybrid_added, 1);
	UT_ASSERT_EQ_INT(hs.supported, 1);
	UT_ASSERT_EQ_INT(hs.source, HYBRID_SRC_KERNEL_VERSION);

	hybrid_hello(&peers[0], &a);
	ring_created(pr, 0xa1, 6, 778, UT_SETUP_IOPOLL);
	fake_hold_ring(pr, 6, 778);
	hybrid_ring_msg(&peers[0], &a, 6, 778, true);
	UT_ASSERT_EQ_INT(as.hybrid_fallback, 1);
	UT_ASSERT_EQ_INT(hs.supported, 0);
	UT_ASSERT_EQ_INT(hs.source, HYBRID_SRC_AGENT_FALLBACK);
	/* a weak "no": the next ring is still asked to try */
	hybrid_hello(&peers[0], &a);
	UT_ASSERT(as.info[a.reply.slot].hybrid_decided);
	as.hybrid = NULL;
}

UT_TEST(kernel_register_decides)
{
	struct agent_answer a;
	struct ut_event ev = { .type = UT_EV_NAPI_REGISTER, .tgid = 100, .ctx = 0xa0, .opcode = 27 };
	struct fake_proc *pr;
	struct ut_ring *ring;

	setup();
	pr = fake_spawn(100, 1000, 50, &peers[0]);
	hello(&peers[0], &a);
	ring = ring_created(pr, 0xa0, 5, 777, DT);
	fake_hold_ring(pr, 5, 777);
	/* the agent's registration at setup, as BPF shows it */
	ev.napi.enabled = 1;
	ev.napi.busy_poll_ns = (uint64_t)cfg.napi.initial_us * 1000;
	ev.napi.track_mode = UT_TRACK_DYNAMIC;
	UT_ASSERT(lifecycle_on_register(&lc, ring, &ev, agent_server_setup_register(&as, ring, &ev))
		  == false);
	UT_ASSERT(ring->agent.setup_napi_seen);
	ring_msg(&peers[0], UT_AGENT_RING, &a, 5, 777);
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_URINGTUNE);
	UT_ASSERT_EQ_INT(as.napi_registered, 1);

	/* refused by the kernel: the ring is refused, whatever the RING says */
	setup();
	pr = fake_spawn(100, 1000, 50, &peers[0]);
	hello(&peers[0], &a);
	ring = ring_created(pr, 0xa0, 5, 777, DT);
	fake_hold_ring(pr, 5, 777);
	ev.ret = -EINVAL;
	agent_server_setup_register(&as, ring, &ev);
	ring_msg(&peers[0], UT_AGENT_RING, &a, 5, 777);
	UT_ASSERT(ring->tune.refused);
	UT_ASSERT_EQ_INT(as.napi_failed, 1);
}

UT_TEST(pid_reuse_inherits_nothing)
{
	struct agent_answer a;
	struct fake_proc *attacker, *root;
	struct ut_ring *ring;

	setup();
	attacker = fake_spawn(100, 65534, 50, &peers[0]);
	hello(&peers[0], &a);
	attacker->dead = true;
	/* root takes pid 100 in the same clock tick, and holds a ring at fd 5 */
	root = fake_spawn(100, 0, 50, &peers[1]);
	ring = ring_created(root, 0xb0, 5, 900, 0);
	fake_hold_ring(root, 5, 900);
	/* the attacker's queued RING: its sender has exited */
	ring_msg(&peers[0], UT_AGENT_RING, &a, 5, 900);
	UT_ASSERT(!ring->agent.via);
	UT_ASSERT_EQ_INT(as.refusals[AGENT_REFUSED_PEER_GONE], 1);
	/* root itself naming the attacker's slot (it could read the token): not its slot */
	ring_msg(&peers[1], UT_AGENT_RING, &a, 5, 900);
	UT_ASSERT(!ring->agent.via);
	UT_ASSERT_EQ_INT(as.refusals[AGENT_REFUSED_NOT_OWNER], 1);
	ring_msg(&peers[0], UT_AGENT_APP_NAPI, &a, 5, 900);
	UT_ASSERT(!ring->agent.app_napi);
	UT_ASSERT_EQ_INT(as.refusals[AGENT_REFUSED_PEER_GONE], 2);
	/* a process of the same uid in the same tick: pid, start and uid alike, not the owner */
	root->dead = true;
	root = fake_spawn(100, 65534, 50, &peers[2]);
	fake_hold_ring(root, 5, 900);
	ring_msg(&peers[2], UT_AGENT_RING, &a, 5, 900);
	UT_ASSERT(!ring->agent.via);
	UT_ASSERT_EQ_INT(as.refusals[AGENT_REFUSED_NOT_OWNER], 2);
	/* the dead owner's slot goes at the next tick */
	agent_server_tick(&as);
	UT_ASSERT_EQ_INT(agent_server_slots_used(&as), 0);
}

UT_TEST(pending_setup_of_dead_owner)
{
	struct agent_answer a;
	struct ut_event ev = { .type = UT_EV_NAPI_REGISTER, .tgid = 100, .ctx = 0xb0, .opcode = 27 };
	struct fake_proc *attacker, *root;
	struct ut_ring *ring;

	setup();
	attacker = fake_spawn(100, 65534, 50, &peers[0]);
	hello(&peers[0], &a);
	attacker->dead = true;
	root = fake_spawn(100, 0, 50, &peers[1]);
	ring = ring_created(root, 0xb0, 5, 900, DT);
	/* root's own register call is not the dead agent's setup */
	UT_ASSERT(!agent_server_setup_register(&as, ring, &ev));
	UT_ASSERT(!ring->agent.setup_napi_seen);
}

UT_TEST(inode_required_and_checked)
{
	struct agent_answer a;
	struct fake_proc *pr;
	struct ut_ring *ring;

	setup();
	pr = fake_spawn(100, 1000, 50, &peers[0]);
	ring = ring_created(pr, 0xa0, 5, 777, DT);
	fake_hold_ring(pr, 5, 777);
	hello(&peers[0], &a);
	ring_msg(&peers[0], UT_AGENT_RING, &a, 5, 0);
	UT_ASSERT(!ring->agent.via);
	UT_ASSERT_EQ_INT(as.refusals[AGENT_REFUSED_INODE], 1);
	UT_ASSERT_EQ_INT(agent_server_slots_used(&as), 0);
	/* an inode the process does not hold at that fd */
	hello(&peers[0], &a);
	ring_msg(&peers[0], UT_AGENT_RING, &a, 6, 777);
	UT_ASSERT(!ring->agent.via);
	UT_ASSERT_EQ_INT(as.refusals[AGENT_REFUSED_FOREIGN_RING], 1);
}

UT_TEST(foreign_rings_refused)
{
	struct agent_answer a;
	struct fake_proc *root, *child;
	struct ut_ring *ring;

	/* root's ring, its fd inherited by a child that became nobody */
	setup();
	root = fake_spawn(100, 0, 50, &peers[0]);
	child = fake_spawn(101, 65534, 60, &peers[1]);
	ring = ring_created(root, 0xa0, 5, 777, 0);
	fake_hold_ring(root, 5, 777);
	fake_hold_ring(child, 5, 777);
	hello(&peers[1], &a);
	ring_msg(&peers[1], UT_AGENT_RING, &a, 5, 777);
	UT_ASSERT(!ring->agent.via);
	UT_ASSERT_EQ_INT(as.refusals[AGENT_REFUSED_FOREIGN_RING], 1);

	/* the process's own ring, but it became another uid since its HELLO */
	setup();
	child = fake_spawn(101, 65534, 60, &peers[1]);
	ring = ring_created(child, 0xa0, 5, 777, 0);
	fake_hold_ring(child, 5, 777);
	hello(&peers[1], &a);
	child->euid = 1000;
	ring_msg(&peers[1], UT_AGENT_RING, &a, 5, 777);
	UT_ASSERT(!ring->agent.via);
	UT_ASSERT_EQ_INT(as.refusals[AGENT_REFUSED_FOREIGN_RING], 1);
}

UT_TEST(one_slot_per_ring)
{
	struct agent_answer a;
	struct fake_proc *pr;
	struct ut_ring *ring;

	setup();
	pr = fake_spawn(100, 65534, 50, &peers[0]);
	ring = ring_created(pr, 0xa0, 5, 777, DT);
	fake_hold_ring(pr, 5, 777);
	for (int i = 0; i < 1024; i++) {
		hello(&peers[0], &a);
		UT_ASSERT_EQ_INT(a.reply.status, 0);
		ring_msg(&peers[0], UT_AGENT_RING, &a, 5, 777);
	}
	UT_ASSERT_EQ_INT(agent_server_slots_used(&as), 1);
	UT_ASSERT_EQ_INT(as.slots_replaced, 1023);
	UT_ASSERT_EQ_INT(ring->agent.slot, a.reply.slot);
	/* the ring goes: its slot with it */
	agent_server_ring_gone(&as, ring);
	UT_ASSERT_EQ_INT(agent_server_slots_used(&as), 0);
}

UT_TEST(quotas)
{
	struct agent_answer a;
	struct fake_proc *pr;
	unsigned int ok = 0;

	setup();
	fake_spawn(100, 65534, 50, &peers[0]);
	for (int i = 0; i < 20; i++) {
		hello(&peers[0], &a);
		ok += a.reply.status == 0;
	}
	UT_ASSERT_EQ_INT(ok, AGENT_PENDING_PER_UID);
	UT_ASSERT_EQ_INT(a.reply.status, -EDQUOT);
	UT_ASSERT_STR_CONTAINS(a.reply.why, "ring setups under way");
	UT_ASSERT_EQ_INT(as.refusals[AGENT_REFUSED_QUOTA_PENDING], 20 - AGENT_PENDING_PER_UID);
	/* another uid is not held back */
	fake_spawn(200, 1000, 50, &peers[1]);
	hello(&peers[1], &a);
	UT_ASSERT_EQ_INT(a.reply.status, 0);

	/* slots_per_uid: attached rings count */
	setup();
	cfg.agent.slots_per_uid = 3;
	pr = fake_spawn(100, 65534, 50, &peers[0]);
	for (int i = 0; i < 5; i++) {
		hello(&peers[0], &a);
		if (a.reply.status)
			break;
		ring_created(pr, 0xa0 + i, 5 + i, 700 + i, DT);
		fake_hold_ring(pr, 5 + i, 700 + i);
		ring_msg(&peers[0], UT_AGENT_RING, &a, 5 + i, 700 + i);
	}
	UT_ASSERT_EQ_INT(a.reply.status, -EDQUOT);
	UT_ASSERT_STR_CONTAINS(a.reply.why, "slots_per_uid");
	UT_ASSERT_EQ_INT(agent_server_slots_used(&as), 3);
	UT_ASSERT_EQ_INT(as.refusals[AGENT_REFUSED_QUOTA_SLOTS], 1);
}

UT_TEST(app_napi_only_from_the_owner)
{
	struct agent_answer a;
	struct fake_proc *pr;
	struct ut_ring *ring;

	setup();
	pr = fake_spawn(100, 1000, 50, &peers[0]);
	fake_spawn(101, 1000, 50, &peers[1]);
	ring = ring_created(pr, 0xa0, 5, 777, DT);
	fake_hold_ring(pr, 5, 777);
	hello(&peers[0], &a);
	ring_msg(&peers[0], UT_AGENT_RING, &a, 5, 777);
	/* another process of the same uid, with the token */
	ring_msg(&peers[1], UT_AGENT_APP_NAPI, &a, 5, 777);
	UT_ASSERT(!ring->agent.app_napi);
	UT_ASSERT_EQ_INT(as.refusals[AGENT_REFUSED_NOT_OWNER], 1);
	/* the owner, naming another ring than its slot's */
	ring_msg(&peers[0], UT_AGENT_APP_NAPI, &a, 5, 778);
	UT_ASSERT(!ring->agent.app_napi);
	ring_msg(&peers[0], UT_AGENT_APP_NAPI, &a, 5, 777);
	UT_ASSERT(ring->agent.app_napi);
	UT_ASSERT(!(as.page.pg->slots[a.reply.slot].flags & UT_SLOT_NAPI));
	/* managed_by is the kernel's to decide (the program's register call) */
	UT_ASSERT(ring->tune.managed_by != UT_MANAGED_APP);
	UT_ASSERT_EQ_INT(as.app_took_over, 1);
}

/* the program's own register call seen before its APP_NAPI, or after it */
UT_TEST(app_napi_and_register_in_either_order)
{
	struct ut_event ev = { .type = UT_EV_NAPI_REGISTER, .tgid = 100, .ctx = 0xa0, .opcode = 27 };
	struct agent_answer a;
	struct fake_proc *pr;
	struct ut_ring *ring;

	for (int order = 0; order < 2; order++) {
		setup();
		pr = fake_spawn(100, 1000, 50, &peers[0]);
		hello(&peers[0], &a);
		ring = ring_created(pr, 0xa0, 5, 777, DT);
		fake_hold_ring(pr, 5, 777);
		ev.ret = 0;
		ev.napi.enabled = 1;
		ev.napi.busy_poll_ns = (uint64_t)cfg.napi.initial_us * 1000;
		ev.napi.track_mode = UT_TRACK_DYNAMIC;
		lifecycle_on_register(&lc, ring, &ev, agent_server_setup_register(&as, ring, &ev));
		ring_msg(&peers[0], UT_AGENT_RING, &a, 5, 777);
		UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_URINGTUNE);
		/* the program registers the very state uringtune decided, itself */
		if (order == 0) {
			UT_ASSERT(!lifecycle_on_register(&lc, ring, &ev, false));
			UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_URINGTUNE);
			ring_msg(&peers[0], UT_AGENT_APP_NAPI, &a, 5, 777);
		} else {
			ring_msg(&peers[0], UT_AGENT_APP_NAPI, &a, 5, 777);
			UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_URINGTUNE);
			UT_ASSERT(lifecycle_on_register(&lc, ring, &ev, false));
		}
		UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_APP);
	}
	/* an APP_NAPI alone (no register call of the program's): nothing changes hands */
	setup();
	pr = fake_spawn(100, 1000, 50, &peers[0]);
	hello(&peers[0], &a);
	ring = ring_created(pr, 0xa0, 5, 777, DT);
	fake_hold_ring(pr, 5, 777);
	lifecycle_on_register(&lc, ring, &ev, agent_server_setup_register(&as, ring, &ev));
	ring_msg(&peers[0], UT_AGENT_RING, &a, 5, 777);
	ring_msg(&peers[0], UT_AGENT_APP_NAPI, &a, 5, 777);
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_URINGTUNE);
}

/* the agent's setup call, then the program's own, both seen before the RING is read */
UT_TEST(program_call_during_setup)
{
	struct ut_event ev = { .type = UT_EV_NAPI_REGISTER, .tgid = 100, .ctx = 0xa0, .opcode = 27 };
	struct agent_answer a;
	struct fake_proc *pr;
	struct ut_ring *ring;

	setup();
	pr = fake_spawn(100, 1000, 50, &peers[0]);
	hello(&peers[0], &a);
	ring = ring_created(pr, 0xa0, 5, 777, DT);
	fake_hold_ring(pr, 5, 777);
	ev.napi.enabled = 1;
	ev.napi.busy_poll_ns = (uint64_t)cfg.napi.initial_us * 1000;
	ev.napi.track_mode = UT_TRACK_DYNAMIC;
	UT_ASSERT(!lifecycle_on_register(&lc, ring, &ev, agent_server_setup_register(&as, ring, &ev)));
	ev.napi.busy_poll_ns = 20000;
	UT_ASSERT(!agent_server_setup_register(&as, ring, &ev));
	UT_ASSERT(lifecycle_on_register(&lc, ring, &ev, false));
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_APP);
	ring_msg(&peers[0], UT_AGENT_RING, &a, 5, 777);
	UT_ASSERT(ring->agent.via);
	UT_ASSERT(ring->agent.setup_napi_seen);
	UT_ASSERT_EQ_INT(ring->tune.managed_by, UT_MANAGED_APP);
}

UT_TEST(malformed_and_ping)
{
	struct agent_answer a;
	struct ut_agent_hello h = { .type = UT_AGENT_PING, .version = UT_AGENT_PROTO_VERSION };
	char junk[300] = { 3, 0, 0, 0 };

	setup();
	fake_spawn(100, 1000, 50, &peers[0]);
	agent_server_handle(&as, &peers[0], junk, sizeof(junk), &a);
	UT_ASSERT(!a.send);
	agent_server_handle(&as, &peers[0], junk, 2, &a);
	UT_ASSERT(!a.send);
	h.version = 1;
	agent_server_handle(&as, &peers[0], &h, sizeof(h), &a);
	UT_ASSERT(!a.send);
	UT_ASSERT_EQ_INT(as.refusals[AGENT_REFUSED_BAD_MESSAGE], 3);
	h.version = UT_AGENT_PROTO_VERSION;
	agent_server_handle(&as, &peers[0], &h, sizeof(h), &a);
	UT_ASSERT(a.send && !a.with_page);
	UT_ASSERT_STR_CONTAINS(a.reply.why, "tune mode");
	UT_ASSERT_EQ_INT(agent_server_slots_used(&as), 0);
}

UT_TEST(unanswered_hello_frees_its_slot)
{
	struct agent_answer a;

	setup();
	fake_spawn(100, 1000, 50, &peers[0]);
	hello(&peers[0], &a);
	UT_ASSERT_EQ_INT(agent_server_slots_used(&as), 1);
	agent_server_unanswered(&as, &a);
	UT_ASSERT_EQ_INT(agent_server_slots_used(&as), 0);
	UT_ASSERT_EQ_INT(as.page.pg->slots[a.reply.slot].token, 0);
	UT_ASSERT_EQ_INT(as.page.own->recs[a.reply.slot].token, 0);
}

/* ---- the connections (agent_conn.c) on a real socket, their deadlines on a fake clock ---- */

static uint64_t fake_us;

static uint64_t fake_clock_us(void *arg)
{
	(void)arg;
	return fake_us;
}

static void no_drain(void *arg)
{
	(void)arg;
}

/* dispatch whatever is ready, without waiting (a timer that keeps firing: a failure, not a hang) */
static void run_ready(sd_event *ev)
{
	int n = 0;

	while (sd_event_run(ev, 0) > 0 && ++n < 1000)
		;
	UT_ASSERT(n < 1000);
}

/* a PING's answer on @fd, there already: its status */
static int ping_answer(int fd)
{
	struct ut_agent_reply r;
	unsigned int nfds;
	int page_fd, ret;

	ret = agent_wire_recv_reply(fd, &r, &page_fd, &nfds);
	if (page_fd >= 0)
		close(page_fd);
	return ret;
}

/* has the daemon closed @fd (end of file, nothing else)? */
static bool closed_by_daemon(int fd)
{
	char b;

	return recv(fd, &b, 1, MSG_DONTWAIT) == 0;
}

/*
 * A stalled peer is closed at exactly its deadline, not a microsecond
 * before, by the clock the module is given; the sd-event timer, fired on
 * the wall clock, only wakes that decision up. Polite connections around
 * it are answered throughout.
 */
UT_TEST(stalled_conn_closed_at_its_deadline)
{
	const struct ut_agent_hello ping = {
		.type = UT_AGENT_PING, .version = UT_AGENT_PROTO_VERSION,
	};
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const uint64_t t0 = 9000000000ULL, budget = UT_AGENT_REPLY_TIMEOUT_MS * 1000ULL;
	int lfd, silent, late, polite, second;
	sd_event *ev;

	setup();
	snprintf(cfg.agent.socket_path, sizeof(cfg.agent.socket_path), "%s/agent.sock", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", cfg.agent.socket_path);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	UT_ASSERT(lfd >= 0);
	UT_ASSERT_EQ_INT(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	UT_ASSERT_EQ_INT(listen(lfd, 16), 0);
	as.listen_fd = lfd;
	UT_ASSERT(sd_event_new(&ev) >= 0);
	UT_ASSERT_EQ_INT(agent_conn_start(&as, ev, no_drain, NULL), 0);
	agent_conn_set_clock(&as, fake_clock_us, NULL);

	/* at t0: one that never speaks, one that speaks late */
	fake_us = t0;
	silent = agent_wire_connect(cfg.agent.socket_path);
	late = agent_wire_connect(cfg.agent.socket_path);
	UT_ASSERT(silent >= 0 && late >= 0);
	run_ready(ev);
	UT_ASSERT_EQ_INT(agent_conn_waiting(&as), 2);

	/*
	 * The timers fire on the wall clock (after >= 250 ms here, 10 ms
	 * accuracy), but they read the module's clock: 100 ms in, 150 ms
	 * left, set again for that, nobody closed
	 */
	fake_us = t0 + 100000;
	usleep((UT_AGENT_REPLY_TIMEOUT_MS + 50) * 1000);
	run_ready(ev);
	UT_ASSERT_EQ_INT(agent_conn_waiting(&as), 2);
	UT_ASSERT_EQ_INT(as.refusals[AGENT_REFUSED_TIMEOUT], 0);

	/* the late one speaks within its budget: answered; a new one at once, too */
	UT_ASSERT_EQ_INT(agent_wire_send(late, &ping, sizeof(ping)), 0);
	polite = agent_wire_connect(cfg.agent.socket_path);
	UT_ASSERT(polite >= 0);
	UT_ASSERT_EQ_INT(agent_wire_send(polite, &ping, sizeof(ping)), 0);
	run_ready(ev);
	UT_ASSERT_EQ_INT(ping_answer(late), 0);
	UT_ASSERT_EQ_INT(ping_answer(polite), 0);
	UT_ASSERT_EQ_INT(agent_conn_waiting(&as), 1);
	/* another one waits from 100 ms in: its own budget, not the first's */
	second = agent_wire_connect(cfg.agent.socket_path);
	UT_ASSERT(second >= 0);
	run_ready(ev);
	UT_ASSERT_EQ_INT(agent_conn_waiting(&as), 2);

	/*
	 * 1 us before the deadline: nobody closed. (The loop is not run at
	 * this instant: a timer set 1 us ahead of a clock that never moves
	 * would fire for ever.)
	 */
	fake_us = t0 + budget - 1;
	UT_ASSERT_EQ_INT(agent_conn_expire(&as), 0);
	UT_ASSERT_EQ_INT(agent_conn_waiting(&as), 2);
	UT_ASSERT(!closed_by_daemon(silent));

	/* at the deadline exactly: the silent one is closed, counted, the other kept */
	fake_us = t0 + budget;
	UT_ASSERT_EQ_INT(agent_conn_expire(&as), 1);
	UT_ASSERT_EQ_INT(agent_conn_waiting(&as), 1);
	UT_ASSERT_EQ_INT(as.refusals[AGENT_REFUSED_TIMEOUT], 1);
	UT_ASSERT(closed_by_daemon(silent));
	UT_ASSERT(!closed_by_daemon(second));
	/* and still served after it */
	UT_ASSERT_EQ_INT(agent_wire_send(second, &ping, sizeof(ping)), 0);
	run_ready(ev);
	UT_ASSERT_EQ_INT(ping_answer(second), 0);
	UT_ASSERT_EQ_INT(agent_conn_waiting(&as), 0);

	/* one more waits from t0 + budget: kept 1 us before its deadline, closed at it */
	close(second);
	second = agent_wire_connect(cfg.agent.socket_path);
	run_ready(ev);
	fake_us = t0 + 2 * budget - 1;
	UT_ASSERT_EQ_INT(agent_conn_expire(&as), 0);
	fake_us = t0 + 2 * budget;
	UT_ASSERT_EQ_INT(agent_conn_expire(&as), 1);
	UT_ASSERT(closed_by_daemon(second));
	UT_ASSERT_EQ_INT(as.refusals[AGENT_REFUSED_TIMEOUT], 2);

	close(silent);
	close(late);
	close(polite);
	close(second);
	agent_server_close(&as);
	sd_event_unref(ev);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	ut_run("hello_ring_attach", hello_ring_attach);
	ut_run("claims_decide_nothing", claims_decide_nothing);
	ut_run("hybrid_absent_not_asked", hybrid_absent_not_asked);
	ut_run("hybrid_fallback_teaches", hybrid_fallback_teaches);
	ut_run("kernel_register_decides", kernel_register_decides);
	ut_run("pid_reuse_inherits_nothing", pid_reuse_inherits_nothing);
	ut_run("pending_setup_of_dead_owner", pending_setup_of_dead_owner);
	ut_run("inode_required_and_checked", inode_required_and_checked);
	ut_run("foreign_rings_refused", foreign_rings_refused);
	ut_run("one_slot_per_ring", one_slot_per_ring);
	ut_run("quotas", quotas);
	ut_run("app_napi_only_from_the_owner", app_napi_only_from_the_owner);
	ut_run("app_napi_and_register_in_either_order", app_napi_and_register_in_either_order);
	ut_run("program_call_during_setup", program_call_during_setup);
	ut_run("malformed_and_ping", malformed_and_ping);
	ut_run("unanswered_hello_frees_its_slot", unanswered_hello_frees_its_slot);
	ut_run("stalled_conn_closed_at_its_deadline", stalled_conn_closed_at_its_deadline);
	if (as.info)
		agent_server_close(&as);
	lifecycle_fini(&lc);
	registry_free(&reg);
	return ut_finish();
}
