// SPDX-License-Identifier: GPL-2.0-only
/*
 * The journal: see journal.h for the file format and the guarantees.
 *
 * Reading is strict: the file is the only record of how to undo our changes,
 * so anything we did not write (a truncated line, a key we do not know, a
 * value out of range) refuses the whole file rather than being guessed at,
 * and the file is then left alone for an operator to look at.
 *
 * Every change is written whole to "journal.tmp.XXXXXX" in the same
 * directory, fsync'ed, renamed over "journal" and the directory fsync'ed.
 * The new state is installed in memory only once all of that succeeded, so a
 * failed put or drop leaves memory as it was. Dropping the last entry keeps a
 * header-only file rather than unlinking it: one code path, and an empty
 * journal on disk then always looks the same. Entries keep their order, so
 * the file only changes where rings did; a pointer from journal_find() is
 * valid until the next put, drop or close (the array may move).
 *
 * One failure cannot be undone: if the rename succeeded but the fsync of the
 * directory failed, the new file may already be visible (durable or not).
 * We still report the error and keep the old entries in memory, which errs on
 * the safe side: the caller does not act on a put or drop that failed, and
 * the next successful write makes the file match memory again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/types.h>

#include "journal.h"
#include "io_util.h"
#include "log.h"
#include "uringtune.h"

#define JOURNAL_NAME	"journal"
#define JOURNAL_HEADER	"# uringtune journal v1"
/* mkstemp() template; journal_open() removes leftovers of a crash */
#define TMP_PREFIX	JOURNAL_NAME ".tmp."
#define TMP_TEMPLATE	TMP_PREFIX "XXXXXX"
/* longest entry line is about 180 bytes */
#define LINE_MAX_LEN	256
#define BLANKS		" \t\r\f\v"

enum journal_key {
	KEY_CTX,
	KEY_PID,
	KEY_START,
	KEY_FD,
	KEY_INO,
	KEY_ENABLED,
	KEY_BUSY_POLL_US,
	KEY_PREFER,
	KEY_TRACKING,
	NR_KEYS,
};

/* in the order they are written and listed in error messages */
static const char *const key_names[NR_KEYS] = {
	[KEY_CTX]		= "ctx",
	[KEY_PID]		= "pid",
	[KEY_START]		= "start",
	[KEY_FD]		= "fd",
	[KEY_INO]		= "ino",
	[KEY_ENABLED]		= "enabled",
	[KEY_BUSY_POLL_US]	= "busy_poll_us",
	[KEY_PREFER]		= "prefer",
	[KEY_TRACKING]		= "tracking",
};
#define KEY_LIST	"ctx, pid, start, fd, ino, enabled, busy_poll_us, prefer, tracking"

static const char *tracking_name(uint8_t mode)
{
	switch (mode) {
	case UT_TRACK_DYNAMIC:
		return "dynamic";
	case UT_TRACK_STATIC:
		return "static";
	case UT_TRACK_INACTIVE:
		return "inactive";
	}
	return NULL;
}

static int tracking_from_name(const char *name, uint8_t *mode)
{
	if (strcmp(name, "dynamic") == 0)
		*mode = UT_TRACK_DYNAMIC;
	else if (strcmp(name, "static") == 0)
		*mode = UT_TRACK_STATIC;
	else if (strcmp(name, "inactive") == 0)
		*mode = UT_TRACK_INACTIVE;
	else
		return -EINVAL;
	return 0;
}

/*
 * What journal_open() would refuse must never be written, or the daemon
 * could not start again after writing it.
 */
static bool entry_valid(const struct journal_entry *e)
{
	return e->ctx && e->pid > 0 && e->fd >= 0 && tracking_name(e->track_mode);
}

struct parser {
	const char *path;
	unsigned int lineno;
	unsigned int *entry_lines;	/* line of each entry, for duplicates */
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 3, 4)))
static int parse_error(struct parser *p, int ret, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->err || !p->errlen)
		return ret;
	n = snprintf(p->err, p->errlen, "%s: line %u: ", p->path, p->lineno);
	if (n < 0 || (size_t)n >= p->errlen)
		return ret;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return ret;
}

/* @s is all digits of @base (no sign, no blanks, no 0x) and in [min, max] */
static int parse_u64(const char *s, int base, uint64_t min, uint64_t max,
		     uint64_t *out)
{
	const char *digits = base == 16 ? "0123456789abcdefABCDEF" : "0123456789";
	unsigned long long v;
	char *end;

	if (!*s || s[strspn(s, digits)])
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_value(struct parser *p, enum journal_key key, const char *value,
		       struct journal_entry *e)
{
	const char *name = key_names[key];
	const char *expected;
	uint64_t v;

	switch (key) {
	case KEY_CTX:
		expected = "a nonzero hexadecimal address without 0x";
		if (parse_u64(value, 16, 1, UINT64_MAX, &v))
			goto bad;
		e->ctx = v;
		return 0;
	case KEY_PID:
		expected = "a decimal integer from 1 to 2147483647";
		if (parse_u64(value, 10, 1, INT32_MAX, &v))
			goto bad;
		e->pid = (pid_t)v;
		return 0;
	case KEY_START:
	case KEY_INO:
		expected = "a decimal integer from 0 to 18446744073709551615";
		if (parse_u64(value, 10, 0, UINT64_MAX, &v))
			goto bad;
		if (key == KEY_START)
			e->start_boottime = v;
		else
			e->ino = v;
		return 0;
	case KEY_FD:
		expected = "a decimal integer from 0 to 2147483647";
		if (parse_u64(value, 10, 0, INT32_MAX, &v))
			goto bad;
		e->fd = (int)v;
		return 0;
	case KEY_BUSY_POLL_US:
		expected = "a decimal integer from 0 to 4294967295";
		if (parse_u64(value, 10, 0, UINT32_MAX, &v))
			goto bad;
		e->busy_poll_us = (unsigned int)v;
		return 0;
	case KEY_ENABLED:
	case KEY_PREFER:
		expected = "0 or 1";
		/* strictly "0" or "1": parse_u64 would also take "01" */
		if (strcmp(value, "0") && strcmp(value, "1"))
			goto bad;
		if (key == KEY_ENABLED)
			e->enabled = value[0] == '1';
		else
			e->prefer = value[0] == '1';
		return 0;
	case KEY_TRACKING:
		expected = "dynamic, static or inactive";
		if (tracking_from_name(value, &e->track_mode))
			goto bad;
		return 0;
	case NR_KEYS:
		break;
	}
	return parse_error(p, -EINVAL, "unknown key '%s'", name);
bad:
	if (!*value)
		return parse_error(p, -EINVAL, "bad %s (expected %s, got an empty value)",
				   name, expected);
	return parse_error(p, -EINVAL, "bad %s (expected %s, got '%.64s')",
			   name, expected, value);
}

/* "ring key=value ...", @line without its newline; modified by strtok_r() */
static int parse_ring_line(struct parser *p, char *line, struct journal_entry *e)
{
	bool seen[NR_KEYS] = { false };
	char *save = NULL, *tok;
	int ret;

	memset(e, 0, sizeof(*e));
	if (strcspn(line, BLANKS) != strlen("ring") || strncmp(line, "ring", 4))
		return parse_error(p, -EINVAL,
				   "unknown line (expected 'ring key=value ...', got '%.100s')",
				   line);
	for (tok = strtok_r(line + 4, BLANKS, &save); tok;
	     tok = strtok_r(NULL, BLANKS, &save)) {
		char *eq = strchr(tok, '=');
		int key;

		if (!eq)
			return parse_error(p, -EINVAL,
					   "bad field (expected key=value, got '%.64s')", tok);
		*eq = '\0';
		for (key = 0; key < NR_KEYS; key++)
			if (strcmp(tok, key_names[key]) == 0)
				break;
		if (key == NR_KEYS)
			return parse_error(p, -EINVAL,
					   "unknown key '%.64s' (expected one of " KEY_LIST ")",
					   tok);
		if (seen[key])
			return parse_error(p, -EINVAL,
					   "duplicate key '%s' (expected each key once)",
					   key_names[key]);
		seen[key] = true;
		ret = parse_value(p, key, eq + 1, e);
		if (ret)
			return ret;
	}
	for (int key = 0; key < NR_KEYS; key++)
		if (!seen[key])
			return parse_error(p, -EINVAL,
					   "missing key '%s' (expected all of " KEY_LIST ")",
					   key_names[key]);
	return 0;
}

/* room for @extra more entries past j->n */
static int reserve(struct journal *j, size_t extra)
{
	struct journal_entry *entries;
	size_t cap;

	if (j->n + extra <= j->cap)
		return 0;
	cap = j->cap ? j->cap : 16;
	while (cap < j->n + extra)
		cap *= 2;
	entries = reallocarray(j->entries, cap, sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	j->entries = entries;
	j->cap = cap;
	return 0;
}

static ssize_t find_index(const struct journal *j, uint64_t ctx)
{
	for (size_t i = 0; i < j->n; i++)
		if (j->entries[i].ctx == ctx)
			return (ssize_t)i;
	return -1;
}

/* fill j->entries from an open journal file */
static int load(struct journal *j, FILE *f, char *err, size_t errlen)
{
	struct parser p = {
		.path = j->path,
		.err = err,
		.errlen = errlen,
	};
	bool header = false;
	char *line = NULL;
	size_t line_cap = 0, lines_cap = 0;
	ssize_t len;
	int ret = 0;

	for (;;) {
		struct journal_entry e;
		ssize_t dup;
		char *s;

		errno = 0;
		len = getline(&line, &line_cap, f);
		if (len < 0) {
			if (ferror(f)) {
				ret = errno ? -errno : -EIO;
				p.lineno++;
				parse_error(&p, ret, "cannot read: %s", strerror(-ret));
			}
			break;
		}
		p.lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (strlen(line) != (size_t)len) {
			ret = parse_error(&p, -EINVAL, "bad line (expected text, got a NUL byte)");
			break;
		}
		s = line + strspn(line, BLANKS);
		if (!*s)
			continue;
		if (!header) {
			/* exactly: a different version must not be half understood */
			if (strcmp(line, JOURNAL_HEADER)) {
				ret = parse_error(&p, -EINVAL,
						  "bad header (expected '" JOURNAL_HEADER "', got '%.100s')",
						  line);
				break;
			}
			header = true;
			continue;
		}
		if (*s == '#')
			continue;
		ret = parse_ring_line(&p, s, &e);
		if (ret)
			break;
		dup = find_index(j, e.ctx);
		if (dup >= 0) {
			ret = parse_error(&p, -EINVAL,
					  "duplicate ring ctx=%" PRIx64 " (expected one line per ring, first on line %u)",
					  e.ctx, p.entry_lines[dup]);
			break;
		}
		ret = reserve(j, 1);
		if (!ret && lines_cap < j->cap) {
			unsigned int *lines = reallocarray(p.entry_lines, j->cap,
							   sizeof(*lines));

			if (lines) {
				p.entry_lines = lines;
				lines_cap = j->cap;
			} else {
				ret = -ENOMEM;
			}
		}
		if (ret) {
			parse_error(&p, ret, "cannot load: %s", strerror(-ret));
			break;
		}
		p.entry_lines[j->n] = p.lineno;
		j->entries[j->n++] = e;
	}
	/* an empty file is not something we write: a journal went missing */
	if (!ret && !header) {
		p.lineno++;
		ret = parse_error(&p, -EINVAL,
				  "missing header (expected '" JOURNAL_HEADER "', got the end of the file)");
	}
	free(p.entry_lines);
	free(line);
	return ret;
}

/* "" after "/", so that paths read "/journal" rather than "//journal" */
static const char *dir_sep(const struct journal *j)
{
	return strcmp(j->dir, "/") ? "/" : "";
}

/* fsync a directory, so that the entries created or renamed in it last */
static int fsync_dir(const char *dir)
{
	int fd, ret = 0;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * mkdir @path 0700 unless it is a directory already. A directory created is
 * made durable in its parent: a journal inside a directory that a crash
 * forgets would be lost with it.
 */
static int make_dir(const char *path, char *err, size_t errlen)
{
	char buf[PATH_MAX];
	const char *parent;
	struct stat st;
	int ret;

	if (mkdir(path, 0700)) {
		ret = -errno;
		/* EEXIST also comes from a file or a dangling symlink */
		if (ret == -EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
		if (ret == -EEXIST)
			ret = -ENOTDIR;
		snprintf(err, errlen, "%s: cannot create: %s", path, strerror(-ret));
		return ret;
	}
	snprintf(buf, sizeof(buf), "%s", path);
	parent = dirname(buf);
	ret = fsync_dir(parent);
	if (ret)
		snprintf(err, errlen, "%s: cannot create: fsync of %s: %s",
			 path, parent, strerror(-ret));
	return ret;
}

/* mkdir -p, each directory created 0700 */
static int mkdir_p(const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX];
	size_t len = strlen(dir);
	int ret;

	if (len >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, len + 1);
	for (size_t i = 1; i <= len; i++) {
		/* each prefix ending before a '/' (once for "a//b"), then the whole */
		if ((path[i] != '/' && path[i] != '\0') || path[i - 1] == '/')
			continue;
		path[i] = '\0';
		ret = make_dir(path, err, errlen);
		path[i] = dir[i];
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Temporary files of writes a crash interrupted: never renamed, so never the
 * journal. Their name cannot be an operator's copy of the journal.
 */
static void remove_stale_tmp(const char *dir)
{
	struct dirent *de;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[PATH_MAX];

		if (strncmp(de->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) ||
		    strlen(de->d_name) != strlen(TMP_TEMPLATE))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (unlink(path) == 0)
			log_notice("journal: removed %s, left by an interrupted write", path);
		else
			log_warn("journal: cannot remove %s: %s", path, strerror(errno));
	}
	closedir(d);
}

int journal_open(struct journal *j, const char *state_dir, char *err, size_t errlen)
{
	char dummy[1];
	size_t len;
	struct stat st;
	FILE *f;
	int ret;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	memset(j, 0, sizeof(*j));

	/* "/var/lib/uringtune/" and "/var/lib/uringtune" are the same directory */
	len = strlen(state_dir);
	while (len > 1 && state_dir[len - 1] == '/')
		len--;
	if (!len) {
		snprintf(err, errlen, "state directory: expected a path, got an empty one");
		return -EINVAL;
	}
	if (len + strlen("/" TMP_TEMPLATE) >= sizeof(j->dir)) {
		snprintf(err, errlen, "%.*s: path too long (expected at most %zu bytes)",
			 (int)len, state_dir, sizeof(j->dir) - 1 - strlen("/" TMP_TEMPLATE));
		return -ENAMETOOLONG;
	}
	memcpy(j->dir, state_dir, len);
	j->dir[len] = '\0';
	/* fits: checked with the longer TMP_TEMPLATE above */
	if (snprintf(j->path, sizeof(j->path), "%s%s" JOURNAL_NAME, j->dir,
		     dir_sep(j)) >= (int)sizeof(j->path)) {
		ret = -ENAMETOOLONG;
		goto fail;
	}

	ret = mkdir_p(j->dir, err, errlen);
	if (ret)
		goto fail;
	remove_stale_tmp(j->dir);

	f = fopen(j->path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", j->path, strerror(-ret));
		goto fail;
	}
	if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode)) {
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		snprintf(err, errlen, "%s: cannot open: expected a regular file, got %s",
			 j->path, S_ISDIR(st.st_mode) ? "a directory" : "another file type");
	} else {
		ret = load(j, f, err, errlen);
	}
	fclose(f);
	if (ret)
		goto fail;
	return 0;
fail:
	journal_close(j);
	return ret;
}

void journal_close(struct journal *j)
{
	free(j->entries);
	memset(j, 0, sizeof(*j));
}

struct journal_entry *journal_find(struct journal *j, uint64_t ctx)
{
	ssize_t i = find_index(j, ctx);

	return i < 0 ? NULL : &j->entries[i];
}

static int format_entry(char *buf, size_t len, const struct journal_entry *e)
{
	return snprintf(buf, len,
			"ring ctx=%" PRIx64 " pid=%d start=%" PRIu64 " fd=%d ino=%" PRIu64
			" enabled=%d busy_poll_us=%u prefer=%d tracking=%s\n",
			e->ctx, (int)e->pid, e->start_boottime, e->fd, e->ino,
			e->enabled ? 1 : 0, e->busy_poll_us, e->prefer ? 1 : 0,
			tracking_name(e->track_mode));
}

/*
 * Replace the file with the header and @entries (@n of them), skipping
 * index @skip (journal_drop; SIZE_MAX for none), durably.
 */
static int write_file(const struct journal *j, const struct journal_entry *entries,
		      size_t n, size_t skip)
{
	char tmp[PATH_MAX];
	const char *step;
	size_t len = 0, size;
	char *buf;
	int fd = -1, ret;

	size = sizeof(JOURNAL_HEADER "\n") + n * LINE_MAX_LEN;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	len = snprintf(buf, size, "%s\n", JOURNAL_HEADER);
	for (size_t i = 0; i < n; i++) {
		if (i == skip)
			continue;
		len += format_entry(buf + len, size - len, &entries[i]);
	}

	step = "create a temporary file";
	/* fits: journal_open() checked the length of dir + "/" + TMP_TEMPLATE */
	if (snprintf(tmp, sizeof(tmp), "%s%s" TMP_TEMPLATE, j->dir,
		     dir_sep(j)) >= (int)sizeof(tmp)) {
		ret = -ENAMETOOLONG;
		tmp[0] = '\0';
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		tmp[0] = '\0';	/* nothing to unlink */
		goto out;
	}
	/* mkstemp's 0600 is masked by the umask: make it exact */
	step = "chmod";
	if (fchmod(fd, 0600)) {
		ret = -errno;
		goto out;
	}
	step = "write";
	ret = write_all(fd, buf, len);
	if (ret)
		goto out;
	/* the data must be on disk before the name is: else a crash after the
	 * rename could leave an empty journal */
	step = "fsync";
	if (fsync(fd)) {
		ret = -errno;
		goto out;
	}
	step = "close";
	ret = close(fd);
	fd = -1;
	if (ret) {
		ret = -errno;
		goto out;
	}
	step = "rename";
	if (rename(tmp, j->path)) {
		ret = -errno;
		goto out;
	}
	tmp[0] = '\0';
	step = "fsync the directory";
	ret = fsync_dir(j->dir);
out:
	if (fd >= 0)
		close(fd);
	if (tmp[0])
		unlink(tmp);
	if (ret)
		log_warn("journal %s: cannot %s: %s", j->path, step, strerror(-ret));
	free(buf);
	return ret;
}

int journal_put(struct journal *j, const struct journal_entry *e)
{
	/* @e may point into j->entries, which reserve() can move */
	struct journal_entry entry = *e, old;
	ssize_t i;
	int ret;

	if (!entry_valid(&entry))
		return -EINVAL;
	i = find_index(j, entry.ctx);
	if (i >= 0) {
		old = j->entries[i];
		j->entries[i] = entry;
		ret = write_file(j, j->entries, j->n, SIZE_MAX);
		if (ret)
			j->entries[i] = old;
		return ret;
	}
	ret = reserve(j, 1);
	if (ret)
		return ret;
	/* past j->n: not part of the journal until the file says so */
	j->entries[j->n] = entry;
	ret = write_file(j, j->entries, j->n + 1, SIZE_MAX);
	if (!ret)
		j->n++;
	return ret;
}

int journal_drop(struct journal *j, uint64_t ctx)
{
	ssize_t i = find_index(j, ctx);
	int ret;

	if (i < 0)
		return 0;
	ret = write_file(j, j->entries, j->n, i);
	if (ret)
		return ret;
	/* keep the order: the file then only changes where rings did */
	memmove(&j->entries[i], &j->entries[i + 1],
		(j->n - i - 1) * sizeof(j->entries[0]));
	j->n--;
	return 0;
}

int journal_put_many(struct journal *j, const struct journal_entry *es, size_t n)
{
	int ret;

	for (size_t i = 0; i < n; i++) {
		if (!entry_valid(&es[i]) || find_index(j, es[i].ctx) >= 0)
			return -EINVAL;
		for (size_t k = 0; k < i; k++)
			if (es[k].ctx == es[i].ctx)
				return -EINVAL;
	}
	if (!n)
		return 0;
	ret = reserve(j, n);
	if (ret)
		return ret;
	/* past j->n: not part of the journal until the file says so */
	memcpy(&j->entries[j->n], es, n * sizeof(*es));
	ret = write_file(j, j->entries, j->n + n, SIZE_MAX);
	if (!ret)
		j->n += n;
	return ret;
}

int journal_drop_many(struct journal *j, const uint64_t *ctxs, size_t n)
{
	struct journal_entry *kept;
	size_t k = 0;
	bool any = false;
	int ret;

	kept = malloc((j->n ? j->n : 1) * sizeof(*kept));
	if (!kept)
		return -ENOMEM;
	for (size_t i = 0; i < j->n; i++) {
		bool drop = false;

		for (size_t c = 0; c < n && !drop; c++)
			drop = j->entries[i].ctx == ctxs[c];
		if (drop)
			any = true;
		else
			kept[k++] = j->entries[i];
	}
	ret = any ? write_file(j, kept, k, SIZE_MAX) : 0;
	if (!ret && any) {
		memcpy(j->entries, kept, k * sizeof(*kept));
		j->n = k;
	}
	free(kept);
	return ret;
}
