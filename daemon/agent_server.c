// SPDX-License-Identifier: GPL-2.0-only
/* The agent socket and the rings set up through an agent. */
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
#include "clock.h"
#include "daemon.h"
#include "io_util.h"
#include "iopoll_advice.h"
#include "log.h"
#include "setup_flags.h"
#include "tuning.h"
#include "uring_abi.h"

/* a slot handed out whose ring never came (the program died in between) */
#define HELLO_ABANDON_NS	(10 * 1000000000ULL)
/* an announced ring not in the registry after this long is gone */
#define ANNOUNCE_GRACE_NS	(3 * 1000000000ULL)
/* an agent sends at once after connecting: never wait long for it */
#define AGENT_RECV_TIMEOUT_US	100000

static bool have_page(const struct ut_agent_server *a)
{
	return a->page.pg != NULL;
}

static void free_slot(struct ut_agent_server *a, uint32_t slot)
{
	agent_slot_free(a->page.pg, slot);
	memset(&a->info[slot], 0, sizeof(a->info[slot]));
}

/* the slot a ring set up through its agent holds, NULL if none (any more) */
static struct agent_slot_info *ring_info(const struct ut_agent_server *a,
					 const struct ut_ring *ring)
{
	if (!ring->via_agent || !have_page(a) || ring->agent_slot >= UT_AGENT_PAGE_SLOTS ||
	    a->info[ring->agent_slot].ctx != ring->ctx)
		return NULL;
	return &a->info[ring->agent_slot];
}

const struct agent_slot_info *agent_server_info(const struct ut_daemon *d,
						const struct ut_ring *ring)
{
	return ring_info(&d->agent, ring);
}

void agent_server_open(struct ut_daemon *d)
{
	struct ut_agent_server *a = &d->agent;
	char err[PATH_MAX + 80];
	int ret;

	a->listen_fd = -1;
	a->page.ro_fd = -1;
	if (!d->cfg.agent.enabled)
		return;
	a->info = calloc(UT_AGENT_PAGE_SLOTS, sizeof(*a->info));
	if (!a->info) {
		log_err("out of memory for the agent's slots: agents get no answer");
		return;
	}
	ret = agent_page_open(&a->page, d->cfg.agent.page_path, d->self_pid, err, sizeof(err));
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
	a->listen_fd = unix_listen("agent socket", d->cfg.agent.socket_path, SOCK_SEQPACKET,
				   0666, 64, err, sizeof(err));
	if (a->listen_fd < 0)
		log_warn("%s: the in-process agent gets no answer", err);
	else
		log_info("agent socket %s: answering liburingtune-agent.so", d->cfg.agent.socket_path);
}

void agent_server_close(struct ut_daemon *d)
{
	struct ut_agent_server *a = &d->agent;

	if (a->listen_fd >= 0) {
		close(a->listen_fd);
		unlink(d->cfg.agent.socket_path);
		a->listen_fd = -1;
	}
	agent_page_close(&a->page);
	free(a->info);
	a->info = NULL;
}

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

/* the IOPOLL advisor on one ring: 1 hybrid, 0 classic, -1 too few completions to say */
static int ring_advice(const struct ut_ring *ring)
{
	struct iopoll_summary sum;
	struct iopoll_advice adv;

	if (!(ring->setup_flags & UT_SETUP_IOPOLL) || !ring->have_iop)
		return -1;
	iopoll_summarize(&ring->iop, &sum);
	if (sum.completions < IOPOLL_ADVICE_MIN_COMPLETIONS)
		return -1;
	iopoll_advise(&sum, ring->setup_flags & UT_SETUP_HYBRID_IOPOLL,
		      ring->iop.hybrid_poll_time_ns, &adv);
	return adv.recommend;
}

/* hybrid = auto: what the advisor says of a running IOPOLL ring of @comm, else of the last gone one */
static int advised(struct ut_daemon *d, const char *comm)
{
	const struct ut_agent_server *a = &d->agent;
	struct ut_ring *ring;
	size_t i;
	int v;

	registry_for_each(&d->reg, i, ring)
		if (!strncmp(ring->holder.comm, comm, UT_COMM_LEN) && (v = ring_advice(ring)) >= 0)
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
		if (!strncmp(a->history[i].comm, ring->holder.comm, UT_COMM_LEN))
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
		memcpy(a->history[i].comm, ring->holder.comm, UT_COMM_LEN);
	}
	a->history[i].recommend = v;
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
static void on_ping(struct ut_daemon *d, int fd, const struct ut_agent_hello *h)
{
	char why[128];

	if (!have_page(&d->agent)) {
		reply_no_page(&d->agent, fd);
		return;
	}
	if (d->cfg.mode != UT_MODE_TUNE)
		snprintf(why, sizeof(why), "observe mode: uringtune changes nothing (hybrid %s, "
			 "napi %s asked)", agent_want_name(h->hybrid), agent_want_name(h->napi));
	else
		snprintf(why, sizeof(why), "tune mode: hybrid %s, napi %s; decided per ring at "
			 "setup", agent_want_name(h->hybrid), agent_want_name(h->napi));
	send_reply(fd, 0, 0, why, -1);
}

static void on_hello(struct ut_daemon *d, int fd, pid_t pid, const struct ut_agent_hello *h)
{
	struct ut_agent_server *a = &d->agent;
	struct agent_context ctx = { .mode = d->cfg.mode, .napi_supported = d->napi_supported };
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

	if (!have_page(a)) {
		a->refused++;
		reply_no_page(a, fd);
		return;
	}
	proc_comm(pid, comm, sizeof(comm));
	req.comm = comm;
	ctx.selected = tuning_selects(d, pid, comm, &ctx.select_why);
	ctx.advised_hybrid = advised(d, comm);
	agent_decide(&req, &d->cfg, &ctx, &dec);

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
		free_slot(a, slot);
		a->refused++;
		return;
	}
	a->requests++;
	log_debug("agent: pid %d comm %s, ring setup (%s) via %s: slot %d: %s", pid, comm,
		  setup_flags_str(h->setup_flags, flags, sizeof(flags)),
		  agent_entry_name(h->entry), slot, dec.why);
}

/* the ring at (pid, fd), if it is the one with that inode (0: unknown) */
static struct ut_ring *find_holder(struct ut_daemon *d, pid_t pid, int fd, uint64_t ino)
{
	struct ut_ring *ring = registry_find_holder(&d->reg, pid, fd);

	if (ring && ino && ring->holder.ino && ring->holder.ino != ino)
		return NULL;
	return ring;
}

static void attach(struct ut_daemon *d, struct ut_ring *ring, uint32_t slot)
{
	struct agent_slot_info *in = &d->agent.info[slot];
	char flags[160];

	in->ctx = ring->ctx;
	ring->via_agent = true;
	ring->agent_slot = slot;
	if (in->hybrid_added && ring->managed_by == UT_MANAGED_NONE)
		ring->managed_by = UT_MANAGED_URINGTUNE;
	if (in->napi_tried && in->napi_ret == 0) {
		/* the agent's registration was uringtune's, not the program's */
		ring->managed_by = UT_MANAGED_URINGTUNE;
		ring->agent_want = in->napi_setting;
		tuner_applied(&ring->tuner, &in->napi_setting, now_ns());
		if (!ring->reaction_ns)
			ring->reaction_ns = ring->tuner.last_change_ns - ring->first_seen_ns;
		d->actions_ok++;
	} else if (in->napi_tried) {
		ring->refused = true;
		snprintf(ring->tune_error, sizeof(ring->tune_error),
			 "the agent's NAPI registration at setup was refused: %s",
			 strerror(-in->napi_ret));
		d->actions_failed++;
	}
	log_info("ring pid=%d comm=%s fd=%d set up through the agent (%s, %s): %s",
		 ring->holder.pid, ring->holder.comm, ring->holder.fd,
		 agent_entry_name(in->entry), setup_flags_str(ring->setup_flags, flags, sizeof(flags)),
		 in->hybrid_fallback ? "hybrid refused by the kernel (EINVAL): classic IOPOLL" :
		 in->napi_tried && in->napi_ret ? ring->tune_error : in->why);
}

static bool slot_is_peers(const struct ut_agent_server *a, uint32_t slot, pid_t pid)
{
	return slot < UT_AGENT_PAGE_SLOTS && a->page.pg->slots[slot].pid == pid &&
	       a->info[slot].hello_ns;
}

static void on_ring(struct ut_daemon *d, pid_t pid, const struct ut_agent_ring *m)
{
	struct ut_agent_server *a = &d->agent;
	struct agent_slot_info *in;
	struct ut_ring *ring;

	if (!have_page(a) || !slot_is_peers(a, m->slot, pid) || a->info[m->slot].announced) {
		a->bad_messages++;
		log_debug("agent: pid %d: RING for slot %u that is not its own: ignored", pid,
			  m->slot);
		return;
	}
	in = &a->info[m->slot];
	if (m->fd < 0 || m->setup_ret < 0) {
		/* the setup failed: nothing to steer */
		free_slot(a, m->slot);
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
	ring = find_holder(d, pid, m->fd, m->ino);
	if (ring)
		attach(d, ring, m->slot);
}

/* the program manages NAPI on that ring now: the slot keeps its ring, no NAPI decision */
static void forget_napi(struct ut_agent_server *a, uint32_t slot)
{
	a->app_took_over++;
	agent_slot_set_flags(a->page.pg, slot, a->page.pg->slots[slot].flags & ~UT_SLOT_NAPI);
	a->info[slot].napi_decided = false;
}

void agent_server_app_took_over(struct ut_daemon *d, struct ut_ring *ring)
{
	struct ut_agent_server *a = &d->agent;

	struct agent_slot_info *in = ring_info(a, ring);

	ring->agent_pending = false;
	if (in && in->napi_decided)
		forget_napi(a, ring->agent_slot);
}

static void on_app_napi(struct ut_daemon *d, pid_t pid, const struct ut_agent_ring *m)
{
	struct ut_agent_server *a = &d->agent;
	struct ut_ring *ring;

	if (!have_page(a) || !slot_is_peers(a, m->slot, pid)) {
		a->bad_messages++;
		return;
	}
	forget_napi(a, m->slot);
	ring = find_holder(d, pid, m->fd, m->ino);
	if (!ring || ring->managed_by == UT_MANAGED_APP)
		return;
	ring->managed_by = UT_MANAGED_APP;
	ring->agent_pending = false;
	log_info("ring pid=%d comm=%s fd=%d: the application registers NAPI itself: uringtune "
		 "leaves this ring to it", ring->holder.pid, ring->holder.comm, ring->holder.fd);
	tuning_app_took_over(d, ring);
}

void agent_server_serve_one(struct ut_daemon *d)
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

	fd = accept4(d->agent.listen_fd, NULL, NULL, SOCK_CLOEXEC);
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
			on_ping(d, fd, &m.hello);
		else
			on_hello(d, fd, cred.pid, &m.hello);
		break;
	case UT_AGENT_RING:
	case UT_AGENT_APP_NAPI:
		if (n != sizeof(m.ring) || m.ring.version != UT_AGENT_PROTO_VERSION)
			goto bad;
		if (m.type == UT_AGENT_RING)
			on_ring(d, cred.pid, &m.ring);
		else
			on_app_napi(d, cred.pid, &m.ring);
		break;
	default:
		goto bad;
	}
out:
	close(fd);
	return;
bad:
	d->agent.bad_messages++;
	log_debug("agent: pid %d: malformed message (type %u, %zd bytes) ignored", cred.pid,
		  m.type, n);
	close(fd);
}

static bool pid_alive(pid_t pid)
{
	char path[32];

	snprintf(path, sizeof(path), "/proc/%d", pid);
	return access(path, F_OK) == 0;
}

void agent_server_tick(struct ut_daemon *d)
{
	struct ut_agent_server *a = &d->agent;
	uint64_t now = now_ns();
	struct ut_ring *ring;

	if (!have_page(a))
		return;
	for (uint32_t s = 0; s < UT_AGENT_PAGE_SLOTS; s++) {
		struct agent_slot_info *in = &a->info[s];
		const struct ut_agent_slot *sl = &a->page.pg->slots[s];

		if (!in->hello_ns || in->ctx)
			continue;
		if (!in->announced) {
			if (now - in->hello_ns > HELLO_ABANDON_NS || !pid_alive(sl->pid))
				free_slot(a, s);
			continue;
		}
		ring = find_holder(d, sl->pid, sl->fd, sl->ino);
		if (ring)
			attach(d, ring, s);
		else if (now - in->hello_ns > ANNOUNCE_GRACE_NS)
			free_slot(a, s);
	}
}

void agent_server_ring_gone(struct ut_daemon *d, const struct ut_ring *ring)
{
	struct ut_agent_server *a = &d->agent;

	remember_advice(a, ring);
	if (ring_info(a, ring))
		free_slot(a, ring->agent_slot);
}

bool agent_server_drives(const struct ut_ring *ring)
{
	return ring->via_agent && (ring->setup_flags & UT_SETUP_SINGLE_ISSUER);
}

static bool napi_is(const struct ut_napi_state *n, const struct tuner_setting *s)
{
	if (!s->enabled)
		return !n->enabled;
	return n->enabled && n->busy_poll_ns / 1000 == s->busy_poll_us &&
	       !n->prefer == !s->prefer &&
	       n->track_mode == (s->static_ids ? UT_TRACK_STATIC : UT_TRACK_DYNAMIC);
}

/* a setup under way in that process whose decision includes NAPI */
static bool setup_in_flight(const struct ut_agent_server *a, pid_t pid)
{
	for (uint32_t s = 0; s < UT_AGENT_PAGE_SLOTS; s++)
		if (a->info[s].hello_ns && !a->info[s].announced && a->info[s].napi_decided &&
		    a->page.pg->slots[s].pid == pid)
			return true;
	return false;
}

bool agent_server_on_register(struct ut_daemon *d, struct ut_ring *ring, const struct ut_event *ev)
{
	struct ut_agent_server *a = &d->agent;

	if (!have_page(a) || (pid_t)ev->tgid != ring->holder.pid ||
	    ring->managed_by == UT_MANAGED_APP)
		return false;
	if (!ring->via_agent) {
		/* the agent registering at setup, before its RING message */
		if (!setup_in_flight(a, ring->holder.pid))
			return false;
		ring->napi = ev->napi;
		return true;
	}
	if (!ring->agent_pending) {
		/*
		 * The agent registers only to apply a decision, and every call of
		 * such a sequence (static tracking: the mode, then one call per
		 * ID) leaves the decided state. Anything else is the program's
		 * own call through a path the agent does not see (liburing 2.5+'s
		 * io_uring_register_napi makes the system call itself).
		 */
		if (ev->ret || napi_is(&ev->napi, &ring->agent_want))
			return true;
		return false;
	}
	ring->napi = ev->napi;
	if (ev->ret) {
		ring->agent_pending = false;
		snprintf(ring->tune_error, sizeof(ring->tune_error),
			 "the agent's register call was refused: %s", strerror((int)-ev->ret));
		log_warn("ring pid=%d comm=%s fd=%d: %s", ring->holder.pid, ring->holder.comm,
			 ring->holder.fd, ring->tune_error);
		d->actions_failed++;
		return true;
	}
	if (napi_is(&ev->napi, &ring->agent_want)) {
		ring->agent_pending = false;
		ring->tune_error[0] = '\0';
		a->applied++;
		log_debug("ring pid=%d fd=%d: the agent applied the decision after %.1f ms",
			  ring->holder.pid, ring->holder.fd,
			  (now_ns() - ring->agent_published_ns) / 1e6);
	}
	return true;
}

int agent_server_publish(struct ut_daemon *d, struct ut_ring *ring, const struct tuner_setting *s,
			 char *err, size_t errlen)
{
	struct ut_agent_server *a = &d->agent;

	if (!ring_info(a, ring)) {
		snprintf(err, errlen, "the ring's agent cannot be reached (no policy page)");
		return -ENODEV;
	}
	agent_slot_set_napi(a->page.pg, ring->agent_slot, s);
	ring->agent_want = *s;
	/* the agent registers for every new decision, even one the ring already has */
	ring->agent_pending = true;
	ring->agent_published_ns = now_ns();
	a->published++;
	return 0;
}

void agent_server_restore_all(struct ut_daemon *d)
{
	static const struct tuner_setting off = { .enabled = false };
	struct ut_ring *ring;
	char err[128];
	size_t i, n = 0;

	registry_for_each(&d->reg, i, ring) {
		/* a decision still on its way would switch NAPI on after we are gone */
		if (!agent_server_drives(ring) || ring->managed_by != UT_MANAGED_URINGTUNE ||
		    !(ring->napi.enabled || (ring->agent_pending && ring->agent_want.enabled)))
			continue;
		if (agent_server_publish(d, ring, &off, err, sizeof(err)) == 0)
			n++;
	}
	if (n)
		log_info("%zu ring%s set up through the agent: NAPI off at the ring's next submit "
			 "or wait", n, n == 1 ? "" : "s");
}

void agent_server_settle(struct ut_daemon *d)
{
	struct ut_agent_server *a = &d->agent;
	struct ut_ring *ring;
	char err[128];

	if (!have_page(a) || !a->page.reused)
		return;
	for (uint32_t s = 0; s < UT_AGENT_PAGE_SLOTS; s++) {
		struct ut_agent_slot sl;
		struct agent_slot_info *in = &a->info[s];

		agent_slot_read(a->page.pg, s, &sl);
		if (!sl.pid)
			continue;
		ring = sl.fd >= 0 ? find_holder(d, sl.pid, sl.fd, sl.ino) : NULL;
		if (!ring) {
			free_slot(a, s);
			continue;
		}
		memset(in, 0, sizeof(*in));
		in->hello_ns = now_ns();
		in->announced = true;
		in->napi_decided = sl.flags & UT_SLOT_NAPI;
		/* what the page and the ring's flags still tell of its setup */
		in->hybrid_added = (sl.flags & UT_SLOT_HYBRID) &&
				   (ring->setup_flags & UT_SETUP_HYBRID_IOPOLL);
		snprintf(in->why, sizeof(in->why), "taken over from a previous run of uringtuned");
		attach(d, ring, s);
		if (!in->napi_decided || !agent_server_drives(ring))
			continue;
		if (d->cfg.mode == UT_MODE_TUNE && ring->napi.enabled) {
			struct tuner_setting cur;

			tuning_readopt(ring, now_ns(), &cur);
			ring->agent_want = cur;
			log_info("agent: ring pid=%d comm=%s fd=%d re-adopted (%u us)", sl.pid,
				 ring->holder.comm, sl.fd, cur.busy_poll_us);
		} else if (d->cfg.mode == UT_MODE_TUNE) {
			/* switched off when the last run stopped: on again */
			struct tuner_setting first;

			tuner_initial(&d->cfg.napi, NULL, 0, now_ns(), &ring->tuner, &first);
			ring->managed_by = UT_MANAGED_URINGTUNE;
			if (agent_server_publish(d, ring, &first, err, sizeof(err)) == 0)
				log_info("agent: ring pid=%d comm=%s fd=%d: NAPI %u us again, at its "
					 "next submit or wait", sl.pid, ring->holder.comm, sl.fd,
					 first.busy_poll_us);
		} else if (ring->napi.enabled) {
			static const struct tuner_setting off = { .enabled = false };

			/* observe mode: what a previous tune-mode run switched on goes off */
			ring->managed_by = UT_MANAGED_NONE;
			agent_server_publish(d, ring, &off, err, sizeof(err));
			log_info("agent: ring pid=%d comm=%s fd=%d: observe mode: NAPI off at its "
				 "next submit or wait", sl.pid, ring->holder.comm, sl.fd);
		}
	}
}
