// SPDX-License-Identifier: GPL-2.0-only
/* The record of the last reload (reload_state.h). */
#include <stdio.h>

#include "reload_state.h"

void reload_note(struct reload_state *r, int64_t when, const char *error)
{
	r->time = when;
	if (error) {
		r->last = RELOAD_REFUSED;
		r->count_refused++;
		snprintf(r->error, sizeof(r->error), "%s", error);
	} else {
		r->last = RELOAD_OK;
		r->count_ok++;
		r->error[0] = '\0';
	}
}

const char *reload_result_name(enum reload_result result)
{
	switch (result) {
	case RELOAD_OK:
		return "ok";
	case RELOAD_REFUSED:
		return "refused";
	case RELOAD_NEVER:
		break;
	}
	return "never";
}
