/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * NAPI ID tracking decisions of the tuner (step 3 in tuner.c): dynamic or
 * static, and with which IDs. Pure; tuner_decide() is its only caller.
 */
#ifndef UT_TUNER_TRACKING_H
#define UT_TUNER_TRACKING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tuner.h"

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

#endif /* UT_TUNER_TRACKING_H */
