/* SPDX-License-Identifier: GPL-2.0-only */
/* What the tuner's files (tuner.c, tuner_tracking.c) share and nothing else sees. */
#ifndef UT_TUNER_PRIV_H
#define UT_TUNER_PRIV_H

#include <stddef.h>

/* a decision's one line of why into @why (@whylen bytes; NULL: none) */
void tuner_say(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* UT_TUNER_PRIV_H */
