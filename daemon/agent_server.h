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
#include "agent_page.h"
#include "tuner.h"
#include "uringtune.h"

struct ut_daemon;
struct ut_ring;

/* what the daemon remembers of a slot between HELLO and the ring it names */
struct agent_slot_info {
	uint64_t hello_ns;		/* handed out; 0 when free */
	uint64_t ctx;			/* the ring it is attached to, 0 until then */
	bool announced;			/* RING came: fd and inode known */
	uint8_t entry;			/* enum ut_agent_entry */
	bool hybrid_added;
	bool hybrid_fallback;
	bool napi_decided;		/* NAPI was part of the setup decision */
	bool napi_tried;
	int napi_ret;
	struct tuner_setting napi_setting;
	char why[128];
};

/* the IOPOLL advisor's verdict on the last gone IOPOLL ring of a process name */
#define AGENT_HISTORY_MAX	64
struct agent_history {
	char comm[UT_COMM_LEN];
	bool recommend;
};

struct ut_agent_server {
	int listen_fd;			/* -1: agents get no answer */
	struct agent_page page;
	char page_error[PATH_MAX + 80];	/* why there is no page, "" if there is */
	struct agent_slot_info *info;	/* UT_AGENT_PAGE_SLOTS */
	struct agent_history history[AGENT_HISTORY_MAX];
	unsigned int n_history;

	/* counters, for status and metrics */
	uint64_t requests;		/* HELLOs answered with a slot */
	uint64_t refused;		/* ... without one (no page, page full, bad message) */
	uint64_t hybrid_added;
	uint64_t hybrid_fallback;
	uint64_t napi_registered;	/* the agent's registration at setup worked */
	uint64_t napi_failed;
	uint64_t published;		/* later decisions written to the page */
	uint64_t applied;		/* ... seen applied by the agent */
	uint64_t app_took_over;		/* programs that registered NAPI themselves */
	uint64_t bad_messages;
};

/*
 * Listen on [agent] socket and map [agent] page (both optional: a failure is
 * logged and kept in status; without a page agents are answered "no"). Call
 * after the first sweep: slots a previous run left are matched to rings.
 */
void agent_server_open(struct ut_daemon *d);
void agent_server_close(struct ut_daemon *d);

/* the listening socket is readable: take one connection */
void agent_server_serve_one(struct ut_daemon *d);

/* every tick: attach announced slots to their rings, free abandoned ones */
void agent_server_tick(struct ut_daemon *d);

/* a ring left the registry: its slot goes, its IOPOLL verdict is kept */
void agent_server_ring_gone(struct ut_daemon *d, const struct ut_ring *ring);

/*
 * A NAPI register event: true when it is the agent's own doing (on a ring
 * it set up, or during a setup it is doing), so the ring does not become
 * "managed by app". Updates the ring's state and the pending decision.
 */
bool agent_server_on_register(struct ut_daemon *d, struct ut_ring *ring,
			      const struct ut_event *ev);

/* the program registered NAPI itself on a ring (seen by BPF): no more decisions for it */
void agent_server_app_took_over(struct ut_daemon *d, struct ut_ring *ring);

/* what the agent said of a ring it set up (for status); NULL if not through an agent */
const struct agent_slot_info *agent_server_info(const struct ut_daemon *d,
						const struct ut_ring *ring);

/* does the daemon steer this ring through its agent (it refuses outside calls) */
bool agent_server_drives(const struct ut_ring *ring);

/* write a decision to the ring's slot; the agent applies it; 0 or -errno */
int agent_server_publish(struct ut_daemon *d, struct ut_ring *ring,
			 const struct tuner_setting *s, char *err, size_t errlen);

/* the daemon stops: every agent ring it switched NAPI on for gets it off */
void agent_server_restore_all(struct ut_daemon *d);

/* the settle step for slots a previous run left (tune: re-adopt; observe: restore) */
void agent_server_settle(struct ut_daemon *d);

#endif /* UT_AGENT_SERVER_H */
