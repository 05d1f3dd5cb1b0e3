/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BPF edge of iopoll_trace: IOPOLL completion times per ring. Optional:
 * a kernel that refuses the programs leaves the daemon working without them.
 */
#ifndef UT_IOPOLL_H
#define UT_IOPOLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "trace.h"
#include "uringtune.h"

struct iopoll_trace_bpf;

struct ut_iopoll {
	struct iopoll_trace_bpf *skel;
	unsigned int max_rings;
	bool attached;
	uint64_t attached_ns;		/* CLOCK_MONOTONIC, when the hooks went on */
};

/*
 * Load (not attach): 0, or -errno with err saying why IOPOLL statistics are
 * unavailable.
 */
int iopoll_open(struct ut_iopoll *io, unsigned int max_rings, char *err, size_t errlen);
/* hooks on or off; the counts in the maps stay */
int iopoll_attach(struct ut_iopoll *io, uint64_t now_ns);
void iopoll_detach(struct ut_iopoll *io);
void iopoll_close(struct ut_iopoll *io);
bool iopoll_loaded(const struct ut_iopoll *io);

int iopoll_ring_stats(const struct ut_iopoll *io, uint64_t ctx, struct ut_iopoll_stats *out);

/* forget rings that keep() rejects and that are older than t0_ns */
int iopoll_prune(struct ut_iopoll *io, trace_keep_cb keep, void *arg, uint64_t t0_ns);

#endif /* UT_IOPOLL_H */
