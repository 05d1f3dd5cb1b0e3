/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The policy page (common/agent_abi.h): a file on tmpfs that uringtuned maps
 * read-write and every agent maps read-only. One slot per ring set up
 * through an agent. The slot functions work on memory only (unit-tested on
 * a buffer); agent_page_open() and agent_page_close() are the file's edge.
 *
 * The file is never truncated or shrunk once created: agents map it, and a
 * shrunk mapping would SIGBUS inside the program. A file of another size or
 * version is replaced by rename, leaving old mappings intact.
 */
#ifndef UT_AGENT_PAGE_H
#define UT_AGENT_PAGE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent_abi.h"
#include "tuner.h"

struct agent_page {
	struct ut_agent_page *pg;	/* NULL: no page, agents get no answer */
	size_t size;
	int ro_fd;			/* read-only, handed to agents (SCM_RIGHTS) */
	bool reused;			/* the file of a previous run was taken over */
	char path[PATH_MAX];
};

/*
 * Map @path, reusing a valid page left by a previous daemon (its slots
 * still steer running programs), else creating one (mode 0644: agents of
 * every user read it; only root writes). 0 or -errno with err set.
 */
int agent_page_open(struct agent_page *ap, const char *path, pid_t self, char *err,
		    size_t errlen);
/* the daemon stops: daemon_pid 0; the file stays for the agents and the next run */
void agent_page_close(struct agent_page *ap);

/* pure over memory */
void agent_page_init(struct ut_agent_page *pg, uint32_t nslots, pid_t self);
/* a page a previous run left: magic, version, size as this build makes them */
bool agent_page_usable(const struct ut_agent_page *pg, size_t size);

/* a free slot for @pid (fd -1, no decision yet), or -ENOSPC */
int agent_slot_alloc(struct ut_agent_page *pg, pid_t pid);
void agent_slot_free(struct ut_agent_page *pg, uint32_t idx);
/* the ring the slot's decision is for, once the agent announced it */
void agent_slot_set_ring(struct ut_agent_page *pg, uint32_t idx, int fd, uint64_t ino);
/* setup decisions: HYBRID (add HYBRID_IOPOLL) and/or a first NAPI setting */
void agent_slot_set_flags(struct ut_agent_page *pg, uint32_t idx, uint32_t flags);
/* a new NAPI decision (napi_gen + 1); flags gain UT_SLOT_NAPI */
void agent_slot_set_napi(struct ut_agent_page *pg, uint32_t idx, const struct tuner_setting *s);
/* a consistent copy of a slot (for status and the tests) */
void agent_slot_read(const struct ut_agent_page *pg, uint32_t idx, struct ut_agent_slot *out);

#endif /* UT_AGENT_PAGE_H */
