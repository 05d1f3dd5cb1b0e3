/* SPDX-License-Identifier: GPL-2.0-only */
/* What the agent server's two files share: the socket side and the slot side. */
#ifndef UT_AGENT_SERVER_PRIV_H
#define UT_AGENT_SERVER_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* not agent_server.h: a module of its own, below agent_server.c and agent_slots.c */
struct ut_agent_server;
struct ut_ring;

/* a slot handed out whose ring never came (the program died in between) */
#define HELLO_ABANDON_NS	(10 * 1000000000ULL)
/* an announced ring not in the registry after this long is gone */
#define ANNOUNCE_GRACE_NS	(3 * 1000000000ULL)

/* the policy page is mapped: agents get decisions */
bool as_have_page(const struct ut_agent_server *a);

void as_free_slot(struct ut_agent_server *a, uint32_t slot);
/* the ring at (pid, fd), if it is the one with that inode (0: unknown) */
struct ut_ring *as_find_holder(struct ut_agent_server *a, pid_t pid, int fd, uint64_t ino);
/* a ring set up through the agent meets its slot */
void as_attach(struct ut_agent_server *a, struct ut_ring *ring, uint32_t slot);
/* the program manages NAPI on that ring now: the slot keeps its ring, no NAPI decision */
void as_forget_napi(struct ut_agent_server *a, uint32_t slot);
/* hybrid = auto: the advisor's verdict for that process name; -1 none */
int as_advised(const struct ut_agent_server *a, const char *comm);

#endif /* UT_AGENT_SERVER_PRIV_H */
