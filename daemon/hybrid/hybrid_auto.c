// SPDX-License-Identifier: GPL-2.0-only
/* hybrid = auto at ring setup (hybrid_auto.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hybrid_auto.h"

/* within both bounds (a value on a bound is within it) */
static bool within(double saving, double change, const struct hv_bounds *b)
{
	return saving >= b->min_saving - HV_BOUND_EPS && -change <= b->max_loss + HV_BOUND_EPS;
}

/* what is out of bounds, or both figures when nothing is: "-31% IOPS (bound 10%)" */
static void numbers(char *buf, size_t len, double saving, double change,
		    const struct hv_bounds *b)
{
	if (-change > b->max_loss + HV_BOUND_EPS)
		snprintf(buf, len, "%+.0f%% IOPS (bound %.0f%%)", change * 100, b->max_loss * 100);
	else if (saving < b->min_saving - HV_BOUND_EPS)
		snprintf(buf, len, "%.0f%% less CPU per read (needs %.0f%%)", saving * 100,
			 b->min_saving * 100);
	else
		snprintf(buf, len, "%.0f%% less CPU per read, %+.0f%% IOPS", saving * 100,
			 change * 100);
}

static void measured(const struct hv_record *rec, const struct hv_bounds *b,
		     struct hybrid_auto_answer *out)
{
	char num[64];

	out->source = HYBRID_AUTO_MEASURED;
	/* the record was judged by the table's bounds; these are the ones in force */
	out->hybrid = within(rec->meas_saving, rec->meas_iops_change, b);
	numbers(num, sizeof(num), rec->meas_saving, rec->meas_iops_change, b);
	snprintf(out->why, sizeof(out->why), "hybrid: %s, measured on %" PRIu64 " hybrid "
		 "windows: %s", out->hybrid ? "added" : "classic",
		 rec->side[HV_HYBRID].windows, num);
}

static void predicted(double saving, double change, uint64_t age_s, const struct hv_bounds *b,
		      struct hybrid_auto_answer *out)
{
	char num[64], age[32] = "";

	out->source = HYBRID_AUTO_PREDICTED;
	out->hybrid = within(saving, change, b);
	numbers(num, sizeof(num), saving, change, b);
	if (age_s)
		snprintf(age, sizeof(age), ", %" PRIu64 " s ago", age_s);
	snprintf(out->why, sizeof(out->why), "hybrid: %s, predicted %s%s",
		 out->hybrid ? "added" : "classic", num, age);
}

void hybrid_auto_decide(const struct hv_record *rec, const struct hybrid_pred *live,
			const struct hv_bounds *b, uint64_t now_unix_s,
			struct hybrid_auto_answer *out)
{
	memset(out, 0, sizeof(*out));
	if (rec && rec->measured && rec->verdict != HV_UNJUDGED) {
		measured(rec, b, out);
		return;
	}
	if (live && live->valid) {
		predicted(live->cpu_per_read_saving, live->iops_change, 0, b, out);
		return;
	}
	if (rec && rec->have_pred) {
		predicted(rec->pred_saving, rec->pred_iops_change,
			  now_unix_s > rec->pred_unix_s ? now_unix_s - rec->pred_unix_s : 0, b, out);
		return;
	}
	out->source = HYBRID_AUTO_NOTHING;
	snprintf(out->why, sizeof(out->why), "hybrid: classic, no IOPOLL history of this "
		 "program yet (auto)");
}
