// SPDX-License-Identifier: GPL-2.0-only
/*
 * The journal, the only record of how to undo uringtune's changes, read
 * back from any file: the text parser line by line (journal_format.c) and
 * journal_open() on a state directory holding the input as its journal,
 * as a start after a crash reads it. What must hold besides no crash and
 * no leak:
 *   - every entry the parser takes is one the writer may write
 *     (journal_entry_valid), and writing it reads back as the same entry;
 *   - a refused line says where: "PATH: line N: ..." on one line;
 *   - journal_open() takes what the parser takes, entry for entry, unless
 *     two lines name the same ring; refused, it leaves the file alone;
 *   - a loaded journal survives a drop and a put: the file then reads
 *     back as the entries in memory.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "journal.h"
#include "journal_format.h"
#include "log.h"

static char state_dir[PATH_MAX], journal_path[PATH_MAX];

static bool same_entry(const struct journal_entry *a, const struct journal_entry *b)
{
	return a->ctx == b->ctx && a->pid == b->pid && a->start_boottime == b->start_boottime &&
	       a->fd == b->fd && a->ino == b->ino && a->enabled == b->enabled &&
	       a->busy_poll_us == b->busy_poll_us && a->prefer == b->prefer &&
	       a->track_mode == b->track_mode;
}

/* journal_format()'s text of @n entries parses back as exactly those */
static void check_round_trip(const struct journal_entry *es, size_t n)
{
	struct journal_parser p = { .path = "round-trip" };
	struct journal_entry e;
	size_t len, off = 0, lline, got = 0;
	char *text, *line;

	text = journal_format(es, n, SIZE_MAX, &len);
	FUZZ_CHECK(text && strlen(text) == len);
	while ((line = fuzz_next_line((const uint8_t *)text, len, &off, &lline))) {
		int ret = journal_parse_line(&p, line, lline, &e);

		p.lineno++;
		FUZZ_CHECK(ret >= 0);
		if (ret) {
			FUZZ_CHECK(got < n && same_entry(&e, &es[got]));
			got++;
		}
		free(line);
	}
	FUZZ_CHECK(got == n && journal_parse_end(&p) == 0);
	free(text);
}

/* the parser alone, as load() drives it; the entries it took in *@es (malloc'ed) */
static int parse_all(const uint8_t *data, size_t size, struct journal_entry **es, size_t *n,
		     bool *dup)
{
	struct journal_parser p = { .path = journal_path };
	char err[512] = "";
	size_t off = 0, len;
	char *line;
	int ret = 0;

	p.err = err;
	p.errlen = sizeof(err);
	*es = NULL;
	*n = 0;
	*dup = false;
	while (!ret && (line = fuzz_next_line(data, size, &off, &len))) {
		struct journal_entry e;

		p.lineno++;
		ret = journal_parse_line(&p, line, len, &e);
		free(line);
		if (ret <= 0)
			continue;
		ret = 0;
		FUZZ_CHECK(journal_entry_valid(&e));
		check_round_trip(&e, 1);
		for (size_t i = 0; i < *n; i++)
			*dup |= (*es)[i].ctx == e.ctx;
		*es = reallocarray(*es, *n + 1, sizeof(**es));
		FUZZ_CHECK(*es);
		(*es)[(*n)++] = e;
	}
	if (!ret)
		ret = journal_parse_end(&p);
	FUZZ_CHECK(ret <= 0);
	if (ret) {
		char where[PATH_MAX + 32];

		snprintf(where, sizeof(where), "%s: line %u: ", journal_path, p.lineno);
		FUZZ_CHECK(strncmp(err, where, strlen(where)) == 0 && !strchr(err, '\n'));
	}
	return ret;
}

/* the file on disk, read as a start would, holds @n entries equal to @es */
static void check_file(const struct journal_entry *es, size_t n)
{
	struct journal j;
	char err[512];

	FUZZ_CHECK(journal_open(&j, state_dir, err, sizeof(err)) == 0);
	FUZZ_CHECK(j.n == n);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(same_entry(&j.entries[i], &es[i]));
	journal_close(&j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct journal_entry *parsed, first;
	struct journal j;
	struct stat st;
	size_t n;
	char err[512];
	bool dup;
	int ret, pret;

	if (!state_dir[0]) {
		log_set_level(LOG_DEBUG);
		snprintf(state_dir, sizeof(state_dir), "%s/state", fuzz_tmpdir());
		snprintf(journal_path, sizeof(journal_path), "%s/journal", state_dir);
		FUZZ_CHECK(mkdir(state_dir, 0700) == 0);
	}
	pret = parse_all(data, size, &parsed, &n, &dup);

	fuzz_write_file(journal_path, data, size);
	ret = journal_open(&j, state_dir, err, sizeof(err));
	FUZZ_CHECK(ret <= 0);
	if (ret) {
		/* refused: for the parser's reason or a duplicate ring; the file stays */
		FUZZ_CHECK(pret || dup);
		FUZZ_CHECK(strncmp(err, journal_path, strlen(journal_path)) == 0);
		FUZZ_CHECK(!strchr(err, '\n'));
		FUZZ_CHECK(stat(journal_path, &st) == 0 && (size_t)st.st_size == size);
		free(parsed);
		return 0;
	}
	FUZZ_CHECK(!pret && !dup && j.n == n);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(same_entry(&j.entries[i], &parsed[i]));
	free(parsed);
	check_round_trip(j.entries, j.n);

	/* what a ring going away and a new ring do to it, read back from disk */
	if (j.n) {
		first = j.entries[0];
		FUZZ_CHECK(journal_drop(&j, first.ctx) == 0);
		FUZZ_CHECK(!journal_find(&j, first.ctx));
		check_file(j.entries, j.n);
		FUZZ_CHECK(journal_put(&j, &first) == 0);
		FUZZ_CHECK(journal_find(&j, first.ctx));
		check_file(j.entries, j.n);
	}
	journal_close(&j);
	return 0;
}
