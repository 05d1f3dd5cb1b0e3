// SPDX-License-Identifier: GPL-2.0-only
/* A ring's advice and last decisions, for people (advice_view.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "advice_view.h"
#include "json_get.h"
#include "strbuf.h"

/* "50us", "50us+prefer", "off"; NULL when @o says neither (or ENOMEM) */
static char *setting_of(struct json_object *o)
{
	uint64_t us;

	switch (jget_bool(o, "enabled")) {
	case 0:
		return strdup("off");
	case 1:
		if (!jget_u64(o, "busy_poll_us", &us))
			return strdup("on");
		return cli_msgf("%" PRIu64 "us%s", us, jget_bool(o, "prefer") > 0 ? "+prefer" : "");
	default:
		return NULL;
	}
}

char *status_cell_advice(struct json_object *ring)
{
	char *s = setting_of(jget(jget(ring, "tuning"), "advice"));

	return s ? s : strdup("-");
}

/* a string member escaped, "-" when missing; NULL on ENOMEM */
static char *esc_or_dash(struct json_object *o, const char *key)
{
	char *s = jget_esc(o, key, false);

	return s || json_object_is_type(jget(o, key), json_type_string) ? s : strdup("-");
}

static int advice_line(struct json_object *adv, FILE *out, int key_w)
{
	char *set = setting_of(adv), *track, *since, *why;
	int err = 0;

	/* null: no advice, no line */
	if (!set)
		return json_object_is_type(adv, json_type_object) ? -ENOMEM : 0;
	track = esc_or_dash(adv, "tracking");
	since = esc_or_dash(adv, "since");
	why = esc_or_dash(adv, "why");
	if (!track || !since || !why) {
		err = -ENOMEM;
		goto out;
	}
	fprintf(out, "%-*s%s, %s tracking, since %s (what tune mode would set)\n", key_w,
		"advice", set, track, since);
	if (*why)
		fprintf(out, "%-*s%s\n", key_w, "", why);
out:
	free(set);
	free(track);
	free(since);
	free(why);
	return err;
}

static int decision_line(struct json_object *d, FILE *out, int set_w)
{
	char *set = setting_of(d), *when = esc_or_dash(d, "time"), *why = esc_or_dash(d, "why");
	int err = 0;

	if (!when || !why) {
		err = -ENOMEM;
		goto out;
	}
	fprintf(out, "  %s  %-*s  %s\n", when, set_w, set ? set : "-", why);
out:
	free(set);
	free(when);
	free(why);
	return err;
}

int advice_view_print(struct json_object *ring, FILE *out, int key_w)
{
	struct json_object *tuning = jget(ring, "tuning"), *list = jget(tuning, "decisions");
	size_t n;
	int err;

	err = advice_line(jget(tuning, "advice"), out, key_w);
	if (err || !json_object_is_type(list, json_type_array))
		return err;
	n = json_object_array_length(list);
	if (!n)
		return 0;
	fprintf(out, "%-*s%zu, oldest first (time UTC, setting, why):\n", key_w, "decisions", n);
	for (size_t i = 0; i < n && !err; i++)
		/* "10000us+prefer" is the widest setting (the kernel's cap: 10 ms) */
		err = decision_line(json_object_array_get_idx(list, i), out, 14);
	return err;
}
