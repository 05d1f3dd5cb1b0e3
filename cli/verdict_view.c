// SPDX-License-Identifier: GPL-2.0-only
/* An IOPOLL ring's program's hybrid verdict, for people (verdict_view.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "json_get.h"
#include "verdict_view.h"

/* CPU per read as ring_view's durations read: "850ns", "1.2us", "3.0ms" */
static void cpu_text(double ns, char *buf, size_t len)
{
	if (ns < 999.5)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 999950)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else
		snprintf(buf, len, "%.1fms", ns / 1e6);
}

/* "  classic      1.0us CPU per read, 10000 IOPS (3 windows, 1 ring)", or nothing */
static void side_line(struct json_object *side, const char *name, FILE *out, int key_w)
{
	uint64_t windows = 0, rings = 0;
	double cpr, iops;
	char d[24];

	if (!side)
		return;
	jget_u64(side, "windows", &windows);
	jget_u64(side, "rings", &rings);
	fprintf(out, "  %-*s", key_w - 2, name);
	if (jget_num(side, "cpu_per_read_ns", &cpr) && jget_num(side, "iops", &iops) && cpr >= 0) {
		cpu_text(cpr, d, sizeof(d));
		fprintf(out, "%s CPU per read, %.0f IOPS", d, iops);
	} else {
		fprintf(out, "no reads measured");
	}
	fprintf(out, " (%" PRIu64 " window%s, %" PRIu64 " ring%s)\n", windows,
		windows == 1 ? "" : "s", rings, rings == 1 ? "" : "s");
}

static void pred_line(struct json_object *pred, FILE *out, int key_w)
{
	double saving, change;
	uint64_t age = 0;

	if (!jget_num(pred, "cpu_per_read_saving", &saving) ||
	    !jget_num(pred, "iops_change", &change))
		return;
	jget_u64(pred, "age_s", &age);
	fprintf(out, "  %-*s%.0f%% less CPU per read, %+.0f%% IOPS (%" PRIu64 " s ago)\n",
		key_w - 2, "predicted", saving * 100, change * 100, age);
}

int verdict_view_print(struct json_object *iop, FILE *out, int key_w)
{
	struct json_object *v;
	char *why;

	if (!json_object_is_type(iop, json_type_object) ||
	    !json_object_object_get_ex(iop, "verdict", &v))
		return 0;
	if (!v) {
		fprintf(out, "%-*snone yet: no window of this program measured\n", key_w,
			"hybrid verdict");
		return 0;
	}
	why = jget_esc(v, "why", false);
	if (!why && json_object_is_type(jget(v, "why"), json_type_string))
		return -ENOMEM;
	fprintf(out, "%-*s%s\n", key_w, "hybrid verdict", why ? why : "-");
	free(why);
	side_line(jget(v, "classic"), "classic", out, key_w);
	side_line(jget(v, "hybrid"), "hybrid", out, key_w);
	pred_line(jget(v, "predicted"), out, key_w);
	return 0;
}
