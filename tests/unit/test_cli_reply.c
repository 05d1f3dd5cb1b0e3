// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CLI's reading of a status reply a ring at a time (reply_parse.c):
 * rings handed over one by one and the rest kept, values as json-c's own
 * reader makes them, what it refuses. Unit tests link the daemon's objects,
 * not the CLI's, so the reader is compiled in here directly.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../../cli/reply_parse.c"
#include "unit.h"

/* the rings handed over, as text, "|"-separated; "RESET" where they were forgotten */
static char seen[1024];
static int stop_after = -1;

static void note(const char *what)
{
	size_t n = strlen(seen);

	snprintf(seen + n, sizeof(seen) - n, "%s%s", n ? "|" : "", what);
}

static int on_ring(struct json_object *ring, void *arg)
{
	(void)arg;
	if (!stop_after--)
		return -ECANCELED;
	note(json_object_to_json_string_ext(ring, JSON_C_TO_STRING_PLAIN));
	return 0;
}

static int on_forget(void *arg)
{
	(void)arg;
	note("RESET");
	return 0;
}

static const struct reply_rings ops = { .ring = on_ring, .forget = on_forget };

static struct json_object *top;
static const char *err;

static int parse(const char *text)
{
	json_object_put(top);
	top = NULL;
	seen[0] = '\0';
	err = NULL;
	return reply_parse_rings(text, strlen(text), &ops, NULL, &top, &err);
}

static const char *top_text(void)
{
	return json_object_to_json_string_ext(top, JSON_C_TO_STRING_PLAIN);
}

UT_TEST(rings_one_at_a_time)
{
	UT_ASSERT_EQ_INT(parse(" {\"version\":1,\"daemon\":{\"pid\":7},\"rings\":[{\"pid\":1},"
			       "{\"pid\":2,\"x\":[1,{\"rings\":[3]}]},null,4]}\n"), 0);
	UT_ASSERT_STR_EQ(seen, "{\"pid\":1}|{\"pid\":2,\"x\":[1,{\"rings\":[3]}]}|null|4");
	/* the rest stays, "rings" empty; a "rings" deeper down is an ordinary array */
	UT_ASSERT_STR_EQ(top_text(), "{\"version\":1,\"daemon\":{\"pid\":7},\"rings\":[]}");
	/* "rings" that is not an array stays as it is */
	UT_ASSERT_EQ_INT(parse("{\"rings\":{\"a\":[1]}}"), 0);
	UT_ASSERT_STR_EQ(seen, "");
	UT_ASSERT_STR_EQ(top_text(), "{\"rings\":{\"a\":[1]}}");
}

UT_TEST(second_rings_replaces_the_first)
{
	/* json-c keeps the last of two equal keys: so do the rings */
	UT_ASSERT_EQ_INT(parse("{\"rings\":[1,2],\"daemon\":{},\"rings\":[3]}"), 0);
	UT_ASSERT_STR_EQ(seen, "1|2|RESET|3");
	UT_ASSERT_EQ_INT(parse("{\"rings\":[1],\"rings\":5}"), 0);
	UT_ASSERT_STR_EQ(top_text(), "{\"rings\":5}");
}

UT_TEST(values_as_json_c_reads_them)
{
	struct json_object *v;

	UT_ASSERT_EQ_INT(parse("{\"u\":18446744073709551615,\"big\":99999999999999999999,"
			       "\"neg\":-9223372036854775809,\"i\":-5,\"d\":0.5,\"e\":1e3,"
			       "\"s\":\"a\\u0000b\\u00e9\",\"k\\u0000x\":1,\"t\":true,\"n\":null,"
			       "\"dup\":1,\"dup\":2}"), 0);
	UT_ASSERT(json_object_object_get_ex(top, "u", &v) && json_object_get_uint64(v) == UINT64_MAX &&
		  json_object_get_int64(v) == INT64_MAX);
	/* past either end: clamped, as json-c does */
	UT_ASSERT(json_object_object_get_ex(top, "big", &v) && json_object_get_uint64(v) == UINT64_MAX);
	UT_ASSERT(json_object_object_get_ex(top, "neg", &v) && json_object_get_int64(v) == INT64_MIN);
	UT_ASSERT(json_object_object_get_ex(top, "i", &v) && json_object_is_type(v, json_type_int) &&
		  json_object_get_int64(v) == -5);
	UT_ASSERT(json_object_object_get_ex(top, "d", &v) && json_object_is_type(v, json_type_double));
	UT_ASSERT(json_object_object_get_ex(top, "e", &v) && json_object_get_double(v) == 1000.0);
	/* strings keep their NULs; keys end at one */
	UT_ASSERT(json_object_object_get_ex(top, "s", &v) && json_object_get_string_len(v) == 5 &&
		  !memcmp(json_object_get_string(v), "a\0b\xc3\xa9", 5));
	UT_ASSERT(json_object_object_get_ex(top, "k", &v) && json_object_get_int(v) == 1);
	UT_ASSERT(json_object_object_get_ex(top, "n", &v) && !v);
	UT_ASSERT(json_object_object_get_ex(top, "dup", &v) && json_object_get_int(v) == 2);
}

UT_TEST(refusals)
{
	UT_ASSERT_EQ_INT(parse(""), -EINVAL);
	UT_ASSERT_STR_EQ(err, "empty reply");
	UT_ASSERT_EQ_INT(parse(" \n"), -EINVAL);
	UT_ASSERT_EQ_INT(parse("[1]"), -EINVAL);
	UT_ASSERT_STR_EQ(err, "not a JSON object");
	UT_ASSERT_EQ_INT(parse("3"), -EINVAL);
	UT_ASSERT_STR_EQ(err, "not a JSON object");
	UT_ASSERT_EQ_INT(parse("{\"a\":1}{\"b\":2}"), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "trailing garbage");
	UT_ASSERT_EQ_INT(parse("{\"rings\":[{\"pid\":1},{\"pid\":2}"), -EINVAL);
	UT_ASSERT(!top && err && *err);
	/* json-c takes these; RFC 8259 does not */
	UT_ASSERT_EQ_INT(parse("{'a':1}"), -EINVAL);
	UT_ASSERT_EQ_INT(parse("{\"a\":NaN}"), -EINVAL);
	UT_ASSERT_EQ_INT(parse("{\"a\":1,}"), -EINVAL);
	/* bytes that are not UTF-8 are kept (the renderers escape them) */
	UT_ASSERT_EQ_INT(parse("{\"comm\":\"\xff\"}"), 0);
}

/* json-c's depth: 32 levels, not 33 */
UT_TEST(depth_as_json_c)
{
	struct json_object *o;
	char text[256];
	int d, n;

	for (d = 32; d <= 33; d++) {
		/* an object, then d - 1 arrays inside it */
		n = snprintf(text, sizeof(text), "{\"a\":");
		for (int i = 1; i < d; i++)
			text[n++] = '[';
		for (int i = 1; i < d; i++)
			text[n++] = ']';
		snprintf(text + n, sizeof(text) - n, "}");
		UT_ASSERT_EQ_INT(parse(text), d == 32 ? 0 : -EINVAL);
		o = json_tokener_parse(text);
		UT_ASSERT_EQ_INT(!!o, d == 32);
		json_object_put(o);
	}
	UT_ASSERT_STR_EQ(err, "nested too deep");
}

UT_TEST(callback_stops_it)
{
	stop_after = 1;
	UT_ASSERT_EQ_INT(parse("{\"rings\":[1,2,3]}"), -ECANCELED);
	UT_ASSERT(!top);
	UT_ASSERT_STR_EQ(seen, "1");
	stop_after = -1;
}

int main(void)
{
	ut_run("rings_one_at_a_time", rings_one_at_a_time);
	ut_run("second_rings_replaces_the_first", second_rings_replaces_the_first);
	ut_run("values_as_json_c_reads_them", values_as_json_c_reads_them);
	ut_run("refusals", refusals);
	ut_run("depth_as_json_c", depth_as_json_c);
	ut_run("callback_stops_it", callback_stops_it);
	json_object_put(top);
	return ut_finish();
}
