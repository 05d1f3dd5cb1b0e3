// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent socket's messages (HELLO, PING, RING, APP_NAPI), one per
 * connection, from a peer whose identity the kernel gave (agent_peer.c).
 * No socket here (agent_conn.c has them): agent_server_handle() takes the
 * bytes and returns the answer, so tests and the fuzz target drive it.
 *
 * Nothing a message says is believed of anyone but its sender, and of the
 * sender only what cannot hurt others: a slot is acted on only for the
 * process it was handed to, while that process lives; a ring only if that
 * process holds it (agent_slots.c); what the agent reports of its setup is
 * shown, never decided on.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "abi_names.h"
#include "agent_policy.h"
#include "agent_server.h"
#include "agent_server_priv.h"
#include "clock.h"
#include "log.h"
#include "setup_flags.h"

const char *const agent_refusal_names[] = {
	[AGENT_REFUSED_NO_PAGE] = "no_page",
	[AGENT_REFUSED_PAGE_FULL] = "page_full",
	[AGENT_REFUSED_QUOTA_SLOTS] = "quota_slots",
	[AGENT_REFUSED_QUOTA_PENDING] = "quota_pending",
	[AGENT_REFUSED_CONNS] = "connections",
	[AGENT_REFUSED_TIMEOUT] = "timeout",
	[AGENT_REFUSED_PEER_GONE] = "peer_gone",
	[AGENT_REFUSED_NOT_OWNER] = "not_owner",
	[AGENT_REFUSED_FOREIGN_RING] = "foreign_ring",
	[AGENT_REFUSED_INODE] = "inode",
	[AGENT_REFUSED_BAD_MESSAGE] = "bad_message",
	[AGENT_REFUSED_NR] = NULL,
};

/*
 * A program that exits right after its setup, or is killed before it
 * speaks, is no attack: those go to the debug log. The others are warnings,
 * at most one line a minute per uid.
 */
static bool refusal_is_quiet(enum agent_refusal why)
{
	return why == AGENT_REFUSED_PEER_GONE || why == AGENT_REFUSED_TIMEOUT ||
	       why == AGENT_REFUSED_NO_PAGE;
}

void agent_server_refuse(struct ut_agent_server *a, enum agent_refusal why, uid_t uid,
			 const char *fmt, ...)
{
	uint32_t suppressed;
	char msg[256], more[96] = "";
	va_list ap;
	uid_t as;

	a->refusals[why]++;
	if (refusal_is_quiet(why) && log_get_level() < LOG_DEBUG)
		return;
	if (!refusal_is_quiet(why) && !agent_ratelimit(&a->rl, uid, now_ns(), &suppressed, &as))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (refusal_is_quiet(why)) {
		log_debug("agent: %s", msg);
		return;
	}
	if (suppressed && as == AGENT_RL_OTHERS)
		snprintf(more, sizeof(more), " (and %u refusals of other users in the last "
			 "minute)", suppressed);
	else if (suppressed)
		snprintf(more, sizeof(more), " (and %u more of uid %u in the last minute)",
			 suppressed, (unsigned int)uid);
	log_warn("agent: %s%s; refusals of uid %u are logged at most once a minute",
		 msg, more, (unsigned int)uid);
}

static void answer(struct agent_answer *ans, int status, uint32_t slot, uint64_t token,
		   const char *why, bool with_page)
{
	size_t n;

	ans->send = true;
	ans->with_page = with_page;
	ans->reply.type = UT_AGENT_REPLY;
	ans->reply.version = UT_AGENT_PROTO_VERSION;
	ans->reply.status = status;
	ans->reply.slot = slot;
	ans->reply.token = token;
	/* truncated to the reply's room (a path in page_error may be longer) */
	for (n = 0; n + 1 < sizeof(ans->reply.why) && why[n]; n++)
		ans->reply.why[n] = why[n];
	ans->reply.why[n] = '\0';
}

/* no page, no decision: the agent sets the ring up as asked; why, for exec -v */
static void answer_no_page(const struct ut_agent_server *a, struct agent_answer *ans)
{
	answer(ans, -ENODEV, 0, 0, a->page_error[0] ? a->page_error : "no policy page", false);
}

/* `uringtune exec` asks before it starts the program */
static void on_ping(struct ut_agent_server *a, const struct ut_agent_hello *h,
		    struct agent_answer *ans)
{
	char why[128];

	if (!as_have_page(a)) {
		answer_no_page(a, ans);
		return;
	}
	if (a->cfg->mode != UT_MODE_TUNE)
		snprintf(why, sizeof(why), "observe mode: uringtune changes nothing (hybrid %s, "
			 "napi %s asked)", agent_want_name(h->hybrid), agent_want_name(h->napi));
	else
		snprintf(why, sizeof(why), "tune mode: hybrid %s, napi %s; decided per ring at "
			 "setup", agent_want_name(h->hybrid), agent_want_name(h->napi));
	answer(ans, 0, 0, 0, why, false);
}

/* may this peer have one more slot? If not, answered and counted */
static bool hello_admitted(struct ut_agent_server *a, const struct agent_peer *peer,
			   const char *comm, struct agent_answer *ans)
{
	const struct agent_id *id = &peer->id;
	unsigned int slots, pending;
	struct agent_limits lim;
	char why[128];

	agent_server_limits(a, &lim);
	agent_server_slots_of(a, id->uid, &slots, &pending);
	switch (agent_quota_hello(&lim, slots, pending)) {
	case AGENT_QUOTA_OK:
		return true;
	case AGENT_QUOTA_SLOTS:
		snprintf(why, sizeof(why), "uid %u holds %u slots of the policy page, its quota "
			 "([agent] slots_per_uid)", (unsigned int)id->uid, slots);
		agent_server_refuse(a, AGENT_REFUSED_QUOTA_SLOTS, id->uid, "pid %d comm %s: %s: "
				    "its ring is set up unchanged", id->pid, comm, why);
		break;
	case AGENT_QUOTA_PENDING:
		snprintf(why, sizeof(why), "uid %u has %u ring setups under way, the most one "
			 "user may have", (unsigned int)id->uid, pending);
		agent_server_refuse(a, AGENT_REFUSED_QUOTA_PENDING, id->uid, "pid %d comm %s: "
				    "%s: its ring is set up unchanged", id->pid, comm, why);
		break;
	}
	a->refused++;
	answer(ans, -EDQUOT, 0, 0, why, false);
	return false;
}

static void on_hello(struct ut_agent_server *a, const struct agent_peer *peer,
		     const struct ut_agent_hello *h, struct agent_answer *ans)
{
	const struct lifecycle_env *env = &a->lc->env;
	struct agent_context ctx = { .mode = a->cfg->mode, .napi_supported = a->lc->napi_supported };
	struct agent_request req = {
		.setup_flags = h->setup_flags,
		.hybrid = h->hybrid,
		.napi = h->napi,
	};
	pid_t pid = peer->id.pid;
	struct agent_decision dec;
	struct agent_slot_info *in;
	char comm[UT_COMM_LEN], flags[160];
	int slot;

	if (!as_have_page(a)) {
		a->refused++;
		a->refusals[AGENT_REFUSED_NO_PAGE]++;
		answer_no_page(a, ans);
		return;
	}
	/* no one to answer, and a slot its pid's next process must not inherit */
	if (!a->sys->alive(peer)) {
		a->refused++;
		agent_server_refuse(a, AGENT_REFUSED_PEER_GONE, peer->id.uid, "pid %d: HELLO "
				    "from a process that has exited: ignored", pid);
		return;
	}
	a->sys->comm(pid, comm, sizeof(comm));
	if (!hello_admitted(a, peer, comm, ans))
		return;
	req.comm = comm;
	ctx.selected = env->selects(env->arg, pid, comm, &ctx.select_why);
	as_hybrid_context(a, pid, comm, &ctx);
	ctx.hybrid_absent = hybrid_support_absent(a->hybrid);
	agent_decide(&req, a->cfg, &ctx, &dec);

	slot = as_alloc_slot(a, peer);
	if (slot < 0) {
		a->refused++;
		agent_server_refuse(a, AGENT_REFUSED_PAGE_FULL, peer->id.uid, "pid %d comm %s: %s: "
				    "its ring is set up unchanged", pid, comm, slot == -ENOSPC ?
				    "every slot of the policy page is taken" :
				    "no file descriptor left to follow the process");
		answer(ans, slot, 0, 0, slot == -ENOSPC ? "the policy page is full" :
		       "uringtuned is out of file descriptors", false);
		return;
	}
	in = &a->info[slot];
	in->entry = h->entry;
	in->hybrid_decided = dec.hybrid;
	in->napi_decided = dec.napi;
	in->napi_setting = dec.napi_setting;
	snprintf(in->why, sizeof(in->why), "%s", dec.why);
	agent_slot_set_flags(a->page.pg, slot, dec.hybrid ? UT_SLOT_HYBRID : 0);
	if (dec.napi)
		agent_slot_set_napi(a->page.pg, slot, &dec.napi_setting);
	answer(ans, 0, slot, in->token, dec.why, true);
	ans->slot = slot;
	a->requests++;
	log_debug("agent: pid %d comm %s, ring setup (%s) via %s: slot %d: %s", pid, comm,
		  setup_flags_str(h->setup_flags, flags, sizeof(flags)),
		  agent_entry_name(h->entry), slot, dec.why);
}

void agent_server_unanswered(struct ut_agent_server *a, const struct agent_answer *ans)
{
	if (ans->slot < 0 || !as_have_page(a))
		return;
	/* the agent gave up waiting (or died): it sets the ring up unchanged */
	as_free_slot(a, ans->slot);
	a->requests--;
	a->refused++;
	a->refusals[AGENT_REFUSED_PEER_GONE]++;
}

/*
 * The slot a RING or APP_NAPI names, if it is the sender's: handed to this
 * very process (pid, start time, uid) with this token, and that process is
 * still alive. 0, or the refusal.
 */
static int senders_slot(const struct ut_agent_server *a, const struct agent_peer *peer,
			const struct ut_agent_ring *m)
{
	const struct agent_slot_info *in;

	if (!as_have_page(a) || m->slot >= UT_AGENT_PAGE_SLOTS)
		return AGENT_REFUSED_NOT_OWNER;
	in = &a->info[m->slot];
	if (!in->hello_ns || !m->token || in->token != m->token ||
	    !agent_id_same(&peer->id, &in->owner.id))
		return AGENT_REFUSED_NOT_OWNER;
	/* the sender exited: a later process with its pid is not its heir */
	if (!a->sys->alive(peer))
		return AGENT_REFUSED_PEER_GONE;
	/* the owner exited and the sender took its pid within the same tick */
	if (in->owner.pidfd >= 0 && !a->sys->alive(&in->owner))
		return AGENT_REFUSED_NOT_OWNER;
	return 0;
}

static void refuse_msg(struct ut_agent_server *a, const struct agent_peer *peer, int why,
		       const char *what, const struct ut_agent_ring *m, const char *detail)
{
	agent_server_refuse(a, why, peer->id.uid, "pid %d uid %u: %s for slot %u (fd %d, inode "
			    "%llu) refused: %s", peer->id.pid, (unsigned int)peer->id.uid, what,
			    m->slot, m->fd, (unsigned long long)m->ino, detail);
}

static const char *refusal_text(int why)
{
	switch (why) {
	case AGENT_REFUSED_NOT_OWNER:
		return "not a slot handed to this process";
	case AGENT_REFUSED_PEER_GONE:
		return "the process has exited";
	default:
		return agent_refusal_names[why];
	}
}

static void on_ring(struct ut_agent_server *a, const struct agent_peer *peer,
		    const struct ut_agent_ring *m)
{
	struct agent_slot_info *in;
	int why;

	why = senders_slot(a, peer, m);
	if (why) {
		refuse_msg(a, peer, why, "RING", m, refusal_text(why));
		return;
	}
	in = &a->info[m->slot];
	if (in->announced) {
		refuse_msg(a, peer, AGENT_REFUSED_NOT_OWNER, "RING", m,
			   "the slot's ring was announced already");
		return;
	}
	if (m->fd < 0 || m->setup_ret < 0) {
		/* the setup failed: nothing to steer */
		as_free_slot(a, m->slot);
		return;
	}
	if (!m->ino) {
		refuse_msg(a, peer, AGENT_REFUSED_INODE, "RING", m, "no inode (it is required)");
		as_free_slot(a, m->slot);
		return;
	}
	in->announced = true;
	in->fd = m->fd;
	in->ino = m->ino;
	in->reported = (struct agent_report){
		.hybrid_added = m->hybrid_added,
		.hybrid_fallback = m->hybrid_fallback,
		.napi_tried = m->napi_tried,
		.napi_ret = m->napi_ret,
	};
	as_save_owner(a, m->slot);
	/* the create event came before this message (the caller drained the events) */
	if (as_try_attach(a, m->slot) < 0)
		as_free_slot(a, m->slot);
}

static void on_app_napi(struct ut_agent_server *a, const struct agent_peer *peer,
			const struct ut_agent_ring *m)
{
	const struct agent_slot_info *in;
	int why, ret;

	why = senders_slot(a, peer, m);
	if (why) {
		refuse_msg(a, peer, why, "APP_NAPI", m, refusal_text(why));
		return;
	}
	in = &a->info[m->slot];
	if (!in->announced || !m->ino || m->fd != in->fd || m->ino != in->ino) {
		refuse_msg(a, peer, AGENT_REFUSED_INODE, "APP_NAPI", m,
			   "not the ring its slot holds");
		return;
	}
	/* and another file is not there now (what cannot be told: as for RING) */
	ret = a->sys->holds(peer, m->fd, m->ino);
	if (ret == -ESTALE) {
		refuse_msg(a, peer, AGENT_REFUSED_FOREIGN_RING, "APP_NAPI", m,
			   "the process holds another file at that fd");
		return;
	}
	/*
	 * No more decisions through the slot. Whose the ring is then is the
	 * kernel's to say: the program's register call, seen by BPF
	 * (lifecycle_on_register()), makes it the application's.
	 */
	as_forget_napi(a, m->slot);
	log_debug("agent: pid %d: slot %u: the program registers NAPI itself", peer->id.pid,
		  m->slot);
}

/* the message's size and version; its type in *@type */
static bool well_formed(const void *msg, size_t len, uint32_t *type)
{
	const struct ut_agent_hello *h = msg;
	const struct ut_agent_ring *r = msg;

	if (len < sizeof(uint32_t))
		return false;
	memcpy(type, msg, sizeof(*type));
	switch (*type) {
	case UT_AGENT_HELLO:
	case UT_AGENT_PING:
		return len == sizeof(*h) && h->version == UT_AGENT_PROTO_VERSION;
	case UT_AGENT_RING:
	case UT_AGENT_APP_NAPI:
		return len == sizeof(*r) && r->version == UT_AGENT_PROTO_VERSION;
	default:
		return false;
	}
}

void agent_server_handle(struct ut_agent_server *a, const struct agent_peer *peer,
			 const void *msg, size_t len, struct agent_answer *ans)
{
	union {
		struct ut_agent_hello hello;
		struct ut_agent_ring ring;
	} m;
	uint32_t type = 0;

	memset(ans, 0, sizeof(*ans));
	ans->slot = -1;
	/* a message of the wrong size or version is not answered at all */
	if (!well_formed(msg, len, &type)) {
		agent_server_refuse(a, AGENT_REFUSED_BAD_MESSAGE, peer->id.uid, "pid %d uid %u: "
				    "malformed message (type %u, %zu bytes) ignored", peer->id.pid,
				    (unsigned int)peer->id.uid, type, len);
		return;
	}
	/* aligned copies: the caller's bytes may sit anywhere */
	memcpy(&m, msg, len);
	switch (type) {
	case UT_AGENT_PING:
		on_ping(a, &m.hello, ans);
		break;
	case UT_AGENT_HELLO:
		on_hello(a, peer, &m.hello, ans);
		break;
	case UT_AGENT_RING:
		on_ring(a, peer, &m.ring);
		break;
	case UT_AGENT_APP_NAPI:
		on_app_napi(a, peer, &m.ring);
		break;
	}
}
