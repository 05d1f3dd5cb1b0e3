// SPDX-License-Identifier: GPL-2.0-only
/* What a sleep costs a waiter, from timed wake-ups (wakeup.h). */
#include "wakeup.h"

/* b^n by squaring (no libm for one power) */
static double pow_u64(double b, uint64_t n)
{
	double r = 1;

	for (; n; n >>= 1, b *= b)
		if (n & 1)
			r *= b;
	return r;
}

void wakeup_add(struct wakeup_est *e, uint64_t wakes, uint64_t wake_ns)
{
	double batch, w;

	if (!wakes)
		return;
	batch = (double)wake_ns / (double)wakes;
	if (!e->samples) {
		e->mean_ns = batch;
	} else {
		/* as if each of the batch's wake-ups moved the mean by 1/HALF */
		w = 1.0 - pow_u64(1.0 - 1.0 / WAKEUP_HALF_SAMPLES, wakes);
		e->mean_ns += w * (batch - e->mean_ns);
	}
	e->samples += wakes;
}

static uint64_t est_ns(const struct wakeup_est *e)
{
	return e->mean_ns < 1 ? 1 : (uint64_t)(e->mean_ns + 0.5);
}

uint64_t wakeup_resolve(const struct wakeup_est *ring, const struct wakeup_est *host,
			unsigned int override_us, enum wakeup_source *src)
{
	if (override_us) {
		*src = WAKEUP_SRC_CONFIG;
		return (uint64_t)override_us * 1000;
	}
	if (ring && ring->samples >= WAKEUP_MIN_SAMPLES) {
		*src = WAKEUP_SRC_RING;
		return est_ns(ring);
	}
	if (host && host->samples >= WAKEUP_MIN_SAMPLES) {
		*src = WAKEUP_SRC_HOST;
		return est_ns(host);
	}
	*src = WAKEUP_SRC_PRIOR;
	return (uint64_t)WAKEUP_PRIOR_US * 1000;
}

const char *wakeup_source_name(enum wakeup_source src)
{
	switch (src) {
	case WAKEUP_SRC_CONFIG:
		return "configured";
	case WAKEUP_SRC_RING:
		return "ring";
	case WAKEUP_SRC_HOST:
		return "host";
	case WAKEUP_SRC_PRIOR:
		return "prior";
	case WAKEUP_SRC_NONE:
		break;
	}
	return "none";
}
