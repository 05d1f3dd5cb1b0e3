// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rings set up through an agent: their slots in the policy page, who
 * owns each (the HELLO's process), how a slot meets its ring, and the
 * "agent" tune backend. Tuning state is the lifecycle's: this file reports
 * to it what the kernel showed of each setup (BPF), never what the agent
 * said.
 *
 * One slot per ring: a ring attached to a new slot frees its old one, and a
 * ring that goes frees its slot. Slots are owned per uid, within quotas
 * (agent_guard.h), and a slot whose owner died is freed at the next tick.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "abi_names.h"
#include "agent_policy.h"
#include "agent_server.h"
#include "agent_server_priv.h"
#include "iopoll_window.h"
#include "clock.h"
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
	a->sys = &agent_sys_kernel;
	a->hz = sysconf(_SC_CLK_TCK);
	a->listen_fd = -1;
	a->page.ro_fd = -1;
}

void agent_server_limits(const struct ut_agent_server *a, struct agent_limits *l)
{
	*l = (struct agent_limits){
		.slots_per_uid = a->cfg->agent.slots_per_uid,
		.pending_per_uid = AGENT_PENDING_PER_UID,
		.conns = AGENT_CONNS,
		.conns_per_uid = AGENT_CONNS_PER_UID,
	};
}

bool as_have_page(const struct ut_agent_server *a)
{
	return a->page.pg != NULL && a->info != NULL;
}

static void info_clear(struct agent_slot_info *in)
{
	memset(in, 0, sizeof(*in));
	in->owner.pidfd = -1;
	in->fd = -1;
}

void as_save_owner(struct ut_agent_server *a, uint32_t slot)
{
	const struct agent_slot_info *in = &a->info[slot];
	struct agent_owner_rec r = {
		.token = in->token,
		.pid = in->owner.id.pid,
		.uid = in->owner.id.uid,
		.start_ticks = in->owner.id.start_ticks,
		.fd = in->announced ? in->fd : -1,
		.ino = in->announced ? in->ino : 0,
	};

	agent_owner_set(&a->page, slot, &r);
}

int as_alloc_slot(struct ut_agent_server *a, const struct agent_peer *peer)
{
	uint64_t token = a->sys->token();
	struct agent_slot_info *in;
	int slot, pidfd = -1;

	/* the owner's pidfd, kept until its ring is attached */
	if (peer->pidfd >= 0) {
		pidfd = a->sys->dup_pidfd(peer);
		if (pidfd < 0)
			return -EMFILE;
	}
	slot = agent_slot_alloc(a->page.pg, token);
	if (slot < 0) {
		if (pidfd >= 0)
			close(pidfd);
		return -ENOSPC;
	}
	in = &a->info[slot];
	info_clear(in);
	in->hello_ns = now_ns();
	in->token = token;
	in->owner = *peer;
	in->owner.pidfd = pidfd;
	as_save_owner(a, slot);
	return slot;
}

void as_free_slot(struct ut_agent_server *a, uint32_t slot)
{
	static const struct agent_owner_rec none = { .fd = -1 };

	agent_slot_free(a->page.pg, slot);
	agent_owner_set(&a->page, slot, &none);
	agent_peer_close(&a->info[slot].owner);
	info_clear(&a->info[slot]);
}

unsigned int agent_server_slots_used(const struct ut_agent_server *a)
{
	unsigned int n = 0;

	if (!as_have_page(a))
		return 0;
	for (uint32_t s = 0; s < UT_AGENT_PAGE_SLOTS; s++)
		n += a->info[s].hello_ns != 0;
	return n;
}

void agent_server_slots_of(const struct ut_agent_server *a, uid_t uid, unsigned int *slots,
			   unsigned int *pending)
{
	*slots = *pending = 0;
	if (!as_have_page(a))
		return;
	for (uint32_t s = 0; s < UT_AGENT_PAGE_SLOTS; s++) {
		const struct agent_slot_info *in = &a->info[s];

		if (!in->hello_ns || in->owner.id.uid != uid)
			continue;
		(*slots)++;
		*pending += !in->ctx;
	}
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

/* the ring with inode @ino (unique while the ring lives; the agent names it) */
static struct ut_ring *ring_by_ino(const struct ut_agent_server *a, uint64_t ino)
{
	struct ut_ring *ring;
	size_t i;

	if (!ino)
		return NULL;
	registry_for_each(a->reg, i, ring)
		if (ring->obs.holder.ino == ino)
			return ring;
	return NULL;
}

/* one slot per ring: every other slot of @ring's goes */
static void free_other_slots(struct ut_agent_server *a, const struct ut_ring *ring,
			     uint32_t keep)
{
	for (uint32_t s = 0; s < UT_AGENT_PAGE_SLOTS; s++) {
		if (s == keep || !a->info[s].hello_ns || a->info[s].ctx != ring->ctx)
			continue;
		as_free_slot(a, s);
		a->slots_replaced++;
	}
}

/* what the kernel showed of the setup: the ring's flags, the register call BPF saw */
static void kernel_result(struct ut_agent_server *a, const struct ut_ring *ring,
			  const struct agent_slot_info *in, struct agent_setup_result *r)
{
	uint32_t flags = ring->obs.setup_flags;
	bool hybrid = (flags & UT_SETUP_IOPOLL) && (flags & UT_SETUP_HYBRID_IOPOLL);

	*r = (struct agent_setup_result){
		.hybrid_added = in->hybrid_decided && hybrid,
		.napi_tried = ring->agent.setup_napi_seen,
		.napi_ret = ring->agent.setup_napi_ret,
		.napi_setting = in->napi_setting,
	};
	a->hybrid_added += r->hybrid_added;
	a->hybrid_fallback += in->hybrid_decided && !hybrid;
	/* decided, not in the kernel's flags, and the agent saw EINVAL */
	if (in->hybrid_decided && !hybrid && in->reported.hybrid_fallback)
		hybrid_support_agent_refused(a->hybrid);
	if (r->napi_tried && r->napi_ret)
		a->napi_failed++;
	else if (r->napi_tried)
		a->napi_registered++;
}

static void attach(struct ut_agent_server *a, struct ut_ring *ring, uint32_t slot)
{
	struct agent_slot_info *in = &a->info[slot];
	bool first = !ring->agent.via;
	struct agent_setup_result r;
	char flags[160];

	free_other_slots(a, ring, slot);
	in->ctx = ring->ctx;
	/* the registry follows the ring's life from here */
	agent_peer_close(&in->owner);
	ring->agent.via = true;
	ring->agent.slot = slot;
	ring->agent.app_napi |= in->app_napi;
	if (!first) {
		/* announced again: its setup was told already; the decision in force moves */
		if (ring->tune.managed_by == UT_MANAGED_URINGTUNE && ring_agent_driven(ring))
			agent_slot_set_napi(a->page.pg, slot, &ring->tune.want);
		return;
	}
	kernel_result(a, ring, in, &r);
	lifecycle_agent_attached(a->lc, ring, &r);
	log_ring(LOG_INFO, ring, "set up through the agent (%s, %s): %s",
		 agent_entry_name(in->entry),
		 setup_flags_str(ring->obs.setup_flags, flags, sizeof(flags)),
		 in->hybrid_decided && !r.hybrid_added ? "hybrid IOPOLL not in its flags: classic "
		 "IOPOLL" : r.napi_tried && r.napi_ret ? ring->tune.error :
		 in->napi_decided && in->napi_setting.enabled && ring_agent_driven(ring) &&
		 !r.napi_tried ? "NAPI decided, but no register call of its process was seen: "
		 "left as it is" : in->why);
}

/* the refusal, counted and (rate-limited) logged with what the ring is */
static int refuse_ring(struct ut_agent_server *a, uint32_t slot, const struct ut_ring *ring,
		       enum agent_refusal why, const char *what)
{
	const struct agent_id *id = &a->info[slot].owner.id;

	agent_server_refuse(a, why, id->uid, "pid %d uid %u: slot %u names the ring at fd %d, "
			    "inode %llu: %s (ring pid %d fd %d): not attached", id->pid,
			    (unsigned int)id->uid, slot, a->info[slot].fd,
			    (unsigned long long)a->info[slot].ino, what, ring->obs.holder.pid,
			    ring->obs.holder.fd);
	return -(int)why - 1;
}

int as_try_attach(struct ut_agent_server *a, uint32_t slot)
{
	const struct agent_slot_info *in = &a->info[slot];
	const struct ut_holder *h;
	struct ut_ring *ring;
	uid_t uid;
	int ret;

	ring = ring_by_ino(a, in->ino);
	if (!ring)
		return 0;
	h = &ring->obs.holder;
	/* the ring's process must be the slot's owner, and of the owner's uid */
	if (!agent_id_holds(&in->owner.id, h->pid, h->start_boottime, a->hz))
		return refuse_ring(a, slot, ring, AGENT_REFUSED_FOREIGN_RING,
				   "a ring of another process");
	if (a->sys->euid(h->pid, &uid) || uid != in->owner.id.uid)
		return refuse_ring(a, slot, ring, AGENT_REFUSED_FOREIGN_RING,
				   "a ring of another uid");
	if (in->fd != h->fd && h->fd >= 0)
		log_debug("agent: slot %u: ring at fd %d, registered at fd %d", slot, in->fd,
			  h->fd);
	/*
	 * The kernel shows another file at that fd: not the ring it named.
	 * A closed fd (a short-lived ring) or a process exiting proves
	 * nothing either way: the registry's word (BPF's create event: this
	 * process, this inode) stands, as it does without ptrace rights.
	 */
	ret = a->sys->holds(&in->owner, in->fd, in->ino);
	if (!a->sys->alive(&in->owner))
		return refuse_ring(a, slot, ring, AGENT_REFUSED_PEER_GONE, "the process exited");
	if (ret == -ESTALE)
		return refuse_ring(a, slot, ring, AGENT_REFUSED_FOREIGN_RING,
				   "the process holds another file at that fd");
	attach(a, ring, slot);
	return 1;
}

void as_forget_napi(struct ut_agent_server *a, uint32_t slot)
{
	struct agent_slot_info *in = &a->info[slot];
	struct ut_ring *ring = in->ctx ? registry_find(a->reg, in->ctx) : NULL;

	if (!in->app_napi)
		a->app_took_over++;
	agent_slot_set_flags(a->page.pg, slot, a->page.pg->slots[slot].flags & ~UT_SLOT_NAPI);
	in->napi_decided = false;
	in->app_napi = true;
	/* its register calls are the program's from now on (lifecycle_on_register()) */
	if (!ring)
		return;
	ring->agent.app_napi = true;
	/* ... and one already seen may have been too */
	lifecycle_agent_app_napi(a->lc, ring);
}

void agent_server_app_took_over(struct ut_agent_server *a, struct ut_ring *ring)
{
	struct agent_slot_info *in = ring_info(a, ring);

	if (in && in->napi_decided)
		as_forget_napi(a, ring->agent.slot);
}

static void say_suppressed(void *arg, uid_t uid, uint32_t count)
{
	(void)arg;
	if (uid == AGENT_RL_OTHERS)
		log_warn("agent: %u more refusals of other users in the last minute", count);
	else
		log_warn("agent: %u more refusals of uid %u in the last minute", count,
			 (unsigned int)uid);
}

void agent_server_tick(struct ut_agent_server *a)
{
	uint64_t now = now_ns();
	int ret;

	if (!as_have_page(a))
		return;
	for (uint32_t s = 0; s < UT_AGENT_PAGE_SLOTS; s++) {
		struct agent_slot_info *in = &a->info[s];

		if (!in->hello_ns || in->ctx)
			continue;
		/* its process exited: no ring will come, and no heir of its pid may have it */
		if (!a->sys->alive(&in->owner)) {
			as_free_slot(a, s);
			continue;
		}
		if (!in->announced) {
			if (now - in->hello_ns > HELLO_ABANDON_NS)
				as_free_slot(a, s);
			continue;
		}
		ret = as_try_attach(a, s);
		if (ret < 0 || (!ret && now - in->hello_ns > ANNOUNCE_GRACE_NS))
			as_free_slot(a, s);
	}
	agent_ratelimit_flush(&a->rl, now, say_suppressed, a);
}

/* the newest prediction on a classic IOPOLL ring of (comm, exe) open now, or NULL */
static const struct hybrid_pred *live_prediction(const struct ut_agent_server *a, const char *comm,
						 const char *exe)
{
	const struct hybrid_pred *best = NULL;
	uint64_t newest = 0;
	struct ut_ring *ring;
	size_t i;

	registry_for_each(a->reg, i, ring) {
		const struct iopoll_window *w = ring->obs.iopw;

		if (!w || !w->pred.valid || (ring->obs.setup_flags & UT_SETUP_HYBRID_IOPOLL) ||
		    strncmp(ring->obs.holder.comm, comm, UT_COMM_LEN) || strcmp(w->exe, exe))
			continue;
		if (!best || w->mark.t_ns > newest) {
			best = &w->pred;
			newest = w->mark.t_ns;
		}
	}
	return best;
}

void as_hybrid_context(const struct ut_agent_server *a, pid_t pid, const char *comm,
		       struct agent_context *ctx)
{
	char exe[HV_EXE_LEN] = "";

	if (a->sys->exe)
		a->sys->exe(pid, exe, sizeof(exe));
	ctx->verdict = a->verdicts ? verdicts_find(a->verdicts, comm, exe) : NULL;
	/* a classic ring of the program open now: the model's answer on it */
	ctx->live_pred = live_prediction(a, comm, exe);
	ctx->bounds = (struct hv_bounds){
		.min_saving = a->cfg->agent.hybrid_min_saving,
		.max_loss = a->cfg->agent.hybrid_max_loss,
	};
	ctx->now_unix_s = (uint64_t)time(NULL);
}

void agent_server_ring_gone(struct ut_agent_server *a, const struct ut_ring *ring)
{
	/* every slot of the ring's: only an attached ring has any */
	if (!ring->agent.via || !as_have_page(a))
		return;
	for (uint32_t s = 0; s < UT_AGENT_PAGE_SLOTS; s++)
		if (a->info[s].hello_ns && a->info[s].ctx == ring->ctx)
			as_free_slot(a, s);
}

/* the NAPI state a decision leaves, as a register event shows it */
static bool leaves(const struct ut_napi_state *n, const struct tuner_setting *s)
{
	return n->enabled && s->enabled && n->busy_poll_ns / 1000 == s->busy_poll_us &&
	       !n->prefer == !s->prefer &&
	       n->track_mode == (s->static_ids ? UT_TRACK_STATIC : UT_TRACK_DYNAMIC);
}

bool agent_server_setup_register(struct ut_agent_server *a, struct ut_ring *ring,
				 const struct ut_event *ev)
{
	const struct ut_holder *h = &ring->obs.holder;
	struct ring_agent *ra = &ring->agent;
	uid_t uid;

	/* only SINGLE_ISSUER rings get the agent's registration at setup */
	if (!as_have_page(a) || ra->via || !(ring->obs.setup_flags & UT_SETUP_SINGLE_ISSUER) ||
	    (pid_t)ev->tgid != h->pid)
		return false;
	for (uint32_t s = 0; s < UT_AGENT_PAGE_SLOTS; s++) {
		struct agent_slot_info *in = &a->info[s];

		if (!in->hello_ns || in->ctx || !in->napi_decided ||
		    !agent_id_holds(&in->owner.id, h->pid, h->start_boottime, a->hz) ||
		    !a->sys->alive(&in->owner) || a->sys->euid(h->pid, &uid) ||
		    uid != in->owner.id.uid)
			continue;
		/*
		 * The agent's setup call leaves the decided state, or fails;
		 * any other call is the program's own (it may come before the
		 * RING message is read).
		 */
		if (!ev->ret && !leaves(&ev->napi, &in->napi_setting))
			continue;
		if (!ra->setup_napi_seen || (!ra->setup_napi_ret && ev->ret)) {
			ra->setup_napi_seen = true;
			ra->setup_napi_ret = (int)ev->ret;
		}
		return true;
	}
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
