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
#include "config.h"
#include "lifecycle.h"
#include "registry.h"
#include "tune_backend.h"
#include "tuner.h"
#include "uringtune.h"

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
	/* what it reads, and the lifecycle it reports rings' tuning to */
	struct ut_registry *reg;
	struct lifecycle *lc;
	const struct ut_config *cfg;	/* [agent], mode, [napi] */

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
	uint64_t app_took_over;		/* programs that registered NAPI themselves */
	uint64_t bad_messages;
};

/* nothing open: agent_server_close() closes nothing */
void agent_server_init(struct ut_agent_server *a, struct ut_registry *reg, struct lifecycle *lc,
		       const struct ut_config *cfg);

/*
 * Listen on [agent] socket and map [agent] page (both optional: a failure is
 * logged and kept in status; without a page agents are answered "no"). Call
 * after the first sweep: slots a previous run left are matched to rings.
 */
void agent_server_open(struct ut_agent_server *a);
void agent_server_close(struct ut_agent_server *a);

/* the "agent" tune backend: decisions written to the ring's slot (apply NULL: no page) */
void agent_server_backend(struct ut_agent_server *a, struct tune_backend *b);

/* the listening socket is readable: take one connection */
void agent_server_serve_one(struct ut_agent_server *a);

/* every tick: attach announced slots to their rings, free abandoned ones */
void agent_server_tick(struct ut_agent_server *a);

/* a ring left the registry: its slot goes, its IOPOLL verdict is kept */
void agent_server_ring_gone(struct ut_agent_server *a, const struct ut_ring *ring);

/* a setup under way in that process whose decision includes NAPI */
bool agent_server_setup_in_flight(const struct ut_agent_server *a, pid_t pid);

/* the program registered NAPI itself on a ring (seen by BPF): no more decisions for it */
void agent_server_app_took_over(struct ut_agent_server *a, struct ut_ring *ring);

/* what the agent said of a ring it set up (for status); NULL if not through an agent */
const struct agent_slot_info *agent_server_info(const struct ut_agent_server *a,
						const struct ut_ring *ring);

/* the settle step for slots a previous run left (tune: re-adopt; observe: restore) */
void agent_server_settle(struct ut_agent_server *a);

#endif /* UT_AGENT_SERVER_H */
