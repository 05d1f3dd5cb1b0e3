// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Prometheus textfile export. node_exporter's textfile collector reads
 * every *.prom file of its directory at each scrape, so the file is replaced
 * whole: written to ".uringtune.prom.XXXXXX" in the same directory (a name
 * that does not end in .prom, so never read half-written), made 0644 (the
 * collector runs as another user), then renamed over "uringtune.prom".
 *
 * No fsync, of the file or the directory. The file is rebuilt every
 * interval_s and node_exporter reads whatever is there; a flush to disk
 * every interval would cost the disk (and, waited for, the loop) far more
 * than what it protects. What a crash of the host can leave: the previous
 * file (the rename was lost), or the new name with data not yet written
 * back (on ext4, whose auto_da_alloc starts the writeback of a file renamed
 * over another, rarely), which node_exporter reads as no metrics of
 * uringtune or a file it cannot parse (node_textfile_scrape_error 1). Stale
 * or empty, it lasts until uringtuned is started again: its first write
 * replaces the file at once, and it removes the temporary files a crash
 * left behind. A crash of the daemon alone loses nothing written: the
 * kernel has the data.
 *
 * The directory is node_exporter's, and so is its parent on Debian: its
 * owner must not be able to steer root's writes and unlinks elsewhere. So
 * it is opened for each write with safe_dir_open() (no symlink its owner
 * could have planted is followed, last component or not), and every file
 * call after that is relative to that descriptor: the temporary file made
 * with openat(O_EXCL|O_NOFOLLOW), renameat(), unlinkat().
 *
 * The export must never stop the daemon, nor flood its log: a failure is
 * logged once, then counted quietly while the same error persists; a
 * different error is logged again, and the first write that works says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "export.h"
#include "log.h"
#include "loop_source.h"
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

/*
 * @msg: "cannot write PATH: why". @prio: LOG_ERR, or LOG_NOTICE for a
 * directory that does not exist: node_exporter not (yet) installed is how a
 * host without Prometheus is, not a fault of this host (the package ships
 * the export on, for hosts that have it).
 */
static void export_failed_msg(struct ut_daemon *d, int prio, const char *msg)
{
	d->export_errors++;
	/* the same error again: counted, not logged */
	if (!strcmp(msg, d->export_error))
		return;
	snprintf(d->export_error, sizeof(d->export_error), "%s", msg);
	log_msg(prio, "metrics export: %s (retrying every %u s, logged again only if the "
		"error changes; [export] textfile = no switches the export off)", msg,
		d->cfg.export_interval_s);
}

static void export_failed(struct ut_daemon *d, const char *path, const char *step, int err)
{
	char msg[sizeof(d->export_error)];

	snprintf(msg, sizeof(msg), "cannot write %s: cannot %s: %s", path, step,
		 strerror(-err));
	export_failed_msg(d, LOG_ERR, msg);
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
		export_failed_msg(d, LOG_ERR, msg);
	} else if (fd == -ENOENT) {
		if (snprintf(msg, sizeof(msg), "cannot write %s: no directory %s (is "
			     "node_exporter's textfile collector installed?)", path,
			     d->cfg.textfile_dir) < 0)
			msg[0] = '\0';
		export_failed_msg(d, LOG_NOTICE, msg);
	} else if (fd < 0) {
		export_failed(d, path, "open the directory", fd);
	}
	return fd;
}

/* stdio's buffer for the temporary file: fewer, larger writes */
#define WRITE_BUFFER	(64 * 1024)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* no write in progress */
static void write_init(struct export_write *w)
{
	memset(w, 0, sizeof(*w));
	w->dirfd = -1;
	w->af.fd = -1;
}

/* the temporary file and the job end here, written or not */
static void write_drop(struct export_write *w)
{
	if (w->f)
		fclose(w->f);
	w->f = NULL;
	atomic_file_abort(&w->af);
	if (w->dirfd >= 0)
		close(w->dirfd);
	w->dirfd = -1;
	prom_job_free(w->job);
	w->job = NULL;
}

/* the temporary file as a FILE, on a duplicate: atomic_file_commit() closes af.fd */
static int open_stream(struct export_write *w)
{
	int fd = fcntl(w->af.fd, F_DUPFD_CLOEXEC, 3);

	if (fd < 0)
		return -errno;
	w->f = fdopen(fd, "w");
	if (!w->f) {
		close(fd);
		return -errno;
	}
	setvbuf(w->f, NULL, _IOFBF, WRITE_BUFFER);
	return 0;
}

/*
 * Begin a write: the directory, the temporary file, the snapshot of the
 * rings. 0: begun; 1: nothing to write (switched off, or failed: reported).
 */
static int write_begin(struct ut_daemon *d, struct export_write *w)
{
	const char *step = "create a temporary file";
	int ret;

	write_init(w);
	if (!d->cfg.export_textfile) {
		remove_written(d, "[export] textfile = no");
		d->export_error[0] = '\0';
		return 1;
	}
	/* fits: textfile_dir leaves room for the temporary name (config.h) */
	if (export_file_path(&d->cfg, w->path, sizeof(w->path))) {
		export_failed(d, d->cfg.textfile_dir, "name the file", -ENAMETOOLONG);
		return 1;
	}
	if (d->export_path[0] && strcmp(d->export_path, w->path))
		remove_written(d, "[export] textfile_dir changed");
	w->dirfd = open_textfile_dir(d, w->path);
	if (w->dirfd < 0)
		return 1;
	if (!d->export_path[0])
		atomic_file_remove_stale_at(w->dirfd, TMP_TEMPLATE, removed_stale,
					    d->cfg.textfile_dir);
	/* node_exporter reads it as its own user */
	ret = atomic_file_open_at(&w->af, w->dirfd, EXPORT_FILE_NAME, TMP_TEMPLATE, 0644);
	if (ret) {
		step = w->af.step;
		goto fail;
	}
	step = "write";
	ret = open_stream(w);
	if (ret)
		goto fail;
	step = "format the metrics";
	w->started_ns = now_ns();
	/* the file's uringtune_export_timestamp_seconds: a stale file shows it */
	d->export_time = time(NULL);
	w->job = prom_job_new(d);
	if (!w->job) {
		ret = -ENOMEM;
		goto fail;
	}
	w->snapshot_ns = now_ns() - w->started_ns;
	return 0;
fail:
	write_drop(w);
	export_failed(d, w->path, step, ret);
	return 1;
}

/* the temporary file is whole: in place of the file */
static void write_end(struct ut_daemon *d, struct export_write *w)
{
	const char *step = "write";
	int ret = 0;

	if (fclose(w->f))
		ret = -errno;
	w->f = NULL;
	if (!ret) {
		ret = atomic_file_commit(&w->af, 0);
		step = w->af.step;
	}
	log_debug("metrics export: %zu rings in %u steps, %.1f ms (snapshot %.2f ms, the longest "
		  "step %.2f ms)", prom_job_rings(w->job), w->steps,
		  (now_ns() - w->started_ns) / 1e6, w->snapshot_ns / 1e6, w->longest_step_ns / 1e6);
	write_drop(w);
	if (ret) {
		export_failed(d, w->path, step, ret);
		return;
	}
	if (d->export_error[0])
		log_info("export to %s resumed", d->cfg.textfile_dir);
	else if (!d->export_path[0])
		log_info("exporting metrics to %s every %u s", w->path, d->cfg.export_interval_s);
	d->export_error[0] = '\0';
	snprintf(d->export_path, sizeof(d->export_path), "%s", w->path);
}

/* at most @lines more of the file; true while the write goes on */
static bool write_step(struct ut_daemon *d, struct export_write *w, size_t lines)
{
	uint64_t t0 = now_ns();
	int ret = prom_job_step(w->job, d, w->f, lines);

	w->steps++;
	if (now_ns() - t0 > w->longest_step_ns)
		w->longest_step_ns = now_ns() - t0;
	if (ret > 0)
		return true;
	if (ret < 0) {
		/* the stream's own errno is gone by now; the write failed, and says so */
		write_drop(w);
		export_failed(d, w->path, "write", ret);
		return false;
	}
	write_end(d, w);
	return false;
}

void export_now(struct ut_daemon *d)
{
	struct export_write w;

	if (write_begin(d, &w))
		return;
	while (write_step(d, &w, SIZE_MAX))
		;
}

static int on_step(sd_event_source *s, void *arg)
{
	struct export_loop *x = arg;

	loop_source_enter(s);
	if (!write_step(x->d, &x->w, x->step_lines))
		sd_event_source_set_enabled(s, SD_EVENT_OFF);
	return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *arg)
{
	struct export_loop *x = arg;

	(void)usec;
	loop_source_enter(s);
	sd_event_source_set_time_relative(s, x->d->cfg.export_interval_s * UINT64_C(1000000));
	sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	if (x->w.job) {
		/* a host so busy that the last one is not done: this round is skipped */
		log_debug("metrics export: the previous write is still going on");
		return 0;
	}
	if (!write_begin(x->d, &x->w))
		sd_event_source_set_enabled(x->step, SD_EVENT_ON);
	return 0;
}

int export_loop_start(struct export_loop *x, struct ut_daemon *d, sd_event *e)
{
	int ret;

	x->d = d;
	write_init(&x->w);
	if (!x->step_lines)
		x->step_lines = EXPORT_STEP_LINES;
	ret = sd_event_add_time_relative(e, &x->timer, CLOCK_MONOTONIC,
					 d->cfg.export_interval_s * UINT64_C(1000000), 0, on_timer,
					 x);
	if (ret < 0)
		return ret;
	loop_source_describe(x->timer, "export-timer");
	ret = sd_event_add_defer(e, &x->step, on_step, x);
	if (ret < 0)
		return ret;
	loop_source_describe(x->step, "export");
	/* after everything else that is pending: a step waits, the daemon's work does not */
	sd_event_source_set_priority(x->step, SD_EVENT_PRIORITY_IDLE);
	return sd_event_source_set_enabled(x->step, SD_EVENT_OFF);
}

void export_loop_kick(struct export_loop *x)
{
	if (!x->timer)
		return;
	if (x->w.job)
		write_drop(&x->w);
	sd_event_source_set_enabled(x->step, SD_EVENT_OFF);
	sd_event_source_set_time_relative(x->timer, 0);
	sd_event_source_set_enabled(x->timer, SD_EVENT_ONESHOT);
}

void export_loop_stop(struct export_loop *x)
{
	if (x->w.job)
		write_drop(&x->w);
	x->timer = sd_event_source_disable_unref(x->timer);
	x->step = sd_event_source_disable_unref(x->step);
}

void export_stop(struct ut_daemon *d)
{
	remove_written(d, "stopping");
}
