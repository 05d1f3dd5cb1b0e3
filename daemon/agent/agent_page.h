/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The policy page (common/agent_abi.h): a file on tmpfs that uringtuned maps
 * read-write and every agent maps read-only. One slot per ring set up
 * through an agent, holding decisions and a token, nothing that names a
 * process or a ring: every agent reads every slot.
 *
 * Whose each slot is (process, uid, ring) only the daemon knows: the owners
 * file beside the page (PAGE.owners, mode 0600, never handed out), so that a
 * restarted daemon finds the rings of the slots it takes over. The slot
 * functions work on memory only (unit-tested on a buffer);
 * agent_page_open() and agent_page_close() are the files' edge.
 *
 * The page is never truncated or shrunk once created: agents map it, and a
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

/* whose a slot is: the daemon's own record, in the owners file */
struct agent_owner_rec {
	uint64_t token;		/* the page slot's token when this was written; 0: free */
	int32_t pid;
	uint32_t uid;
	uint64_t start_ticks;	/* /proc/PID/stat field 22 */
	int32_t fd;		/* the ring's fd in that process; -1 until announced */
	uint32_t pad;
	uint64_t ino;		/* its inode; 0 until announced */
};

#define AGENT_OWNERS_MAGIC	0x4f415455u	/* "UTAO" */
#define AGENT_OWNERS_VERSION	1

struct agent_owners {
	uint32_t magic;
	uint32_t version;
	uint32_t nslots;
	uint32_t pad;
	struct agent_owner_rec recs[];
};

#define AGENT_OWNERS_SIZE(n)	(sizeof(struct agent_owners) + (n) * sizeof(struct agent_owner_rec))

struct agent_page {
	struct ut_agent_page *pg;	/* NULL: no page, agents get no answer */
	size_t size;
	struct agent_owners *own;	/* beside it, same slot count */
	size_t own_size;
	int ro_fd;			/* read-only, handed to agents (SCM_RIGHTS) */
	bool reused;			/* the page of a previous run was taken over */
	bool owners_reused;		/* ... and its owners file too */
	bool in_memory;			/* agent_page_mem(): no files (tests, fuzzing) */
	char path[PATH_MAX];
};

/*
 * Map @path and @path.owners, reusing a valid pair left by a previous
 * daemon (its slots still steer running programs), else creating them
 * (mode 0600: agents get the page only as the fd of a reply; only root
 * writes). 0 or -errno with err set.
 */
int agent_page_open(struct agent_page *ap, const char *path, pid_t self, char *err,
		    size_t errlen);
/* the daemon stops: daemon_pid 0; the files stay for the agents and the next run */
void agent_page_close(struct agent_page *ap);
/* a page and owners in memory, no file (unit tests, fuzzing); 0 or -ENOMEM */
int agent_page_mem(struct agent_page *ap, pid_t self);

/* pure over memory */
void agent_page_init(struct ut_agent_page *pg, uint32_t nslots, pid_t self);
/* a page a previous run left: magic, version, size as this build makes them */
bool agent_page_usable(const struct ut_agent_page *pg, size_t size);

/* a free slot, handed out with @token (never 0; no decision yet), or -ENOSPC */
int agent_slot_alloc(struct ut_agent_page *pg, uint64_t token);
void agent_slot_free(struct ut_agent_page *pg, uint32_t idx);
/* setup decisions: HYBRID (add HYBRID_IOPOLL) and/or a first NAPI setting */
void agent_slot_set_flags(struct ut_agent_page *pg, uint32_t idx, uint32_t flags);
/* a new NAPI decision (napi_gen + 1); flags gain UT_SLOT_NAPI */
void agent_slot_set_napi(struct ut_agent_page *pg, uint32_t idx, const struct tuner_setting *s);
/* a consistent copy of a slot (for status and the tests) */
void agent_slot_read(const struct ut_agent_page *pg, uint32_t idx, struct ut_agent_slot *out);

/* an owners file (header) this build can take over, for a page of @nslots */
bool agent_owners_usable(const struct agent_owners *own, size_t size, uint32_t nslots);
/* the record of slot @idx (token 0: free) */
void agent_owner_set(struct agent_page *ap, uint32_t idx, const struct agent_owner_rec *r);

#endif /* UT_AGENT_PAGE_H */
