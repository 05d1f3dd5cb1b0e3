/* SPDX-License-Identifier: GPL-2.0-only */
/* The daemon's state, shared by its parts; one instance, owned by main(). */
#ifndef UT_DAEMON_H
#define UT_DAEMON_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent_server.h"
#include "config.h"
#include "iopoll.h"
#include "journal.h"
#include "registry.h"
#include "trace.h"
#include "version.h"

struct ut_daemon {
	const char *config_path;
	struct ut_config cfg;
	struct ut_registry reg;
	struct ut_trace trace;
	struct ut_iopoll iopoll;		/* optional: IOPOLL statistics */
	uint64_t iopoll_last_seen_ns;		/* an IOPOLL ring was last listed */
	pid_t self_pid;
	bool napi_supported;		/* kernel has io_uring NAPI (6.9+) */
	char kernel[65];		/* uname -r */

	/* tune mode */
	struct journal journal;
	bool tuning_ready;		/* journal settled: rings may be changed */
	uint64_t *take_queue;		/* rings to take at the next flush */
	size_t n_take, cap_take;
	uint64_t actions_ok;		/* changes the kernel accepted */
	uint64_t actions_failed;	/* ... and refused */

	/* the in-process agent: its socket, the policy page, their rings */
	struct ut_agent_server agent;

	/* last sweep, for status and metrics */
	uint64_t sweeps;
	uint64_t last_sweep_us;
	int ring_map_entries;

	/* Prometheus textfile export (export.c), for status and metrics */
	char export_path[PATH_MAX];	/* the file last written, "" if none */
	uint64_t export_errors;		/* writes that failed */
	char export_error[PATH_MAX + 160];	/* why the last one did, "" if it worked */
};

#endif /* UT_DAEMON_H */
