/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A control request, from bytes to a checked struct, with no I/O: where a
 * request line ends, and what it asks. Everything is checked before anything
 * is done: a request is read one way or refused.
 *
 *	{"cmd":"status"[,"view":"full"|"table"][,"pid":P[,"fd":F]][,"comm":C]}
 *	{"cmd":"set","pid":P,"fd":F,"busy_poll_us":N[,"prefer":B][,"static":B][,"force":B]}
 *	{"cmd":"reset"[,"pid":P,"fd":F]}
 */
#ifndef UT_CONTROL_REQUEST_H
#define UT_CONTROL_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* a request line, its newline included; longer ones are refused */
#define CONTROL_REQUEST_MAX	4096

enum control_cmd {
	CONTROL_STATUS,
	CONTROL_SET,
	CONTROL_RESET,
};

struct control_request {
	enum control_cmd cmd;
	bool ring;		/* pid and fd given (set: always; status: that ring only) */
	pid_t pid;		/* status without fd: that process's rings; -1 none */
	int fd;
	/* status: the rings of processes of this name only ("comm") */
	bool by_comm;
	char comm[16];		/* the kernel's TASK_COMM_LEN */
	/* status: "view":"table", the members the table shows only (status_json.h) */
	bool table;
	/* set */
	unsigned int busy_poll_us;
	bool prefer;
	bool static_ids;
	bool force;		/* even a ring [select] leaves out (logged) */
};

enum control_frame {
	CONTROL_FRAME_MORE,	/* wait for more bytes */
	CONTROL_FRAME_LINE,	/* a request of *len bytes, newline excluded */
	CONTROL_FRAME_EMPTY,	/* the client closed without a byte */
	CONTROL_FRAME_TOO_LONG,	/* @max bytes and no newline */
};

/*
 * Where the request in @buf (@have bytes so far, @eof: the client shut down
 * its side) ends: at the first newline, or at EOF.
 */
enum control_frame control_request_frame(const char *buf, size_t have, bool eof, size_t max,
					 size_t *len);

/* 0 and *r, or -EINVAL (or -ENOMEM) and one line in @err saying what is wrong */
int control_request_parse(const char *buf, size_t len, struct control_request *r,
			  char *err, size_t errlen);

#endif /* UT_CONTROL_REQUEST_H */
