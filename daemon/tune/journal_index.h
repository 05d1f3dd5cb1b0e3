/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The journal's entries by ring address: an open-addressing hash of
 * ctx -> position in the entry array, so that finding a ring's entry is
 * O(1) (a burst of 10 000 rings against a journal of 10 000 entries took
 * ~60 ms of linear searches on the event loop). Rebuilt whole when entries
 * move (a drop compacts the array), added to when they are appended. With
 * no table (out of memory), lookups scan the array: slower, never wrong.
 */
#ifndef UT_JOURNAL_INDEX_H
#define UT_JOURNAL_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "journal_format.h"

struct journal_index {
	uint32_t *slots;	/* position + 1; 0: empty */
	size_t cap;		/* a power of two, or 0 with slots NULL */
};

/* index @es[0..n) anew; on -ENOMEM the index is empty and lookups scan */
int journal_index_build(struct journal_index *ix, const struct journal_entry *es, size_t n);
/* @es[i] was just appended (i == n - 1) */
void journal_index_add(struct journal_index *ix, const struct journal_entry *es, size_t n);
/* the position of @ctx's entry in @es[0..n), or -1 */
ssize_t journal_index_find(const struct journal_index *ix, const struct journal_entry *es,
			   size_t n, uint64_t ctx);
void journal_index_free(struct journal_index *ix);

#endif /* UT_JOURNAL_INDEX_H */
