// SPDX-License-Identifier: GPL-2.0-only
/* state_dir/hybrid-verdicts.json: loaded at start, written when it changed (verdict_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "log.h"
#include "safe_dir.h"
#include "verdict_file.h"

/* mkstemp() template; verdict_file_open() removes leftovers of a crash */
#define TMP_TEMPLATE	VERDICT_FILE_NAME ".tmp.XXXXXX"
#define BAD_NAME	VERDICT_FILE_NAME ".bad"

int verdict_file_open(struct verdict_file *f, const char *state_dir)
{
	char err[PATH_MAX + 160];
	size_t len = strlen(state_dir);
	int ret;

	memset(f, 0, sizeof(*f));
	f->dirfd = -1;
	while (len > 1 && state_dir[len - 1] == '/')
		len--;
	snprintf(f->path, sizeof(f->path), "%.*s%s" VERDICT_FILE_NAME, (int)len, state_dir,
		 len == 1 && state_dir[0] == '/' ? "" : "/");
	ret = safe_dir_open("state_dir", state_dir, SAFE_DIR_CREATE, err, sizeof(err));
	if (ret >= 0) {
		f->dirfd = ret;
		ret = safe_dir_check_private(f->dirfd, "state_dir", state_dir, err, sizeof(err));
	}
	if (ret < 0) {
		log_warn("hybrid verdicts: %s: not kept across restarts", err);
		if (f->dirfd >= 0)
			close(f->dirfd);
		f->dirfd = -1;
		return ret;
	}
	f->open = true;
	atomic_file_remove_stale_at(f->dirfd, TMP_TEMPLATE, NULL, NULL);
	return 0;
}

/* the file whole, at most VERDICT_FILE_MAX bytes; -ENOENT none, -EFBIG larger */
static int read_all(int fd, char **text, size_t *len)
{
	struct stat st;
	size_t n = 0;
	ssize_t r = 0;
	char *buf;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_size > VERDICT_FILE_MAX)
		return -EFBIG;
	buf = malloc(VERDICT_FILE_MAX + 1);
	if (!buf)
		return -ENOMEM;
	/* bounded whatever fstat said: the file may grow under us */
	while (n <= VERDICT_FILE_MAX && (r = read(fd, buf + n, VERDICT_FILE_MAX + 1 - n)) > 0)
		n += r;
	if (r < 0 || n > VERDICT_FILE_MAX) {
		free(buf);
		return r < 0 ? -errno : -EFBIG;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* a file we cannot read: kept for people as .bad, and said so */
static void move_aside(struct verdict_file *f, const char *what)
{
	if (renameat(f->dirfd, VERDICT_FILE_NAME, f->dirfd, BAD_NAME)) {
		log_err("hybrid verdicts: %s: %s; cannot move it to %s: %s: it will be "
			"overwritten", f->path, what, BAD_NAME, strerror(errno));
		return;
	}
	fsync(f->dirfd);
	log_err("hybrid verdicts: %s: %s; moved to %s.bad, starting with no verdicts", f->path,
		what, f->path);
}

void verdict_file_load(struct verdict_file *f, struct verdicts *v)
{
	char err[256], what[320];
	size_t len = 0, dropped;
	char *text = NULL;
	int fd, ret;

	v->n = 0;
	v->dirty = false;
	if (!f->open)
		return;
	fd = openat(f->dirfd, VERDICT_FILE_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT)
		return;
	ret = fd < 0 ? -errno : read_all(fd, &text, &len);
	if (fd >= 0)
		close(fd);
	if (ret == -EFBIG || ret == -EINVAL || ret == -ELOOP) {
		snprintf(what, sizeof(what), ret == -EFBIG ? "larger than %d bytes, expected a "
			 "verdict file" : "not a regular file", VERDICT_FILE_MAX);
		move_aside(f, what);
		return;
	}
	if (ret) {
		log_err("hybrid verdicts: %s: cannot read: %s; starting with no verdicts", f->path,
			strerror(-ret));
		return;
	}
	ret = verdicts_from_json(text, len, v, &dropped, err, sizeof(err));
	free(text);
	if (ret) {
		move_aside(f, err);
		return;
	}
	if (dropped)
		log_warn("hybrid verdicts: %s: %zu programs past the first %d left out", f->path,
			 dropped, HV_MAX_PROGRAMS);
	log_info("hybrid verdicts: %zu programs from %s", v->n, f->path);
}

int verdict_file_save(struct verdict_file *f, struct verdicts *v)
{
	const char *step = "format";
	char *text;
	int ret = -ENOMEM;

	if (!f->open)
		return -EBADF;
	text = verdicts_to_json(v);
	if (text) {
		size_t len = strlen(text);

		/* one newline at the end: a text file */
		text[len] = '\n';
		ret = atomic_file_write_at(f->dirfd, VERDICT_FILE_NAME, TMP_TEMPLATE, 0600, text,
					   len + 1, ATOMIC_FSYNC | ATOMIC_FSYNC_DIR, &step);
		free(text);
	}
	if (ret) {
		/* said once per failure streak */
		if (!f->error[0])
			log_err("hybrid verdicts: %s: cannot %s: %s", f->path, step,
				strerror(-ret));
		snprintf(f->error, sizeof(f->error), "%s: cannot %s: %s", f->path, step,
			 strerror(-ret));
		f->errors++;
		return ret;
	}
	f->error[0] = '\0';
	v->dirty = false;
	return 0;
}

void verdict_file_tick(struct verdict_file *f, struct verdicts *v, uint64_t now_ns)
{
	if (!v->dirty || !f->open ||
	    (f->saved_ns && now_ns - f->saved_ns < VERDICT_SAVE_INTERVAL_S * 1000000000ULL))
		return;
	f->saved_ns = now_ns;
	verdict_file_save(f, v);
}

void verdict_file_close(struct verdict_file *f, struct verdicts *v)
{
	if (!f->open)
		return;
	if (v->dirty)
		verdict_file_save(f, v);
	close(f->dirfd);
	f->dirfd = -1;
	f->open = false;
}
