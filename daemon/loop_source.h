/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which source the event loop is dispatching, for its timing (loop.c,
 * loop_stats.h). sd-event (libsystemd 252) runs one source per
 * sd_event_dispatch() but has no call that says which: every source gets a
 * description (loop_source_describe()), and every handler says it runs
 * (loop_source_enter(), its first line). The name is copied: a handler may
 * free its own source.
 */
#ifndef UT_LOOP_SOURCE_H
#define UT_LOOP_SOURCE_H

#include <systemd/sd-event.h>

/* sd_event_source_set_description(); @s may be NULL (then nothing). 0 or -errno */
int loop_source_describe(sd_event_source *s, const char *what);

/* the handler of @s runs: its description is what the dispatch is charged to */
void loop_source_enter(sd_event_source *s);

/* the description of the source entered since the last loop_source_clear(), "" if none */
const char *loop_source_current(void);
void loop_source_clear(void);

#endif /* UT_LOOP_SOURCE_H */
