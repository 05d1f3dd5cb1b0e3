// SPDX-License-Identifier: GPL-2.0-only
/*
 * A slot's NAPI decision as io_uring_register calls (agent_napi_ops() says
 * which), made through the real syscall so they are never taken for the
 * program's own.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>

#include "agent_check.h"
#include "agent_log.h"
#include "agent_napi.h"
#include "agent_real.h"

int agent_napi_apply(int fd, const struct ut_agent_slot *s)
{
	struct agent_napi_op ops[AGENT_NAPI_MAX_OPS];
	unsigned int n, i;

	n = agent_napi_ops(s, ops);
	for (i = 0; i < n; i++) {
		/* nr_args must be 1; REGISTER copies the previous settings back into arg */
		if (agent_sys(__NR_io_uring_register, fd, ops[i].opcode, (long)&ops[i].arg, 1,
			      0, 0) < 0)
			return -errno;
	}
	return 0;
}

void agent_napi_describe(char *buf, size_t len, const struct ut_agent_slot *s, int ret)
{
	char how[48];

	if (!s->napi_enabled) {
		if (ret)
			snprintf(buf, len, "NAPI off refused: %s", agent_errname(ret));
		else
			snprintf(buf, len, "NAPI switched off");
		return;
	}
	if (ret) {
		snprintf(buf, len, "NAPI %u us refused: %s", s->busy_poll_us, agent_errname(ret));
		return;
	}
	if (s->static_ids)
		snprintf(how, sizeof(how), "static, %u id%s", s->n_ids, s->n_ids == 1 ? "" : "s");
	else
		snprintf(how, sizeof(how), "dynamic");
	snprintf(buf, len, "NAPI %u us registered (%s%s)", s->busy_poll_us, how,
		 s->prefer_busy_poll ? ", prefer busy poll" : "");
}
