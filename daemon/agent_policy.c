// SPDX-License-Identifier: GPL-2.0-only
/* The answer to an agent at ring setup. */
#include <stdio.h>
#include <string.h>

#include "agent_policy.h"
#include "hybrid_auto.h"
#include "select.h"
#include "uring_abi.h"

void agent_effective_wants(const struct agent_request *req, const struct ut_agent_cfg *cfg,
			   enum ut_agent_want *hybrid, enum ut_agent_want *napi)
{
	*hybrid = req->hybrid;
	if (*hybrid == UT_WANT_UNSET) {
		if (select_comm_in(cfg->hybrid_comm, cfg->n_hybrid_comm, req->comm))
			*hybrid = UT_WANT_ON;
		else if (select_comm_in(cfg->hybrid_auto_comm, cfg->n_hybrid_auto_comm, req->comm))
			*hybrid = UT_WANT_AUTO;
	}
	*napi = req->napi;
	if (*napi == UT_WANT_UNSET && select_comm_in(cfg->napi_comm, cfg->n_napi_comm, req->comm))
		*napi = UT_WANT_ON;
}

/* one part of the answer ("hybrid: ...", "NAPI: ..."), appended to why */
static void say(struct agent_decision *out, const char *part)
{
	size_t n = strlen(out->why);

	snprintf(out->why + n, sizeof(out->why) - n, "%s%s", n ? "; " : "", part);
}

static void decide_hybrid(const struct agent_request *req, enum ut_agent_want want,
			  const struct agent_context *ctx, struct agent_decision *out)
{
	uint32_t f = req->setup_flags;
	struct hybrid_auto_answer ans;

	if (!(f & UT_SETUP_IOPOLL)) {
		/* nothing to say about hybrid polling on a ring without IOPOLL */
		if (want == UT_WANT_ON || want == UT_WANT_AUTO)
			say(out, "hybrid: not an IOPOLL ring");
		return;
	}
	if (f & UT_SETUP_HYBRID_IOPOLL) {
		say(out, "hybrid: the program asked for it itself");
		return;
	}
	/* known, not guessed: else the agent tries and falls back on EINVAL */
	if (ctx->hybrid_absent && (want == UT_WANT_ON || want == UT_WANT_AUTO)) {
		say(out, "hybrid: this kernel has no HYBRID_IOPOLL (REGISTER_QUERY)");
		return;
	}
	switch (want) {
	case UT_WANT_ON:
		out->hybrid = true;
		say(out, "hybrid: HYBRID_IOPOLL added");
		break;
	case UT_WANT_AUTO:
		/* measured verdict, else the newest prediction, else classic */
		hybrid_auto_decide(ctx->verdict, ctx->live_pred, &ctx->bounds, ctx->now_unix_s,
				   &ans);
		out->hybrid = ans.hybrid;
		say(out, ans.why);
		break;
	case UT_WANT_OFF:
		say(out, "hybrid: off as asked");
		break;
	case UT_WANT_UNSET:
	default:
		say(out, "hybrid: not asked for");
		break;
	}
}

static void decide_napi(const struct agent_request *req, enum ut_agent_want want,
			const struct ut_config *cfg, const struct agent_context *ctx,
			struct agent_decision *out)
{
	uint32_t f = req->setup_flags;
	struct tuner_state st;
	char part[96];

	if (want != UT_WANT_ON)
		return;
	if (f & UT_SETUP_IOPOLL) {
		/* io_register_napi(): IOPOLL rings are refused with EINVAL */
		say(out, "NAPI: not on an IOPOLL ring");
		return;
	}
	if (!(f & UT_SETUP_SINGLE_ISSUER)) {
		/* the daemon registers those from outside, like any other ring */
		say(out, "NAPI: tuned from outside (not SINGLE_ISSUER)");
		return;
	}
	if (!ctx->napi_supported) {
		say(out, "NAPI: this kernel has no io_uring NAPI (needs 6.9+)");
		return;
	}
	if (!ctx->selected) {
		snprintf(part, sizeof(part), "NAPI: not for this process (%s)",
			 ctx->select_why ? ctx->select_why : "[select]");
		say(out, part);
		return;
	}
	/* the setting a ring gets when uringtune first takes it; no IDs known yet */
	memset(&st, 0, sizeof(st));
	tuner_initial(&cfg->napi, NULL, 0, 0, &st, &out->napi_setting);
	out->napi = out->napi_setting.enabled;
	snprintf(part, sizeof(part), "NAPI: %u us%s, registered by the agent",
		 out->napi_setting.busy_poll_us, out->napi_setting.prefer ? " (prefer)" : "");
	say(out, part);
}

void agent_decide(const struct agent_request *req, const struct ut_config *cfg,
		  const struct agent_context *ctx, struct agent_decision *out)
{
	enum ut_agent_want hybrid, napi;

	memset(out, 0, sizeof(*out));
	if (ctx->mode != UT_MODE_TUNE) {
		say(out, "observe mode: uringtune changes nothing");
		return;
	}
	agent_effective_wants(req, &cfg->agent, &hybrid, &napi);
	decide_hybrid(req, hybrid, ctx, out);
	decide_napi(req, napi, cfg, ctx, out);
	if (!out->why[0])
		say(out, "nothing asked for this ring");
}
