// SPDX-License-Identifier: GPL-2.0-only
/*
 * The journal's calls that write the file before they return (journal.h:
 * journal_put(), journal_drop() and their _many forms), on the caller's
 * thread: a staged change, then the whole file written. If the write
 * fails, memory goes back to what it was, so a failed put or drop changes
 * nothing the caller can see (journal.c says what the file may hold then).
 * The daemon stages and commits off its loop instead (journal_commit.h);
 * these are for tools and tests, and must not run while a commit is in
 * flight.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "journal_index.h"
#include "log.h"

/* memory before a change: the entries, their generations, the count */
struct saved {
	struct journal_entry *entries;
	uint64_t *put_gen;
	size_t n;
	uint64_t gen;
};

static int save(const struct journal *j, struct saved *s)
{
	s->n = j->n;
	s->gen = j->gen;
	s->entries = malloc((j->n ? j->n : 1) * sizeof(*s->entries));
	s->put_gen = malloc((j->n ? j->n : 1) * sizeof(*s->put_gen));
	if (!s->entries || !s->put_gen) {
		free(s->entries);
		free(s->put_gen);
		return -ENOMEM;
	}
	if (j->n) {
		memcpy(s->entries, j->entries, j->n * sizeof(*s->entries));
		memcpy(s->put_gen, j->put_gen, j->n * sizeof(*s->put_gen));
	}
	return 0;
}

/* the file written from memory as it is now; memory as saved if that fails */
static int write_now(struct journal *j, struct saved *s)
{
	char err[PATH_MAX + 320];
	int ret;

	ret = journal_write_entries(j, j->entries, j->n, err, sizeof(err));
	if (ret) {
		log_warn("%s", err);
		/* never larger than now: the arrays hold it */
		memcpy(j->entries, s->entries, s->n * sizeof(*s->entries));
		memcpy(j->put_gen, s->put_gen, s->n * sizeof(*s->put_gen));
		j->n = s->n;
		j->gen = s->gen;
		journal_index_build(&j->idx, j->entries, j->n);
	} else {
		journal_committed(j, j->gen);
	}
	free(s->entries);
	free(s->put_gen);
	return ret;
}

int journal_put(struct journal *j, const struct journal_entry *e)
{
	/* @e may point into j->entries, which a put can move */
	struct journal_entry entry = *e, *old;
	struct saved s;
	int ret;

	if (!journal_entry_valid(&entry))
		return -EINVAL;
	ret = save(j, &s);
	if (ret)
		return ret;
	old = journal_find(j, entry.ctx);
	if (old) {
		*old = entry;
		j->put_gen[old - j->entries] = ++j->gen;
	} else {
		ret = journal_stage_put_many(j, &entry, 1);
	}
	if (ret) {
		free(s.entries);
		free(s.put_gen);
		return ret;
	}
	return write_now(j, &s);
}

int journal_drop(struct journal *j, uint64_t ctx)
{
	return journal_drop_many(j, &ctx, 1);
}

int journal_put_many(struct journal *j, const struct journal_entry *es, size_t n)
{
	struct saved s;
	int ret;

	if (!n)
		return 0;
	ret = save(j, &s);
	if (ret)
		return ret;
	ret = journal_stage_put_many(j, es, n);
	if (ret) {
		free(s.entries);
		free(s.put_gen);
		return ret;
	}
	return write_now(j, &s);
}

int journal_drop_many(struct journal *j, const uint64_t *ctxs, size_t n)
{
	struct saved s;
	int ret;

	if (!n || !j->n)
		return 0;
	ret = save(j, &s);
	if (ret)
		return ret;
	ret = journal_stage_drop_many(j, ctxs, n);
	/* none of them journaled: nothing to write */
	if (ret || j->gen == s.gen) {
		free(s.entries);
		free(s.put_gen);
		return ret;
	}
	return write_now(j, &s);
}
