/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent socket in the event loop, never blocking it. Each connection
 * is accepted at once (non-blocking); its one message, if already there
 * (an agent sends right after connecting), is answered at once; else the
 * connection waits in the loop, with a deadline of the agent's own budget
 * (UT_AGENT_REPLY_TIMEOUT_MS), within caps in all and per uid
 * (agent_guard.h): a silent peer holds a few entries of its own, never the
 * loop, and other users' agents and `uringtune status` go on.
 */
#ifndef UT_AGENT_CONN_H
#define UT_AGENT_CONN_H

#include <stdint.h>

#include <systemd/sd-event.h>

struct ut_agent_server;

/*
 * Serve a->listen_fd from @e. @drain(@arg) takes the BPF events waiting
 * (the create event of the ring a RING names must be in first). 0 or -errno.
 */
int agent_conn_start(struct ut_agent_server *a, sd_event *e, void (*drain)(void *arg),
		     void *arg);
/* every waiting connection closed, the loop's sources released (again: nothing) */
void agent_conn_stop(struct ut_agent_server *a);
/* connections waiting for their message now */
unsigned int agent_conn_waiting(const struct ut_agent_server *a);

/*
 * The deadlines' clock (CLOCK_MONOTONIC us): by default the loop's own
 * (sd_event_now()); a test's fake one, or NULL for the loop's again. Only
 * after agent_conn_start(). Each waiting connection's sd-event timer just
 * wakes the decision up; the decision (agent_conn_time_left()) reads this.
 */
void agent_conn_set_clock(struct ut_agent_server *a, uint64_t (*now_us)(void *arg), void *arg);
/* close every waiting connection whose deadline has passed by that clock: how many */
unsigned int agent_conn_expire(struct ut_agent_server *a);

#endif /* UT_AGENT_CONN_H */
