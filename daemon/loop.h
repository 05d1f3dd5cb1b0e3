/* SPDX-License-Identifier: GPL-2.0-only */
/* The daemon's event loop (sd-event); returns when a stop signal came. */
#ifndef UT_LOOP_H
#define UT_LOOP_H

#include <sys/types.h>

#include <systemd/sd-event.h>

#include "daemon.h"
#include "export.h"

struct control_server;

struct loop {
	struct ut_daemon *d;
	sd_event *event;
	sd_event_source *tick;
	int control_fd;
	gid_t control_group;		/* may read status (control_share()) */
	struct control_server *control;	/* its clients */
	struct export_loop export;	/* the metrics file, written in steps */
	char status[128];	/* last STATUS= sent to the service manager */
};

/* run until SIGTERM/SIGINT; 0, or a negative errno if the loop could not run */
int loop_run(struct loop *l);

#endif /* UT_LOOP_H */
