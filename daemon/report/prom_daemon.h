/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The export's families about the daemon itself, not one ring: its build,
 * mode, counters, reloads, event loop and in-process agent. Pure: formats
 * struct ut_daemon to a FILE (prom.c puts them in the file).
 */
#ifndef UT_PROM_DAEMON_H
#define UT_PROM_DAEMON_H

#include <stddef.h>
#include <stdio.h>

#include "daemon.h"

/* everything of the daemon's own, before the rings' families */
void prom_daemon_metrics(const struct ut_daemon *d, FILE *out);

/*
 * The agent's families: @agent of the rings written were set up through an
 * agent, @managed of those are uringtune's.
 */
void prom_agent_metrics(const struct ut_daemon *d, size_t agent, size_t managed, FILE *out);

#endif /* UT_PROM_DAEMON_H */
