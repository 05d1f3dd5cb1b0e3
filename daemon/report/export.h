/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Prometheus textfile export: [export] textfile_dir/uringtune.prom, for
 * node_exporter's textfile collector, rewritten every tick and removed at
 * stop. State (what was written, failures) lives in struct ut_daemon.
 */
#ifndef UT_EXPORT_H
#define UT_EXPORT_H

#include <stddef.h>

#include "config.h"
#include "daemon.h"

#define EXPORT_FILE_NAME	"uringtune.prom"

/*
 * Write the file if [export] textfile is on; if it is off or textfile_dir
 * changed (SIGHUP), remove the file written before. A failure is logged
 * once, counted in d->export_errors and kept in d->export_error until a
 * write works again, which is logged too. Never fatal.
 */
void export_tick(struct ut_daemon *d);

/* remove the file written last, if any: a stopped daemon's metrics are stale */
void export_stop(struct ut_daemon *d);

/* "DIR/uringtune.prom" for @cfg into @buf; -ENAMETOOLONG if it does not fit */
int export_file_path(const struct ut_config *cfg, char *buf, size_t len);

#endif /* UT_EXPORT_H */
