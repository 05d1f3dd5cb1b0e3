// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bursts of rings: 10 000 rings found at start, or by one sweep, would be
 * 10 000 log lines. Up to LC_BURST rings found at once get a line each;
 * more get one summary line at the end of the batch, with the counts by
 * outcome, and each ring's line at debug.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lifecycle.h"
#include "lifecycle_priv.h"
#include "log.h"

int lc_detail(const struct lifecycle *lc)
{
	return lc->quiet ? LOG_DEBUG : LOG_INFO;
}

void lc_burst_found(struct lifecycle *lc, const struct ut_ring *ring)
{
	uint64_t *found;
	size_t cap;

	if (lc->n_found == lc->cap_found) {
		cap = lc->cap_found ? 2 * lc->cap_found : 64;
		found = reallocarray(lc->found, cap, sizeof(*found));
		/* out of memory: the summary counts fewer rings, nothing else */
		if (!found)
			return;
		lc->found = found;
		lc->cap_found = cap;
	}
	lc->found[lc->n_found++] = ring->ctx;
}

/* what became of the rings found in a burst */
enum burst_outcome {
	BURST_TUNED,
	BURST_WAITING,
	BURST_REFUSED,
	BURST_VANISHED,
	BURST_APP,
	BURST_UNTUNABLE,
	BURST_EXCLUDED,
	BURST_OBSERVED,
	BURST_OTHER,
	BURST_OUTCOMES,
};

static const char *const outcome_words[BURST_OUTCOMES] = {
	[BURST_TUNED] = "tuned",
	[BURST_WAITING] = "waiting for the journal",
	[BURST_REFUSED] = "refused by the kernel",
	[BURST_VANISHED] = "gone before they could be changed",
	[BURST_APP] = "managed by their application",
	[BURST_UNTUNABLE] = "not tunable from outside",
	[BURST_EXCLUDED] = "not selected by [select]",
	[BURST_OBSERVED] = "observed only (observe mode)",
	[BURST_OTHER] = "left alone",
};

static enum burst_outcome outcome_of(const struct lifecycle *lc, const struct ut_ring *ring)
{
	const struct ring_tune *t = &ring->tune;
	const char *reason;

	if (t->managed_by == UT_MANAGED_URINGTUNE)
		return BURST_TUNED;
	/* staged, its commit not on disk yet (found since the one just done) */
	if (t->queued)
		return BURST_WAITING;
	/* a ring that went away is no refusal: no warning for it */
	if (t->refused)
		return t->vanished ? BURST_VANISHED : BURST_REFUSED;
	if (t->managed_by == UT_MANAGED_APP)
		return BURST_APP;
	if (!ring_tunable_agent(ring->obs.setup_flags, lc->napi_supported, t->managed_by,
				ring_agent_driven(ring), &reason))
		return BURST_UNTUNABLE;
	if (lc->cfg->mode != UT_MODE_TUNE)
		return BURST_OBSERVED;
	return t->excluded ? BURST_EXCLUDED : BURST_OTHER;
}

void lc_burst_report(struct lifecycle *lc)
{
	size_t count[BURST_OUTCOMES] = {}, n = 0;
	const struct ut_ring *first_refused = NULL;
	char line[512];
	int len;

	if (lc->n_found > LC_BURST) {
		for (size_t i = 0; i < lc->n_found; i++) {
			const struct ut_ring *ring = registry_find(lc->reg, lc->found[i]);
			enum burst_outcome o;

			/* gone again before the end of the batch */
			if (!ring)
				continue;
			o = outcome_of(lc, ring);
			count[o]++;
			n++;
			if (o == BURST_REFUSED && !first_refused)
				first_refused = ring;
		}
		len = snprintf(line, sizeof(line), "found %zu rings (", n);
		for (int o = 0; o < BURST_OUTCOMES; o++)
			if (count[o] && len < (int)sizeof(line))
				len += snprintf(line + len, sizeof(line) - len, "%s%zu %s",
						line[len - 1] == '(' ? "" : ", ", count[o],
						outcome_words[o]);
		/* the rest of this burst, once changed, gets one line too (lifecycle_commit.c) */
		lc->burst_waits = count[BURST_WAITING] > 0;
		if (first_refused)
			log_warn("%s); first refusal: ring pid=%d comm=%s fd=%d: %s", line,
				 first_refused->obs.holder.pid, first_refused->obs.holder.comm,
				 first_refused->obs.holder.fd, first_refused->tune.error);
		else if (n)
			log_info("%s)", line);
	}
	lc->n_found = 0;
	lc->quiet = false;
}
