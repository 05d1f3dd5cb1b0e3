/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control socket: AF_UNIX stream, root's and the status group's (0660;
 * 0600 without one: control_access.h). A client writes one
 * JSON request line ({"cmd":"status"}), the daemon answers with one JSON
 * object and a newline, and closes. How clients are served without ever
 * blocking the loop: control_server.h; the status reply is made as the
 * client reads it (status_stream.h).
 */
#ifndef UT_CONTROL_H
#define UT_CONTROL_H

#include <stddef.h>

#include "control_access.h"
#include "daemon.h"
#include "status_stream.h"

/* listening socket at path (its directory is created); fd or -errno, err says why */
int control_listen(const char *path, char *err, size_t errlen);
void control_close(int fd, const char *path);

/*
 * Give the socket at @path to group @group (mode 0660) so that its members
 * may read status: the group's gid, or CONTROL_NO_GROUP when there is none
 * ("" or not on this host) or it cannot be given (then the socket stays
 * 0600, root's only). Says which in the log.
 */
gid_t control_share(const char *path, const char *group);

/* the answer to one request: a short text, or a status reply to stream */
struct control_reply {
	char *text;			/* one JSON object, no newline; NULL for a status */
	struct status_stream *status;	/* the status, made as the client reads */
};

/*
 * The answer to one request of @len bytes (NULs included, no newline) of
 * client @who: 0 and *r (the caller frees r->text, or closes and frees
 * r->status), or -ENOMEM. The request is checked whole (control_request.h)
 * before anything is done; a change from a client who may only read status
 * is refused.
 */
int control_answer(struct ut_daemon *d, const char *request, size_t len,
		   const struct control_who *who, struct control_reply *r);

/*
 * The same answer to root as one string, the status made whole (tests and
 * the fuzz target): one JSON object without a newline; NULL if out of memory.
 */
char *control_handle(struct ut_daemon *d, const char *request, size_t len);

/* {"error":"..."}; caller frees, NULL if out of memory */
char *control_error_reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* UT_CONTROL_H */
