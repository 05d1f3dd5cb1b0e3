/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control socket: AF_UNIX stream, root only (0600). A client writes one
 * JSON request line ({"cmd":"status"}), the daemon answers with one JSON
 * object and a newline, and closes. How clients are served without ever
 * blocking the loop: control_server.h.
 */
#ifndef UT_CONTROL_H
#define UT_CONTROL_H

#include <stddef.h>

#include "daemon.h"

/* listening socket at path (its directory is created); fd or -errno, err says why */
int control_listen(const char *path, char *err, size_t errlen);
void control_close(int fd, const char *path);

/*
 * The reply to one request of @len bytes (NULs included, no newline), as
 * one JSON object without a newline; NULL if out of memory. Caller frees.
 * The request is checked whole (control_request.h) before anything is done.
 */
char *control_handle(struct ut_daemon *d, const char *request, size_t len);

/* {"error":"..."}; caller frees, NULL if out of memory */
char *control_error_reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* UT_CONTROL_H */
