// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent server's start and stop: the socket and the page opened, and
 * the slots a previous run left settled (their rings found again through
 * the owners file, or the slots freed).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent_conn.h"
#include "agent_server.h"
#include "agent_server_priv.h"
#include "clock.h"
#include "io_util.h"
#include "log.h"
#include "uring_abi.h"

static int alloc_info(struct ut_agent_server *a)
{
	a->info = calloc(UT_AGENT_PAGE_SLOTS, sizeof(*a->info));
	if (!a->info)
		return -ENOMEM;
	for (uint32_t s = 0; s < UT_AGENT_PAGE_SLOTS; s++) {
		a->info[s].owner.pidfd = -1;
		a->info[s].fd = -1;
	}
	return 0;
}

void agent_server_open(struct ut_agent_server *a)
{
	const struct ut_agent_cfg *cfg = &a->cfg->agent;
	char err[PATH_MAX + 80];
	int ret;

	if (!cfg->enabled)
		return;
	if (alloc_info(a)) {
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
	 * 0666: any program may opt in. Nothing a peer says is trusted: who it
	 * is comes from the kernel (agent_peer.c), its slots are its own.
	 */
	a->listen_fd = unix_listen("agent socket", cfg->socket_path, SOCK_SEQPACKET, 0666, 64,
				   err, sizeof(err));
	if (a->listen_fd < 0)
		log_warn("%s: the in-process agent gets no answer", err);
	else
		log_info("agent socket %s: answering liburingtune-agent.so", cfg->socket_path);
}

int agent_server_open_mem(struct ut_agent_server *a)
{
	if (alloc_info(a) || agent_page_mem(&a->page, a->lc->self_pid)) {
		free(a->info);
		a->info = NULL;
		return -ENOMEM;
	}
	return 0;
}

void agent_server_close(struct ut_agent_server *a)
{
	agent_conn_stop(a);
	if (a->listen_fd >= 0) {
		close(a->listen_fd);
		unlink(a->cfg->agent.socket_path);
		a->listen_fd = -1;
	}
	/* the slots' owners: their pidfds (the owners file keeps who they were) */
	for (uint32_t s = 0; a->info && s < UT_AGENT_PAGE_SLOTS; s++)
		agent_peer_close(&a->info[s].owner);
	agent_page_close(&a->page);
	free(a->info);
	a->info = NULL;
}

/* the ring a previous run's owner record names, if it is still that process's */
static struct ut_ring *owners_ring(struct ut_agent_server *a, const struct agent_owner_rec *r,
				   const struct agent_id *id)
{
	struct ut_ring *ring;
	uid_t uid;
	size_t i;

	if (r->fd < 0 || !r->ino)
		return NULL;
	registry_for_each(a->reg, i, ring) {
		const struct ut_holder *h = &ring->obs.holder;

		if (h->ino != r->ino)
			continue;
		if (!agent_id_holds(id, h->pid, h->start_boottime, a->hz) ||
		    a->sys->euid(h->pid, &uid) || uid != id->uid)
			return NULL;
		return ring;
	}
	return NULL;
}

/* one slot a previous run left: its ring found again, or the slot freed */
static void settle_slot(struct ut_agent_server *a, uint32_t s)
{
	struct agent_slot_info *in = &a->info[s];
	struct agent_owner_rec r = a->page.own->recs[s];
	struct ut_agent_slot sl;
	struct agent_id id;
	struct ut_ring *ring;

	agent_slot_read(a->page.pg, s, &sl);
	if (!sl.token)
		return;
	id = (struct agent_id){ .pid = r.pid, .uid = r.uid, .start_ticks = r.start_ticks };
	/* an owner record of another handout (or none): whose it is cannot be told */
	ring = a->page.owners_reused && r.token == sl.token ? owners_ring(a, &r, &id) : NULL;
	if (!ring) {
		as_free_slot(a, s);
		return;
	}
	in->hello_ns = now_ns();
	in->token = sl.token;
	in->owner.id = id;
	in->owner.pidfd = -1;
	in->announced = true;
	in->fd = r.fd;
	in->ino = r.ino;
	in->napi_decided = sl.flags & UT_SLOT_NAPI;
	in->hybrid_decided = sl.flags & UT_SLOT_HYBRID;
	snprintf(in->why, sizeof(in->why), "taken over from a previous run of uringtuned");
	if (as_try_attach(a, s) <= 0) {
		as_free_slot(a, s);
		return;
	}
	if (in->napi_decided)
		lifecycle_agent_settle(a->lc, ring);
}

void agent_server_settle(struct ut_agent_server *a)
{
	if (!as_have_page(a) || !a->page.reused)
		return;
	if (!a->page.owners_reused)
		log_warn("agent page %s: no owners file beside it: the slots of the previous "
			 "run are freed, their rings keep their settings", a->page.path);
	for (uint32_t s = 0; s < UT_AGENT_PAGE_SLOTS; s++)
		settle_slot(a, s);
}
