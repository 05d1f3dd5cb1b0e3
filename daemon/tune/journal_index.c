// SPDX-License-Identifier: GPL-2.0-only
/* The journal's entries by ring address (journal_index.h): linear probing, half full at most. */
#include <errno.h>
#include <stdlib.h>

#include "journal_index.h"

/* ring addresses are page-aligned-ish kernel pointers: mix them (Fibonacci hashing) */
static size_t slot_of(const struct journal_index *ix, uint64_t ctx)
{
	return (size_t)((ctx * 0x9e3779b97f4a7c15ULL) >> 17) & (ix->cap - 1);
}

static void insert(struct journal_index *ix, uint64_t ctx, size_t pos)
{
	size_t s = slot_of(ix, ctx);

	while (ix->slots[s])
		s = (s + 1) & (ix->cap - 1);
	ix->slots[s] = (uint32_t)pos + 1;
}

int journal_index_build(struct journal_index *ix, const struct journal_entry *es, size_t n)
{
	size_t cap = 64;

	while (cap < 2 * n)
		cap *= 2;
	if (cap != ix->cap || !ix->slots) {
		free(ix->slots);
		ix->slots = calloc(cap, sizeof(*ix->slots));
		ix->cap = ix->slots ? cap : 0;
		if (!ix->slots)
			return -ENOMEM;
	} else {
		for (size_t s = 0; s < cap; s++)
			ix->slots[s] = 0;
	}
	for (size_t i = 0; i < n; i++)
		insert(ix, es[i].ctx, i);
	return 0;
}

void journal_index_add(struct journal_index *ix, const struct journal_entry *es, size_t n)
{
	/* over half full (or none yet): built anew, larger */
	if (!ix->slots || 2 * n > ix->cap) {
		journal_index_build(ix, es, n);
		return;
	}
	insert(ix, es[n - 1].ctx, n - 1);
}

ssize_t journal_index_find(const struct journal_index *ix, const struct journal_entry *es,
			   size_t n, uint64_t ctx)
{
	size_t s;

	if (!ix->slots) {
		for (size_t i = 0; i < n; i++)
			if (es[i].ctx == ctx)
				return (ssize_t)i;
		return -1;
	}
	for (s = slot_of(ix, ctx); ix->slots[s]; s = (s + 1) & (ix->cap - 1))
		if (es[ix->slots[s] - 1].ctx == ctx)
			return ix->slots[s] - 1;
	return -1;
}

void journal_index_free(struct journal_index *ix)
{
	free(ix->slots);
	ix->slots = NULL;
	ix->cap = 0;
}
