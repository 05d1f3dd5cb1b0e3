// SPDX-License-Identifier: GPL-2.0-only
/* Caps and rate limits of the control socket's clients (control_limits.h). */
#include <stdio.h>

#include "control_limits.h"

enum control_admit control_admit(const struct control_limits *lim, unsigned int open,
				 unsigned int same_uid)
{
	/* the per-user cap first: it names the user whose clients fill it */
	if (same_uid >= lim->max_per_uid)
		return CONTROL_REFUSE_UID;
	if (open >= lim->max_clients)
		return CONTROL_REFUSE_FULL;
	return CONTROL_ADMIT;
}

void control_admit_why(enum control_admit a, const struct control_limits *lim, uid_t uid,
		       char *buf, size_t len)
{
	switch (a) {
	case CONTROL_REFUSE_UID:
		snprintf(buf, len, "control socket busy: %u clients of uid %u are open (at most %u "
			 "per user, each dropped within %d s): try again shortly",
			 lim->max_per_uid, (unsigned int)uid, lim->max_per_uid,
			 2 * CONTROL_DEADLINE_MS / 1000);
		break;
	case CONTROL_REFUSE_FULL:
		snprintf(buf, len, "control socket busy: %u clients are open (at most %u, each "
			 "dropped within %d s): try again shortly", lim->max_clients, lim->max_clients,
			 2 * CONTROL_DEADLINE_MS / 1000);
		break;
	case CONTROL_ADMIT:
		snprintf(buf, len, "admitted");
		break;
	}
}

bool control_note_due(struct control_note *n, uint64_t now_usec, uint64_t every_usec,
		      unsigned int *suppressed)
{
	if (n->logged && now_usec - n->last_usec < every_usec) {
		n->suppressed++;
		return false;
	}
	*suppressed = n->suppressed;
	n->logged = true;
	n->last_usec = now_usec;
	n->suppressed = 0;
	return true;
}
