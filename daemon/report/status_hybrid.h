/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hybrid model in status JSON: an IOPOLL ring's last measurement window
 * (`iopoll.window`), the model's answer (`iopoll.advice`), and the host's
 * sleep figures (`daemon.sleep_probe`).
 */
#ifndef UT_STATUS_HYBRID_H
#define UT_STATUS_HYBRID_H

#include "hybrid_model.h"
#include "hybrid_sleep.h"
#include "sleep_probe.h"
#include "status_writer.h"

struct iopoll_window;

/* "window" and "advice" members of a ring's iopoll object (@w may be NULL) */
void status_iopoll_window_write(struct status_writer *w, const struct iopoll_window *win,
				bool table);
void status_iopoll_advice_write(struct status_writer *w, const struct iopoll_window *win,
				bool hybrid, double min_saving, double max_loss);
/* the daemon's "sleep_probe" member */
void status_sleep_probe_write(struct status_writer *w, const struct sleep_probe *p);
/* the daemon's "hybrid_sleep" member: what the model takes a hybrid sleep to cost */
void status_hybrid_sleep_write(struct status_writer *w, const struct hybrid_sleep_est *e,
			       const struct sleep_probe *p);

#endif /* UT_STATUS_HYBRID_H */
