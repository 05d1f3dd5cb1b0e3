// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent server's message sequences through its seam,
 * agent_server_handle(): four peers of a fake kernel (root, two users, and
 * one whose process has exited; tests/unit/fake_kernel.h) send what the
 * input says, with the server's tick and an unsent answer between messages
 * when it says so. Each peer's process holds one ring the registry knows.
 *
 * An input is records: [control][length][length bytes of message]. The
 * control byte's low 2 bits pick the peer; bit 2: the answer was not sent;
 * bit 3: a tick after the message; bit 4: the message is a HELLO template
 * with the record's bytes over its fields; bit 5: a RING template naming
 * the peer's own ring and its last slot and token, the same way.
 *
 * What must hold besides no crash and no leak:
 *   - one slot per ring: no two rings attached through one slot;
 *   - no user holds more slots than [agent] slots_per_uid;
 *   - a ring attached through an agent is attached by its own process:
 *     the slot's ring is one of the sender's uid's rings;
 *   - the agent's rings are never journaled (the page is their record).
 */
#include <stdbool.h>
#include <string.h>

#include "agent_server.h"
#include "agent_server_priv.h"
#include "config.h"
#include "fake_kernel.h"
#include "fuzz.h"
#include "lifecycle.h"
#include "registry.h"
#include "uring_abi.h"

#define NPEERS		4
#define HZ		100
#define TICK_NS		10000000ULL
#define DT		(UT_SETUP_SINGLE_ISSUER | UT_SETUP_DEFER_TASKRUN)
#define MAX_RECORDS	64

/* peer i's process holds one ring: fd 5, inode 700 + i, context 0xa000 + 0x100 * i */
#define RING_FD		5
#define RING_INO(i)	(700 + (i))
#define RING_CTX(i)	(0xa000 + 0x100 * (i))

static struct fake_proc *procs[NPEERS];
static struct agent_peer peers[NPEERS];
static uint64_t clock_ns = 5000000000ULL;

static struct ut_config cfg;
static struct ut_registry reg;
static struct lifecycle lc;
static struct ut_agent_server as;

static uint64_t fake_now(void)
{
	return clock_ns;
}

static bool fake_selects(void *arg, pid_t pid, const char *comm, const char **why)
{
	(void)arg, (void)pid, (void)comm, (void)why;
	return true;
}

static void spawn(unsigned int i, pid_t pid, uid_t uid, bool dead)
{
	struct fake_proc *pr = fake_spawn(pid, uid, 50 + i, &peers[i]);
	struct ut_event ev = {
		.type = UT_EV_RING_CREATE, .tgid = pid, .fd = RING_FD, .ctx = RING_CTX(i),
		.start_boottime = pr->start * TICK_NS + 1234, .ino = RING_INO(i),
		.setup_flags = DT,
	};

	pr->dead = dead;
	fake_hold_ring(pr, RING_FD, RING_INO(i));
	procs[i] = pr;
	FUZZ_CHECK(registry_on_create(&reg, &ev, RING_INO(i)) != NULL);
}

static void setup(void)
{
	const struct lifecycle_env env = { .now = fake_now, .selects = fake_selects };
	char err[256];

	config_defaults(&cfg);
	cfg.mode = UT_MODE_TUNE;
	cfg.agent.slots_per_uid = 4;
	snprintf(cfg.state_dir, sizeof(cfg.state_dir), "%s/state", fuzz_tmpdir());
	memset(&lc, 0, sizeof(lc));
	FUZZ_CHECK(!registry_init(&reg));
	lc.napi_supported = true;
	FUZZ_CHECK(!lifecycle_init(&lc, &reg, &cfg, &env, err, sizeof(err)));
	lc.ready = true;
	agent_server_init(&as, &reg, &lc, &cfg);
	as.sys = &fake_kernel_sys;
	as.hz = HZ;
	FUZZ_CHECK(!agent_server_open_mem(&as));
	agent_server_backend(&as, &lc.agent);
	spawn(0, 100, 0, false);
	spawn(1, 200, 1000, false);
	spawn(2, 300, 1001, false);
	spawn(3, 400, 1000, true);
}

static void teardown(void)
{
	agent_server_close(&as);
	lifecycle_fini(&lc);
	registry_free(&reg);
	for (unsigned int i = 0; i < NPEERS; i++)
		agent_peer_close(&peers[i]);
	fake_kernel_reset();
}

static void check(void)
{
	uint32_t slot_of[NPEERS];
	unsigned int slots, pending;
	struct ut_ring *ring;
	size_t i;

	for (unsigned int p = 0; p < NPEERS; p++) {
		agent_server_slots_of(&as, procs[p]->euid, &slots, &pending);
		FUZZ_CHECK(slots <= cfg.agent.slots_per_uid);
	}
	memset(slot_of, 0xff, sizeof(slot_of));
	registry_for_each(&reg, i, ring) {
		unsigned int p = (ring->ctx - RING_CTX(0)) / 0x100;

		FUZZ_CHECK(p < NPEERS);
		if (!ring->agent.via)
			continue;
		/* only its own live process attaches a ring */
		FUZZ_CHECK(!procs[p]->dead);
		slot_of[p] = ring->agent.slot;
		for (unsigned int q = 0; q < p; q++)
			FUZZ_CHECK(slot_of[q] != slot_of[p]);
	}
	FUZZ_CHECK(lc.journal.n == 0);
}

static size_t message(const uint8_t *rec, size_t len, uint8_t ctl, unsigned int p,
		      const struct agent_answer *last, uint8_t *out, size_t cap)
{
	struct ut_agent_hello h = {
		.type = UT_AGENT_HELLO, .version = UT_AGENT_PROTO_VERSION, .setup_flags = DT,
		.napi = UT_WANT_ON, .entry = UT_ENTRY_LIBURING,
	};
	struct ut_agent_ring r = {
		.type = UT_AGENT_RING, .version = UT_AGENT_PROTO_VERSION,
		.slot = last->reply.slot, .token = last->reply.token,
		.fd = RING_FD, .ino = RING_INO(p), .setup_flags = DT,
	};
	size_t n;

	if (ctl & 0x10) {
		n = sizeof(h);
		memcpy(out, &h, n);
	} else if (ctl & 0x20) {
		n = sizeof(r);
		memcpy(out, &r, n);
	} else {
		n = 0;
	}
	/* the record's bytes over the template (past type and version), or alone */
	if (n) {
		size_t skip = 8, k = len < n - skip ? len : n - skip;

		memcpy(out + skip, rec, k);
		return n;
	}
	n = len < cap ? len : cap;
	memcpy(out, rec, n);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agent_answer last[NPEERS], ans;
	uint8_t msg[512];
	size_t off = 0;

	memset(last, 0, sizeof(last));
	setup();
	for (int n = 0; n < MAX_RECORDS && off + 2 <= size; n++) {
		uint8_t ctl = data[off], len = data[off + 1];
		unsigned int p = ctl & 3;
		size_t have = size - off - 2 < len ? size - off - 2 : len, mlen;

		mlen = message(data + off + 2, have, ctl, p, &last[p], msg, sizeof(msg));
		off += 2 + have;
		memset(&ans, 0, sizeof(ans));
		ans.slot = -1;
		agent_server_handle(&as, &peers[p], msg, mlen, &ans);
		if (ctl & 4)
			agent_server_unanswered(&as, &ans);
		else if (ans.send)
			last[p] = ans;
		if (ctl & 8) {
			clock_ns += 1000000000ULL;
			agent_server_tick(&as);
		}
		check();
	}
	teardown();
	return 0;
}
