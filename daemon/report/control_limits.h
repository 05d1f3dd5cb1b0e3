/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What one control client may take, and the decisions about it, with no I/O:
 * the caps on clients open at once (in all, and per user: SO_PEERCRED's
 * uid), the deadline of a request, and how often a refusal may be logged.
 */
#ifndef UT_CONTROL_LIMITS_H
#define UT_CONTROL_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * In all: each client holds an fd, its request (4 KiB) and, once answered,
 * a batch of its reply (CONTROL_CHUNK_BYTES, and 8 bytes per ring for a
 * status: the rings' addresses). Per user: so that one
 * user's clients leave room for another's (root's, if the socket's mode is
 * ever opened up). 60 clients of one user still fit.
 */
#define CONTROL_MAX_CLIENTS	128
#define CONTROL_MAX_PER_UID	64
/*
 * From accept to the end of the request line, and again from the answer
 * to the reply's last byte read (a status reply is made as it is read:
 * ~20 ms of the daemon's time for 10 000 rings); then the client is dropped.
 */
#define CONTROL_DEADLINE_MS	2000
/*
 * A status reply is made CONTROL_CHUNK_BYTES at a time, when the socket
 * has taken the last batch, and at most CONTROL_STEP_BYTES in one turn of
 * the loop (~1 ms at 10 000 rings here): a reader that keeps up does not
 * hold the loop for the whole reply, a slow one holds one batch.
 */
#define CONTROL_CHUNK_BYTES	(64UL << 10)
#define CONTROL_STEP_BYTES	(256UL << 10)
/* after a reply this large, free memory goes back to the system (malloc_trim) */
#define CONTROL_TRIM_BYTES	(1UL << 20)
/* at most one line a minute about refused or dropped clients (with a count) */
#define CONTROL_NOTE_EVERY_MS	60000

struct control_limits {
	unsigned int max_clients;
	unsigned int max_per_uid;
};

enum control_admit {
	CONTROL_ADMIT,
	CONTROL_REFUSE_FULL,	/* max_clients open */
	CONTROL_REFUSE_UID,	/* max_per_uid of the same uid open */
};

/* a new client of a uid with @same_uid clients open, @open in all */
enum control_admit control_admit(const struct control_limits *lim, unsigned int open,
				 unsigned int same_uid);

/* the refusal's one line, told to the client and logged */
void control_admit_why(enum control_admit a, const struct control_limits *lim, uid_t uid,
		       char *buf, size_t len);

/* a log line rate limit: one line, then at most one per period */
struct control_note {
	bool logged;
	uint64_t last_usec;
	unsigned int suppressed;	/* events not logged since the last line */
};

/*
 * An event at @now_usec: true if it may be logged (*suppressed: how many were
 * not since the last line), false if it is only counted.
 */
bool control_note_due(struct control_note *n, uint64_t now_usec, uint64_t every_usec,
		      unsigned int *suppressed);

#endif /* UT_CONTROL_LIMITS_H */
