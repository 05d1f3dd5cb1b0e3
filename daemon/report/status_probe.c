// SPDX-License-Identifier: GPL-2.0-only
/* The kernel probes' members of the daemon object (status_probe.h). */
#include "status_probe.h"

void status_hybrid_support_write(struct status_writer *w, const struct hybrid_support *hs)
{
	sw_object(w, "hybrid_support");
	if (hs->supported < 0)
		sw_null(w, "supported");
	else
		sw_bool(w, "supported", hs->supported > 0);
	sw_str(w, "source", hybrid_source_name(hs->source));
	if (hs->flags_known)
		sw_u64(w, "setup_flags_known", hs->setup_flags);
	else
		sw_null(w, "setup_flags_known");
	sw_object_end(w);
}
