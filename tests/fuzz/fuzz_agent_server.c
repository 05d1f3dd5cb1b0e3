// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent server's message sequences through its seam,
 * agent_server_handle(): four peers of a fake kernel (root, two users, and
 * one whose process has exited) send what the input says, with the server's
 * tick and an unsent answer between messages when it says so. Each peer's
 * process holds one ring the registry knows.
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
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent_server.h"
#include "agent_server_priv.h"
#include "config.h"
#include "fuzz.h"
#include "lifecycle.h"
#include "registry.h"
#include "uring_abi.h"

#define NPEERS		4
#define HZ		100
#define TICK_NS		10000000ULL
#define DT		(UT_SETUP_SINGLE_ISSUER | UT_SETUP_DEFER_TASKRUN)
#define MAX_RECORDS	64

struct fproc {
	int fd;			/* a memfd standing for the process: its inode is it */
	ino_t key;
	pid_t pid;
	uid_t uid;
	uint64_t start;
	bool dead;
	int ring_fd;
	uint64_t ring_ino;
	uint64_t ctx;
};

static struct fproc procs[NPEERS];
static struct agent_peer peers[NPEERS];
static uint64_t next_token = 0x1000;
static uint64_t clock_ns = 5000000000ULL;

static struct fproc *proc_of_fd(int fd)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		return NULL;
	for (unsigned int i = 0; i < NPEERS; i++)
		if (procs[i].key == st.st_ino)
			return &procs[i];
	return NULL;
}

static bool f_alive(const struct agent_peer *p)
{
	struct fproc *pr = proc_of_fd(p->pidfd);

	return pr && !pr->dead;
}

static int f_euid(pid_t pid, uid_t *uid)
{
	for (unsigned int i = 0; i < NPEERS; i++)
		if (procs[i].pid == pid && !procs[i].dead) {
			*uid = procs[i].uid;
			return 0;
		}
	return -ESRCH;
}

static int f_holds(const struct agent_peer *p, int fd, uint64_t ino)
{
	struct fproc *pr = proc_of_fd(p->pidfd);

	if (!pr || pr->dead)
		return -ESRCH;
	return pr->ring_fd == fd && pr->ring_ino == ino ? 0 : -ESTALE;
}

static int f_dup(const struct agent_peer *p)
{
	return fcntl(p->pidfd, F_DUPFD_CLOEXEC, 3);
}

static void f_comm(pid_t pid, char *comm, size_t len)
{
	snprintf(comm, len, "app%d", pid);
}

static uint64_t f_token(void)
{
	return next_token++;
}

static const struct agent_sys fake_sys = {
	.alive = f_alive, .euid = f_euid, .holds = f_holds, .dup_pidfd = f_dup,
	.comm = f_comm, .token = f_token,
};

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
	struct fproc *pr = &procs[i];
	struct ut_event ev;
	struct stat st;

	pr->fd = memfd_create("proc", MFD_CLOEXEC);
	FUZZ_CHECK(pr->fd >= 0 && !fstat(pr->fd, &st));
	*pr = (struct fproc){ .fd = pr->fd, .key = st.st_ino, .pid = pid, .uid = uid,
			      .start = 50 + i, .dead = dead, .ring_fd = 5,
			      .ring_ino = 700 + i, .ctx = 0xa000 + 0x100 * i };
	peers[i] = (struct agent_peer){
		.id = { .pid = pid, .uid = uid, .start_ticks = pr->start },
		.pidfd = fcntl(pr->fd, F_DUPFD_CLOEXEC, 3),
		.exact = true,
	};
	ev = (struct ut_event){
		.type = UT_EV_RING_CREATE, .tgid = pid, .fd = pr->ring_fd, .ctx = pr->ctx,
		.start_boottime = pr->start * TICK_NS + 1234, .ino = pr->ring_ino,
		.setup_flags = DT,
	};
	FUZZ_CHECK(registry_on_create(&reg, &ev, pr->ring_ino) != NULL);
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
	as.sys = &fake_sys;
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
	for (unsigned int i = 0; i < NPEERS; i++) {
		agent_peer_close(&peers[i]);
		close(procs[i].fd);
	}
}

static void check(void)
{
	uint32_t slot_of[NPEERS];
	unsigned int slots, pending;
	struct ut_ring *ring;
	size_t i;

	for (unsigned int p = 0; p < NPEERS; p++) {
		agent_server_slots_of(&as, procs[p].uid, &slots, &pending);
		FUZZ_CHECK(slots <= cfg.agent.slots_per_uid);
	}
	memset(slot_of, 0xff, sizeof(slot_of));
	registry_for_each(&reg, i, ring) {
		unsigned int p = (ring->ctx - 0xa000) / 0x100;

		FUZZ_CHECK(p < NPEERS);
		if (!ring->agent.via)
			continue;
		/* only its own live process attaches a ring */
		FUZZ_CHECK(!procs[p].dead);
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
		.fd = procs[p].ring_fd, .ino = procs[p].ring_ino, .setup_flags = DT,
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
