// SPDX-License-Identifier: GPL-2.0-only
/* The agent socket: one message per connection (HELLO, PING, RING, APP_NAPI). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "abi_names.h"
#include "agent_policy.h"
#include "agent_server.h"
#include "agent_server_priv.h"
#include "clock.h"
#include "log.h"
#include "setup_flags.h"

/* an agent sends at once after connecting: never wait long for it */
#define AGENT_RECV_TIMEOUT_US	100000

/* /proc/PID/comm, "" if gone */
static void proc_comm(pid_t pid, char *comm, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	comm[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, len - 1);
	close(fd);
	if (n <= 0)
		return;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

static int send_reply(int fd, int status, uint32_t slot, const char *why, int page_fd)
{
	struct ut_agent_reply r = {
		.type = UT_AGENT_REPLY,
		.version = UT_AGENT_PROTO_VERSION,
		.status = status,
		.slot = slot,
	};
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	snprintf(r.why, sizeof(r.why), "%s", why);
	if (page_fd >= 0) {
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &page_fd, sizeof(int));
	}
	return sendmsg(fd, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(r) ? 0 : -errno;
}

/* no page, no decision: the agent sets the ring up as asked; why, for exec -v */
static void reply_no_page(const struct ut_agent_server *a, int fd)
{
	send_reply(fd, -ENODEV, 0, a->page_error[0] ? a->page_error : "no policy page", -1);
}

/* `uringtune exec` asks before it starts the program */
static void on_ping(struct ut_agent_server *a, int fd, const struct ut_agent_hello *h)
{
	char why[128];

	if (!as_have_page(a)) {
		reply_no_page(a, fd);
		return;
	}
	if (a->cfg->mode != UT_MODE_TUNE)
		snprintf(why, sizeof(why), "observe mode: uringtune changes nothing (hybrid %s, "
			 "napi %s asked)", agent_want_name(h->hybrid), agent_want_name(h->napi));
	else
		snprintf(why, sizeof(why), "tune mode: hybrid %s, napi %s; decided per ring at "
			 "setup", agent_want_name(h->hybrid), agent_want_name(h->napi));
	send_reply(fd, 0, 0, why, -1);
}

static void on_hello(struct ut_agent_server *a, int fd, pid_t pid, const struct ut_agent_hello *h)
{
	const struct lifecycle_env *env = &a->lc->env;
	struct agent_context ctx = { .mode = a->cfg->mode, .napi_supported = a->lc->napi_supported };
	struct agent_request req = {
		.setup_flags = h->setup_flags,
		.hybrid = h->hybrid,
		.napi = h->napi,
	};
	struct agent_decision dec;
	struct agent_slot_info *in;
	char comm[UT_COMM_LEN], flags[160];
	uint32_t slot_flags = 0;
	int slot;

	if (!as_have_page(a)) {
		a->refused++;
		reply_no_page(a, fd);
		return;
	}
	proc_comm(pid, comm, sizeof(comm));
	req.comm = comm;
	ctx.selected = env->selects(env->arg, pid, comm, &ctx.select_why);
	ctx.advised_hybrid = as_advised(a, comm);
	agent_decide(&req, a->cfg, &ctx, &dec);

	slot = agent_slot_alloc(a->page.pg, pid);
	if (slot < 0) {
		a->refused++;
		log_warn("agent: pid %d comm %s: every one of the %u slots of the policy page is "
			 "taken: its ring is set up unchanged", pid, comm, UT_AGENT_PAGE_SLOTS);
		send_reply(fd, -ENOSPC, 0, "the policy page is full", -1);
		return;
	}
	in = &a->info[slot];
	memset(in, 0, sizeof(*in));
	in->hello_ns = now_ns();
	in->entry = h->entry;
	in->napi_decided = dec.napi;
	in->napi_setting = dec.napi_setting;
	snprintf(in->why, sizeof(in->why), "%s", dec.why);
	if (dec.hybrid)
		slot_flags |= UT_SLOT_HYBRID;
	agent_slot_set_flags(a->page.pg, slot, slot_flags);
	if (dec.napi)
		agent_slot_set_napi(a->page.pg, slot, &dec.napi_setting);
	if (send_reply(fd, 0, slot, dec.why, a->page.ro_fd)) {
		/* the agent gave up waiting: it sets the ring up unchanged */
		as_free_slot(a, slot);
		a->refused++;
		return;
	}
	a->requests++;
	log_debug("agent: pid %d comm %s, ring setup (%s) via %s: slot %d: %s", pid, comm,
		  setup_flags_str(h->setup_flags, flags, sizeof(flags)),
		  agent_entry_name(h->entry), slot, dec.why);
}

static bool slot_is_peers(const struct ut_agent_server *a, uint32_t slot, pid_t pid)
{
	return slot < UT_AGENT_PAGE_SLOTS && a->page.pg->slots[slot].pid == pid &&
	       a->info[slot].hello_ns;
}

static void on_ring(struct ut_agent_server *a, pid_t pid, const struct ut_agent_ring *m)
{
	struct agent_slot_info *in;
	struct ut_ring *ring;

	if (!as_have_page(a) || !slot_is_peers(a, m->slot, pid) || a->info[m->slot].announced) {
		a->bad_messages++;
		log_debug("agent: pid %d: RING for slot %u that is not its own: ignored", pid,
			  m->slot);
		return;
	}
	in = &a->info[m->slot];
	if (m->fd < 0 || m->setup_ret < 0) {
		/* the setup failed: nothing to steer */
		as_free_slot(a, m->slot);
		return;
	}
	in->announced = true;
	in->hybrid_added = m->hybrid_added;
	in->hybrid_fallback = m->hybrid_fallback;
	in->napi_tried = m->napi_tried;
	in->napi_ret = m->napi_ret;
	a->hybrid_added += m->hybrid_added;
	a->hybrid_fallback += m->hybrid_fallback;
	if (m->napi_tried) {
		if (m->napi_ret)
			a->napi_failed++;
		else
			a->napi_registered++;
	}
	agent_slot_set_ring(a->page.pg, m->slot, m->fd, m->ino);
	/* the create event came before this message: the caller consumed it */
	ring = as_find_holder(a, pid, m->fd, m->ino);
	if (ring)
		as_attach(a, ring, m->slot);
}

static void on_app_napi(struct ut_agent_server *a, pid_t pid, const struct ut_agent_ring *m)
{
	struct ut_ring *ring;

	if (!as_have_page(a) || !slot_is_peers(a, m->slot, pid)) {
		a->bad_messages++;
		return;
	}
	as_forget_napi(a, m->slot);
	ring = as_find_holder(a, pid, m->fd, m->ino);
	if (!ring || ring->tune.managed_by == UT_MANAGED_APP)
		return;
	log_ring(LOG_INFO, ring, "the application registers NAPI itself: uringtune leaves this "
		 "ring to it");
	lifecycle_app_took_over(a->lc, ring);
}

void agent_server_serve_one(struct ut_agent_server *a)
{
	struct timeval tv = { .tv_usec = AGENT_RECV_TIMEOUT_US };
	union {
		__u32 type;
		struct ut_agent_hello hello;
		struct ut_agent_ring ring;
		char raw[256];
	} m;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	ssize_t n;
	int fd;

	fd = accept4(a->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.pid <= 0)
		goto out;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	n = recv(fd, &m, sizeof(m), 0);
	if (n < (ssize_t)sizeof(__u32))
		goto out;
	/* a message of the wrong size or version is not answered at all */
	switch (m.type) {
	case UT_AGENT_HELLO:
	case UT_AGENT_PING:
		if (n != sizeof(m.hello) || m.hello.version != UT_AGENT_PROTO_VERSION)
			goto bad;
		if (m.type == UT_AGENT_PING)
			on_ping(a, fd, &m.hello);
		else
			on_hello(a, fd, cred.pid, &m.hello);
		break;
	case UT_AGENT_RING:
	case UT_AGENT_APP_NAPI:
		if (n != sizeof(m.ring) || m.ring.version != UT_AGENT_PROTO_VERSION)
			goto bad;
		if (m.type == UT_AGENT_RING)
			on_ring(a, cred.pid, &m.ring);
		else
			on_app_napi(a, cred.pid, &m.ring);
		break;
	default:
		goto bad;
	}
out:
	close(fd);
	return;
bad:
	a->bad_messages++;
	log_debug("agent: pid %d: malformed message (type %u, %zd bytes) ignored", cred.pid,
		  m.type, n);
	close(fd);
}

