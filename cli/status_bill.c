// SPDX-License-Identifier: GPL-2.0-only
/* Busy polling's bill in `uringtune status` (status_bill.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "json_get.h"
#include "status_bill.h"
#include "strbuf.h"

/* CPU spun over the period, as a share of one CPU; false without a period */
static bool spin_share(struct json_object *recent, double *share)
{
	struct json_object *spin = jget(recent, "spin_ns");
	uint64_t period, paid, unpaid;

	if (!jget_u64(recent, "period_ns", &period) || !period ||
	    !jget_u64(spin, "paid", &paid) || !jget_u64(spin, "unpaid", &unpaid))
		return false;
	*share = ((double)paid + (double)unpaid) / (double)period;
	return true;
}

void status_bill_cells(struct json_object *bp, char **hit, char **eff, char **spin)
{
	struct json_object *recent = jget(bp, "recent");
	double v;

	*hit = *eff = *spin = NULL;
	/* null before the first window of the period */
	if (jget_num(recent, "hit_rate", &v))
		*hit = cli_msgf("%.1f%%", v * 100.0);
	if (jget_num(recent, "efficiency", &v))
		*eff = cli_msgf("%.2f", v);
	if (spin_share(recent, &v))
		*spin = cli_msgf("%.1f%%", v * 100.0);
}

/*
 * "busy polling, host: 1.2% of a CPU spinning, 97.0% paid off, efficiency
 * 3.14 (last 5.0 s); since start: 1.5 s spun, 4.8 s saved"
 */
void status_bill_host_line(struct json_object *reply, FILE *out)
{
	struct json_object *bp = jget(jget(reply, "host"), "busy_poll");
	struct json_object *recent = jget(bp, "recent"), *spin = jget(bp, "spin_ns");
	uint64_t windows, period, paid, unpaid, saved;
	double v;

	if (!jget_u64(bp, "windows", &windows) || !windows)
		return;
	fprintf(out, "busy polling, host:");
	if (jget_u64(recent, "period_ns", &period) && period && spin_share(recent, &v)) {
		fprintf(out, " %.1f%% of a CPU spinning", v * 100.0);
		if (jget_num(recent, "hit_rate", &v))
			fprintf(out, ", %.1f%% paid off", v * 100.0);
		if (jget_num(recent, "efficiency", &v))
			fprintf(out, ", efficiency %.2f", v);
		fprintf(out, " (last %.1f s);", (double)period / 1e9);
	}
	if (jget_u64(spin, "paid", &paid) && jget_u64(spin, "unpaid", &unpaid) &&
	    jget_u64(bp, "saved_ns", &saved))
		fprintf(out, " since start: %.3f s spun, %.3f s saved", (double)(paid + unpaid) / 1e9,
			(double)saved / 1e9);
	fputc('\n', out);
}
