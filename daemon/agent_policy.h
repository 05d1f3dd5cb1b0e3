/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the daemon answers an agent at ring setup: add HYBRID_IOPOLL or not,
 * register NAPI from the submitting thread or not, and why. Pure: the caller
 * brings the request, the configuration and what it knows of the process.
 *
 * The program's own request (uringtune exec's flags) wins over the config's
 * rules by process name; neither changes anything in observe mode, and NAPI
 * follows [select] like every ring the daemon tunes.
 */
#ifndef UT_AGENT_POLICY_H
#define UT_AGENT_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent_abi.h"
#include "config.h"
#include "hybrid_model.h"
#include "tuner.h"
#include "verdicts.h"

struct agent_request {
	uint32_t setup_flags;		/* what the program asked io_uring_setup for */
	enum ut_agent_want hybrid;	/* from the program's environment */
	enum ut_agent_want napi;
	const char *comm;		/* the process, from /proc (not the message) */
};

/* what the daemon knows beside the request */
struct agent_context {
	enum ut_mode mode;
	bool napi_supported;		/* the kernel has io_uring NAPI (6.9+) */
	bool selected;			/* [select] picks the process */
	const char *select_why;		/* ... and if not, why (select_matches()) */
	/*
	 * hybrid = auto (hybrid_auto.h): the program's verdict record (NULL:
	 * none), a prediction live on one of its classic rings now (NULL:
	 * none), the bounds ([agent] hybrid_min_saving, hybrid_max_loss)
	 */
	const struct hv_record *verdict;
	const struct hybrid_pred *live_pred;
	struct hv_bounds bounds;
	uint64_t now_unix_s;
	/* IORING_REGISTER_QUERY said this kernel has no HYBRID_IOPOLL (hybrid_support.h) */
	bool hybrid_absent;
};

struct agent_decision {
	bool hybrid;			/* add HYBRID_IOPOLL at setup */
	bool napi;			/* register NAPI right after setup */
	struct tuner_setting napi_setting;
	char why[128];			/* the answer in words, for the agent and the log */
};

/* The effective wants after the config's rules: the program's own, else by comm. */
void agent_effective_wants(const struct agent_request *req, const struct ut_agent_cfg *cfg,
			   enum ut_agent_want *hybrid, enum ut_agent_want *napi);

void agent_decide(const struct agent_request *req, const struct ut_config *cfg,
		  const struct agent_context *ctx, struct agent_decision *out);

#endif /* UT_AGENT_POLICY_H */
