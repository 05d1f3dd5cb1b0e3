// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Prometheus textfile export. node_exporter's textfile collector reads
 * every *.prom file of its directory at each scrape, so the file is replaced
 * whole: written to ".uringtune.prom.XXXXXX" in the same directory (a name
 * that does not end in .prom, so never read half-written), made 0644 (the
 * collector runs as another user), fsync'ed so that a crash after the rename
 * cannot leave an empty or partial file behind, then renamed over
 * "uringtune.prom". The directory is not fsync'ed: losing the rename in a
 * crash leaves the previous file, stale either way until the next start
 * rewrites it, and that would be one more disk flush per tick.
 *
 * The export must never stop the daemon, nor flood its log: a failure is
 * logged once, then counted quietly while the same error persists; a
 * different error is logged again, and the first write that works says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "export.h"
#include "log.h"
#include "prom.h"

/* mkstemp() template; leftovers of a crash are removed before the first write */
#define TMP_TEMPLATE	"." EXPORT_FILE_NAME ".XXXXXX"

/* @dir/@name into @buf, without doubling the '/' of "/" or "dir/" */
static int join(char *buf, size_t len, const char *dir, const char *name)
{
	size_t dlen = strlen(dir);
	int n;

	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;
	n = snprintf(buf, len, "%.*s%s%s", (int)dlen, dir,
		     dlen && dir[dlen - 1] == '/' ? "" : "/", name);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int export_file_path(const struct ut_config *cfg, char *buf, size_t len)
{
	return join(buf, len, cfg->textfile_dir, EXPORT_FILE_NAME);
}

/* for the temporary files of writes a crash interrupted: never renamed, never read */
static void removed_stale(const char *path, int err, void *data)
{
	(void)data;
	if (!err)
		log_info("removed %s, left by an interrupted export", path);
}

/* remove the file written last (export switched off, moved, or stopping) */
static void remove_written(struct ut_daemon *d, const char *why)
{
	if (!d->export_path[0])
		return;
	if (unlink(d->export_path) == 0)
		log_info("removed %s (%s)", d->export_path, why);
	else if (errno != ENOENT)
		log_warn("cannot remove %s (%s): %s", d->export_path, why, strerror(errno));
	d->export_path[0] = '\0';
}

static void export_failed(struct ut_daemon *d, const char *path, const char *step, int err)
{
	char msg[sizeof(d->export_error)];

	d->export_errors++;
	snprintf(msg, sizeof(msg), "cannot write %s: cannot %s: %s", path, step,
		 strerror(-err));
	/* the same error again: counted, not logged */
	if (!strcmp(msg, d->export_error))
		return;
	memcpy(d->export_error, msg, sizeof(msg));
	log_err("metrics export: %s (retrying every tick, logged again only if the "
		"error changes; [export] textfile = no switches the export off)", msg);
}

void export_tick(struct ut_daemon *d)
{
	const char *step = "format the metrics";
	char path[PATH_MAX];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	if (!d->cfg.export_textfile) {
		remove_written(d, "[export] textfile = no");
		d->export_error[0] = '\0';
		return;
	}
	/* fits: textfile_dir leaves room for the temporary name (config.h) */
	if (export_file_path(&d->cfg, path, sizeof(path))) {
		export_failed(d, d->cfg.textfile_dir, "name the file", -ENAMETOOLONG);
		return;
	}
	if (d->export_path[0] && strcmp(d->export_path, path))
		remove_written(d, "[export] textfile_dir changed");
	if (!d->export_path[0])
		atomic_file_remove_stale(d->cfg.textfile_dir, TMP_TEMPLATE, removed_stale, NULL);

	f = open_memstream(&buf, &len);
	if (!f) {
		ret = -errno;
		goto out;
	}
	ret = prom_format(d, f);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	if (!ret)
		/* node_exporter reads it as its own user; no directory fsync (above) */
		ret = atomic_file_write(path, TMP_TEMPLATE, 0644, buf, len, ATOMIC_FSYNC, &step);
out:
	free(buf);
	if (ret) {
		export_failed(d, path, step, ret);
		return;
	}
	if (d->export_error[0])
		log_info("export to %s resumed", d->cfg.textfile_dir);
	else if (!d->export_path[0])
		log_info("exporting metrics to %s every tick", path);
	d->export_error[0] = '\0';
	snprintf(d->export_path, sizeof(d->export_path), "%s", path);
}

void export_stop(struct ut_daemon *d)
{
	remove_written(d, "stopping");
}
