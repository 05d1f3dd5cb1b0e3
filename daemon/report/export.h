/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Prometheus textfile export: [export] textfile_dir/uringtune.prom, for
 * node_exporter's textfile collector, rewritten every [export] interval_s
 * and removed at stop. What was written and the failures live in struct
 * ut_daemon; a write in progress in struct export_loop.
 *
 * In the event loop a write never holds it up: a timer starts it (the
 * snapshot of the rings, the temporary file), then a defer source at idle
 * priority writes EXPORT_STEP_LINES lines per dispatch straight to the
 * temporary file, whenever nothing else is pending, and renames it at the
 * end (prom.h).
 */
#ifndef UT_EXPORT_H
#define UT_EXPORT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <systemd/sd-event.h>

#include "atomic_file.h"
#include "config.h"
#include "daemon.h"

#define EXPORT_FILE_NAME	"uringtune.prom"

/*
 * Lines (and rings looked up) one dispatch writes. Measured on the 2-vCPU
 * VM: 10 000 idle rings (3.4 MB, 40 000 lines) in 32 steps of ~0.5 ms,
 * 16-18 ms a file; 2 000 rings in 9 steps.
 */
#define EXPORT_STEP_LINES	4096

struct prom_job;

/* a write in progress: the temporary file, filled in steps */
struct export_write {
	struct prom_job *job;		/* NULL: no write in progress */
	struct atomic_file af;
	FILE *f;			/* on a duplicate of af.fd */
	int dirfd;			/* textfile_dir, open until the rename */
	char path[PATH_MAX];		/* DIR/uringtune.prom */
	uint64_t started_ns;		/* CLOCK_MONOTONIC */
	unsigned int steps;
	uint64_t snapshot_ns;		/* for the debug line at the end */
	uint64_t longest_step_ns;
};

/* the export in the event loop (loop.c) */
struct export_loop {
	struct ut_daemon *d;
	sd_event_source *timer;		/* every interval_s: a write begins */
	sd_event_source *step;		/* the write goes on, one step a dispatch */
	struct export_write w;
	size_t step_lines;		/* EXPORT_STEP_LINES; tests take fewer */
};

/*
 * Export every interval_s from the loop of @e, the first one interval_s
 * from now (export_now() wrote one before the loop). 0 or -errno.
 */
int export_loop_start(struct export_loop *x, struct ut_daemon *d, sd_event *e);
/*
 * After SIGHUP: a write in progress is dropped and another begins at once,
 * with the configuration now in force (textfile off: the file is removed;
 * a new directory: the file moves; a new interval_s counts from now).
 */
void export_loop_kick(struct export_loop *x);
/* drop a write in progress (its temporary file too) and leave the loop */
void export_loop_stop(struct export_loop *x);

/*
 * Write the file whole, now, if [export] textfile is on; if it is off or
 * textfile_dir changed, remove the file written before. A failure is logged
 * once, counted in d->export_errors and kept in d->export_error until a
 * write works again, which is logged too. Never fatal.
 */
void export_now(struct ut_daemon *d);

/* remove the file written last, if any: a stopped daemon's metrics are stale */
void export_stop(struct ut_daemon *d);

/* "DIR/uringtune.prom" for @cfg into @buf; -ENAMETOOLONG if it does not fit */
int export_file_path(const struct ut_config *cfg, char *buf, size_t len);

#endif /* UT_EXPORT_H */
