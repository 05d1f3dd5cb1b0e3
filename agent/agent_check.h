/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's pure parts: what it accepts from its environment and from the
 * daemon, and what it derives from a decision. No I/O, no global state: the
 * unit tests (tests/unit/test_agent_check.c) link this file alone.
 */
#ifndef UT_AGENT_CHECK_H
#define UT_AGENT_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "agent_abi.h"
#include "uring_abi.h"

/* URINGTUNE_AGENT_POLICY, parsed: enum ut_agent_want each */
struct agent_policy {
	__u8 hybrid;	/* UNSET, OFF, ON or AUTO */
	__u8 napi;	/* UNSET, OFF or ON */
};

/*
 * Parse "hybrid=on|off|auto" and "napi=on|off", comma-separated, each key at
 * most once; NULL or "" says nothing. Returns 0, or -EINVAL with @p all UNSET
 * and what is wrong in @err (NUL-terminated, truncated to @errlen).
 */
int agent_policy_parse(const char *s, struct agent_policy *p, char *err, size_t errlen);

/* the slot count a page may have: anything else is not a page we know */
#define AGENT_PAGE_MAX_SLOTS	65536

/*
 * Check a policy page's header against the size of the file it came from
 * (fstat): size >= header, == hdr->size, magic, version, 1 <= nslots <=
 * AGENT_PAGE_MAX_SLOTS, size == UT_AGENT_PAGE_SIZE(nslots). @len is how many
 * bytes @hdr points to (at least the header is needed). Returns 0, or
 * -EINVAL with a static reason in @why.
 */
int agent_page_check(const void *hdr, size_t len, __u64 file_size, const char **why);

/* tries before a slot that keeps changing is given up on */
#define AGENT_SLOT_READ_TRIES	64

/*
 * Copy a slot the daemon may be writing, under its sequence lock: seq even
 * and unchanged across the copy. Word by word with relaxed atomic loads, so
 * the concurrent writer is no data race. false: no consistent copy in
 * AGENT_SLOT_READ_TRIES tries (the writer's gen++ will bring the caller back).
 */
bool agent_slot_copy(const struct ut_agent_slot *src, struct ut_agent_slot *dst);

enum agent_slot_verdict {
	AGENT_SLOT_OK = 0,	/* this ring's decision, well formed */
	AGENT_SLOT_FOREIGN,	/* not the token we were handed: freed, or given to another ring */
	AGENT_SLOT_INVALID,	/* ours, but fields out of range: not a decision */
};

/*
 * Judge a consistent copy of a slot for the ring the daemon handed it to
 * with @token (never 0: a 0 token is no slot at all). Which ring that is
 * the agent keeps itself (fd and inode, checked with fstat before it acts):
 * the page names no ring. The NAPI fields are checked when UT_SLOT_NAPI
 * says they are live. @why: a static reason for anything but OK.
 */
enum agent_slot_verdict agent_slot_check(const struct ut_agent_slot *s, __u64 token,
					 const char **why);

/*
 * The setup flags to use for a ring whose program asked for @prog_flags,
 * given its slot (@s NULL: no usable decision) and the program's policy:
 * HYBRID_IOPOLL is added to an IOPOLL ring that lacks it when the daemon says
 * so and the policy does not say hybrid=off.
 */
__u32 agent_setup_flags(__u32 prog_flags, const struct ut_agent_slot *s,
			const struct agent_policy *policy);

/* at most one REGISTER_OP and one STATIC_ADD_ID per id */
#define AGENT_NAPI_MAX_OPS	(1 + UT_AGENT_MAX_IDS)

struct agent_napi_op {
	unsigned int opcode;		/* UT_IORING_REGISTER_NAPI or _UNREGISTER_NAPI */
	struct ut_io_uring_napi arg;	/* nr_args is always 1 */
};

/*
 * The io_uring_register calls that carry out a valid slot's NAPI decision, in
 * order, into @ops (AGENT_NAPI_MAX_OPS). Enabled: REGISTER_OP (DYNAMIC, or
 * STATIC then STATIC_ADD_ID per id). Disabled: REGISTER_OP STATIC, which
 * empties the kernel's NAPI list (UNREGISTER does not, 6.18), then
 * UNREGISTER. Returns the number of calls.
 */
unsigned int agent_napi_ops(const struct ut_agent_slot *s, struct agent_napi_op *ops);

/*
 * Whether the agent should register @s's NAPI decision on a ring set up with
 * @setup_flags: the slot says NAPI, the ring is not IOPOLL (EINVAL), and an
 * enabling decision is not against the program's napi=off. @at_setup: right
 * after io_uring_setup, where only SINGLE_ISSUER rings need the agent (the
 * daemon reaches the others from outside) and only enabling is meaningful.
 */
bool agent_napi_wanted(__u32 setup_flags, const struct ut_agent_slot *s,
		       const struct agent_policy *policy, bool at_setup);

#endif /* UT_AGENT_CHECK_H */
