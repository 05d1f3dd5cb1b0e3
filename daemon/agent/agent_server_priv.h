/* SPDX-License-Identifier: GPL-2.0-only */
/* What the agent server's files share: the messages, the slots, the connections. */
#ifndef UT_AGENT_SERVER_PRIV_H
#define UT_AGENT_SERVER_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* not agent_server.h: a module of its own, below agent_server.c and agent_slots.c */
struct ut_agent_server;
struct agent_context;
struct ut_ring;

/* a slot handed out whose ring never came (the program hangs in between) */
#define HELLO_ABANDON_NS	(10 * 1000000000ULL)
/* an announced ring not in the registry after this long is gone */
#define ANNOUNCE_GRACE_NS	(3 * 1000000000ULL)

/* the policy page is mapped: agents get decisions */
bool as_have_page(const struct ut_agent_server *a);

/* a new slot for @peer's HELLO (its owner record written), or -ENOSPC / -EMFILE */
int as_alloc_slot(struct ut_agent_server *a, const struct agent_peer *peer);
void as_free_slot(struct ut_agent_server *a, uint32_t slot);
/* the owner record of @slot as the info says (after HELLO, after RING) */
void as_save_owner(struct ut_agent_server *a, uint32_t slot);

/*
 * An announced slot meets its ring: found by the inode the agent named,
 * held by the slot's owner (pid and start time, the uid of the ring's
 * process, the fd proven through its pidfd). 1 attached, 0 not in the
 * registry yet, or a refusal (-enum agent_refusal - 1) with the slot
 * left as it was.
 */
int as_try_attach(struct ut_agent_server *a, uint32_t slot);
/* the program manages NAPI on that slot's ring now: no NAPI decision any more */
void as_forget_napi(struct ut_agent_server *a, uint32_t slot);
/* hybrid = auto: what is known of process @pid's program (@comm), for agent_decide() */
void as_hybrid_context(const struct ut_agent_server *a, pid_t pid, const char *comm,
		       struct agent_context *ctx);

#endif /* UT_AGENT_SERVER_PRIV_H */
