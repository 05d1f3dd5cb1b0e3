/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Keeps the registry in step with the kernel: ring-buffer events as they
 * come, a sweep of the rings iterator every tick, map values on demand.
 */
#ifndef UT_INVENTORY_H
#define UT_INVENTORY_H

#include "daemon.h"

/* trace_event_cb: arg is the struct ut_daemon */
int inventory_on_event(const struct ut_event *ev, void *arg);
/* reconcile with the kernel: find rings, drop the gone, prune the BPF map */
int inventory_sweep(struct ut_daemon *d);
/* copy every ring's statistics from the BPF map */
void inventory_refresh_stats(struct ut_daemon *d);

/* IOPOLL timing hooks on or off, as iopoll_stats and the registry say */
void inventory_iopoll_hooks(struct ut_daemon *d);

#endif /* UT_INVENTORY_H */
