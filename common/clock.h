/* SPDX-License-Identifier: GPL-2.0-only */
/* The daemon's clock: CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns(). */
#ifndef UT_CLOCK_H
#define UT_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#endif /* UT_CLOCK_H */
