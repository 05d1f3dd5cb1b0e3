/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the daemon probed of the kernel, in the status reply's daemon object:
 *
 *   "hybrid_support": {"supported": true|false|null,
 *                      "source": "query"|"ring"|"agent-fallback"|
 *                                "kernel-version"|"unknown",
 *                      "setup_flags_known": N|null}
 *
 * supported null: unknown; setup_flags_known: the setup flags the kernel
 * said it accepts (IORING_REGISTER_QUERY), null without that answer.
 * hybrid_support.h says what each source is worth.
 */
#ifndef UT_STATUS_PROBE_H
#define UT_STATUS_PROBE_H

#include "hybrid_support.h"
#include "status_writer.h"

void status_hybrid_support_write(struct status_writer *w, const struct hybrid_support *hs);

#endif /* UT_STATUS_PROBE_H */
