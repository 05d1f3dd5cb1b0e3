/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SIGHUP's outcome, kept for status (daemon.reload) and metrics
 * (uringtune_config_*): a refused reload is more than a log line. Pure;
 * daemon_reload() (reload.h) does the reload and notes it here.
 */
#ifndef UT_RELOAD_STATE_H
#define UT_RELOAD_STATE_H

#include <stdbool.h>
#include <stdint.h>

enum reload_result {
	RELOAD_NEVER,		/* no SIGHUP since the start */
	RELOAD_OK,		/* the file was read and swapped in */
	RELOAD_REFUSED,		/* invalid: the running configuration was kept */
};

struct reload_state {
	enum reload_result last;
	int64_t time;		/* unix seconds of the last reload, 0 if never */
	char error[512];	/* why the last one was refused, "" otherwise */
	uint64_t count_ok;
	uint64_t count_refused;
};

/* a reload at @when: ok (@error NULL) or refused because of @error */
void reload_note(struct reload_state *r, int64_t when, const char *error);

/* "never", "ok", "refused" */
const char *reload_result_name(enum reload_result result);

#endif /* UT_RELOAD_STATE_H */
