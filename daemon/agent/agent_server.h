/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's side of the in-process agent (common/agent_abi.h): the agent
 * socket, the policy page, and the rings set up through an agent. Rings
 * whose kernel refuses outside register calls (SINGLE_ISSUER, so every
 * DEFER_TASKRUN ring) are steered through their slot in the page: the
 * agent applies a decision at the ring's next submit or wait call, from the
 * submitting thread, and the daemon sees it land through the BPF register
 * event (or the next sweep).
 */
#ifndef UT_AGENT_SERVER_H
#define UT_AGENT_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent_abi.h"
#include "agent_guard.h"
#include "agent_page.h"
#include "agent_peer.h"
#include "config.h"
#include "hybrid_support.h"
#include "lifecycle.h"
#include "registry.h"
#include "tune_backend.h"
#include "tuner.h"
#include "uringtune.h"
#include "verdicts.h"

/* what the agent said of its setup: shown in status as its words, never decided on */
struct agent_report {
	bool hybrid_added;
	bool hybrid_fallback;
	bool napi_tried;
	int napi_ret;
};

/* what the daemon remembers of a slot from the HELLO on */
struct agent_slot_info {
	uint64_t hello_ns;		/* handed out; 0 when free */
	uint64_t token;			/* the page slot's */
	/*
	 * The HELLO's peer. Its pidfd is kept while the slot waits for its
	 * ring (so that a dead owner frees it at once, and no later process
	 * with its pid is taken for it); closed once the ring is attached,
	 * whose life the registry follows from then on.
	 */
	struct agent_peer owner;
	uint64_t ctx;			/* the ring it is attached to, 0 until then */
	bool announced;			/* RING came: fd and inode known */
	int fd;
	uint64_t ino;
	bool app_napi;			/* APP_NAPI came: the program registers NAPI itself */
	uint8_t entry;			/* enum ut_agent_entry */
	bool hybrid_decided;		/* the setup decision added HYBRID_IOPOLL */
	bool napi_decided;		/* NAPI was part of the setup decision */
	struct tuner_setting napi_setting;
	struct agent_report reported;
	char why[128];
};

/* why a message, connection or slot was refused: every one is counted */
enum agent_refusal {
	AGENT_REFUSED_NO_PAGE,		/* HELLO without a policy page */
	AGENT_REFUSED_PAGE_FULL,	/* every slot taken */
	AGENT_REFUSED_QUOTA_SLOTS,	/* the user holds slots_per_uid slots */
	AGENT_REFUSED_QUOTA_PENDING,	/* ... pending_per_uid HELLOs without their ring */
	AGENT_REFUSED_CONNS,		/* too many silent connections (of the user, or in all) */
	AGENT_REFUSED_TIMEOUT,		/* no message within the deadline */
	AGENT_REFUSED_PEER_GONE,	/* the process that sent it has exited */
	AGENT_REFUSED_NOT_OWNER,	/* a slot handed to another process (or token) */
	AGENT_REFUSED_FOREIGN_RING,	/* a ring of another process or uid, or not held */
	AGENT_REFUSED_INODE,		/* no inode (0), or not the ring's */
	AGENT_REFUSED_BAD_MESSAGE,	/* size, type or version */
	AGENT_REFUSED_NR,
};

extern const char *const agent_refusal_names[];

/* the socket's connections that wait for their message (agent_conn.c) */
struct agent_conns;

struct ut_agent_server {
	/* what it reads, and the lifecycle it reports rings' tuning to */
	struct ut_registry *reg;
	struct lifecycle *lc;
	const struct ut_config *cfg;	/* [agent], mode, [napi] */
	const struct agent_sys *sys;	/* the kernel; fakes in tests */
	struct hybrid_support *hybrid;	/* HYBRID_IOPOLL on this kernel (NULL: unknown) */
	long hz;			/* clock ticks per second (start times) */

	int listen_fd;			/* -1: agents get no answer */
	struct agent_conns *conns;	/* NULL until agent_conn_start() */
	struct agent_page page;
	char page_error[PATH_MAX + 80];	/* why there is no page, "" if there is */
	struct agent_slot_info *info;	/* UT_AGENT_PAGE_SLOTS */
	/* hybrid = auto: what hybrid did for each program (NULL: nothing known) */
	const struct verdicts *verdicts;
	struct agent_ratelimit rl;	/* refusal warnings, per uid */

	/* counters, for status and metrics */
	uint64_t requests;		/* HELLOs answered with a slot */
	uint64_t refused;		/* ... without one (no page, page full, quota) */
	uint64_t refusals[AGENT_REFUSED_NR];
	uint64_t hybrid_added;		/* as the ring's flags show (BPF) */
	uint64_t hybrid_fallback;
	uint64_t napi_registered;	/* the agent's registration at setup, as BPF saw it */
	uint64_t napi_failed;
	uint64_t published;		/* later decisions written to the page */
	uint64_t app_took_over;		/* programs that registered NAPI themselves */
	uint64_t slots_replaced;	/* a ring announced again: its old slot freed */
};

/* the limits in force: [agent] slots_per_uid and the fixed ones (agent_guard.h) */
void agent_server_limits(const struct ut_agent_server *a, struct agent_limits *l);

/* nothing open: agent_server_close() closes nothing */
void agent_server_init(struct ut_agent_server *a, struct ut_registry *reg, struct lifecycle *lc,
		       const struct ut_config *cfg);

/*
 * Listen on [agent] socket and map [agent] page (both optional: a failure is
 * logged and kept in status; without a page agents are answered "no"). Call
 * after the first sweep: slots a previous run left are matched to rings.
 */
void agent_server_open(struct ut_agent_server *a);
/*
 * No socket, a page in memory: for driving agent_server_handle() directly
 * (unit tests, the fuzz target), with a->sys set to a fake first if need
 * be. 0 or -ENOMEM.
 */
int agent_server_open_mem(struct ut_agent_server *a);
void agent_server_close(struct ut_agent_server *a);

/* the "agent" tune backend: decisions written to the ring's slot (apply NULL: no page) */
void agent_server_backend(struct ut_agent_server *a, struct tune_backend *b);

/* what to send back for one message */
struct agent_answer {
	bool send;			/* false: close without an answer */
	bool with_page;			/* the page's fd goes with it (SCM_RIGHTS) */
	int slot;			/* >= 0: handed out by this answer (freed if unsent) */
	struct ut_agent_reply reply;
};

/*
 * One message from @peer (who it is comes from the kernel: agent_peer.c),
 * the @len bytes received: what it changes, and the answer, if any, in
 * @ans. No socket here: agent_conn.c brings the bytes and sends the
 * answer; the unit tests and the fuzz target call it directly. The kernel
 * is asked through a->sys only.
 */
void agent_server_handle(struct ut_agent_server *a, const struct agent_peer *peer,
			 const void *msg, size_t len, struct agent_answer *ans);
/* the answer could not be sent: the agent sets its ring up unchanged */
void agent_server_unanswered(struct ut_agent_server *a, const struct agent_answer *ans);
/* count a refusal; a warning line at most once a minute per uid (@fmt: what, for whom) */
void agent_server_refuse(struct ut_agent_server *a, enum agent_refusal why, uid_t uid,
			 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* slots in use: all, or @uid's (and of those, how many wait for their ring) */
unsigned int agent_server_slots_used(const struct ut_agent_server *a);
void agent_server_slots_of(const struct ut_agent_server *a, uid_t uid, unsigned int *slots,
			   unsigned int *pending);

/*
 * Every tick: attach announced slots to their rings, free the slots of
 * owners gone or abandoned, say the refusals the rate limit held back.
 */
void agent_server_tick(struct ut_agent_server *a);

/* a ring left the registry: its slot goes, its IOPOLL verdict is kept */
void agent_server_ring_gone(struct ut_agent_server *a, const struct ut_ring *ring);

/*
 * A NAPI register call on a ring (BPF event @ev) while its process sets it
 * up through its agent with NAPI in the decision: true when the call is
 * that setup's (a SINGLE_ISSUER ring not attached yet, the call from its
 * process, which is the live owner of a slot waiting for its ring); the
 * call and its result are then kept with the ring, for the lifecycle when
 * the slot is attached. This is what the daemon believes of the agent's
 * registration at setup, not what the agent reports.
 */
bool agent_server_setup_register(struct ut_agent_server *a, struct ut_ring *ring,
				 const struct ut_event *ev);

/* the program registered NAPI itself on a ring (seen by BPF): no more decisions for it */
void agent_server_app_took_over(struct ut_agent_server *a, struct ut_ring *ring);

/* what the agent said of a ring it set up (for status); NULL if not through an agent */
const struct agent_slot_info *agent_server_info(const struct ut_agent_server *a,
						const struct ut_ring *ring);

/* the settle step for slots a previous run left (tune: re-adopt; observe: restore) */
void agent_server_settle(struct ut_agent_server *a);

#endif /* UT_AGENT_SERVER_H */
