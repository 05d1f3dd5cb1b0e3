/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's parts, wired together; one instance, owned by main(). Only
 * the wiring (daemon.c, loop.c) and the reports (control, status, metrics)
 * see the whole: every other module takes the narrow struct it needs.
 */
#ifndef UT_DAEMON_H
#define UT_DAEMON_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent_server.h"
#include "config.h"
#include "hybrid_support.h"
#include "instance.h"
#include "inventory.h"
#include "iopoll.h"
#include "lifecycle.h"
#include "loop_stats.h"
#include "registry.h"
#include "reload_state.h"
#include "trace.h"
#include "verdict_file.h"
#include "verdicts.h"
#include "version.h"

struct ut_daemon {
	const char *config_path;
	struct ut_config cfg;
	bool verbose;			/* -v: debug whatever log_level says, reloads too */
	struct reload_state reload;	/* the last SIGHUP's outcome */
	pid_t self_pid;
	bool napi_supported;		/* kernel has io_uring NAPI (6.9+) */
	bool napi_no_static;		/* ... but no tracking modes (before 6.13) */
	struct hybrid_support hybrid;	/* HYBRID_IOPOLL (6.13+), and how that is known */
	char kernel[65];		/* uname -r */
	struct instance inst;		/* the tuning and state locks */

	/* observing: the BPF edge, the rings, their feed */
	struct ut_trace trace;
	struct ut_iopoll iopoll;	/* optional: IOPOLL statistics */
	struct sleep_probe sleep_probe;	/* the host's figures for the hybrid model */
	struct ut_registry reg;
	struct inventory inv;
	/* tuning: the rings' lifecycle and the in-process agent's side */
	struct lifecycle lc;
	struct journal_committer committer;	/* the journal's thread (lc.commit) */
	struct ut_agent_server agent;
	/* what hybrid IOPOLL did for each program, kept in state_dir (verdicts.h) */
	struct verdicts verdicts;
	struct verdict_file verdict_file;

	/* Prometheus textfile export (export.c), for status and metrics */
	char export_path[PATH_MAX];	/* the file last written, "" if none */
	uint64_t export_errors;		/* writes that failed */
	char export_error[PATH_MAX + 160];	/* why the last one did, "" if it worked */
	int64_t export_time;		/* Unix time the file in the making was begun */

	/* the event loop's dispatch times (loop.c), for status and metrics */
	struct loop_stats loop_stats;
};

/*
 * First of all, before anything is read or touched: the host's tuning lock
 * (tune mode), then the state directory's and the agent page's. On failure (-EBUSY: another
 * daemon has one) returns a negative errno having logged why; nothing was
 * changed, so there is nothing to stop.
 */
int daemon_claim(struct ut_daemon *d);
/*
 * Everything up to the event loop: BPF loaded, the first inventory taken,
 * a previous run's journal and agent page settled, new rings taken. On
 * failure returns a negative errno, having logged why; daemon_stop() then
 * undoes what was done.
 */
int daemon_start(struct ut_daemon *d);
/* restore every ring uringtune changed, close everything; 0, or -EIO if a ring could not be */
int daemon_stop(struct ut_daemon *d);

/* one round of the reconcile tick (also run at start) */
void daemon_tick(struct ut_daemon *d);
/* take the events the ring buffer holds, and the rings they bring */
void daemon_events(struct ut_daemon *d);

#endif /* UT_DAEMON_H */
