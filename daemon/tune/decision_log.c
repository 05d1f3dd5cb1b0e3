// SPDX-License-Identifier: GPL-2.0-only
/* A ring's last decisions: a ring buffer that grows as it fills (decision_log.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decision_log.h"

static struct decision_log *grow(struct decision_log *log)
{
	unsigned int cap = log ? 2U * log->cap : 1;
	struct decision_log *n;

	n = realloc(log, sizeof(*n) + cap * sizeof(n->e[0]));
	if (!n)
		return NULL;
	if (!log)
		n->n = n->head = 0;
	n->cap = (uint8_t)cap;
	return n;
}

int decision_log_add(struct decision_log **log, const struct decision *d, const char *why)
{
	struct decision_log *l = *log;
	struct decision *slot;
	char *copy;

	copy = strndup(why ? why : "", DECISION_WHY_MAX);
	if (!copy)
		return -ENOMEM;
	/* not full: grow first, so that entries stay in order from 0 until the log is */
	if (!l || (l->n == l->cap && l->cap < DECISION_LOG_MAX)) {
		l = grow(l);
		if (!l) {
			free(copy);
			return -ENOMEM;
		}
		*log = l;
	}
	if (l->n < l->cap) {
		slot = &l->e[l->n++];
	} else {
		/* full at DECISION_LOG_MAX: the oldest goes */
		slot = &l->e[l->head];
		free(slot->why);
		l->head = (uint8_t)((l->head + 1) % l->cap);
	}
	*slot = *d;
	slot->why = copy;
	return 0;
}

size_t decision_log_count(const struct decision_log *log)
{
	return log ? log->n : 0;
}

const struct decision *decision_log_get(const struct decision_log *log, size_t i)
{
	if (!log || i >= log->n)
		return NULL;
	return &log->e[(log->head + i) % log->cap];
}

const struct decision *decision_log_last(const struct decision_log *log)
{
	return log && log->n ? decision_log_get(log, log->n - 1U) : NULL;
}

size_t decision_log_bytes(const struct decision_log *log)
{
	size_t bytes;

	if (!log)
		return 0;
	bytes = sizeof(*log) + log->cap * sizeof(log->e[0]);
	for (size_t i = 0; i < log->n; i++)
		bytes += strlen(log->e[i].why) + 1;
	return bytes;
}

void decision_log_free(struct decision_log *log)
{
	if (!log)
		return;
	for (size_t i = 0; i < log->n; i++)
		free(log->e[i].why);
	free(log);
}
