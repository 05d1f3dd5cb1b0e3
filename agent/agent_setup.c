// SPDX-License-Identifier: GPL-2.0-only
/*
 * A ring's setup through the agent. Two things only the program itself can
 * do, done here on the daemon's word:
 *
 * - hybrid IOPOLL: IORING_SETUP_HYBRID_IOPOLL (6.13+, needs IOPOLL) can
 *   only be chosen in io_uring_setup; nothing changes it afterwards;
 * - NAPI on SINGLE_ISSUER rings: they refuse io_uring_register from any
 *   task but their submitter (EEXIST), so the daemon cannot register from
 *   outside; the thread setting the ring up can, right away.
 *
 * The program must see no difference: its params and liburing ring keep its
 * own flags, it gets the real call's result, and with no daemon (or anything
 * unexpected from it) the ring is set up exactly as it asked.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent_check.h"
#include "agent_client.h"
#include "agent_env.h"
#include "agent_log.h"
#include "agent_napi.h"
#include "agent_pagemap.h"
#include "agent_rings.h"
#include "agent_setup.h"
#include "uring_abi.h"

/* one setup's story, from the HELLO to the debug line */
struct setup_ctx {
	struct agent_setup *su;
	const struct agent_env *env;
	__s32 pid;
	int idx;			/* the reserved ring record */
	struct ut_agent_reply reply;
	char why[sizeof(((struct ut_agent_reply *)0)->why)];	/* reply.why, printable */
	unsigned int epoch;		/* of the page the slot is in */
	bool ours;			/* the slot is this ring's: announce it */
	struct ut_agent_slot slot;
	const struct ut_agent_slot *decision;	/* &slot if valid, else NULL */
	const char *no;			/* why there is no decision */
	__u32 flags;			/* what the kernel got */
	int fd;				/* the ring fd, or -errno */
	__u64 ino;
	bool hybrid_added;
	bool fallback;
	bool napi_tried;
	int napi_ret;
};

/* the daemon's words, printable */
static void why_text(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
	dst[i] = '\0';
}

/*
 * HELLO, then the page and this ring's slot. 0 if the daemon answered (the
 * decision, if any, in c->decision); else -errno.
 *
 * Only a slot of a page the agent understands, holding the token of the
 * reply, is this ring's: then the daemon hears how the setup went. A
 * rejected page or a slot with another token gets no RING message at all:
 * for the daemon, as for the ring, the agent was not there.
 */
static int ask_daemon(struct setup_ctx *c)
{
	const struct ut_agent_page *pg;
	struct ut_agent_hello hello;
	enum agent_slot_verdict v;
	__u32 nslots;
	int page_fd, ret;

	memset(&hello, 0, sizeof(hello));
	hello.type = UT_AGENT_HELLO;
	hello.version = UT_AGENT_PROTO_VERSION;
	hello.setup_flags = c->su->prog_flags;
	hello.entries = c->su->entries;
	hello.hybrid = c->env->policy.hybrid;
	hello.napi = c->env->policy.napi;
	hello.entry = c->su->entry;
	ret = agent_client_hello(&hello, &c->reply, &page_fd);
	if (ret)
		return ret;
	why_text(c->why, sizeof(c->why), c->reply.why);

	if (agent_page_adopt(page_fd, &pg, &nslots, &c->epoch, &c->no))
		return 0;
	if (c->reply.slot >= nslots) {
		c->no = "slot number out of the page";
		return 0;
	}
	if (!agent_slot_copy(&pg->slots[c->reply.slot], &c->slot)) {
		c->no = "slot kept changing";
		return 0;
	}
	v = agent_slot_check(&c->slot, c->reply.token, &c->no);
	/* fields out of range: not a decision, but the slot is ours */
	c->ours = v == AGENT_SLOT_OK || v == AGENT_SLOT_INVALID;
	if (v == AGENT_SLOT_OK)
		c->decision = &c->slot;
	return 0;
}

/* the real setup with the decision, then NAPI from this (the submitting) thread */
static void set_up(struct setup_ctx *c)
{
	struct agent_setup *su = c->su;
	struct stat st;

	c->flags = agent_setup_flags(su->prog_flags, c->decision, &c->env->policy);
	c->fd = su->call(su, c->flags);
	if (c->fd == -EINVAL && c->flags != su->prog_flags) {
		/* a kernel before 6.13 does not know HYBRID_IOPOLL: classic IOPOLL then */
		c->fallback = true;
		c->flags = su->prog_flags;
		c->fd = su->call(su, c->flags);
	}
	if (c->fd < 0)
		return;
	if (!fstat(c->fd, &st))
		c->ino = st.st_ino;
	c->hybrid_added = c->flags != su->prog_flags;
	/* SINGLE_ISSUER rings accept register calls from their submitter only: this thread */
	if (c->decision && agent_napi_wanted(c->flags, c->decision, &c->env->policy, true)) {
		c->napi_tried = true;
		c->napi_ret = agent_napi_apply(c->fd, c->decision);
	}
}

/* a live record for the ring's later decisions, or the reservation given back */
static void keep_record(struct setup_ctx *c)
{
	struct agent_ring_rec rec;

	if (c->fd < 0 || !c->ours || !c->ino) {
		agent_rings_release(c->idx);
		return;
	}
	memset(&rec, 0, sizeof(rec));
	rec.ring = c->su->ring;
	rec.fd = c->fd;
	rec.ino = c->ino;
	rec.slot = c->reply.slot;
	rec.token = c->reply.token;
	/* the decision seen now is dealt with (applied, or not the agent's to apply) */
	rec.applied_napi_gen = c->decision ? c->decision->napi_gen : 0;
	rec.setup_flags = c->flags;
	rec.epoch = c->epoch;
	if (!agent_rings_commit(c->idx, &rec))
		agent_debug("pid %d ring fd %d: the policy page changed during setup: not managed",
			    (int)c->pid, c->fd);
}

/* RING, also when the setup failed (fd -1): the daemon frees the slot */
static void announce(const struct setup_ctx *c)
{
	struct ut_agent_ring msg;

	if (!c->ours)
		return;
	memset(&msg, 0, sizeof(msg));
	msg.type = UT_AGENT_RING;
	msg.version = UT_AGENT_PROTO_VERSION;
	msg.slot = c->reply.slot;
	msg.token = c->reply.token;
	msg.fd = c->fd >= 0 ? c->fd : -1;
	msg.ino = c->ino;
	msg.setup_flags = c->flags;
	msg.setup_ret = c->fd >= 0 ? 0 : c->fd;
	msg.hybrid_added = c->hybrid_added;
	msg.hybrid_fallback = c->fallback;
	msg.napi_tried = c->napi_tried;
	msg.napi_ret = c->napi_ret;
	agent_client_send(&msg, sizeof(msg));
}

/* URINGTUNE_AGENT_DEBUG=1: one line per ring set up through the daemon */
static void log_setup(const struct setup_ctx *c)
{
	const struct ut_agent_slot *d = c->decision;
	char napi[96];

	if (c->fd < 0) {
		agent_log("pid %d: io_uring_setup(flags 0x%x) failed: %s%s; daemon: %s",
			  (int)c->pid, c->flags, agent_errname(c->fd),
			  c->fallback ? " (after hybrid was refused)" : "", c->why);
		return;
	}
	if (!d) {
		agent_log("pid %d ring fd %d: flags 0x%x unchanged: %s; daemon: %s", (int)c->pid,
			  c->fd, c->flags, c->no, c->why);
		return;
	}
	if (c->napi_tried)
		agent_napi_describe(napi, sizeof(napi), d, c->napi_ret);
	else if ((d->flags & UT_SLOT_NAPI) && d->napi_enabled &&
		 c->env->policy.napi == UT_WANT_OFF)
		snprintf(napi, sizeof(napi), "NAPI unchanged (napi=off)");
	else
		snprintf(napi, sizeof(napi), "NAPI unchanged");
	agent_log("pid %d ring fd %d: flags 0x%x%s, %s; daemon: %s", (int)c->pid, c->fd, c->flags,
		  c->hybrid_added ? " (HYBRID_IOPOLL added)" :
		  c->fallback ? " (hybrid refused by the kernel: classic IOPOLL)" : "",
		  napi, c->why);
}

int agent_setup(struct agent_setup *su)
{
	struct setup_ctx c = {
		.su = su,
		.env = agent_env(),
		.pid = getpid(),
		.no = "",
	};
	int saved_errno = errno;
	int ret;

	/* setup returns a registered ring index, no fd: nothing the daemon can name */
	if (su->prog_flags & UT_SETUP_REGISTERED_FD_ONLY) {
		c.fd = su->call(su, su->prog_flags);
		agent_debug("pid %d: REGISTERED_FD_ONLY ring: set up unchanged, not managed",
			    (int)c.pid);
		goto out;
	}
	c.idx = agent_rings_reserve();
	if (c.idx < 0) {
		c.fd = su->call(su, su->prog_flags);
		agent_debug("pid %d ring fd %d: %d rings already managed in this process: "
			    "set up unchanged, not managed", (int)c.pid, c.fd, AGENT_MAX_RINGS);
		goto out;
	}
	ret = ask_daemon(&c);
	if (ret) {
		agent_rings_release(c.idx);
		c.fd = su->call(su, su->prog_flags);
		/* a refusal (quota, no page) comes with the daemon's reason */
		why_text(c.why, sizeof(c.why), c.reply.why);
		agent_debug("pid %d ring fd %d: flags 0x%x unchanged: "
			    "no usable daemon answer at %s (%s)%s%s", (int)c.pid, c.fd,
			    su->prog_flags, c.env->socket_path, agent_errname(ret),
			    c.why[0] ? ": " : "", c.why);
		goto out;
	}
	set_up(&c);
	keep_record(&c);
	announce(&c);
	if (c.env->debug)
		log_setup(&c);
out:
	errno = saved_errno;
	return c.fd;
}
