// SPDX-License-Identifier: GPL-2.0-only
/* Whether a ring can be tuned from outside, and why not. */
#include "tunable.h"
#include "uring_abi.h"

static const char *const managed_by_names[] = {
	[UT_MANAGED_NONE]	= "none",
	[UT_MANAGED_APP]	= "app",
	[UT_MANAGED_URINGTUNE]	= "uringtune",
};
UT_NAME_TABLE(managed_by, enum ut_managed_by, "none")

/* the agent registers from the submitting thread: how an operator gets it there */
#define FIX_SUBMITTER	"; to tune it, start the program with `uringtune exec --napi` or list " \
			"its command in [agent] napi_comm"

bool ring_tunable(uint32_t setup_flags, bool napi_supported,
		  enum ut_managed_by managed_by, const char **reason)
{
	/* the order puts the most fundamental obstacle first */
	if (!napi_supported)
		*reason = "this kernel has no io_uring NAPI busy polling (needs Linux 6.9+)";
	else if (setup_flags & UT_SETUP_IOPOLL)
		/* io_register_napi(): IOPOLL rings are refused with EINVAL */
		*reason = "IOPOLL ring: the kernel refuses NAPI registration on polled-I/O rings (EINVAL)";
	else if (setup_flags & UT_SETUP_DEFER_TASKRUN)
		/* DEFER_TASKRUN requires SINGLE_ISSUER: same refusal, same fix */
		*reason = "DEFER_TASKRUN ring: SINGLE_ISSUER rings refuse register calls from any task but their submitter (EEXIST)" FIX_SUBMITTER;
	else if (setup_flags & UT_SETUP_SINGLE_ISSUER)
		*reason = "SINGLE_ISSUER ring: the kernel refuses register calls from any task but its submitter (EEXIST)" FIX_SUBMITTER;
	else if (setup_flags & UT_SETUP_REGISTERED_FD_ONLY)
		*reason = "REGISTERED_FD_ONLY ring: it has no file descriptor another process could duplicate";
	else if (managed_by == UT_MANAGED_APP)
		*reason = "the application manages NAPI busy polling on this ring itself";
	else {
		*reason = "";
		return true;
	}
	return false;
}

bool ring_tunable_agent(uint32_t setup_flags, bool napi_supported,
			enum ut_managed_by managed_by, bool agent, const char **reason)
{
	/* what the agent lifts is the submitter-only rule, nothing else */
	if (agent)
		setup_flags &= ~(UT_SETUP_SINGLE_ISSUER | UT_SETUP_DEFER_TASKRUN);
	return ring_tunable(setup_flags, napi_supported, managed_by, reason);
}
