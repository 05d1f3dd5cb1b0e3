// SPDX-License-Identifier: GPL-2.0-only
/* The source the event loop is dispatching: see loop_source.h. */
#include <stdio.h>

#include "loop_source.h"
#include "loop_stats.h"

/* one event loop per daemon, one thread: the name of what runs in it */
static char current[LOOP_WHAT_SIZE];

int loop_source_describe(sd_event_source *s, const char *what)
{
	return s ? sd_event_source_set_description(s, what) : 0;
}

void loop_source_enter(sd_event_source *s)
{
	const char *what = NULL;

	if (!s || sd_event_source_get_description(s, &what) < 0 || !what)
		what = "unnamed";
	snprintf(current, sizeof(current), "%s", what);
}

const char *loop_source_current(void)
{
	return current;
}

void loop_source_clear(void)
{
	current[0] = '\0';
}
