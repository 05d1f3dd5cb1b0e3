// SPDX-License-Identifier: GPL-2.0-only
/*
 * `uringtune status` table rendering: fixture replies rendered into a
 * memstream. Unit tests link the daemon's objects, not the CLI's, so the
 * renderer is compiled in here directly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../../cli/reply_parse.c"
#include "../../cli/strbuf.c"
#include "../../cli/bill_view.c"
#include "../../cli/advice_view.c"
#include "../../cli/status_table.c"
#include "unit.h"

#define DAEMON_OK \
	"\"daemon\":{\"pid\":123,\"mode\":\"observe\",\"kernel\":\"6.18.44\"," \
	"\"napi_supported\":true,\"rings\":3,\"events_lost\":0}"

#define RING_FULL \
	"{\"pid\":4242,\"comm\":\"pingpong\",\"fd\":5,\"inode\":33445," \
	"\"setup_flags\":[\"SINGLE_ISSUER\",\"DEFER_TASKRUN\"],\"setup_flags_raw\":12288," \
	"\"napi\":{\"enabled\":true,\"busy_poll_us\":50,\"prefer_busy_poll\":false,\"tracking\":\"dynamic\"}," \
	"\"napi_ids\":[257,258],\"kernel_napi_ids\":[257]," \
	"\"waits\":{\"total\":20000,\"no_sleep\":19500,\"slept\":500}," \
	"\"busy_poll\":{\"windows\":20000,\"paid_off\":19400,\"hit_rate\":0.97,\"time_ns\":1," \
	"\"recent\":{\"period_ns\":5000000000,\"windows\":1000,\"hit_rate\":0.5," \
	"\"spin_ns\":{\"paid\":10000000,\"unpaid\":25000000},\"efficiency\":0.4321}}," \
	"\"tunable\":false,\"reason\":\"SINGLE_ISSUER ring: refused (EEXIST)\"," \
	"\"managed_by\":\"none\",\"some_future_field\":{\"x\":[1,2]}}"

/* last render: output text, return value and *why; freed by the next one */
static char *out;
static int ret;
static const char *why;
/* the table's lines cut at this many columns (0: never), as on a terminal */
static int cut_at;


/* the same fixture as `uringtune status` reads it, a ring at a time: the same table */
static void render_streamed(const char *json)
{
	struct st_table t = { .cut = cut_at };
	struct json_object *top;
	const char *err, *why2 = NULL;
	char *out2 = NULL;
	size_t len;
	FILE *f;
	int ret2;

	if (reply_parse_rings(json, strlen(json), &status_table_rings, &t, &top, &err)) {
		ut_fail(__FILE__, __LINE__, "read a ring at a time: %s", err);
		status_table_fini(&t);
		return;
	}
	f = open_memstream(&out2, &len);
	ret2 = status_table_finish(&t, top, f, &why2);
	fclose(f);
	if (ret2 != ret || (ret ? strcmp(why, why2) : strcmp(out, out2)))
		ut_fail(__FILE__, __LINE__, "a ring at a time: %d \"%s\" instead of %d \"%s\"",
			ret2, ret2 ? why2 : out2, ret, ret ? why : out);
	free(out2);
	status_table_fini(&t);
	json_object_put(top);
}

static void render(const char *json)
{
	struct json_object *reply;
	size_t len;
	FILE *f;

	free(out);
	out = NULL;
	why = NULL;
	reply = json_tokener_parse(json);
	f = open_memstream(&out, &len);
	if (!reply || !f) {
		fprintf(stderr, "test_cli_table: bad fixture or memstream: %s\n", json);
		exit(2);
	}
	ret = status_table_print(reply, f, cut_at, &why);
	fclose(f);
	json_object_put(reply);
	render_streamed(json);
}

/* the @n-th line (0-based) of the output, or "" */
static const char *line(int n)
{
	static char buf[4096];
	const char *p = out, *e;

	for (; n > 0 && p; n--) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p || !*p)
		return "";
	e = strchr(p, '\n');
	if (!e)
		e = p + strlen(p);
	snprintf(buf, sizeof(buf), "%.*s", (int)(e - p), p);
	return buf;
}

static int nr_lines(void)
{
	int n = 0;

	for (const char *p = out; p && *p; p++)
		n += *p == '\n';
	return n;
}

UT_TEST(full_ring)
{
	render("{\"version\":1," DAEMON_OK ",\"rings\":[" RING_FULL "]}");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(nr_lines(), 3);
	UT_ASSERT_STR_EQ(line(0), "uringtuned 123, mode observe, kernel 6.18.44, 3 rings");
	UT_ASSERT_STR_EQ(line(1),
		"PID   COMM      FD  FLAGS                        NAPI  BUSY_POLL  TRACK    "
		"IDS      WAITS  NOSLEEP  BP_HIT  EFF   SPIN%  MANAGED  ADVICE  TUNABLE");
	/* BP_HIT is the last period's (50%), not the lifetime's (97%) */
	UT_ASSERT_STR_EQ(line(2),
		"4242  pingpong  5   SINGLE_ISSUER,DEFER_TASKRUN  on    50us       dynamic  "
		"257,258  20000  97.5%    50.0%   0.43  0.7%   none     -       "
		"no: SINGLE_ISSUER ring: refused (EEXIST)");
}

/* quote, backslash, newline, tab, control and non-ASCII bytes: one line each */
UT_TEST(comm_escaped)
{
	render("{" DAEMON_OK ",\"rings\":[{\"pid\":1,\"fd\":2,"
	       "\"comm\":\"a\\\"b\\\\c\\nd\\te\\u0001f\\u007f\\u00e9\",\"tunable\":true}]}");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(nr_lines(), 3);
	UT_ASSERT_STR_CONTAINS(line(2), "  a\\\"b\\\\c\\nd\\te\\x01f\\x7f\\xc3\\xa9  2  ");
}

/* an empty name is an empty cell: nothing after it but the next cells */
UT_TEST(comm_empty)
{
	render("{" DAEMON_OK ",\"rings\":[{\"pid\":1,\"fd\":2,\"comm\":\"\",\"tunable\":true}]}");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(nr_lines(), 3);
	UT_ASSERT_STR_EQ(line(2), "1          2   -      -     -          -      -    -      -        "
			 "-       -    -      -        -       yes");
}

/* the daemon's prose keeps its quotes; control bytes still cannot break lines */
UT_TEST(reason_escaped)
{
	render("{" DAEMON_OK ",\"rings\":[{\"pid\":1,\"fd\":2,\"tunable\":false,"
	       "\"reason\":\"app set \\\"busy_poll\\\"\\nitself\"}]}");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(nr_lines(), 3);
	UT_ASSERT_STR_CONTAINS(line(2), "no: app set \"busy_poll\"\\nitself");
}

UT_TEST(dashes)
{
	render("{" DAEMON_OK ",\"rings\":[{\"pid\":7,\"comm\":\"idle\",\"fd\":3,"
	       "\"setup_flags\":[],\"napi\":{\"enabled\":false,\"busy_poll_us\":0,"
	       "\"tracking\":\"inactive\"},\"napi_ids\":[],"
	       "\"waits\":{\"total\":0,\"no_sleep\":0,\"slept\":0},"
	       "\"busy_poll\":{\"windows\":0,\"hit_rate\":null},"
	       "\"tunable\":true,\"managed_by\":\"uringtune\"}]}");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line(2), "7    idle  3   -      off   -          inactive  -    "
			 "0      -        -       -    -      uringtune  -       yes");
}

/* observe mode's advice: the timeout, "+prefer", "off"; "-" for none (null) */
UT_TEST(advice_column)
{
	render("{" DAEMON_OK ",\"rings\":["
	       "{\"pid\":1,\"fd\":3,\"tuning\":{\"advice\":{\"enabled\":true,\"busy_poll_us\":50,"
	       "\"prefer\":false,\"tracking\":\"dynamic\",\"why\":\"x\",\"since\":\"t\"}}},"
	       "{\"pid\":2,\"fd\":3,\"tuning\":{\"advice\":{\"enabled\":true,\"busy_poll_us\":26,"
	       "\"prefer\":true}}},"
	       "{\"pid\":3,\"fd\":3,\"tuning\":{\"advice\":{\"enabled\":false,\"busy_poll_us\":0}}},"
	       "{\"pid\":4,\"fd\":3,\"tuning\":{\"advice\":null}}]}");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_CONTAINS(line(1), "  MANAGED  ADVICE       TUNABLE");
	UT_ASSERT_STR_CONTAINS(line(2), "  -        50us         -");
	UT_ASSERT_STR_CONTAINS(line(3), "  -        26us+prefer  -");
	UT_ASSERT_STR_CONTAINS(line(4), "  -        off          -");
	UT_ASSERT_STR_CONTAINS(line(5), "  -        -            -");
}

/* a ring with nothing but its pid: every other cell is "-" */
UT_TEST(missing_fields)
{
	render("{\"rings\":[{\"pid\":9}]}");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line(0), "uringtuned ?, mode ?, kernel ?, 1 ring");
	UT_ASSERT_STR_EQ(line(2), "9    -     -   -      -     -          -      -    "
			 "-      -        -       -    -      -        -       -");
}

/* the host's bill: a line under the summary, none before any window */
UT_TEST(host_bill_line)
{
	render("{" DAEMON_OK ",\"host\":{\"busy_poll\":{\"windows\":80100,\"hit_rate\":0.96," \
	       "\"spin_ns\":{\"paid\":620850000,\"unpaid\":124500000},\"wakeups_avoided\":77610," \
	       "\"saved_ns\":2328300000,\"efficiency\":3.12,\"recent\":{\"period_ns\":5000000000," \
	       "\"windows\":80000,\"hit_rate\":0.97,\"spin_ns\":{\"paid\":620800000," \
	       "\"unpaid\":120000000},\"wakeups_avoided\":77600,\"saved_ns\":2328000000," \
	       "\"efficiency\":3.1425}}},\"rings\":[]}");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line(1), "busy polling, host: 14.8% of a CPU spinning, 97.0% paid off, "
			 "efficiency 3.14 (last 5.0 s); since start: 0.745 s spun, 2.328 s saved");
	/* windows of unknown length, spin capped: said, recent and since start */
	render("{" DAEMON_OK ",\"host\":{\"busy_poll\":{\"windows\":80100,\"hit_rate\":0.96," \
	       "\"spin_ns\":{\"paid\":620850000,\"unpaid\":124500000},\"unknown_windows\":25," \
	       "\"capped_ns\":55600000,\"wakeups_avoided\":77610," \
	       "\"saved_ns\":2328300000,\"efficiency\":3.12,\"recent\":{\"period_ns\":5000000000," \
	       "\"windows\":80000,\"hit_rate\":0.97,\"spin_ns\":{\"paid\":620800000," \
	       "\"unpaid\":120000000},\"unknown_windows\":20,\"capped_ns\":0," \
	       "\"wakeups_avoided\":77600,\"saved_ns\":2328000000," \
	       "\"efficiency\":3.1425}}},\"rings\":[]}");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line(1), "busy polling, host: 14.8% of a CPU spinning, 97.0% paid off, "
			 "efficiency 3.14 (last 5.0 s; 20 windows of unknown length, not billed); "
			 "since start: 0.745 s spun, 2.328 s saved, 0.056 s capped to the threads' "
			 "CPU time, 25 windows of unknown length, not billed");
	render("{" DAEMON_OK ",\"host\":{\"busy_poll\":{\"windows\":0,\"hit_rate\":null}}," \
	       "\"rings\":[]}");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line(1), "no io_uring rings");
}

UT_TEST(sorted_by_pid_then_fd)
{
	render("{" DAEMON_OK ",\"rings\":["
	       "{\"pid\":300,\"fd\":4,\"comm\":\"c\"},"
	       "{\"pid\":20,\"fd\":9,\"comm\":\"b\"},"
	       "{\"pid\":300,\"fd\":1,\"comm\":\"d\"},"
	       "{\"pid\":20,\"fd\":10,\"comm\":\"a\"}]}");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(nr_lines(), 6);
	UT_ASSERT(strncmp(line(2), "20   b     9 ", 13) == 0);
	UT_ASSERT(strncmp(line(3), "20   a     10", 13) == 0);
	UT_ASSERT(strncmp(line(4), "300  d     1 ", 13) == 0);
	UT_ASSERT(strncmp(line(5), "300  c     4 ", 13) == 0);
}

UT_TEST(no_rings)
{
	render("{\"version\":1,\"daemon\":{\"pid\":1,\"mode\":\"tune\",\"kernel\":\"6.1.0\","
	       "\"napi_supported\":false,\"rings\":0,\"events_lost\":7},\"rings\":[]}");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(out, "uringtuned 1, mode tune, kernel 6.1.0, 0 rings, "
			 "NAPI unsupported by this kernel, 7 events lost\nno io_uring rings\n");
	/* daemon.hybrid_support: said when false, alone or with NAPI; not when unknown */
	render("{\"version\":1,\"daemon\":{\"pid\":1,\"mode\":\"tune\",\"kernel\":\"6.1.0\","
	       "\"napi_supported\":false,\"hybrid_support\":{\"supported\":false,"
	       "\"source\":\"kernel-version\",\"setup_flags_known\":null},\"rings\":0},"
	       "\"rings\":[]}");
	UT_ASSERT_STR_EQ(out, "uringtuned 1, mode tune, kernel 6.1.0, 0 rings, "
			 "NAPI and hybrid IOPOLL unsupported by this kernel\nno io_uring rings\n");
	render("{\"version\":1,\"daemon\":{\"pid\":1,\"mode\":\"tune\",\"kernel\":\"6.12.0\","
	       "\"napi_supported\":true,\"hybrid_support\":{\"supported\":false,"
	       "\"source\":\"kernel-version\",\"setup_flags_known\":null},\"rings\":0},"
	       "\"rings\":[]}");
	UT_ASSERT_STR_EQ(out, "uringtuned 1, mode tune, kernel 6.12.0, 0 rings, "
			 "hybrid IOPOLL unsupported by this kernel\nno io_uring rings\n");
	render("{\"version\":1,\"daemon\":{\"pid\":1,\"mode\":\"tune\",\"kernel\":\"x\","
	       "\"napi_supported\":true,\"hybrid_support\":{\"supported\":null,"
	       "\"source\":\"unknown\",\"setup_flags_known\":null},\"rings\":0},"
	       "\"rings\":[]}");
	UT_ASSERT_STR_EQ(out, "uringtuned 1, mode tune, kernel x, 0 rings\nno io_uring rings\n");
}

/* a refused reload is said under the summary, escaped; ok and never say nothing */
UT_TEST(reload_refused)
{
	render("{\"daemon\":{\"pid\":1,\"mode\":\"tune\",\"reload\":{\"last\":\"refused\","
	       "\"time\":1796165941,\"error\":\"f.ini: [napi] tracking: expected dynamic, got 'x\\n'\","
	       "\"count_ok\":0,\"count_refused\":1}},\"rings\":[]}");
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line(1), "last reload refused at 2026-12-01T22:59:01Z, the previous "
			 "configuration still runs: f.ini: [napi] tracking: expected dynamic, got 'x\\n'");
	UT_ASSERT_STR_EQ(line(2), "no io_uring rings");
	render("{\"daemon\":{\"pid\":1,\"reload\":{\"last\":\"ok\",\"time\":5,\"error\":null}},"
	       "\"rings\":[]}");
	UT_ASSERT_STR_EQ(line(1), "no io_uring rings");
	render("{\"daemon\":{\"pid\":1,\"reload\":{\"last\":\"never\",\"time\":null}},\"rings\":[]}");
	UT_ASSERT_STR_EQ(line(1), "no io_uring rings");
}

/* on a terminal: the table's lines cut at its width, the summary lines above it whole */
UT_TEST(cut_to_width)
{
	const char *json = "{\"version\":1," DAEMON_OK ",\"rings\":[" RING_FULL "]}";
	char *whole;

	render(json);
	whole = strdup(out);
	cut_at = 30;
	render(json);
	cut_at = 0;
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(nr_lines(), 3);
	UT_ASSERT_STR_EQ(line(0), "uringtuned 123, mode observe, kernel 6.18.44, 3 rings");
	UT_ASSERT_STR_EQ(line(1), "PID   COMM      FD  FLAGS     ");
	UT_ASSERT_STR_EQ(line(2), "4242  pingpong  5   SINGLE_ISS");
	/* wider than every line: nothing cut */
	cut_at = 1000;
	render(json);
	cut_at = 0;
	UT_ASSERT_STR_EQ(out, whole);
	free(whole);
}

UT_TEST(bad_shape)
{
	render("{" DAEMON_OK "}");
	UT_ASSERT_EQ_INT(ret, -EINVAL);
	UT_ASSERT_STR_EQ(why, "no \"rings\" array");
	UT_ASSERT_STR_EQ(out, "");

	render("{\"rings\":[{\"pid\":1},2]}");
	UT_ASSERT_EQ_INT(ret, -EINVAL);
	UT_ASSERT_STR_EQ(out, "");

	/* a null entry is no ring either (it once read as "forget the rings so far") */
	render("{\"rings\":[{\"pid\":1},null]}");
	UT_ASSERT_EQ_INT(ret, -EINVAL);
	UT_ASSERT_STR_EQ(why, "an entry of \"rings\" is not an object");
	UT_ASSERT_STR_EQ(out, "");

	render("{\"daemon\":[],\"rings\":[]}");
	UT_ASSERT_EQ_INT(ret, -EINVAL);
	UT_ASSERT_STR_EQ(out, "");
}

int main(void)
{
	ut_run("full_ring", full_ring);
	ut_run("comm_escaped", comm_escaped);
	ut_run("comm_empty", comm_empty);
	ut_run("reason_escaped", reason_escaped);
	ut_run("dashes", dashes);
	ut_run("missing_fields", missing_fields);
	ut_run("host_bill_line", host_bill_line);
	ut_run("advice_column", advice_column);
	ut_run("sorted_by_pid_then_fd", sorted_by_pid_then_fd);
	ut_run("no_rings", no_rings);
	ut_run("bad_shape", bad_shape);
	ut_run("reload_refused", reload_refused);
	ut_run("cut_to_width", cut_to_width);
	free(out);
	return ut_finish();
}
