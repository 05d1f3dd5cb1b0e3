/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's ABI: what liburingtune-agent.so (agent/, loaded into a program
 * with LD_PRELOAD) and uringtuned (daemon/agent_*.c) exchange. Both sides, and
 * `uringtune exec` (cli/), include this file; nothing else crosses.
 *
 * Two channels:
 *
 * 1. The agent socket (AF_UNIX, SOCK_SEQPACKET, default UT_AGENT_SOCKET),
 *    one connection per message. Only at ring setup, never on a request path:
 *      - before io_uring_setup: struct ut_agent_hello; the daemon answers
 *        struct ut_agent_reply with the policy page's fd (SCM_RIGHTS), the
 *        slot it wrote its decision for this ring into, and that slot's
 *        token (random, new for every HELLO answered);
 *      - after io_uring_setup: struct ut_agent_ring (no answer), with the
 *        slot and its token;
 *      - when the program registers or unregisters NAPI itself on a ring the
 *        agent set up: struct ut_agent_ring with type UT_AGENT_APP_NAPI (no
 *        answer): from then on the program manages that ring.
 *    Who the peer is comes from the kernel, never from a message: its
 *    process (SO_PEERPIDFD, a pidfd that no later process can take over,
 *    and its start time), its uid (SO_PEERCRED). The daemon acts for a
 *    peer only while that very process lives, on a slot it was handed, and
 *    on a ring that process holds (the fd and inode it names, both
 *    required and checked against the kernel's view).
 *
 * 2. The policy page: a file the daemon owns and writes (tmpfs, under /run,
 *    mode 0600: agents get it only as the fd of a reply), mapped read-only by
 *    every agent. One slot per ring the agent set up, holding the daemon's
 *    decisions and the slot's token, nothing that names a process or a ring
 *    (no pid, fd or inode): every agent reads every slot, so the page must
 *    tell one user nothing about another's programs. The daemon writes a
 *    slot under a sequence lock and then bumps the page's generation. On its
 *    interposed submit and wait calls the agent loads that generation (one
 *    atomic load) and does more only when it changed.
 *
 * Any message or page the agent does not understand (wrong size, magic,
 * version, a slot whose token is not the one it was handed) makes it act
 * exactly as if it were not loaded.
 */
#ifndef UT_AGENT_ABI_H
#define UT_AGENT_ABI_H

#include <linux/types.h>

#include "paths.h"	/* UT_AGENT_SOCKET */

/* environment of a program started by `uringtune exec` */
#define UT_AGENT_ENV_POLICY		"URINGTUNE_AGENT_POLICY"	/* "hybrid=on,napi=on" */
#define UT_AGENT_ENV_SOCKET		"URINGTUNE_AGENT_SOCKET"	/* overrides UT_AGENT_SOCKET */
#define UT_AGENT_ENV_DEBUG		"URINGTUNE_AGENT_DEBUG"		/* "1": a stderr line per ring */

#define UT_AGENT_PROTO_VERSION		2
/* the agent waits this long for the daemon's answer, then goes on without it */
#define UT_AGENT_REPLY_TIMEOUT_MS	250

/* what the program's policy (exec flags or config rules) asks for */
enum ut_agent_want {
	UT_WANT_UNSET = 0,	/* not said: the daemon's config rules decide */
	UT_WANT_OFF = 1,
	UT_WANT_ON = 2,
	UT_WANT_AUTO = 3,	/* hybrid only: as the IOPOLL advisor says */
};

/* which entry point set the ring up */
enum ut_agent_entry {
	UT_ENTRY_SYSCALL = 1,		/* libc syscall(__NR_io_uring_setup, ...) */
	UT_ENTRY_LIBURING = 2,		/* io_uring_queue_init{,_params} */
	UT_ENTRY_LIBURING_SETUP = 3,	/* liburing's io_uring_setup() wrapper */
};

enum ut_agent_msg_type {
	UT_AGENT_HELLO = 1,	/* before setup: what does the daemon want for this ring? */
	UT_AGENT_REPLY = 2,	/* the answer to HELLO or PING */
	UT_AGENT_RING = 3,	/* after setup: the ring that came of it */
	UT_AGENT_APP_NAPI = 4,	/* the program registered NAPI itself on that ring */
	UT_AGENT_PING = 5,	/* `uringtune exec`: is a daemon there, and what will it do? */
};

/* agent -> daemon, before io_uring_setup (also PING, with the policy only) */
struct ut_agent_hello {
	__u32 type;		/* UT_AGENT_HELLO or UT_AGENT_PING */
	__u32 version;		/* UT_AGENT_PROTO_VERSION */
	__u32 setup_flags;	/* IORING_SETUP_* the program asked for */
	__u32 entries;
	__u8 hybrid;		/* enum ut_agent_want */
	__u8 napi;		/* enum ut_agent_want: ON, OFF or UNSET */
	__u8 entry;		/* enum ut_agent_entry */
	__u8 pad[5];
};

/* daemon -> agent */
struct ut_agent_reply {
	__u32 type;		/* UT_AGENT_REPLY */
	__u32 version;
	__s32 status;		/* 0: page fd attached, slot valid; else -errno, no fd */
	__u32 slot;		/* index into ut_agent_page.slots */
	__u64 token;		/* the slot's token while it is this ring's (never 0) */
	char why[128];		/* the decision in words, NUL-terminated */
};

/*
 * agent -> daemon, after io_uring_setup (type RING) or on the program's own
 * NAPI call. What the agent reports of its setup (hybrid_*, napi_*) is
 * shown in status as its words; the daemon decides nothing on it (the ring's
 * flags and the register calls come from the kernel, through BPF).
 */
struct ut_agent_ring {
	__u32 type;		/* UT_AGENT_RING or UT_AGENT_APP_NAPI */
	__u32 version;
	__u32 slot;		/* from the reply */
	__s32 fd;		/* the ring's fd in the program; -1 if setup failed */
	__u64 token;		/* from the reply */
	__u64 ino;		/* the ring file's inode (fstat), 0 if setup failed */
	__u32 setup_flags;	/* the flags the ring was set up with */
	__s32 setup_ret;	/* 0 or -errno of io_uring_setup */
	__u8 hybrid_added;	/* HYBRID_IOPOLL was added and kept */
	__u8 hybrid_fallback;	/* ... refused by the kernel: set up with the original flags */
	__u8 napi_tried;	/* NAPI registered from the submitting thread after setup */
	__u8 pad;
	__s32 napi_ret;		/* that call's result, 0 or -errno */
};

#define UT_AGENT_PAGE_MAGIC	0x47415455u	/* "UTAG" in memory on little endian */
#define UT_AGENT_PAGE_VERSION	2
#define UT_AGENT_PAGE_SLOTS	1024
#define UT_AGENT_MAX_IDS	8		/* as UT_MAX_NAPI_IDS */
#define UT_AGENT_MAX_BUSY_POLL_US	1000000	/* anything above is not a decision */

/* ut_agent_slot.flags */
#define UT_SLOT_HYBRID		(1U << 0)	/* add HYBRID_IOPOLL to this IOPOLL ring at setup */
#define UT_SLOT_NAPI		(1U << 1)	/* the NAPI fields below are live: apply them */

/*
 * One ring's decision. The daemon writes it as: seq++ (odd), fields, seq++
 * (even, a release store), then page->gen++ (a release add): an agent that
 * loads gen with acquire and sees it changed sees the slot's writes. The
 * agent reads seq (even), the fields, seq again: equal means a consistent
 * copy. gen never reaches 2^63 (the agent keeps bit 63 of its own copy as a
 * marker).
 *
 * The token says whose a slot is: the daemon draws a new one (random, never
 * 0) each time it hands the slot out and tells it only to that HELLO's
 * peer; 0 is a free slot. An agent acts on a slot only while it holds the
 * token it was handed: a slot freed or handed to another ring meanwhile is
 * not its any more. The token is no secret (every agent reads every slot)
 * and the daemon never takes it as proof of anything.
 */
struct ut_agent_slot {
	__u32 seq;
	__u32 flags;		/* UT_SLOT_* */
	__u64 token;		/* whose the slot is; 0: free */
	__u32 napi_gen;		/* bumped with every new NAPI decision */
	__u32 busy_poll_us;	/* 1..UT_AGENT_MAX_BUSY_POLL_US when enabled */
	__u8 napi_enabled;	/* 0: switch NAPI off on the ring */
	__u8 prefer_busy_poll;
	__u8 static_ids;	/* static tracking of ids[] instead of dynamic */
	__u8 n_ids;		/* 0..UT_AGENT_MAX_IDS */
	__u32 ids[UT_AGENT_MAX_IDS];
	__u32 reserved[5];
};

struct ut_agent_page {
	__u32 magic;		/* UT_AGENT_PAGE_MAGIC */
	__u32 version;		/* UT_AGENT_PAGE_VERSION */
	__u32 size;		/* bytes of the whole file */
	__u32 nslots;		/* UT_AGENT_PAGE_SLOTS */
	__u64 gen;		/* bumped after every slot change */
	__s32 daemon_pid;	/* the daemon that writes it; 0 after it stopped */
	__u32 reserved[9];
	struct ut_agent_slot slots[];
};

#define UT_AGENT_PAGE_SIZE(n)	(sizeof(struct ut_agent_page) + (n) * sizeof(struct ut_agent_slot))

_Static_assert(sizeof(struct ut_agent_hello) == 24, "ut_agent_hello is 24 bytes");
_Static_assert(sizeof(struct ut_agent_reply) == 152, "ut_agent_reply is 152 bytes");
_Static_assert(sizeof(struct ut_agent_ring) == 48, "ut_agent_ring is 48 bytes");
_Static_assert(sizeof(struct ut_agent_slot) == 80, "ut_agent_slot is 80 bytes");
_Static_assert(sizeof(struct ut_agent_page) == 64, "ut_agent_page header is 64 bytes");

#endif /* UT_AGENT_ABI_H */
