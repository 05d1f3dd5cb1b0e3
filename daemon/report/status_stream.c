// SPDX-License-Identifier: GPL-2.0-only
/* The status reply, a batch of rings at a time (status_stream.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "status_json.h"
#include "status_stream.h"

/* a ring the request's filters keep ("pid" without "fd", "comm") */
static bool selected(const struct status_select *sel, const struct ut_ring *ring)
{
	if (sel->pid > 0 && ring->obs.holder.pid != sel->pid)
		return false;
	return !sel->by_comm || !strncmp(ring->obs.holder.comm, sel->comm, sizeof(sel->comm));
}

/* the rings to write, in the order status shows them */
static int snapshot(struct status_stream *s, const struct ut_daemon *d)
{
	struct ut_ring **sorted, *one;
	size_t i, n = 0;

	if (s->sel.one) {
		one = registry_find_holder(&d->reg, s->sel.pid, s->sel.fd);
		s->ctx = malloc(sizeof(*s->ctx));
		if (!s->ctx)
			return -ENOMEM;
		if (one)
			s->ctx[s->n++] = one->ctx;
		return 0;
	}
	sorted = registry_sorted(&d->reg, &n);
	if (!sorted)
		return -ENOMEM;
	s->ctx = malloc((n ? n : 1) * sizeof(*s->ctx));
	if (!s->ctx) {
		free(sorted);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (selected(&s->sel, sorted[i]))
			s->ctx[s->n++] = sorted[i]->ctx;
	free(sorted);
	return 0;
}

int status_stream_open(struct status_stream *s, const struct ut_daemon *d,
		       const struct status_select *sel)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->sel = *sel;
	ret = sw_init(&s->w);
	if (!ret)
		ret = snapshot(s, d);
	if (ret)
		status_stream_close(s);
	return ret;
}

int status_stream_fill(struct status_stream *s, const struct ut_daemon *d, size_t want)
{
	const struct ut_ring *ring;

	if (!s->head_done) {
		status_write_head(&s->w, d);
		s->head_done = true;
	}
	while (!s->done && s->w.len < want && !s->w.err) {
		if (s->next == s->n) {
			status_write_tail(&s->w);
			/* one reply, one line */
			sw_newline(&s->w);
			s->done = true;
			break;
		}
		/*
		 * Gone since the reply began: left out. (Its address may hold
		 * a new ring by now: that one is on the host, so it is shown.)
		 */
		ring = registry_find(&d->reg, s->ctx[s->next++]);
		if (!ring) {
			s->rings_gone++;
			continue;
		}
		status_write_ring(&s->w, d, ring, s->sel.table);
		s->rings_written++;
	}
	return s->w.err;
}

void status_stream_close(struct status_stream *s)
{
	sw_fini(&s->w);
	free(s->ctx);
	memset(s, 0, sizeof(*s));
}

char *status_stream_all(struct status_stream *s, const struct ut_daemon *d)
{
	char *out = NULL;

	if (!status_stream_fill(s, d, SIZE_MAX) && s->done) {
		/* the text without its newline, NUL-terminated in its place */
		s->w.buf[s->w.len - 1] = '\0';
		out = s->w.buf;
		s->w.buf = NULL;
	}
	status_stream_close(s);
	return out;
}
