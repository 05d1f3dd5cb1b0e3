/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control socket: AF_UNIX stream, root only (0600). A client writes one
 * JSON request line ({"cmd":"status"}), the daemon answers with one JSON
 * object and closes.
 */
#ifndef UT_CONTROL_H
#define UT_CONTROL_H

#include <stddef.h>

#include "daemon.h"

/* listening socket at path (its directory is created); fd or -errno, err says why */
int control_listen(const char *path, char *err, size_t errlen);
void control_close(int fd, const char *path);

/* accept one client and answer it; never fails the daemon */
void control_serve_one(int listen_fd, struct ut_daemon *d);

/* the reply to one request line; caller frees */
char *control_handle(struct ut_daemon *d, const char *request);

#endif /* UT_CONTROL_H */
