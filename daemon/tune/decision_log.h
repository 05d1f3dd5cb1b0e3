/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A ring's last decisions: the changes uringtune made to it (tune mode) or
 * would have made (observe mode's advice), oldest first, at most
 * DECISION_LOG_MAX. Pure: the caller brings the times.
 *
 * Memory. Most rings never get a decision (observe mode: no traffic), and
 * 10 000 idle rings must stay cheap (issue 13: RSS <= 48 MB), so a log is
 * allocated at its first entry and grows 1, 2, 4, 8, 16 entries; then the
 * oldest is overwritten. Each why is a copy of its exact length (at most
 * DECISION_WHY_MAX bytes), not a fixed buffer.
 */
#ifndef UT_DECISION_LOG_H
#define UT_DECISION_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DECISION_LOG_MAX	16
/* a longer why is cut (the tuner's longest lines are ~150 bytes) */
#define DECISION_WHY_MAX	200

struct decision {
	uint64_t mono_ns;		/* CLOCK_MONOTONIC, the daemon's clock */
	int64_t wall_ns;		/* CLOCK_REALTIME, for display */
	uint32_t busy_poll_us;		/* 0 when off */
	bool enabled;
	bool prefer;
	bool static_ids;
	char *why;			/* owned by the log */
};

struct decision_log {
	uint8_t n;			/* entries held */
	uint8_t cap;			/* room for: 1, 2, 4, 8 or 16 */
	uint8_t head;			/* the oldest, once the log is full */
	struct decision e[];
};

/*
 * Append a copy of @d with its own copy of @why (NULL: ""): *log is
 * allocated or grown as needed, the oldest entry dropped when full.
 * 0 or -ENOMEM (then the log is as it was).
 */
int decision_log_add(struct decision_log **log, const struct decision *d, const char *why);
/* entries held (0 for NULL) */
size_t decision_log_count(const struct decision_log *log);
/* the @i-th oldest (0: the oldest); NULL past the end */
const struct decision *decision_log_get(const struct decision_log *log, size_t i);
/* the newest, NULL if none */
const struct decision *decision_log_last(const struct decision_log *log);
/* heap bytes the log holds (allocations as asked for, allocator overhead not counted) */
size_t decision_log_bytes(const struct decision_log *log);
void decision_log_free(struct decision_log *log);

#endif /* UT_DECISION_LOG_H */
