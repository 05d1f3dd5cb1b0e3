/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The status reply, made a part at a time as the client's socket drains:
 * the head (version, the daemon object), then the rings a batch at a time,
 * then the tail and the newline. Never one tree or one string of the whole:
 * what is held is the writer's buffer (a batch) and the rings' addresses.
 *
 * The rings are those of the registry when the reply began, sorted by pid
 * and fd; each is looked up again when its turn comes, so a ring gone since
 * is left out and the registry may change between batches. No I/O here.
 */
#ifndef UT_STATUS_STREAM_H
#define UT_STATUS_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon.h"
#include "status_writer.h"

/* what a status request asks for */
struct status_select {
	bool table;		/* each ring with the members the table shows only */
	bool one;		/* only the ring process @pid holds as @fd (if any) */
	pid_t pid;		/* without @one: only process @pid's rings; 0 or -1: all */
	int fd;
	bool by_comm;		/* only the rings of processes named @comm */
	char comm[16];
};

struct status_stream {
	struct status_writer w;	/* w.buf, w.len: written, not yet drained */
	struct status_select sel;
	uint64_t *ctx;		/* the rings to write, in order */
	size_t n, next;
	bool head_done, done;
	size_t rings_written;	/* ... and those gone before their turn: */
	size_t rings_gone;
};

/* 0, or -ENOMEM; the rings are taken from @d now */
int status_stream_open(struct status_stream *s, const struct ut_daemon *d,
		       const struct status_select *sel);
/*
 * Write on until the buffer holds @want bytes or more, or the reply is
 * complete (s->done; its last byte is the newline). 0, or the writer's error
 * (-ENOMEM, -EINVAL): then the reply cannot be completed.
 */
int status_stream_fill(struct status_stream *s, const struct ut_daemon *d, size_t want);
void status_stream_close(struct status_stream *s);

/*
 * The rest of the reply as one string with what the buffer held, without
 * its newline (tests, and control_handle() for the fuzz target); NULL if
 * out of memory. Closes @s. Caller frees.
 */
char *status_stream_all(struct status_stream *s, const struct ut_daemon *d);

#endif /* UT_STATUS_STREAM_H */
