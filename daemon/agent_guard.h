/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent socket's guards, pure: who a peer is and whether a ring is its
 * own, how much one user may hold, and how often a user's refusals are
 * logged. The socket is world-accessible (0666: any program may opt in), so
 * every peer is a possible attacker; these decide with no I/O (the kernel's
 * answers are brought by daemon/agent/agent_peer.c) and are unit-tested with
 * struct literals (tests/unit/test_agent_guard.c).
 */
#ifndef UT_AGENT_GUARD_H
#define UT_AGENT_GUARD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent_abi.h"	/* UT_AGENT_REPLY_TIMEOUT_MS */

/*
 * A peer's process as the kernel named it when it connected: its pid
 * (SO_PEERCRED, the thread group's), its effective uid then (SO_PEERCRED)
 * and its start time (/proc/PID/stat field 22, clock ticks since boot). A
 * pid alone names whichever process has it now; pid and start time name one
 * process for good, but for one that started in the same tick, which only
 * the pidfd kept beside it (agent_peer.h) tells apart: that one is checked
 * for life before every use.
 */
struct agent_id {
	pid_t pid;
	uid_t uid;
	uint64_t start_ticks;
};

/* the same process (pid and start time), seen as the same user */
bool agent_id_same(const struct agent_id *a, const struct agent_id *b);

/*
 * Is the ring's process (the registry's holder: its pid, and its start time
 * in ns since boot as BPF read it) @id's process? @hz: clock ticks per
 * second (sysconf(_SC_CLK_TCK)); the kernel prints nsec_to_clock_t(), a
 * truncating division.
 */
bool agent_id_holds(const struct agent_id *id, pid_t pid, uint64_t start_boottime_ns, long hz);

/* what one user may hold at once */
struct agent_limits {
	unsigned int slots_per_uid;	/* policy-page slots ([agent] slots_per_uid) */
	unsigned int pending_per_uid;	/* slots handed out whose ring is not attached yet */
	unsigned int conns;		/* connections waiting for their one message */
	unsigned int conns_per_uid;	/* ... of one user */
};

/* the defaults (README, uringtune.ini(5)); slots_per_uid comes from the config */
#define AGENT_PENDING_PER_UID	16
#define AGENT_CONNS		64
#define AGENT_CONNS_PER_UID	8
/* a waiting connection's budget: the agent's own (UT_AGENT_REPLY_TIMEOUT_MS) */
#define AGENT_CONN_BUDGET_US	(UT_AGENT_REPLY_TIMEOUT_MS * 1000ULL)

enum agent_quota {
	AGENT_QUOTA_OK = 0,
	AGENT_QUOTA_SLOTS,	/* the user holds slots_per_uid slots */
	AGENT_QUOTA_PENDING,	/* ... pending_per_uid HELLOs without their ring */
};

/* may a user holding @slots slots, @pending of them pending, have one more? */
enum agent_quota agent_quota_hello(const struct agent_limits *l, unsigned int slots,
				   unsigned int pending);

/*
 * May a connection wait for its message, with @total connections waiting
 * and @of_uid of them its user's? (One whose message is already there is
 * answered at once and never waits.)
 */
bool agent_conn_admit(const struct agent_limits *l, unsigned int total, unsigned int of_uid);

/*
 * A connection that waits for its message has the agent's own budget,
 * UT_AGENT_REPLY_TIMEOUT_MS: waiting since @since_us (CLOCK_MONOTONIC), it
 * is closed at agent_conn_deadline(). The time it has left at @now_us, in
 * us: 0 at the deadline exactly and after it; never more than the whole
 * budget (a clock read out of order is no reason to wait longer).
 */
uint64_t agent_conn_deadline(uint64_t since_us);
uint64_t agent_conn_time_left(uint64_t deadline_us, uint64_t now_us);

/*
 * At most one warning line per user per AGENT_RL_WINDOW_NS. A user's first
 * refusal is logged; the next ones in its window are counted, and said
 * either in its next logged line or, once the window is over, by
 * agent_ratelimit_flush(). Users beyond AGENT_RL_UIDS at once share one
 * entry (uid AGENT_RL_OTHERS), so the log stays bounded whatever the
 * number of users.
 */
#define AGENT_RL_WINDOW_NS	(60ULL * 1000000000ULL)
#define AGENT_RL_UIDS		32
#define AGENT_RL_OTHERS		((uid_t)-1)

struct agent_rl_entry {
	bool used;
	uid_t uid;
	uint64_t since_ns;	/* the last line logged for it */
	uint32_t suppressed;	/* refusals since then not logged */
};

struct agent_ratelimit {
	struct agent_rl_entry e[AGENT_RL_UIDS + 1];	/* + the shared one */
};

/*
 * A refusal of @uid at @now: true if a line may be logged now (*@suppressed:
 * how many were not since the previous line, to say so in it); false if it
 * is only counted. *@as_uid: the entry it went to (@uid, or AGENT_RL_OTHERS).
 */
bool agent_ratelimit(struct agent_ratelimit *rl, uid_t uid, uint64_t now,
		     uint32_t *suppressed, uid_t *as_uid);

/*
 * Windows that are over with refusals not yet said: for each, @say(uid,
 * count) once; the entry is then free. Call every tick.
 */
void agent_ratelimit_flush(struct agent_ratelimit *rl, uint64_t now,
			   void (*say)(void *arg, uid_t uid, uint32_t count), void *arg);

#endif /* UT_AGENT_GUARD_H */
