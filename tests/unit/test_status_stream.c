// SPDX-License-Identifier: GPL-2.0-only
/*
 * The status reply made a part at a time: the writer's JSON (escaping,
 * numbers, invalid UTF-8), the reply against the json-c builder's on the
 * fixture (status_golden.json), the same text whatever the chunks, rings
 * that go or come mid-reply, the table view and the one-ring reply.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "control_request.h"
#include "status_fixture.h"
#include "status_json.h"
#include "status_stream.h"
#include "status_writer.h"
#include "unit.h"
#include "version.h"

#define GOLDEN	"tests/unit/status_golden.json"

static const struct status_select full, table = { .table = true };

/* the text of @w (always NUL-terminated) */
static const char *text(struct status_writer *w)
{
	return w->buf ? w->buf : "";
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n;

	if (!f)
		return NULL;
	n = getdelim(&buf, &cap, '\0', f);
	fclose(f);
	if (n == (size_t)-1) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* strict: what a careful client would accept (UTF-8 checked) */
static struct json_object *parse(const char *s)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, s, (int)strlen(s));
	if (json_tokener_get_parse_end(tok) != strlen(s)) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

/* the whole reply for @sel, without its newline */
static char *reply(const struct status_select *sel)
{
	struct status_stream s;

	if (status_stream_open(&s, &fx, sel))
		return NULL;
	return status_stream_all(&s, &fx);
}

UT_TEST(writer_escapes_strings_as_json_requires)
{
	struct status_writer w;

	UT_ASSERT_EQ_INT(sw_init(&w), 0);
	sw_array(&w, NULL);
	sw_str(&w, NULL, "q\"b\\s/t\x01\x1f\x7f\b\f\n\r\t");
	sw_str(&w, NULL, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	/* not UTF-8: a stray byte, a cut sequence, an overlong form, a surrogate, > U+10FFFF */
	sw_str(&w, NULL, "a\xff" "b\xe2\x82" "c\xc0\x80" "d\xed\xa0\x80" "e\xf4\x90\x80\x80");
	sw_str(&w, NULL, "");
	sw_str(&w, NULL, NULL);
	sw_str_or_null(&w, NULL, "");
	sw_array_end(&w);
	UT_ASSERT_EQ_INT(w.err, 0);
	UT_ASSERT_STR_EQ(text(&w), "[\"q\\\"b\\\\s/t\\u0001\\u001F\x7f\\b\\f\\n\\r\\t\","
			 "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\","
			 "\"a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd" "c\xef\xbf\xbd\xef\xbf\xbd"
			 "d\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
			 "e\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\",\"\",null,null]");
	/* and a strict reader takes it back as it was */
	struct json_object *o = parse(w.buf);

	UT_ASSERT(o);
	UT_ASSERT_STR_EQ(json_object_get_string(json_object_array_get_idx(o, 0)),
			 "q\"b\\s/t\x01\x1f\x7f\b\f\n\r\t");
	json_object_put(o);
	sw_fini(&w);
}

UT_TEST(writer_numbers_as_json_c_wrote_them)
{
	struct status_writer w;

	UT_ASSERT_EQ_INT(sw_init(&w), 0);
	sw_object(&w, NULL);
	sw_u64(&w, "u0", 0);
	sw_u64(&w, "umax", UINT64_MAX);
	sw_i64(&w, "imin", INT64_MIN);
	sw_i64(&w, "neg", -42);
	sw_double(&w, "rate", 0.97);
	sw_double(&w, "half", 2.5);
	sw_double(&w, "whole", 3.0);
	sw_double(&w, "big", 1e300);
	sw_double(&w, "nan", NAN);
	sw_double(&w, "inf", -INFINITY);
	sw_bool(&w, "t", true);
	sw_null(&w, "n");
	sw_object_end(&w);
	UT_ASSERT_EQ_INT(w.err, 0);
	UT_ASSERT_STR_EQ(text(&w), "{\"u0\":0,\"umax\":18446744073709551615,"
			 "\"imin\":-9223372036854775808,\"neg\":-42,\"rate\":0.96999999999999997,"
			 "\"half\":2.5,\"whole\":3.0,\"big\":1.0000000000000001e+300,\"nan\":null,"
			 "\"inf\":null,\"t\":true,\"n\":null}");
	sw_fini(&w);
}

UT_TEST(writer_json_c_values_and_misuse)
{
	struct json_object *o = json_object_new_object();
	struct status_writer w;

	json_object_object_add(o, "path", json_object_new_string("/a/b"));
	json_object_object_add(o, "n", json_object_new_int(3));
	UT_ASSERT_EQ_INT(sw_init(&w), 0);
	sw_object(&w, NULL);
	sw_json_c(&w, "loop", o);
	sw_json_c(&w, "none", NULL);
	sw_object_end(&w);
	UT_ASSERT_STR_EQ(text(&w), "{\"loop\":{\"path\":\"/a/b\",\"n\":3},\"none\":null}");
	/* a value where a key belongs: a bug, latched, nothing more written */
	sw_fini(&w);
	UT_ASSERT_EQ_INT(sw_init(&w), 0);
	sw_object(&w, NULL);
	sw_u64(&w, NULL, 1);
	UT_ASSERT_EQ_INT(w.err, -EINVAL);
	sw_u64(&w, "x", 1);
	UT_ASSERT_EQ_INT((long long)w.len, 1);
	sw_fini(&w);
}

/* the golden reply with this build's version, parsed */
static struct json_object *golden(void)
{
	struct json_object *g, *daemon;
	char *s = read_file(GOLDEN);

	if (!s)
		return NULL;
	g = parse(s);
	free(s);
	if (g && json_object_object_get_ex(g, "daemon", &daemon))
		json_object_object_add(daemon, "version", json_object_new_string(UT_VERSION));
	return g;
}

UT_TEST(reply_equals_json_c_builders)
{
	struct json_object *want = golden(), *got;
	char *s = reply(&full), *g = read_file(GOLDEN), *p;

	UT_ASSERT(want && s && g);
	/* UT_GOLDEN_WRITE=FILE: write this build's reply there (to review, then keep as the golden) */
	if (getenv("UT_GOLDEN_WRITE")) {
		FILE *f = fopen(getenv("UT_GOLDEN_WRITE"), "w");

		UT_ASSERT(f && fprintf(f, "%s\n", s) > 0 && fclose(f) == 0);
	}
	got = parse(s);
	UT_ASSERT(got);
	UT_ASSERT(json_object_equal(want, got));
	json_object_put(want);
	json_object_put(got);
	/*
	 * Byte for byte, but where json-c escaped more than JSON needs ("\/")
	 * or wrote hex in lower case (this fixture's names have no a-f escapes).
	 */
	while ((p = strstr(g, "\\/")))
		memmove(p, p + 1, strlen(p));
	p = strstr(g, "\"0.1.0\"");
	UT_ASSERT(p && strstr(s, "\"version\":\"" UT_VERSION "\""));
	g[strlen(g) - 1] = '\0';	/* its newline */
	if (!strcmp(UT_VERSION, "0.1.0"))
		UT_ASSERT_STR_EQ(s, g);
	free(s);
	free(g);
}

/* the reply made with @want bytes per fill, drained @drain bytes at a time */
static char *chunked(size_t want, size_t drain)
{
	struct status_stream s;
	size_t len = 0, n;
	char *out = NULL;
	FILE *f = open_memstream(&out, &len);

	if (!f || status_stream_open(&s, &fx, &full))
		return NULL;
	for (;;) {
		if (status_stream_fill(&s, &fx, want))
			break;
		n = s.w.len < drain ? s.w.len : drain;
		fwrite(s.w.buf, 1, n, f);
		sw_drop(&s.w, n);
		if (s.done && !s.w.len)
			break;
	}
	status_stream_close(&s);
	fclose(f);
	return out;
}

UT_TEST(reply_same_whatever_the_chunks)
{
	static const size_t sizes[][2] = {
		{ 1, 1 }, { 1, 4096 }, { 7, 3 }, { 100, 100 }, { 4096, 1000 }, { 65536, 65536 },
	};
	char *whole = reply(&full), *c;

	UT_ASSERT(whole);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		c = chunked(sizes[i][0], sizes[i][1]);
		UT_ASSERT(c);
		/* the newline ends it, once */
		UT_ASSERT_EQ_INT((long long)strlen(c), (long long)strlen(whole) + 1);
		UT_ASSERT(c[strlen(c) - 1] == '\n' && !strncmp(c, whole, strlen(whole)));
		free(c);
	}
	free(whole);
}

/* the pids and fds of the reply's rings, "pid:fd,..." */
static void ring_list(const char *s, char *out, size_t len)
{
	struct json_object *o = parse(s), *rings, *r;
	size_t n = 0;

	out[0] = '\0';
	if (!o || !json_object_object_get_ex(o, "rings", &rings))
		return;
	for (size_t i = 0; i < json_object_array_length(rings); i++) {
		r = json_object_array_get_idx(rings, i);
		n += snprintf(out + n, len - n, "%s%d:%d", i ? "," : "",
			      json_object_get_int(json_object_object_get(r, "pid")),
			      json_object_get_int(json_object_object_get(r, "fd")));
	}
	json_object_put(o);
}

UT_TEST(rings_going_and_coming_mid_reply)
{
	struct status_stream s;
	char list[256];
	size_t len;

	UT_ASSERT_EQ_INT(status_stream_open(&s, &fx, &full), 0);
	/* the head, then the first ring (pid 100 fd 4) */
	UT_ASSERT_EQ_INT(status_stream_fill(&s, &fx, 1), 0);
	UT_ASSERT_EQ_INT((long long)s.rings_written, 0);
	len = s.w.len;
	UT_ASSERT_EQ_INT(status_stream_fill(&s, &fx, len + 1), 0);
	UT_ASSERT_EQ_INT((long long)s.rings_written, 1);
	/* gone: one written already, one not yet; one new */
	registry_remove(&fx.reg, 0xffff888100001000ULL);
	registry_remove(&fx.reg, 0xffff888100006000ULL);
	fx_ring(0xffff888100009000ULL, 1, 3, 0, "new");
	UT_ASSERT_EQ_INT(status_stream_fill(&s, &fx, SIZE_MAX), 0);
	UT_ASSERT(s.done);
	UT_ASSERT_EQ_INT((long long)s.rings_written, 7);
	UT_ASSERT_EQ_INT((long long)s.rings_gone, 1);
	len = s.w.len;
	s.w.buf[len - 1] = '\0';
	ring_list(s.w.buf, list, sizeof(list));
	UT_ASSERT_STR_EQ(list, "100:4,100:5,200:3,300:6,300:7,600:9,700:11");
	status_stream_close(&s);
	/* the next reply has the new one first */
	char *r = reply(&full);

	ring_list(r, list, sizeof(list));
	UT_ASSERT_STR_EQ(list, "1:3,100:5,200:3,300:6,300:7,600:9,700:11");
	free(r);
}

/* the member names of @o, "a,b,c" */
static void keys_of(struct json_object *o, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	json_object_object_foreach(o, key, val) {
		(void)val;
		n += snprintf(out + n, len - n, "%s%s", n ? "," : "", key);
	}
}

UT_TEST(table_view_has_the_tables_members)
{
	struct json_object *o, *rings, *r, *daemon, *g = golden(), *gdaemon;
	char *s = reply(&table), keys[512];

	UT_ASSERT(s && g);
	o = parse(s);
	UT_ASSERT(o && json_object_object_get_ex(o, "rings", &rings));
	UT_ASSERT_EQ_INT((long long)json_object_array_length(rings), 8);
	keys_of(json_object_array_get_idx(rings, 0), keys, sizeof(keys));
	UT_ASSERT_STR_EQ(keys, "pid,comm,fd,setup_flags,setup_flags_raw,napi,napi_ids,waits,"
			 "busy_poll,tunable,reason,managed_by,managed_via,tuning");
	keys_of(json_object_object_get(json_object_array_get_idx(rings, 0), "tuning"), keys,
		sizeof(keys));
	UT_ASSERT_STR_EQ(keys, "advice");
	keys_of(json_object_object_get(json_object_array_get_idx(rings, 0), "busy_poll"), keys,
		sizeof(keys));
	UT_ASSERT_STR_EQ(keys, "windows,paid_off,hit_rate,recent");
	keys_of(json_object_object_get(json_object_object_get(json_object_array_get_idx(rings, 0),
							      "busy_poll"), "recent"),
		keys, sizeof(keys));
	UT_ASSERT_STR_EQ(keys, "period_ns,windows,hit_rate,spin_ns,efficiency");
	/* pid 300 fd 6: IOPOLL */
	r = json_object_array_get_idx(rings, 3);
	keys_of(json_object_object_get(r, "iopoll"), keys, sizeof(keys));
	UT_ASSERT_STR_EQ(keys, "mode,partial,completions,in_flight,p50_ns,p99_ns,mean_ns,"
			 "hybrid_poll_time_ns,window,advice,verdict");
	/* the daemon object is whole */
	UT_ASSERT(json_object_object_get_ex(o, "daemon", &daemon));
	UT_ASSERT(json_object_object_get_ex(g, "daemon", &gdaemon));
	UT_ASSERT(json_object_equal(daemon, gdaemon));
	json_object_put(o);
	json_object_put(g);
	free(s);
}

UT_TEST(one_ring_reply)
{
	struct status_select one = { .one = true, .pid = 200, .fd = 3 };
	char *s = reply(&one), list[64];

	ring_list(s, list, sizeof(list));
	UT_ASSERT_STR_EQ(list, "200:3");
	UT_ASSERT_STR_CONTAINS(s, "\"rings\":8,");
	free(s);
	one.fd = 4;
	s = reply(&one);
	UT_ASSERT_STR_CONTAINS(s, "\"rings\":[]}");
	free(s);
}

#define PARSE(lit, r)	control_request_parse(lit, sizeof(lit) - 1, r, err, sizeof(err))

UT_TEST(requests_select_view_and_ring)
{
	struct control_request r;
	char err[256];

	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"view\":\"table\"}", &r), 0);
	UT_ASSERT(r.cmd == CONTROL_STATUS && r.table && !r.ring);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"view\":\"full\",\"pid\":100,\"fd\":5}", &r), 0);
	UT_ASSERT(!r.table && r.ring && r.pid == 100 && r.fd == 5);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\"}", &r), 0);
	UT_ASSERT(!r.table && !r.ring);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"view\":\"tab\"}", &r), -EINVAL);
	UT_ASSERT_STR_EQ(err, "status: expected \"view\" as \"full\" or \"table\"");
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"view\":1}", &r), -EINVAL);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"pid\":-1,\"fd\":3}", &r), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "status: expected \"pid\" and \"fd\"");
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"force\":true}", &r), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "status: unknown key \"force\" (known: view, pid, fd, comm)");
}

/* status filters: "pid" alone, "comm", both; what is refused and why */
UT_TEST(requests_filter_by_pid_and_comm)
{
	struct control_request r;
	char err[256];

	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"pid\":100}", &r), 0);
	UT_ASSERT(!r.ring && r.pid == 100 && !r.by_comm);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"view\":\"table\",\"comm\":\"fio\"}", &r), 0);
	UT_ASSERT(r.table && !r.ring && r.pid == -1 && r.by_comm && !strcmp(r.comm, "fio"));
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"pid\":3,\"comm\":\"123456789012345\"}", &r), 0);
	UT_ASSERT(r.pid == 3 && r.by_comm && !strcmp(r.comm, "123456789012345"));
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"fd\":3}", &r), -EINVAL);
	UT_ASSERT_STR_EQ(err, "status: \"fd\" goes with \"pid\" (together they name one ring)");
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"comm\":\"1234567890123456\"}", &r), -EINVAL);
	UT_ASSERT_STR_EQ(err, "status: expected \"comm\" as a process name of 1 to 15 bytes");
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"comm\":\"\"}", &r), -EINVAL);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"comm\":7}", &r), -EINVAL);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"comm\":\"a\\u0000b\"}", &r), -EINVAL);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"pid\":1,\"fd\":2,\"comm\":\"x\"}", &r), -EINVAL);
	UT_ASSERT_STR_EQ(err, "status: \"comm\" goes without \"fd\" (\"pid\" and \"fd\" name one ring)");
	/* set and reset take no comm */
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"reset\",\"comm\":\"x\"}", &r), -EINVAL);
}

/* the rings a filter keeps, in status order; "rings" in daemon stays the host's count */
UT_TEST(filtered_reply)
{
	struct status_select sel = { .pid = 100, .fd = -1 };
	char *s = reply(&sel), list[64];

	ring_list(s, list, sizeof(list));
	UT_ASSERT_STR_EQ(list, "100:4,100:5");
	UT_ASSERT_STR_CONTAINS(s, "\"rings\":8,");
	free(s);
	sel = (struct status_select){ .pid = -1, .fd = -1, .by_comm = true, .comm = "fio" };
	s = reply(&sel);
	ring_list(s, list, sizeof(list));
	UT_ASSERT_STR_EQ(list, "300:6,300:7");
	free(s);
	sel.pid = 100;
	s = reply(&sel);
	UT_ASSERT_STR_CONTAINS(s, "\"rings\":[]}");
	free(s);
	/* a prefix is no match */
	sel = (struct status_select){ .pid = -1, .fd = -1, .by_comm = true, .comm = "ping" };
	s = reply(&sel);
	UT_ASSERT_STR_CONTAINS(s, "\"rings\":[]}");
	free(s);
}

/* each test on a fresh fixture: some change it */
static void run(const char *name, void (*fn)(void))
{
	if (fx_setup()) {
		ut_fail(__FILE__, __LINE__, "fixture: out of memory");
		ut_run(name, fn);
		return;
	}
	ut_run(name, fn);
	fx_free();
}

#define RUN(t)	run(#t, t)

int main(void)
{
	RUN(writer_escapes_strings_as_json_requires);
	RUN(writer_numbers_as_json_c_wrote_them);
	RUN(writer_json_c_values_and_misuse);
	RUN(reply_equals_json_c_builders);
	RUN(reply_same_whatever_the_chunks);
	RUN(rings_going_and_coming_mid_reply);
	RUN(table_view_has_the_tables_members);
	RUN(requests_filter_by_pid_and_comm);
	RUN(filtered_reply);
	RUN(one_ring_reply);
	RUN(requests_select_view_and_ring);
	return ut_finish();
}
