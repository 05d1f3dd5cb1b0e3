// SPDX-License-Identifier: GPL-2.0-only
/* What the daemon knows of HYBRID_IOPOLL on this kernel (hybrid_support.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hybrid_support.h"
#include "log.h"
#include "uring_abi.h"

/* HYBRID_IOPOLL came with Linux 6.13 */
#define HYBRID_SINCE	6013

const char *hybrid_source_name(enum hybrid_source src)
{
	switch (src) {
	case HYBRID_SRC_KERNEL_VERSION:
		return "kernel-version";
	case HYBRID_SRC_AGENT_FALLBACK:
		return "agent-fallback";
	case HYBRID_SRC_RING:
		return "ring";
	case HYBRID_SRC_QUERY:
		return "query";
	case HYBRID_SRC_UNKNOWN:
	default:
		return "unknown";
	}
}

int hybrid_kernel_version(const char *release)
{
	unsigned long major, minor;
	char *end;

	if (!release || release[0] < '0' || release[0] > '9')
		return -1;
	major = strtoul(release, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return -1;
	minor = strtoul(end + 1, &end, 10);
	if (major > 999 || minor > 999)
		return -1;
	return (int)(major * 1000 + minor);
}

void hybrid_support_init(struct hybrid_support *hs, int query_ret, uint64_t mask,
			 const char *release)
{
	int ver = hybrid_kernel_version(release);

	memset(hs, 0, sizeof(*hs));
	hs->supported = -1;
	hs->source = HYBRID_SRC_UNKNOWN;
	hs->query_ret = query_ret;
	if (!query_ret) {
		hs->flags_known = true;
		hs->setup_flags = mask;
		hybrid_support_learn(hs, HYBRID_SRC_QUERY, mask & UT_SETUP_HYBRID_IOPOLL);
	} else if (ver >= 0) {
		hybrid_support_learn(hs, HYBRID_SRC_KERNEL_VERSION, ver >= HYBRID_SINCE);
	}
}

bool hybrid_support_learn(struct hybrid_support *hs, enum hybrid_source src, bool supported)
{
	int was = hs->supported;

	/* weaker evidence never undoes stronger; the same source says nothing new */
	if (src < hs->source || (src == hs->source && was == (int)supported))
		return false;
	hs->source = src;
	hs->supported = supported;
	return true;
}

static void logged(const struct hybrid_support *hs)
{
	char what[200];

	hybrid_support_describe(hs, what, sizeof(what));
	log_info("hybrid IOPOLL: %s", what);
}

void hybrid_support_ring_seen(struct hybrid_support *hs, uint32_t setup_flags)
{
	/* the kernel refuses HYBRID_IOPOLL without IOPOLL: both, or it is no proof */
	if (!hs || (setup_flags & (UT_SETUP_IOPOLL | UT_SETUP_HYBRID_IOPOLL)) !=
	    (UT_SETUP_IOPOLL | UT_SETUP_HYBRID_IOPOLL))
		return;
	if (hybrid_support_learn(hs, HYBRID_SRC_RING, true))
		logged(hs);
}

void hybrid_support_agent_refused(struct hybrid_support *hs)
{
	if (hs && hybrid_support_learn(hs, HYBRID_SRC_AGENT_FALLBACK, false))
		logged(hs);
}

bool hybrid_support_absent(const struct hybrid_support *hs)
{
	return hs && hs->source == HYBRID_SRC_QUERY && hs->supported == 0;
}

/* why QUERY did not answer, for the line */
static void query_failed(const struct hybrid_support *hs, char *buf, size_t len)
{
	if (hs->query_ret == -EOPNOTSUPP)
		snprintf(buf, len, "no IORING_REGISTER_QUERY (6.18+)");
	else
		snprintf(buf, len, "IORING_REGISTER_QUERY failed: %s%s", strerror(-hs->query_ret),
			 hs->query_ret == -EPROTO ? " (an answer not as documented)" : "");
}

void hybrid_support_describe(const struct hybrid_support *hs, char *buf, size_t len)
{
	const char *yes = hs->supported > 0 ? "supported" : "not supported";
	char q[96];

	switch (hs->source) {
	case HYBRID_SRC_QUERY:
		snprintf(buf, len, "%s (IORING_REGISTER_QUERY: setup flags 0x%llx)%s", yes,
			 (unsigned long long)hs->setup_flags,
			 hs->supported ? "" : ": the agent is not asked to add it");
		break;
	case HYBRID_SRC_RING:
		snprintf(buf, len, "supported (a ring with HYBRID_IOPOLL was seen)");
		break;
	case HYBRID_SRC_AGENT_FALLBACK:
		snprintf(buf, len, "not supported, as far as seen (the kernel refused it to a ring set "
			 "up through the agent: EINVAL); the agent still tries it and falls back");
		break;
	case HYBRID_SRC_KERNEL_VERSION:
		query_failed(hs, q, sizeof(q));
		snprintf(buf, len, "%s, going by the kernel's version (%s 6.13; %s); the agent "
			 "tries it where asked and falls back", yes, hs->supported ? "since" : "before",
			 q);
		break;
	case HYBRID_SRC_UNKNOWN:
	default:
		query_failed(hs, q, sizeof(q));
		snprintf(buf, len, "unknown (%s, and an unreadable kernel version); the agent "
			 "tries it where asked and falls back", q);
		break;
	}
}
