/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The journal: the original NAPI settings of every ring uringtune changed,
 * on disk before the kernel is changed, so that a stop restores them and a
 * start after a crash can restore or re-adopt them.
 *
 * One text file, STATE_DIR/journal, rewritten whole for every change: a
 * temporary file in the same directory, fsync, rename over the old one,
 * fsync of the directory. A crash leaves the old file or the new one, never
 * half of either.
 *
 * Two ways to change it. journal_put() and friends write the file before
 * they return. The staging calls (journal_stage_*) change memory only and
 * count generations: a commit (journal_commit.h) writes a snapshot of the
 * entries at generation G, off the event loop, and journal_committed()
 * then says that everything staged up to G is on disk. An entry is on disk
 * once the generation that put it is (journal_durable()): only then may
 * its ring be changed.
 *
 *   # uringtune journal v1
 *   ring ctx=ffff888104c2a000 pid=4242 start=123456789000 fd=5 ino=33445 \
 *        enabled=0 busy_poll_us=0 prefer=0 tracking=inactive
 *
 * (one line per ring; the backslash is only for this comment).
 */
#ifndef UT_JOURNAL_H
#define UT_JOURNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "journal_format.h"	/* struct journal_entry: what a line holds */
#include "journal_index.h"

/* the file's name in the state directory */
#define JOURNAL_NAME	"journal"

struct journal {
	char path[PATH_MAX];
	char dir[PATH_MAX];
	int dirfd;			/* STATE_DIR, opened once; every file call is *at() */
	struct journal_entry *entries;
	uint64_t *put_gen;	/* per entry: the generation that put it (0: read at open) */
	size_t n;
	size_t cap;
	struct journal_index idx;	/* entries by ring address */
	uint64_t gen;		/* changes made in memory so far */
	uint64_t durable_gen;	/* the latest of them the file on disk is known to hold */
	uint64_t writes;	/* files written since open (each: 2 fsyncs) */
};

/*
 * Open STATE_DIR/journal, creating STATE_DIR (0700) if needed, and load the
 * entries a previous run left. STATE_DIR must be a directory owned by root
 * (or this euid) and writable by it alone, reached through no symlink
 * anyone else could have planted (safe_dir.h); else an error naming owner,
 * mode and the fix. A missing file is an empty journal. A file
 * that cannot be parsed is an error ("PATH: line N: what is wrong" in err):
 * it holds the only record of how to undo changes, so it is never
 * overwritten or ignored.
 */
int journal_open(struct journal *j, const char *state_dir, char *err, size_t errlen);
void journal_close(struct journal *j);

/* entry for that ring, or NULL; valid until the next put, drop or close */
struct journal_entry *journal_find(struct journal *j, uint64_t ctx);

/*
 * Add (or replace, same ctx) an entry and write the file durably before
 * returning. On failure memory is unchanged and so is the file, except when
 * only the final directory fsync failed: the new file is then in place but
 * the caller must treat the change as not made (the next write re-syncs).
 */
int journal_put(struct journal *j, const struct journal_entry *e);

/* Drop the entry of that ring (no-op if absent), durably. */
int journal_drop(struct journal *j, uint64_t ctx);

/*
 * The same for many rings in one write (one fsync for a burst of new rings).
 * put_many takes new rings only (-EINVAL if one is journaled already).
 */
int journal_put_many(struct journal *j, const struct journal_entry *es, size_t n);
int journal_drop_many(struct journal *j, const uint64_t *ctxs, size_t n);

/*
 * Staging: memory only, one generation more; a commit writes it. put takes
 * new rings only (-EINVAL as put_many; -ENOMEM); drop of an absent ring is
 * a no-op (-ENOMEM only).
 */
int journal_stage_put_many(struct journal *j, const struct journal_entry *es, size_t n);
int journal_stage_drop_many(struct journal *j, const uint64_t *ctxs, size_t n);

/* memory holds changes the file does not (yet) */
static inline bool journal_dirty(const struct journal *j)
{
	return j->gen != j->durable_gen;
}

/* that ring has an entry, and the file on disk holds it */
bool journal_durable(const struct journal *j, uint64_t ctx);
/* ... by index (0 <= i < n): no search */
static inline bool journal_durable_at(const struct journal *j, size_t i)
{
	return j->put_gen[i] <= j->durable_gen;
}

/* a commit of generation @gen reached the disk */
void journal_committed(struct journal *j, uint64_t gen);

/*
 * A commit of generation @gen failed: the entries it was the first to carry
 * (put after the last durable generation, up to @gen) are forgotten, as no
 * ring was changed on their strength. Returns how many.
 */
size_t journal_forget_failed(struct journal *j, uint64_t gen);

/*
 * Write @n entries as the whole file, durably; on any thread, provided no
 * other write runs and the journal is not closed meanwhile (it may reopen
 * the state directory). Logs nothing: 0, or -errno with err saying which
 * step failed and why.
 */
int journal_write_entries(struct journal *j, const struct journal_entry *es, size_t n,
			  char *err, size_t errlen);

#endif /* UT_JOURNAL_H */
