// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CLI's reading of the daemon's status reply, fed any bytes as the
 * reply: client_parse_reply() as `uringtune` parses what it received, then
 * the table (status_table_print) and, for every ring the reply lists, the
 * single-ring view (rv_find, rv_print) at a narrow, the default and a wide
 * width; and the table as `uringtune status` draws it, its rings read one at
 * a time (reply_parse_rings, status_table_add, status_table_finish).
 * What must hold besides no crash and no leak:
 *   - only one JSON object is a reply; refused, with a reason;
 *   - a reply both readers take draws the same table, or the same refusal;
 *   - what is printed is plain ASCII lines (names from the daemon are
 *     escaped: nothing reaches the terminal as a control byte);
 *   - a reply of the wrong shape prints nothing and says why;
 *   - rv_find() finds each listed ring by its pid and fd.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <json-c/json.h>

#include "client.h"
#include "fuzz.h"
#include "reply_parse.h"
#include "ring_view.h"
#include "status_table.h"

/* rings drawn one by one, per input */
#define MAX_VIEWS	8

static void check_text(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n' || (s[i] >= 0x20 && s[i] < 0x7f))
			continue;
		fprintf(stderr, "byte 0x%02x at offset %zu of:\n%.*s\n", (unsigned char)s[i], i,
			(int)len, s);
		FUZZ_CHECK(!"plain ASCII lines");
	}
}

/* render into a memstream; its text in *out (freed by the caller) */
static FILE *render_open(char **out, size_t *len)
{
	FILE *f = open_memstream(out, len);

	FUZZ_CHECK(f);
	return f;
}

/* the table of the whole reply: its text (the caller frees) and status_table_print()'s result */
static int check_table(struct json_object *reply, char **out, const char **why)
{
	size_t len = 0;
	FILE *f = render_open(out, &len);
	int ret = status_table_print(reply, f, 0, why);

	FUZZ_CHECK(fclose(f) == 0);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL);
	if (ret == -EINVAL)
		FUZZ_CHECK(*why && **why && len == 0);
	check_text(*out, len);
	return ret;
}


/*
 * The table a ring at a time, as `uringtune status` reads it; where the
 * whole-reply reader took the reply too (@whole_ret >= 0), the same table
 * (@whole) or the same refusal.
 */
static void check_streamed(const char *buf, size_t size, int whole_ret, const char *whole,
			   const char *whole_why)
{
	struct st_table t = { 0 };
	struct json_object *top = NULL;
	const char *err = NULL, *why = NULL;
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	ret = reply_parse_rings(buf, size, &status_table_rings, &t, &top, &err);
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL && !top && err && *err);
		status_table_fini(&t);
		return;
	}
	FUZZ_CHECK(json_object_is_type(top, json_type_object));
	f = render_open(&out, &len);
	ret = status_table_finish(&t, top, f, &why);
	FUZZ_CHECK(fclose(f) == 0);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL);
	check_text(out, len);
	if (whole_ret >= -EINVAL && whole_ret <= 0) {
		FUZZ_CHECK(ret == whole_ret);
		FUZZ_CHECK(ret ? !strcmp(why, whole_why) : !strcmp(out, whole));
	}
	free(out);
	status_table_fini(&t);
	json_object_put(top);
}

/* the view of a listed ring, found as `uringtune status --ring PID:FD` finds it */
static void check_view(struct json_object *reply, struct json_object *ring, int width)
{
	struct json_object *found = NULL, *v;
	const char *why = NULL;
	int64_t pid, fd;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if (!json_object_object_get_ex(ring, "pid", &v) || !json_object_is_type(v, json_type_int))
		return;
	pid = json_object_get_int64(v);
	if (!json_object_object_get_ex(ring, "fd", &v) || !json_object_is_type(v, json_type_int))
		return;
	fd = json_object_get_int64(v);
	FUZZ_CHECK(rv_find(reply, pid, fd, &found, &why) == 0 && found);

	f = render_open(&out, &len);
	FUZZ_CHECK(rv_print(found, f, width) == 0);
	FUZZ_CHECK(fclose(f) == 0);
	check_text(out, len);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int widths[] = { RV_WIDTH_MIN, RV_WIDTH_DEFAULT, 211 };
	struct json_object *reply, *rings, *ring = NULL;
	const char *err = NULL, *why = NULL;
	char *buf, *table = NULL;
	size_t n;
	int ret;

	/* as client_request() hands it over: NUL-terminated */
	buf = malloc(size + 1);
	FUZZ_CHECK(buf);
	memcpy(buf, data, size);
	buf[size] = '\0';
	/* the framing `status --json` checks: anything, no crash */
	client_check_frame(buf, size, &err);
	client_reply_is_error(buf, size);
	if (client_parse_reply(buf, size, &reply, &err)) {
		FUZZ_CHECK(!reply && err && *err);
		check_streamed(buf, size, 1, NULL, NULL);
		free(buf);
		return 0;
	}
	FUZZ_CHECK(json_object_is_type(reply, json_type_object));
	ret = check_table(reply, &table, &why);
	check_streamed(buf, size, ret, table, why);
	free(table);

	if (rv_find(reply, -1, -1, &ring, &why) == -EINVAL) {
		FUZZ_CHECK(!ring && why && *why);
	} else {
		rings = json_object_object_get(reply, "rings");
		n = json_object_array_length(rings);
		for (size_t i = 0; i < n && i < MAX_VIEWS; i++)
			check_view(reply, json_object_array_get_idx(rings, i),
				   widths[i % (sizeof(widths) / sizeof(widths[0]))]);
	}
	json_object_put(reply);
	free(buf);
	return 0;
}
