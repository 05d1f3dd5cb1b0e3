// SPDX-License-Identifier: GPL-2.0-only
/* Busy polling's bill in the export (prom_bill.h). */
#include <inttypes.h>
#include <stdint.h>

#include "prom_bill.h"
#include "prom_text.h"

size_t prom_bill_ring(enum prom_bill_family family, const char *name,
		      const struct bill_ring *b, const char *labels, FILE *out)
{
	char secs[PROM_SECONDS_SIZE];

	switch (family) {
	case PROM_BILL_SPIN:
		fprintf(out, "%s{%s,outcome=\"paid\"} %s\n", name, labels,
			prom_seconds(secs, b->total.paid_ns));
		fprintf(out, "%s{%s,outcome=\"unpaid\"} %s\n", name, labels,
			prom_seconds(secs, b->total.unpaid_ns));
		return 2;
	case PROM_BILL_SAVED:
		fprintf(out, "%s{%s} %s\n", name, labels, prom_seconds(secs, b->total.saved_ns));
		return 1;
	case PROM_BILL_WAKEUPS:
		fprintf(out, "%s{%s} %" PRIu64 "\n", name, labels, b->total.wakeups_avoided);
		return 1;
	case PROM_BILL_UNKNOWN:
		fprintf(out, "%s{%s} %" PRIu64 "\n", name, labels, b->total.unknown);
		return 1;
	case PROM_BILL_CAPPED:
		fprintf(out, "%s{%s} %s\n", name, labels, prom_seconds(secs, b->total.capped_ns));
		return 1;
	}
	return 0;
}

void prom_bill_host(const struct bill_host *h, FILE *out)
{
	char secs[PROM_SECONDS_SIZE];

	prom_family(out, "uringtune_host_busy_poll_spin_seconds_total", "counter",
		    "CPU time all rings' waits spun busy-polling NAPI, rings gone included; "
		    "outcome as for uringtune_busy_poll_spin_seconds_total.");
	fprintf(out, "uringtune_host_busy_poll_spin_seconds_total{outcome=\"paid\"} %s\n",
		prom_seconds(secs, h->total.paid_ns));
	fprintf(out, "uringtune_host_busy_poll_spin_seconds_total{outcome=\"unpaid\"} %s\n",
		prom_seconds(secs, h->total.unpaid_ns));
	prom_family(out, "uringtune_host_busy_poll_saved_seconds_total", "counter",
		    "Latency all rings' busy polling saved (an estimate), rings gone included.");
	fprintf(out, "uringtune_host_busy_poll_saved_seconds_total %s\n",
		prom_seconds(secs, h->total.saved_ns));
	prom_family(out, "uringtune_host_busy_poll_wakeups_avoided_total", "counter",
		    "Wake-ups all rings' busy polling avoided, rings gone included.");
	fprintf(out, "uringtune_host_busy_poll_wakeups_avoided_total %" PRIu64 "\n",
		h->total.wakeups_avoided);
	prom_family(out, "uringtune_host_busy_poll_unknown_windows_total", "counter",
		    "Busy-poll windows of all rings not in their spin (length not known), "
		    "rings gone included.");
	fprintf(out, "uringtune_host_busy_poll_unknown_windows_total %" PRIu64 "\n",
		h->total.unknown);
	prom_family(out, "uringtune_host_busy_poll_capped_seconds_total", "counter",
		    "CPU time taken off all rings' sampled spin by their waiting threads' CPU "
		    "time, rings gone included.");
	fprintf(out, "uringtune_host_busy_poll_capped_seconds_total %s\n",
		prom_seconds(secs, h->total.capped_ns));
	prom_family(out, "uringtune_host_busy_poll_windows_total", "counter",
		    "Busy-poll windows of all rings' waits, rings gone included.");
	fprintf(out, "uringtune_host_busy_poll_windows_total %" PRIu64 "\n", h->total.windows);
	prom_family(out, "uringtune_host_busy_poll_paid_total", "counter",
		    "Of those, the ones that paid off (the wait did not sleep): every one "
		    "counted, unlike the _sampled_ histogram's _count.");
	fprintf(out, "uringtune_host_busy_poll_paid_total %" PRIu64 "\n",
		h->total.wakeups_avoided);
}
