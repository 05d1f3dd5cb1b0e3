// SPDX-License-Identifier: GPL-2.0-only
/*
 * Step 3 of the tuner's decisions (tuner.c's header): which NAPI IDs a ring
 * is busy-polled on, the kernel's dynamic tracking or a static list, from
 * the IDs seen on the ring's sockets and the kernel's own list. Pure, as
 * tuner.c.
 */
#include <stdio.h>
#include <string.h>

#include "tuner.h"
#include "tuner_priv.h"

#define NSEC_PER_SEC	1000000000ULL
#define sec_ns(s)	((uint64_t)(s) * NSEC_PER_SEC)

/* room for UT_MAX_NAPI_IDS IDs of up to 10 digits with commas */
#define IDS_BUFLEN		(UT_MAX_NAPI_IDS * 11 + 1)

/* "257,258" */
static void fmt_ids(char *buf, size_t len, const uint32_t *ids, unsigned int n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < n && off < len; i++) {
		int w = snprintf(buf + off, len - off, "%s%u", i ? "," : "", ids[i]);

		if (w < 0)
			break;
		off += (size_t)w;
	}
}

static bool has_id(const struct tuner_setting *s, uint32_t id)
{
	for (unsigned int i = 0; i < s->n_ids; i++)
		if (s->ids[i] == id)
			return true;
	return false;
}

void tuner_set_static(struct tuner_setting *s, const uint32_t *ids, unsigned int n)
{
	s->static_ids = true;
	s->n_ids = n;
	memset(s->ids, 0, sizeof(s->ids));
	memcpy(s->ids, ids, n * sizeof(*ids));
}

static void set_dynamic(struct tuner_setting *s)
{
	s->static_ids = false;
	s->n_ids = 0;
	memset(s->ids, 0, sizeof(s->ids));
}

/*
 * An ID seen on the ring's sockets that the kernel's dynamic list lacks
 * (a multishot receive armed before the socket's first packet gives the
 * kernel's tracking nothing to learn from): its first such ID, 0 if none,
 * or if the list is not known whole.
 */
static uint32_t kernel_missed(const struct tuner_input *in, const uint32_t *ids,
			      unsigned int n_ids)
{
	if (!in->kernel_ids || !in->kernel_ids_known || in->n_kernel_ids > UT_MAX_NAPI_IDS)
		return 0;
	for (unsigned int i = 0; i < n_ids; i++) {
		bool found = false;

		for (unsigned int k = 0; k < in->n_kernel_ids && !found; k++)
			found = in->kernel_ids[k] == ids[i];
		if (!found)
			return ids[i];
	}
	return 0;
}

/*
 * The miss has lasted settle_s, through a later copy of the kernel's list
 * (copied every 128 waits: the copy that showed it may predate the ID).
 */
static bool miss_confirmed(const struct tuner_policy *pol, struct tuner_state *st,
			   const struct tuner_input *in, uint32_t missed)
{
	if (!missed) {
		st->miss_since_ns = 0;
		return false;
	}
	if (!st->miss_since_ns) {
		st->miss_since_ns = in->now_ns;
		st->miss_reads = in->kernel_ids_reads;
		return false;
	}
	return in->kernel_ids_reads > st->miss_reads &&
	       tuner_elapsed(in->now_ns, st->miss_since_ns) >= sec_ns(pol->settle_s);
}

/* the seen IDs and the kernel's, once each: all that should be polled */
static unsigned int ids_union(const struct tuner_input *in, const uint32_t *ids,
			      unsigned int n_ids, uint32_t *out)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < n_ids && n < UT_MAX_NAPI_IDS; i++)
		out[n++] = ids[i];
	for (unsigned int k = 0; k < in->n_kernel_ids && k < UT_MAX_NAPI_IDS; k++) {
		bool have = false;

		for (unsigned int i = 0; i < n && !have; i++)
			have = out[i] == in->kernel_ids[k];
		if (!have && n < UT_MAX_NAPI_IDS && in->kernel_ids[k])
			out[n++] = in->kernel_ids[k];
	}
	return n;
}

bool tuner_track_decision(const struct tuner_policy *pol, struct tuner_state *st,
			  const struct tuner_input *in, const uint32_t *ids, unsigned int n_ids,
			  struct tuner_setting *next, char *why, size_t whylen)
{
	const struct tuner_setting *cur = &st->cur;
	char list[IDS_BUFLEN], seen[IDS_BUFLEN];
	uint64_t stable;
	uint32_t missed;

	*next = *cur;
	fmt_ids(list, sizeof(list), cur->ids, cur->n_ids);
	fmt_ids(seen, sizeof(seen), ids, n_ids);
	/* before 6.13 there are no static lists: dynamic tracking is all there is */
	if (in->no_static)
		return false;
	switch (pol->tracking) {
	case TUNER_TRACK_DYNAMIC:
		if (!cur->static_ids)
			return false;
		/* the policy changed under a static ring */
		set_dynamic(next);
		tuner_say(why, whylen, "policy is dynamic tracking: dropping static NAPI IDs %s", list);
		return true;
	case TUNER_TRACK_STATIC:
		/* a static ring without IDs (re-adopted from the kernel) polls nothing */
		if ((cur->static_ids && cur->n_ids) || !n_ids)
			return false;
		tuner_set_static(next, ids, n_ids);
		tuner_say(why, whylen, "NAPI IDs %s known: static tracking", seen);
		return true;
	case TUNER_TRACK_AUTO:
	default:
		break;
	}

	if (cur->static_ids) {
		for (unsigned int i = 0; i < n_ids; i++) {
			if (has_id(cur, ids[i]))
				continue;
			/* busy polling would miss the queue the new ID stands for */
			set_dynamic(next);
			tuner_say(why, whylen, "NAPI ID %u appeared (static list %s): dynamic tracking",
			    ids[i], list);
			return true;
		}
		return false;
	}
	missed = kernel_missed(in, ids, n_ids);
	if (miss_confirmed(pol, st, in, missed)) {
		uint32_t all[UT_MAX_NAPI_IDS];
		unsigned int n = ids_union(in, ids, n_ids, all);
		char kernel[IDS_BUFLEN], polled[IDS_BUFLEN];

		fmt_ids(kernel, sizeof(kernel), in->kernel_ids,
			in->n_kernel_ids < UT_MAX_NAPI_IDS ? in->n_kernel_ids : UT_MAX_NAPI_IDS);
		fmt_ids(polled, sizeof(polled), all, n);
		tuner_set_static(next, all, n);
		tuner_say(why, whylen, "NAPI ID %u seen on the ring's sockets is not in the kernel's "
		    "dynamic list (%s): static tracking with %s", missed,
		    in->n_kernel_ids ? kernel : "empty", polled);
		return true;
	}
	stable = tuner_elapsed(in->now_ns, in->ids_changed_ns);
	if (n_ids && stable >= sec_ns(pol->static_after_s)) {
		tuner_set_static(next, ids, n_ids);
		tuner_say(why, whylen, "NAPI IDs %s unchanged for %llu s: static tracking", seen,
		    (unsigned long long)(stable / NSEC_PER_SEC));
		return true;
	}
	return false;
}
