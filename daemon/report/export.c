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
 * The directory is node_exporter's, and so is its parent on Debian: its
 * owner must not be able to steer root's writes and unlinks elsewhere. So
 * it is opened each time with safe_dir_open() (no symlink its owner could
 * have planted is followed, last component or not), and every file call
 * after that is relative to that descriptor: the temporary file made with
 * openat(O_EXCL|O_NOFOLLOW), renameat(), unlinkat().
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
#include "safe_dir.h"

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
static void removed_stale(const char *name, int err, void *data)
{
	if (!err)
		log_info("removed %s/%s, left by an interrupted export", (const char *)data, name);
}

/* remove the file written last (export switched off, moved, or stopping) */
static void remove_written(struct ut_daemon *d, const char *why)
{
	char dir[PATH_MAX], err[PATH_MAX + 160];
	char *slash;
	int fd;

	if (!d->export_path[0])
		return;
	/* export_path is "DIR/" EXPORT_FILE_NAME (export_file_path()) */
	snprintf(dir, sizeof(dir), "%s", d->export_path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		slash[slash == dir] = '\0';	/* "/uringtune.prom": "/" */
	fd = safe_dir_open("textfile_dir", dir, 0, err, sizeof(err));
	if (fd < 0) {
		if (fd != -ENOENT)
			log_warn("cannot remove %s (%s): %s", d->export_path, why, err);
	} else if (unlinkat(fd, EXPORT_FILE_NAME, 0) == 0) {
		log_info("removed %s (%s)", d->export_path, why);
	} else if (errno != ENOENT) {
		log_warn("cannot remove %s (%s): %s", d->export_path, why, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	d->export_path[0] = '\0';
}

/* @msg: "cannot write PATH: why" */
static void export_failed_msg(struct ut_daemon *d, const char *msg)
{
	d->export_errors++;
	/* the same error again: counted, not logged */
	if (!strcmp(msg, d->export_error))
		return;
	snprintf(d->export_error, sizeof(d->export_error), "%s", msg);
	log_err("metrics export: %s (retrying every tick, logged again only if the "
		"error changes; [export] textfile = no switches the export off)", msg);
}

static void export_failed(struct ut_daemon *d, const char *path, const char *step, int err)
{
	char msg[sizeof(d->export_error)];

	snprintf(msg, sizeof(msg), "cannot write %s: cannot %s: %s", path, step,
		 strerror(-err));
	export_failed_msg(d, msg);
}

/*
 * The directory, opened for this write only (a directory made again later
 * is found again); or -errno, the failure reported. A symlink refused says
 * why in its own words.
 */
static int open_textfile_dir(struct ut_daemon *d, const char *path)
{
	char err[PATH_MAX + 160], msg[sizeof(d->export_error)];
	int fd;

	fd = safe_dir_open("textfile_dir", d->cfg.textfile_dir, 0, err, sizeof(err));
	if (fd == -ELOOP) {
		/* a long one is cut: the path is at its start */
		if (snprintf(msg, sizeof(msg), "cannot write %s: %s", path, err) < 0)
			msg[0] = '\0';
		export_failed_msg(d, msg);
	} else if (fd < 0) {
		export_failed(d, path, "open the directory", fd);
	}
	return fd;
}

void export_tick(struct ut_daemon *d)
{
	const char *step = "format the metrics";
	char path[PATH_MAX];
	char *buf = NULL;
	size_t len = 0;
	int ret, dirfd;
	FILE *f;

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
	dirfd = open_textfile_dir(d, path);
	if (dirfd < 0)
		return;
	if (!d->export_path[0])
		atomic_file_remove_stale_at(dirfd, TMP_TEMPLATE, removed_stale,
					    d->cfg.textfile_dir);

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
		ret = atomic_file_write_at(dirfd, EXPORT_FILE_NAME, TMP_TEMPLATE, 0644, buf, len,
					   ATOMIC_FSYNC, &step);
out:
	close(dirfd);
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
