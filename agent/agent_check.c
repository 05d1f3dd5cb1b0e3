// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent's pure parts (see agent_check.h): the policy variable, the page
 * header, slot copies and checks, and what a decision turns into. Nothing
 * here does I/O or keeps state, so it links alone into its unit test.
 */
#include <errno.h>
#include <string.h>

#include "agent_check.h"

/* ---- error text, without stdio ---- */

struct msg {
	char *buf;
	size_t len;
	size_t pos;
};

static void msg_add(struct msg *m, const char *s, size_t n)
{
	while (n-- && *s && m->pos + 1 < m->len)
		m->buf[m->pos++] = *s++;
	if (m->len)
		m->buf[m->pos] = '\0';
}

static void msg_str(struct msg *m, const char *s)
{
	msg_add(m, s, (size_t)-1);
}

/* a token of the user's, quoted, at most 32 bytes, non-printables as '?' */
static void msg_token(struct msg *m, const char *s, size_t n)
{
	size_t i;

	msg_str(m, "\"");
	for (i = 0; i < n && i < 32; i++) {
		char c = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';

		msg_add(m, &c, 1);
	}
	if (n > 32)
		msg_str(m, "...");
	msg_str(m, "\"");
}

/* ---- URINGTUNE_AGENT_POLICY ---- */

static bool token_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && !memcmp(s, word, n);
}

static int policy_item(const char *item, size_t n, struct agent_policy *p, struct msg *m)
{
	const char *eq = memchr(item, '=', n);
	const char *val;
	size_t klen, vlen;

	if (!n) {
		msg_str(m, "empty item (two commas, or one at an end)");
		return -EINVAL;
	}
	if (!eq) {
		msg_token(m, item, n);
		msg_str(m, ": expected hybrid=on|off|auto or napi=on|off");
		return -EINVAL;
	}
	klen = eq - item;
	val = eq + 1;
	vlen = n - klen - 1;
	if (token_is(item, klen, "hybrid")) {
		if (p->hybrid != UT_WANT_UNSET) {
			msg_str(m, "hybrid given twice");
			return -EINVAL;
		}
		if (token_is(val, vlen, "on"))
			p->hybrid = UT_WANT_ON;
		else if (token_is(val, vlen, "off"))
			p->hybrid = UT_WANT_OFF;
		else if (token_is(val, vlen, "auto"))
			p->hybrid = UT_WANT_AUTO;
		else
			goto bad_value;
		return 0;
	}
	if (token_is(item, klen, "napi")) {
		if (p->napi != UT_WANT_UNSET) {
			msg_str(m, "napi given twice");
			return -EINVAL;
		}
		if (token_is(val, vlen, "on"))
			p->napi = UT_WANT_ON;
		else if (token_is(val, vlen, "off"))
			p->napi = UT_WANT_OFF;
		else
			goto bad_value;
		return 0;
	}
	msg_str(m, "unknown key ");
	msg_token(m, item, klen);
	msg_str(m, " (expected hybrid or napi)");
	return -EINVAL;

bad_value:
	msg_add(m, item, klen);
	msg_str(m, token_is(item, klen, "hybrid") ? ": expected on, off or auto, got " :
						     ": expected on or off, got ");
	msg_token(m, val, vlen);
	return -EINVAL;
}

int agent_policy_parse(const char *s, struct agent_policy *p, char *err, size_t errlen)
{
	struct msg m = { .buf = err, .len = errlen, .pos = 0 };
	const char *end;
	int ret;

	p->hybrid = UT_WANT_UNSET;
	p->napi = UT_WANT_UNSET;
	if (errlen)
		err[0] = '\0';
	if (!s || !*s)
		return 0;
	for (;;) {
		end = strchr(s, ',');
		ret = policy_item(s, end ? (size_t)(end - s) : strlen(s), p, &m);
		if (ret) {
			/* a malformed variable says nothing at all */
			p->hybrid = UT_WANT_UNSET;
			p->napi = UT_WANT_UNSET;
			return ret;
		}
		if (!end)
			return 0;
		s = end + 1;
	}
}

/* ---- the policy page ---- */

int agent_page_check(const void *buf, size_t len, __u64 file_size, const char **why)
{
	struct ut_agent_page hdr;

	if (len < sizeof(hdr) || file_size < sizeof(hdr)) {
		*why = "smaller than a page header (64 bytes)";
		return -EINVAL;
	}
	/* one copy: a daemon rewriting the header cannot pass one check and fail the next */
	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.magic != UT_AGENT_PAGE_MAGIC) {
		*why = "bad magic";
		return -EINVAL;
	}
	if (hdr.version != UT_AGENT_PAGE_VERSION) {
		*why = "unknown page version";
		return -EINVAL;
	}
	if (hdr.size != file_size) {
		*why = "header size differs from the file's size";
		return -EINVAL;
	}
	if (hdr.nslots < 1 || hdr.nslots > AGENT_PAGE_MAX_SLOTS) {
		*why = "slot count out of range";
		return -EINVAL;
	}
	if (hdr.size != UT_AGENT_PAGE_SIZE((__u64)hdr.nslots)) {
		*why = "size does not match the slot count";
		return -EINVAL;
	}
	return 0;
}

/* a writer holds the slot: let its CPU (perhaps our sibling thread) go on */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

#define SLOT_WORDS	(sizeof(struct ut_agent_slot) / sizeof(__u32))

_Static_assert(sizeof(struct ut_agent_slot) % sizeof(__u32) == 0, "slot is whole words");
_Static_assert(offsetof(struct ut_agent_slot, seq) == 0, "seq is the first word");

bool agent_slot_copy(const struct ut_agent_slot *src, struct ut_agent_slot *dst)
{
	const __u32 *w = (const __u32 *)src;
	__u32 buf[SLOT_WORDS];
	unsigned int tries, i;
	__u32 seq;

	for (tries = 0; tries < AGENT_SLOT_READ_TRIES; tries++) {
		/* pairs with the writer's release of seq (even) after the fields */
		seq = __atomic_load_n(&src->seq, __ATOMIC_ACQUIRE);
		if (seq & 1) {
			cpu_relax();
			continue;
		}
		for (i = 0; i < SLOT_WORDS; i++)
			buf[i] = __atomic_load_n(&w[i], __ATOMIC_RELAXED);
		/* the copy is done before seq is read again */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&src->seq, __ATOMIC_RELAXED) == seq) {
			memcpy(dst, buf, sizeof(*dst));
			dst->seq = seq;
			return true;
		}
	}
	return false;
}

enum agent_slot_verdict agent_slot_check(const struct ut_agent_slot *s, __u64 token,
					 const char **why)
{
	if (!token || s->token != token) {
		*why = "slot no longer ours (freed, or handed to another ring)";
		return AGENT_SLOT_FOREIGN;
	}
	if (s->flags & UT_SLOT_NAPI) {
		if (s->napi_enabled > 1 || s->prefer_busy_poll > 1 || s->static_ids > 1) {
			*why = "NAPI booleans out of range";
			return AGENT_SLOT_INVALID;
		}
		if (s->napi_enabled &&
		    (s->busy_poll_us < 1 || s->busy_poll_us > UT_AGENT_MAX_BUSY_POLL_US)) {
			*why = "busy_poll_us out of range";
			return AGENT_SLOT_INVALID;
		}
		if (s->n_ids > UT_AGENT_MAX_IDS) {
			*why = "too many NAPI ids";
			return AGENT_SLOT_INVALID;
		}
		if (s->napi_enabled && s->static_ids && s->n_ids < 1) {
			*why = "static tracking without ids";
			return AGENT_SLOT_INVALID;
		}
	}
	*why = "";
	return AGENT_SLOT_OK;
}

/* ---- what a decision turns into ---- */

__u32 agent_setup_flags(__u32 prog_flags, const struct ut_agent_slot *s,
			const struct agent_policy *policy)
{
	if (!s || !(s->flags & UT_SLOT_HYBRID) || policy->hybrid == UT_WANT_OFF)
		return prog_flags;
	/* HYBRID_IOPOLL requires IOPOLL (EINVAL otherwise): never make a ring IOPOLL */
	if (!(prog_flags & UT_SETUP_IOPOLL) || (prog_flags & UT_SETUP_HYBRID_IOPOLL))
		return prog_flags;
	return prog_flags | UT_SETUP_HYBRID_IOPOLL;
}

bool agent_napi_wanted(__u32 setup_flags, const struct ut_agent_slot *s,
		       const struct agent_policy *policy, bool at_setup)
{
	if (!(s->flags & UT_SLOT_NAPI))
		return false;
	/* IOPOLL rings refuse NAPI registration: EINVAL */
	if (setup_flags & UT_SETUP_IOPOLL)
		return false;
	if (s->napi_enabled && policy->napi == UT_WANT_OFF)
		return false;
	if (at_setup) {
		/* a new ring has NAPI off; others take a register call from outside */
		if (!s->napi_enabled || !(setup_flags & UT_SETUP_SINGLE_ISSUER))
			return false;
	}
	return true;
}

unsigned int agent_napi_ops(const struct ut_agent_slot *s, struct agent_napi_op *ops)
{
	unsigned int n = 0, i;

	memset(ops, 0, AGENT_NAPI_MAX_OPS * sizeof(*ops));
	if (!s->napi_enabled) {
		/* REGISTER_OP empties the ring's NAPI list; UNREGISTER keeps it (6.18) */
		ops[n].opcode = UT_IORING_REGISTER_NAPI;
		ops[n].arg.opcode = UT_NAPI_REGISTER_OP;
		ops[n].arg.op_param = UT_NAPI_TRACKING_STATIC;
		n++;
		ops[n].opcode = UT_IORING_UNREGISTER_NAPI;
		n++;
		return n;
	}
	ops[n].opcode = UT_IORING_REGISTER_NAPI;
	ops[n].arg.busy_poll_to = s->busy_poll_us;
	ops[n].arg.prefer_busy_poll = s->prefer_busy_poll;
	ops[n].arg.opcode = UT_NAPI_REGISTER_OP;
	ops[n].arg.op_param = s->static_ids ? UT_NAPI_TRACKING_STATIC : UT_NAPI_TRACKING_DYNAMIC;
	n++;
	if (!s->static_ids)
		return n;
	for (i = 0; i < s->n_ids && i < UT_AGENT_MAX_IDS; i++) {
		/* STATIC_ADD_ID takes the id alone; the timeout stays as registered */
		ops[n].opcode = UT_IORING_REGISTER_NAPI;
		ops[n].arg.opcode = UT_NAPI_STATIC_ADD_ID;
		ops[n].arg.op_param = s->ids[i];
		n++;
	}
	return n;
}
