// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rings set up through an agent: their slots in the policy page, how a
 * slot meets its ring, the "agent" tune backend, and settling the slots a
 * previous run left. Tuning state is the lifecycle's: this file reports to it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "abi_names.h"
#include "agent_server.h"
#include "agent_server_priv.h"
#include "clock.h"
#include "io_util.h"
#include "iopoll_advice.h"
#include "log.h"
#include "setup_flags.h"
#include "uring_abi.h"

void agent_server_init(struct ut_agent_server *a, struct ut_registry *reg, struct lifecycle *lc,
		       const struct ut_config *cfg)
{
	memset(a, 0, sizeof(*a));
	a->reg = reg;
	a->lc = lc;
	a->cfg = cfg;
	a->listen_fd = -1;
	a->page.ro_fd = -1;
}

bool as_have_page(const struct ut_agent_server *a)
{
	return a->page.pg != NULL;
}

void as_free_slot(struct ut_agent_server *a, uint32_t slot)
{
	agent_slot_free(a->page.pg, slot);
	memset(&a->info[slot], 0, sizeof(a->info[slot]));
}

/* the slot a ring set up through its agent holds, NULL if none (any more) */
static struct agent_slot_info *ring_info(const struct ut_agent_server *a,
					 const struct ut_ring *ring)
{
	if (!ring->agent.via || !as_have_page(a) || ring->agent.slot >= UT_AGENT_PAGE_SLOTS ||
	    a->info[ring->agent.slot].ctx != ring->ctx)
		return NULL;
	return &a->info[ring->agent.slot];
}

const struct agent_slot_info *agent_server_info(const struct ut_agent_server *a,
						const struct ut_ring *ring)
{
	return ring_info(a, ring);
}

void agent_server_open(struct ut_agent_server *a)
{
	const struct ut_agent_cfg *cfg = &a->cfg->agent;
	char err[PATH_MAX + 80];
	int ret;

	if (!cfg->enabled)
		return;
	a->info = calloc(UT_AGENT_PAGE_SLOTS, sizeof(*a->info));
	if (!a->info) {
		log_err("out of memory for the agent's slots: agents get no answer");
		return;
	}
	ret = agent_page_open(&a->page, cfg->page_path, a->lc->self_pid, err, sizeof(err));
	if (ret) {
		/* agents still get an answer: "no", with this reason */
		snprintf(a->page_error, sizeof(a->page_error), "%s", err);
		log_warn("%s: programs started with uringtune exec run unchanged", err);
	} else if (a->page.reused) {
		log_info("agent page %s: taken over from a previous run", a->page.path);
	}
	/*
	 * 0666: any program may opt in. Nothing a peer says is trusted: its
	 * pid comes from SO_PEERCRED, its slot is checked against that pid.
	 */
	a->listen_fd = unix_listen("agent socket", cfg->socket_path, SOCK_SEQPACKET, 0666, 64,
				   err, sizeof(err));
	if (a->listen_fd < 0)
		log_warn("%s: the in-process agent gets no answer", err);
	else
		log_info("agent socket %s: answering liburingtune-agent.so", cfg->socket_path);
}

void agent_server_close(struct ut_agent_server *a)
{
	if (a->listen_fd >= 0) {
		close(a->listen_fd);
		unlink(a->cfg->agent.socket_path);
		a->listen_fd = -1;
	}
	agent_page_close(&a->page);
	free(a->info);
	a->info = NULL;
}

struct ut_ring *as_find_holder(struct ut_agent_server *a, pid_t pid, int fd, uint64_t ino)
{
	struct ut_ring *ring = registry_find_holder(a->reg, pid, fd);

	if (ring && ino && ring->obs.holder.ino && ring->obs.holder.ino != ino)
		return NULL;
	return ring;
}

void as_attach(struct ut_agent_server *a, struct ut_ring *ring, uint32_t slot)
{
	struct agent_slot_info *in = &a->info[slot];
	struct agent_setup_result r = {
		.hybrid_added = in->hybrid_added,
		.napi_tried = in->napi_tried,
		.napi_ret = in->napi_ret,
		.napi_setting = in->napi_setting,
	};
	char flags[160];

	in->ctx = ring->ctx;
	ring->agent.via = true;
	ring->agent.slot = slot;
	lifecycle_agent_attached(a->lc, ring, &r);
	log_ring(LOG_INFO, ring, "set up through the agent (%s, %s): %s",
		 agent_entry_name(in->entry),
		 setup_flags_str(ring->obs.setup_flags, flags, sizeof(flags)),
		 in->hybrid_fallback ? "hybrid refused by the kernel (EINVAL): classic IOPOLL" :
		 in->napi_tried && in->napi_ret ? ring->tune.error : in->why);
}

void as_forget_napi(struct ut_agent_server *a, uint32_t slot)
{
	a->app_took_over++;
	agent_slot_set_flags(a->page.pg, slot, a->page.pg->slots[slot].flags & ~UT_SLOT_NAPI);
	a->info[slot].napi_decided = false;
}

void agent_server_app_took_over(struct ut_agent_server *a, struct ut_ring *ring)
{
	struct agent_slot_info *in = ring_info(a, ring);

	if (in && in->napi_decided)
		as_forget_napi(a, ring->agent.slot);
}

static bool pid_alive(pid_t pid)
{
	char path[32];

	snprintf(path, sizeof(path), "/proc/%d", pid);
	return access(path, F_OK) == 0;
}

void agent_server_tick(struct ut_agent_server *a)
{
	uint64_t now = now_ns();
	struct ut_ring *ring;

	if (!as_have_page(a))
		return;
	for (uint32_t s = 0; s < UT_AGENT_PAGE_SLOTS; s++) {
		struct agent_slot_info *in = &a->info[s];
		const struct ut_agent_slot *sl = &a->page.pg->slots[s];

		if (!in->hello_ns || in->ctx)
			continue;
		if (!in->announced) {
			if (now - in->hello_ns > HELLO_ABANDON_NS || !pid_alive(sl->pid))
				as_free_slot(a, s);
			continue;
		}
		ring = as_find_holder(a, sl->pid, sl->fd, sl->ino);
		if (ring)
			as_attach(a, ring, s);
		else if (now - in->hello_ns > ANNOUNCE_GRACE_NS)
			as_free_slot(a, s);
	}
}

/* the IOPOLL advisor on one ring: 1 hybrid, 0 classic, -1 too few completions to say */
static int ring_advice(const struct ut_ring *ring)
{
	struct iopoll_summary sum;
	struct iopoll_advice adv;

	if (!(ring->obs.setup_flags & UT_SETUP_IOPOLL) || !ring->obs.have_iop)
		return -1;
	iopoll_summarize(&ring->obs.iop, &sum);
	if (sum.completions < IOPOLL_ADVICE_MIN_COMPLETIONS)
		return -1;
	iopoll_advise(&sum, ring->obs.setup_flags & UT_SETUP_HYBRID_IOPOLL,
		      ring->obs.iop.hybrid_poll_time_ns, &adv);
	return adv.recommend;
}

int as_advised(const struct ut_agent_server *a, const char *comm)
{
	struct ut_ring *ring;
	size_t i;
	int v;

	registry_for_each(a->reg, i, ring)
		if (!strncmp(ring->obs.holder.comm, comm, UT_COMM_LEN) &&
		    (v = ring_advice(ring)) >= 0)
			return v;
	for (i = 0; i < a->n_history; i++)
		if (!strncmp(a->history[i].comm, comm, UT_COMM_LEN))
			return a->history[i].recommend;
	return -1;
}

/* a gone IOPOLL ring's verdict, kept for the next program of that name */
static void remember_advice(struct ut_agent_server *a, const struct ut_ring *ring)
{
	int v = ring_advice(ring);
	unsigned int i;

	if (v < 0)
		return;
	for (i = 0; i < a->n_history; i++)
		if (!strncmp(a->history[i].comm, ring->obs.holder.comm, UT_COMM_LEN))
			break;
	if (i == a->n_history) {
		/* full: the oldest entry makes room (entries move up one) */
		if (a->n_history == AGENT_HISTORY_MAX) {
			memmove(a->history, a->history + 1,
				(AGENT_HISTORY_MAX - 1) * sizeof(a->history[0]));
			i = AGENT_HISTORY_MAX - 1;
		} else {
			a->n_history++;
		}
		memcpy(a->history[i].comm, ring->obs.holder.comm, UT_COMM_LEN);
	}
	a->history[i].recommend = v;
}

void agent_server_ring_gone(struct ut_agent_server *a, const struct ut_ring *ring)
{
	remember_advice(a, ring);
	if (ring_info(a, ring))
		as_free_slot(a, ring->agent.slot);
}

bool agent_server_setup_in_flight(const struct ut_agent_server *a, pid_t pid)
{
	if (!as_have_page(a))
		return false;
	for (uint32_t s = 0; s < UT_AGENT_PAGE_SLOTS; s++)
		if (a->info[s].hello_ns && !a->info[s].announced && a->info[s].napi_decided &&
		    a->page.pg->slots[s].pid == pid)
			return true;
	return false;
}

static int agent_apply(void *arg, const struct ut_ring *ring, const struct tuner_setting *s,
		       char *err, size_t errlen)
{
	struct ut_agent_server *a = arg;

	if (!ring_info(a, ring)) {
		snprintf(err, errlen, "the ring's agent cannot be reached (no policy page)");
		return -ENODEV;
	}
	agent_slot_set_napi(a->page.pg, ring->agent.slot, s);
	a->published++;
	return 0;
}

void agent_server_backend(struct ut_agent_server *a, struct tune_backend *b)
{
	*b = (struct tune_backend){
		.name = "agent",
		.deferred = true,
		.apply = as_have_page(a) ? agent_apply : NULL,
		.arg = a,
	};
}

/* one slot a previous run left: its ring found again, or the slot freed */
static void settle_slot(struct ut_agent_server *a, uint32_t s)
{
	struct agent_slot_info *in = &a->info[s];
	struct ut_agent_slot sl;
	struct ut_ring *ring;

	agent_slot_read(a->page.pg, s, &sl);
	if (!sl.pid)
		return;
	ring = sl.fd >= 0 ? as_find_holder(a, sl.pid, sl.fd, sl.ino) : NULL;
	if (!ring) {
		as_free_slot(a, s);
		return;
	}
	memset(in, 0, sizeof(*in));
	in->hello_ns = now_ns();
	in->announced = true;
	in->napi_decided = sl.flags & UT_SLOT_NAPI;
	/* what the page and the ring's flags still tell of its setup */
	in->hybrid_added = (sl.flags & UT_SLOT_HYBRID) &&
			   (ring->obs.setup_flags & UT_SETUP_HYBRID_IOPOLL);
	snprintf(in->why, sizeof(in->why), "taken over from a previous run of uringtuned");
	as_attach(a, ring, s);
	if (in->napi_decided)
		lifecycle_agent_settle(a->lc, ring);
}

void agent_server_settle(struct ut_agent_server *a)
{
	if (!as_have_page(a) || !a->page.reused)
		return;
	for (uint32_t s = 0; s < UT_AGENT_PAGE_SLOTS; s++)
		settle_slot(a, s);
}
