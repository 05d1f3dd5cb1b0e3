// SPDX-License-Identifier: GPL-2.0-only
/*
 * The journal: see journal.h for the file format and the guarantees. This
 * is the file and the entries in memory; the text is journal_format.c, the
 * entries by address journal_index.c, the calls that write before they
 * return (journal_put() ...) journal_sync.c.
 *
 * A file that cannot be read is refused whole (journal_format.h says why)
 * and then left alone for an operator to look at.
 *
 * Every change is written whole to "journal.tmp.XXXXXX" in the same
 * directory, fsync'ed, renamed over "journal" and the directory fsync'ed
 * (atomic_file.h). The new state is installed in memory only once all of
 * that succeeded, so a failed put or drop leaves memory as it was. Dropping
 * the last entry keeps a header-only file rather than unlinking it: one code
 * path, and an empty journal on disk then always looks the same. Entries
 * keep their order, so the file only changes where rings did; a pointer
 * from journal_find() is valid until the next put, drop or close (the array
 * may move).
 *
 * One failure cannot be undone: if the rename succeeded but the fsync of the
 * directory failed, the new file may already be visible (durable or not).
 * We still report the error and keep the old entries in memory, which errs on
 * the safe side: the caller does not act on a put or drop that failed, and
 * the next successful write makes the file match memory again.
 *
 * Staged changes (journal_stage_*) are memory first, file later: each one
 * is a generation, each entry remembers the generation that put it, and a
 * commit of generation G that reached the disk makes every entry put up to
 * G durable. A failed commit leaves the file as it was or as G (the same
 * directory-fsync case): either way it holds every entry that was durable
 * before, so journal_forget_failed() forgets only the entries G was the
 * first to carry, and the next commit writes memory whole again.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "journal.h"
#include "journal_index.h"
#include "journal_format.h"
#include "log.h"
#include "safe_dir.h"

/* mkstemp() template; journal_open() removes leftovers of a crash */
#define TMP_TEMPLATE	JOURNAL_NAME ".tmp.XXXXXX"

/* room for @extra more entries past j->n */
static int reserve(struct journal *j, size_t extra)
{
	struct journal_entry *entries;
	uint64_t *put_gen;
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
	put_gen = reallocarray(j->put_gen, cap, sizeof(*put_gen));
	if (!put_gen)
		return -ENOMEM;
	j->put_gen = put_gen;
	j->cap = cap;
	return 0;
}

static ssize_t find_index(const struct journal *j, uint64_t ctx)
{
	return journal_index_find(&j->idx, j->entries, j->n, ctx);
}

/* what load() keeps besides the entries: the line of each, for duplicates */
struct load_lines {
	unsigned int *line;
	size_t cap;
};

/* append an entry read from line p->lineno, unless its ring has one already */
static int load_entry(struct journal *j, struct journal_parser *p, struct load_lines *ll,
		      const struct journal_entry *e)
{
	ssize_t dup = find_index(j, e->ctx);
	int ret;

	if (dup >= 0)
		return journal_parse_error(p, -EINVAL,
					   "duplicate ring ctx=%" PRIx64 " (expected one line per ring, first on line %u)",
					   e->ctx, ll->line[dup]);
	ret = reserve(j, 1);
	if (!ret && ll->cap < j->cap) {
		unsigned int *line = reallocarray(ll->line, j->cap, sizeof(*line));

		if (line) {
			ll->line = line;
			ll->cap = j->cap;
		} else {
			ret = -ENOMEM;
		}
	}
	if (ret)
		return journal_parse_error(p, ret, "cannot load: %s", strerror(-ret));
	ll->line[j->n] = p->lineno;
	j->put_gen[j->n] = 0;
	j->entries[j->n++] = *e;
	journal_index_add(&j->idx, j->entries, j->n);
	return 0;
}

/* fill j->entries from an open journal file */
static int load(struct journal *j, FILE *f, char *err, size_t errlen)
{
	struct journal_parser p = {
		.path = j->path,
		.err = err,
		.errlen = errlen,
	};
	struct load_lines ll = { NULL, 0 };
	char *line = NULL;
	size_t line_cap = 0;
	ssize_t len;
	int ret = 0;

	for (;;) {
		struct journal_entry e;

		errno = 0;
		len = getline(&line, &line_cap, f);
		if (len < 0) {
			if (ferror(f)) {
				ret = errno ? -errno : -EIO;
				p.lineno++;
				journal_parse_error(&p, ret, "cannot read: %s", strerror(-ret));
			}
			break;
		}
		p.lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		ret = journal_parse_line(&p, line, len, &e);
		if (ret > 0)
			ret = load_entry(j, &p, &ll, &e);
		if (ret)
			break;
	}
	if (!ret)
		ret = journal_parse_end(&p);
	free(ll.line);
	free(line);
	return ret;
}

/* "" after "/", so that paths read "/journal" rather than "//journal" */
static const char *dir_sep(const struct journal *j)
{
	return strcmp(j->dir, "/") ? "/" : "";
}

/*
 * For the temporary files of writes a crash interrupted: never renamed, so
 * never the journal. Their name cannot be an operator's copy of the journal.
 */
static void removed_stale(const char *name, int err, void *data)
{
	const struct journal *j = data;

	if (!err)
		log_notice("journal: removed %s%s%s, left by an interrupted write", j->dir,
			   dir_sep(j), name);
	else
		log_warn("journal: cannot remove %s%s%s: %s", j->dir, dir_sep(j), name,
			 strerror(-err));
}

/*
 * STATE_DIR, created 0700 if missing, opened once (safe_dir.h: no symlink
 * anyone but root planted is followed) and used with *at() calls from then
 * on; it must be root's alone, as it holds how to undo every change.
 */
static int open_dir(struct journal *j, char *err, size_t errlen)
{
	int ret;

	j->dirfd = safe_dir_open("state_dir", j->dir, SAFE_DIR_CREATE, err, errlen);
	if (j->dirfd < 0)
		return j->dirfd;
	ret = safe_dir_check_private(j->dirfd, "state_dir", j->dir, err, errlen);
	if (ret)
		return ret;
	atomic_file_remove_stale_at(j->dirfd, TMP_TEMPLATE, removed_stale, j);
	return 0;
}

/* the journal file, or NULL with errno (ENOENT: none yet); never through a symlink */
static FILE *open_file(const struct journal *j)
{
	int fd = openat(j->dirfd, JOURNAL_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "re");
	if (!f)
		close(fd);
	return f;
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
	j->dirfd = -1;

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

	ret = open_dir(j, err, errlen);
	if (ret)
		goto fail;

	f = open_file(j);
	if (!f) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		snprintf(err, errlen, "%s: cannot open: %s%s", j->path, strerror(-ret),
			 ret == -ELOOP ? " (a symbolic link: expected the journal itself)" : "");
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
	/* > 0: a journal never opened is all zeroes, and fd 0 is stdin's */
	if (j->dirfd > 0)
		close(j->dirfd);
	free(j->entries);
	free(j->put_gen);
	journal_index_free(&j->idx);
	memset(j, 0, sizeof(*j));
	j->dirfd = -1;
}

struct journal_entry *journal_find(struct journal *j, uint64_t ctx)
{
	ssize_t i = find_index(j, ctx);

	return i < 0 ? NULL : &j->entries[i];
}

/* after the directory went away: open it again, as at start (never created here) */
static int reopen_dir(struct journal *j, char *err, size_t errlen)
{
	int fd, ret;

	fd = safe_dir_open("state_dir", j->dir, 0, err, errlen);
	if (fd < 0)
		return fd;
	ret = safe_dir_check_private(fd, "state_dir", j->dir, err, errlen);
	if (ret) {
		close(fd);
		return ret;
	}
	close(j->dirfd);
	j->dirfd = fd;
	return 0;
}

int journal_write_entries(struct journal *j, const struct journal_entry *es, size_t n,
			  char *err, size_t errlen)
{
	const char *step;
	size_t len;
	char *buf;
	int ret;

	buf = journal_format(es, n, SIZE_MAX, &len);
	if (!buf) {
		snprintf(err, errlen, "journal %s: cannot format %zu entries: %s", j->path, n,
			 strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = atomic_file_write_at(j->dirfd, JOURNAL_NAME, TMP_TEMPLATE, 0600, buf, len,
				   ATOMIC_FSYNC | ATOMIC_FSYNC_DIR, &step);
	/* the directory was removed (and maybe made again): checked and opened anew */
	if (ret == -ENOENT) {
		char why[PATH_MAX + 160] = "";

		if (!reopen_dir(j, why, sizeof(why)))
			ret = atomic_file_write_at(j->dirfd, JOURNAL_NAME, TMP_TEMPLATE, 0600, buf,
						   len, ATOMIC_FSYNC | ATOMIC_FSYNC_DIR, &step);
		if (ret && why[0]) {
			snprintf(err, errlen, "journal %s: cannot %s: %s (%s)", j->path, step,
				 strerror(-ret), why);
			free(buf);
			return ret;
		}
	}
	if (ret)
		snprintf(err, errlen, "journal %s: cannot %s: %s", j->path, step, strerror(-ret));
	free(buf);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* @ctxs sorted (malloc'ed, *out), so that thousands of rings stay O(n log n) */
static int sorted_copy(const uint64_t *ctxs, size_t n, uint64_t **out)
{
	*out = malloc(n * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, ctxs, n * sizeof(**out));
	qsort(*out, n, sizeof(**out), cmp_u64);
	return 0;
}

/*
 * @es may go in: valid, new rings, each once. Sorted, so that a burst of
 * 10 000 rings against a journal of 10 000 stays O(n log n) on the loop.
 */
static int check_new(const struct journal *j, const struct journal_entry *es, size_t n)
{
	uint64_t *ctxs;
	int ret = 0;

	if (!n)
		return 0;
	ctxs = malloc(n * sizeof(*ctxs));
	if (!ctxs)
		return -ENOMEM;
	for (size_t i = 0; i < n && !ret; i++) {
		ctxs[i] = es[i].ctx;
		if (!journal_entry_valid(&es[i]))
			ret = -EINVAL;
	}
	if (!ret)
		qsort(ctxs, n, sizeof(*ctxs), cmp_u64);
	for (size_t i = 1; i < n && !ret; i++)
		if (ctxs[i] == ctxs[i - 1])
			ret = -EINVAL;
	for (size_t i = 0; i < j->n && !ret; i++)
		if (bsearch(&j->entries[i].ctx, ctxs, n, sizeof(*ctxs), cmp_u64))
			ret = -EINVAL;
	free(ctxs);
	return ret;
}

int journal_stage_put_many(struct journal *j, const struct journal_entry *es, size_t n)
{
	int ret = check_new(j, es, n);

	if (ret || !n)
		return ret;
	ret = reserve(j, n);
	if (ret)
		return ret;
	memcpy(&j->entries[j->n], es, n * sizeof(*es));
	j->gen++;
	for (size_t i = 0; i < n; i++)
		j->put_gen[j->n++] = j->gen;
	/* out of memory: lookups scan instead */
	journal_index_build(&j->idx, j->entries, j->n);
	return 0;
}

/* keep the entries @keep says, in their order (the file then only changes where rings did) */
static size_t compact(struct journal *j, bool (*keep)(const struct journal *j, size_t i,
						      const void *arg), const void *arg)
{
	size_t k = 0, n = j->n;

	for (size_t i = 0; i < n; i++) {
		if (!keep(j, i, arg))
			continue;
		j->entries[k] = j->entries[i];
		j->put_gen[k++] = j->put_gen[i];
	}
	j->n = k;
	/* positions moved: out of memory, lookups scan instead */
	if (k < n)
		journal_index_build(&j->idx, j->entries, j->n);
	return n - k;
}

/* rings to drop, sorted */
struct ctx_list {
	const uint64_t *ctxs;
	size_t n;
};

static bool not_listed(const struct journal *j, size_t i, const void *list)
{
	const struct ctx_list *l = list;

	return !bsearch(&j->entries[i].ctx, l->ctxs, l->n, sizeof(*l->ctxs), cmp_u64);
}

int journal_stage_drop_many(struct journal *j, const uint64_t *ctxs, size_t n)
{
	struct ctx_list l = { NULL, n };
	uint64_t *sorted;

	if (!n || !j->n)
		return 0;
	if (sorted_copy(ctxs, n, &sorted))
		return -ENOMEM;
	l.ctxs = sorted;
	if (compact(j, not_listed, &l))
		j->gen++;
	free(sorted);
	return 0;
}

bool journal_durable(const struct journal *j, uint64_t ctx)
{
	ssize_t i = find_index(j, ctx);

	return i >= 0 && j->put_gen[i] <= j->durable_gen;
}

void journal_committed(struct journal *j, uint64_t gen)
{
	j->writes++;
	if (gen > j->durable_gen)
		j->durable_gen = gen;
}

/* put by a generation the file may not hold, up to the failed one */
static bool not_failed(const struct journal *j, size_t i, const void *gen)
{
	return j->put_gen[i] <= j->durable_gen || j->put_gen[i] > *(const uint64_t *)gen;
}

size_t journal_forget_failed(struct journal *j, uint64_t gen)
{
	size_t n = compact(j, not_failed, &gen);

	if (n)
		j->gen++;
	return n;
}
