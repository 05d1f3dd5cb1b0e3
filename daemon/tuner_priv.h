/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the tuner's files share and nothing else sees: tuner.c's decisions
 * call step 3, NAPI ID tracking, in tuner_tracking.c.
 */
#ifndef UT_TUNER_PRIV_H
#define UT_TUNER_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* tuner.h's; declared here so that this header includes none of the tuner's */
struct tuner_policy;
struct tuner_state;
struct tuner_input;
struct tuner_setting;

/* now - since, 0 if the clock went back */
static inline uint64_t tuner_elapsed(uint64_t now, uint64_t since)
{
	return now > since ? now - since : 0;
}

/* a decision's one line of why into @why (@whylen bytes; NULL: none) */
void tuner_say(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* static tracking with these @n IDs */
void tuner_set_static(struct tuner_setting *s, const uint32_t *ids, unsigned int n);

/*
 * Should the ring's tracking change? @ids (@n_ids) are the IDs seen on its
 * sockets. True with *next the new setting (the timeout kept) and *why one
 * line saying why; false: no change (*next is the current setting). Keeps
 * in @st how long a seen ID has been missing from the kernel's list.
 */
bool tuner_track_decision(const struct tuner_policy *pol, struct tuner_state *st,
			  const struct tuner_input *in, const uint32_t *ids, unsigned int n_ids,
			  struct tuner_setting *next, char *why, size_t whylen);

#endif /* UT_TUNER_PRIV_H */
