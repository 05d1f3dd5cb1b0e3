// SPDX-License-Identifier: GPL-2.0-only
/* Busy polling's bill in `uringtune status` (bill_view.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_get.h"
#include "bill_view.h"
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

void bill_view_cells(struct json_object *bp, char **hit, char **eff, char **spin)
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

/* ", 120 windows of unknown length, not billed", nothing when none (or an older daemon) */
static void unknown_text(struct json_object *o, const char *sep, FILE *out)
{
	uint64_t unknown;

	if (jget_u64(o, "unknown_windows", &unknown) && unknown)
		fprintf(out, "%s%" PRIu64 " window%s of unknown length, not billed", sep, unknown,
			unknown == 1 ? "" : "s");
}

/*
 * "busy polling, host: 1.2% of a CPU spinning, 97.0% paid off, efficiency
 * 3.14 (last 5.0 s; 20 windows of unknown length, not billed); since start:
 * 1.5 s spun, 4.8 s saved, 0.2 s capped to the threads' CPU time, 25
 * windows of unknown length, not billed"
 */
void bill_view_host_line(struct json_object *reply, FILE *out)
{
	struct json_object *bp = jget(jget(reply, "host"), "busy_poll");
	struct json_object *recent = jget(bp, "recent"), *spin = jget(bp, "spin_ns");
	uint64_t windows, period, paid, unpaid, saved, capped;
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
		fprintf(out, " (last %.1f s", (double)period / 1e9);
		unknown_text(recent, "; ", out);
		fprintf(out, ");");
	}
	if (jget_u64(spin, "paid", &paid) && jget_u64(spin, "unpaid", &unpaid) &&
	    jget_u64(bp, "saved_ns", &saved)) {
		fprintf(out, " since start: %.3f s spun, %.3f s saved", (double)(paid + unpaid) / 1e9,
			(double)saved / 1e9);
		if (jget_u64(bp, "capped_ns", &capped) && capped)
			fprintf(out, ", %.3f s capped to the threads' CPU time",
				(double)capped / 1e9);
		unknown_text(bp, ", ", out);
	}
	fputc('\n', out);
}

/*
 * "spun 0.150 s (paid 0.100 s, unpaid 0.050 s: sampled), ... efficiency 0.50",
 * then "; 0.010 s capped to its thread's CPU time; 12 windows of unknown
 * length, not billed" when there are
 */
static bool bill_text(struct json_object *o, FILE *out)
{
	struct json_object *spin = jget(o, "spin_ns");
	uint64_t paid, unpaid, saved, avoided, capped;
	double eff;

	if (!jget_u64(spin, "paid", &paid) || !jget_u64(spin, "unpaid", &unpaid) ||
	    !jget_u64(o, "saved_ns", &saved) || !jget_u64(o, "wakeups_avoided", &avoided))
		return false;
	fprintf(out, "spun %.3f s (paid %.3f s, unpaid %.3f s: sampled), "
		"%" PRIu64 " wake-ups avoided, %.3f s saved (estimated), efficiency ",
		(double)(paid + unpaid) / 1e9, (double)paid / 1e9, (double)unpaid / 1e9, avoided,
		(double)saved / 1e9);
	if (jget_num(o, "efficiency", &eff))
		fprintf(out, "%.2f", eff);
	else
		fprintf(out, "-");
	if (jget_u64(o, "capped_ns", &capped) && capped)
		fprintf(out, "; %.3f s capped to its thread's CPU time", (double)capped / 1e9);
	unknown_text(o, "; ", out);
	fputc('\n', out);
	return true;
}

/* "cpu bound      its waiting thread's CPU time", or why there is none */
static void bound_line(struct json_object *bp, FILE *out, int key_w)
{
	struct json_object *state = jget(bp, "cpu_bound"), *why = jget(bp, "cpu_bound_why");
	const char *s, *w;

	if (!json_object_is_type(state, json_type_string))
		return;
	s = json_object_get_string(state);
	w = json_object_is_type(why, json_type_string) ? json_object_get_string(why) : "";
	fprintf(out, "%-*s", key_w, "cpu bound");
	if (!strcmp(s, "known"))
		fprintf(out, "its waiting thread's CPU time\n");
	else if (!strcmp(w, "no_thread"))
		fprintf(out, "unknown: no waiting thread known\n");
	else if (!strcmp(w, "thread_changed"))
		fprintf(out, "unknown: another thread waited at the step before\n");
	else if (!strcmp(w, "unread"))
		fprintf(out, "unknown: its waiting thread's CPU time could not be read\n");
	else
		fprintf(out, "unknown\n");
}

void bill_view_ring_lines(struct json_object *bp, FILE *out, int key_w)
{
	struct json_object *recent = jget(bp, "recent");
	uint64_t period;
	double v;

	fprintf(out, "%-*s", key_w, "bill");
	if (!bill_text(bp, out)) {
		fprintf(out, "-\n");
		return;
	}
	bound_line(bp, out, key_w);
	fprintf(out, "%-*s", key_w, "last period");
	if (!jget_u64(recent, "period_ns", &period) || !period) {
		fprintf(out, "none closed yet\n");
		return;
	}
	fprintf(out, "%.1f s", (double)period / 1e9);
	if (jget_num(recent, "hit_rate", &v))
		fprintf(out, ", %.1f%% paid off", v * 100.0);
	if (spin_share(recent, &v))
		fprintf(out, ", %.1f%% of a CPU spinning", v * 100.0);
	fputc('\n', out);
	fprintf(out, "%-*s", key_w, "");
	if (!bill_text(recent, out))
		fprintf(out, "-\n");
}
