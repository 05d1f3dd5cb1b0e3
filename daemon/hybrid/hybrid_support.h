/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Does this kernel have HYBRID_IOPOLL (6.13+), and how does the daemon know.
 * Pure, but for the log line a change of mind is worth.
 *
 * The evidence, weakest first; a piece replaces what is known only if it is
 * at least as strong, so nothing weaker undoes the kernel's own answer:
 *
 *   unknown          nothing yet (uname -r unreadable, no QUERY)
 *   kernel-version   no IORING_REGISTER_QUERY (before 6.18): inferred from
 *                    uname -r, 6.13 or later (a distribution's backport can
 *                    make this wrong either way, hence weak)
 *   agent-fallback   a ring the daemon told the agent to set up with
 *                    HYBRID_IOPOLL came out without it (its flags, as BPF
 *                    read them) and its agent said the kernel refused it
 *                    (EINVAL): a refusal seen, told by the program: "no"
 *   ring             a ring whose kernel flags (BPF) carry HYBRID_IOPOLL: "yes"
 *   query            IORING_REGISTER_QUERY's mask of setup flags (6.18+):
 *                    the kernel's answer, final
 *
 * Only "query" is knowledge the agent policy acts on (no HYBRID_IOPOLL: the
 * agent is not asked to add it); with anything weaker the agent tries and
 * falls back, which costs one refused io_uring_setup.
 */
#ifndef UT_HYBRID_SUPPORT_H
#define UT_HYBRID_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hybrid_source {
	HYBRID_SRC_UNKNOWN,
	HYBRID_SRC_KERNEL_VERSION,
	HYBRID_SRC_AGENT_FALLBACK,
	HYBRID_SRC_RING,
	HYBRID_SRC_QUERY,
};

struct hybrid_support {
	int supported;			/* 1 yes, 0 no, -1 unknown */
	enum hybrid_source source;	/* ... from what */
	bool flags_known;		/* QUERY answered: */
	uint64_t setup_flags;		/* ... the setup flags this kernel accepts */
	int query_ret;			/* the probe's result: 0 or -errno (uring_query.h) */
};

/* "query", "kernel-version", ... (status, export) */
const char *hybrid_source_name(enum hybrid_source src);

/* "6.12.48+deb12-cloud-amd64" -> 6012; -1 if it does not start with major.minor */
int hybrid_kernel_version(const char *release);

/*
 * What is known at start: the probe's result (@query_ret 0 with @mask, or
 * its -errno) and, failing that, the kernel's version string.
 */
void hybrid_support_init(struct hybrid_support *hs, int query_ret, uint64_t mask,
			 const char *release);

/* a piece of evidence: true if it changed what is known */
bool hybrid_support_learn(struct hybrid_support *hs, enum hybrid_source src, bool supported);

/* a ring's flags as the kernel set them (BPF): HYBRID_IOPOLL is a "yes"; logged if news */
void hybrid_support_ring_seen(struct hybrid_support *hs, uint32_t setup_flags);
/* the agent's fallback seen in a ring's flags: a "no"; logged if news */
void hybrid_support_agent_refused(struct hybrid_support *hs);

/* the kernel said it has no HYBRID_IOPOLL (QUERY); false if @hs is NULL */
bool hybrid_support_absent(const struct hybrid_support *hs);

/* one line for the log: what is known and from what */
void hybrid_support_describe(const struct hybrid_support *hs, char *buf, size_t len);

#endif /* UT_HYBRID_SUPPORT_H */
