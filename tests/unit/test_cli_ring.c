// SPDX-License-Identifier: GPL-2.0-only
/*
 * `uringtune status --ring PID:FD` rendering: slot labels, bar scaling and
 * fixture rings drawn into a memstream. Unit tests link the daemon's
 * objects, not the CLI's, so the renderers are compiled in here directly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../../cli/strbuf.c"
#include "../../cli/bill_view.c"
#include "../../cli/advice_view.c"
#include "../../cli/status_table.c"
#include "../../cli/ring_view.c"
#include "../../cli/verdict_view.c"
#include "unit.h"

/* last render: output text and return value; freed by the next one */
static char *out;
static int ret;

static void render(const char *json, int width)
{
	struct json_object *ring;
	size_t len;
	FILE *f;

	free(out);
	out = NULL;
	ring = json_tokener_parse(json);
	f = open_memstream(&out, &len);
	if (!ring || !f) {
		fprintf(stderr, "test_cli_ring: bad fixture or memstream: %s\n", json);
		exit(2);
	}
	ret = rv_print(ring, f, width);
	fclose(f);
	json_object_put(ring);
}

/* the first line of the output that starts with @prefix, or "" */
static const char *line_with(const char *prefix)
{
	static char buf[4096];
	size_t n = strlen(prefix);

	for (const char *p = out; p && *p; ) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len >= n && strncmp(p, prefix, n) == 0) {
			snprintf(buf, sizeof(buf), "%.*s", (int)len, p);
			return buf;
		}
		if (!e)
			break;
		p = e + 1;
	}
	return "";
}

static int nr_lines(void)
{
	int n = 0;

	for (const char *p = out; p && *p; p++)
		n += *p == '\n';
	return n;
}

static const char *label(unsigned int slot)
{
	static char buf[48];

	rv_slot_label(slot, buf, sizeof(buf));
	return buf;
}

static const char *duration(uint64_t ns)
{
	static char buf[24];

	rv_duration(ns, buf, sizeof(buf));
	return buf;
}

/* "|" + @n stars + @w - @n spaces + "|" */
static const char *bar(int n, int w)
{
	static char buf[256];
	int i = 0;

	buf[i++] = '|';
	for (int j = 0; j < w; j++)
		buf[i++] = j < n ? '*' : ' ';
	buf[i++] = '|';
	buf[i] = '\0';
	return buf;
}

UT_TEST(slot_labels)
{
	UT_ASSERT_STR_EQ(label(0), "0ns-1ns");
	UT_ASSERT_STR_EQ(label(1), "2ns-3ns");
	UT_ASSERT_STR_EQ(label(8), "256ns-511ns");
	UT_ASSERT_STR_EQ(label(9), "512ns-1023ns");
	UT_ASSERT_STR_EQ(label(10), "1.0us-2.0us");
	UT_ASSERT_STR_EQ(label(13), "8.2us-16.4us");
	UT_ASSERT_STR_EQ(label(19), "524.3us-1.0ms");
	UT_ASSERT_STR_EQ(label(20), "1.0ms-2.1ms");
	UT_ASSERT_STR_EQ(label(29), "536.9ms-1.1s");
	UT_ASSERT_STR_EQ(label(31), "2.1s-4.3s");
}

/* the unit follows the rounded value: never "1000.0us" */
UT_TEST(durations)
{
	UT_ASSERT_STR_EQ(duration(0), "0ns");
	UT_ASSERT_STR_EQ(duration(1023), "1023ns");
	UT_ASSERT_STR_EQ(duration(1024), "1.0us");
	UT_ASSERT_STR_EQ(duration(999949), "999.9us");
	UT_ASSERT_STR_EQ(duration(999950), "1.0ms");
	UT_ASSERT_STR_EQ(duration(999949999), "999.9ms");
	UT_ASSERT_STR_EQ(duration(999950000), "1.0s");
	UT_ASSERT_STR_EQ(duration(UINT64_MAX), "18446744073.7s");
}

UT_TEST(bar_scaling)
{
	/* the largest count gets the full width */
	UT_ASSERT_EQ_INT(rv_bar_len(120, 120, 37), 37);
	UT_ASSERT_EQ_INT(rv_bar_len(UINT64_MAX, UINT64_MAX, 50), 50);
	/* zero counts get no bar */
	UT_ASSERT_EQ_INT(rv_bar_len(0, 120, 37), 0);
	UT_ASSERT_EQ_INT(rv_bar_len(0, 0, 37), 0);
	/* small counts at least one char */
	UT_ASSERT_EQ_INT(rv_bar_len(1, 1000000, 37), 1);
	UT_ASSERT_EQ_INT(rv_bar_len(3, 120, 37), 1);
	/* in between: proportional, rounded down, no overflow */
	UT_ASSERT_EQ_INT(rv_bar_len(60, 120, 37), 18);
	UT_ASSERT_EQ_INT(rv_bar_len(UINT64_MAX - 1, UINT64_MAX, 50), 49);
	UT_ASSERT_EQ_INT(rv_bar_len(UINT64_MAX / 2, UINT64_MAX, 50), 24);
}

#define HIST_4	"[0,0,0,0,0,0,0,0,0,0,3,0,120,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]"
#define HIST_0	"[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]"

#define RING_FULL(hist) \
	"{\"pid\":4242,\"comm\":\"pingpong\",\"fd\":5,\"inode\":33445," \
	"\"setup_flags\":[\"SQPOLL\"],\"setup_flags_raw\":2," \
	"\"napi\":{\"enabled\":true,\"busy_poll_us\":50,\"prefer_busy_poll\":false," \
	"\"tracking\":\"dynamic\"},\"napi_ids\":[257,258],\"kernel_napi_ids\":[257]," \
	"\"waits\":{\"total\":200,\"no_sleep\":150,\"slept\":50}," \
	"\"busy_poll\":{\"windows\":160,\"paid_off\":150,\"hit_rate\":0.9375," \
	"\"time_ns\":1240000,\"hist_log2_ns\":" hist "}," \
	"\"tunable\":true,\"reason\":\"\",\"managed_by\":\"uringtune\"," \
	"\"tuning\":{\"pinned\":false,\"hands_off\":false,\"error\":null," \
	"\"last_decision\":\"busy_poll 100us -> 50us\",\"reaction_us\":null}}"

/* the bill: since the ring was seen and over its last period; none closed yet */
UT_TEST(bill_lines)
{
	render("{\"pid\":1,\"fd\":2,\"busy_poll\":{\"windows\":1000,\"paid_off\":900,"
	       "\"spin_ns\":{\"paid\":9000000,\"unpaid\":5000000},\"wakeups_avoided\":900,"
	       "\"saved_ns\":27000000,\"efficiency\":1.9286,\"recent\":{\"period_ns\":2000000000,"
	       "\"windows\":100,\"hit_rate\":0.5,\"spin_ns\":{\"paid\":500000,\"unpaid\":2500000},"
	       "\"wakeups_avoided\":50,\"saved_ns\":1500000,\"efficiency\":0.5}}}", 80);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line_with("bill  "), "bill           spun 0.014 s (paid 0.009 s, "
			 "unpaid 0.005 s: sampled), 900 wake-ups avoided, 0.027 s saved "
			 "(estimated), efficiency 1.93");
	UT_ASSERT_STR_EQ(line_with("last period"), "last period    2.0 s, 50.0% paid off, "
			 "0.1% of a CPU spinning");
	UT_ASSERT_STR_CONTAINS(out, "\n               spun 0.003 s (paid 0.001 s, unpaid "
			       "0.003 s: sampled), 50 wake-ups avoided, 0.002 s saved (estimated), "
			       "efficiency 0.50\n");
	/* a daemon without the bound says nothing of it */
	UT_ASSERT(!strstr(out, "cpu bound"));
	/* windows of unknown length, spin capped, the bound and why it is unknown */
	render("{\"pid\":1,\"fd\":2,\"busy_poll\":{\"windows\":1000,\"paid_off\":900,"
	       "\"spin_ns\":{\"paid\":9000000,\"unpaid\":0},\"unknown_windows\":100,"
	       "\"capped_ns\":2500000,\"wakeups_avoided\":900,\"saved_ns\":27000000,"
	       "\"efficiency\":3,\"cpu_bound\":\"unknown\",\"cpu_bound_why\":\"thread_changed\","
	       "\"recent\":{\"period_ns\":2000000000,\"windows\":100,\"hit_rate\":0.5,"
	       "\"spin_ns\":{\"paid\":500000,\"unpaid\":0},\"unknown_windows\":1,"
	       "\"capped_ns\":0,\"wakeups_avoided\":50,\"saved_ns\":1500000,\"efficiency\":3}}}",
	       80);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line_with("bill  "), "bill           spun 0.009 s (paid 0.009 s, "
			 "unpaid 0.000 s: sampled), 900 wake-ups avoided, 0.027 s saved "
			 "(estimated), efficiency 3.00; 0.003 s capped to its thread's CPU time; "
			 "100 windows of unknown length, not billed");
	UT_ASSERT_STR_EQ(line_with("cpu bound"), "cpu bound      unknown: another thread waited "
			 "at the step before");
	UT_ASSERT_STR_CONTAINS(out, "efficiency 3.00; 1 window of unknown length, not billed\n");
	render("{\"pid\":1,\"fd\":2,\"busy_poll\":{\"windows\":1000,\"paid_off\":900,"
	       "\"spin_ns\":{\"paid\":9000000,\"unpaid\":0},\"unknown_windows\":0,"
	       "\"capped_ns\":0,\"wakeups_avoided\":900,\"saved_ns\":27000000,"
	       "\"efficiency\":3,\"cpu_bound\":\"known\",\"recent\":{\"period_ns\":0}}}", 80);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line_with("cpu bound"), "cpu bound      its waiting thread's CPU time");
	UT_ASSERT(!strstr(out, "unknown length") && !strstr(out, "capped"));
	render("{\"pid\":1,\"fd\":2,\"busy_poll\":{\"windows\":0,\"spin_ns\":{\"paid\":0,"
	       "\"unpaid\":0},\"wakeups_avoided\":0,\"saved_ns\":0,\"efficiency\":null,"
	       "\"recent\":{\"period_ns\":0}}}", 80);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_CONTAINS(line_with("bill  "), "efficiency -");
	UT_ASSERT_STR_EQ(line_with("last period"), "last period    none closed yet");
}

UT_TEST(full_ring)
{
	render(RING_FULL(HIST_4), 60);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line_with("pid "), "pid 4242  comm pingpong  fd 5");
	UT_ASSERT_STR_EQ(line_with("setup flags"), "setup flags    SQPOLL");
	UT_ASSERT_STR_EQ(line_with("NAPI  "),
			 "NAPI           on, timeout 50us, prefer off, tracking dynamic");
	UT_ASSERT_STR_EQ(line_with("NAPI IDs"), "NAPI IDs       seen 257,258, busy-polled 257");
	UT_ASSERT_STR_EQ(line_with("managed by"), "managed by     uringtune");
	UT_ASSERT_STR_EQ(line_with("tunable"), "tunable        yes");
	UT_ASSERT_STR_EQ(line_with("last decision"), "last decision  busy_poll 100us -> 50us");
	UT_ASSERT_STR_EQ(line_with("tuning error"), "");

	/* waits: the total is the full width (60 - 23 - 3 digits = 34) */
	UT_ASSERT_STR_EQ(line_with("waits"), "waits          200 blocked");
	UT_ASSERT_STR_EQ(line_with("  no sleep"),
			 "  no sleep  150   75.0% |#########################         |");
	UT_ASSERT_STR_EQ(line_with("  slept"),
			 "  slept      50   25.0% |########                          |");

	UT_ASSERT_STR_EQ(line_with("busy polling"), "busy polling   160 windows: 150 paid off (93.8%)");
	UT_ASSERT_STR_CONTAINS(out, "\n               10 did not pay off: each lasted the whole timeout\n");
	UT_ASSERT_STR_EQ(line_with("paid-off"),
			 "paid-off windows by length (a 1-in-16 sample: 124 timed, 10.0us on average):");

	/* slots 10 to 13, the empty 11 included; bars of 60 - (12 + 3 + 5 + 3) */
	UT_ASSERT_STR_EQ(line_with("    duration"), "    duration : count  distribution");
	UT_ASSERT_STR_EQ(line_with(" 1.0us-2.0us"), " 1.0us-2.0us :     3 |*                                    |");
	UT_ASSERT_STR_EQ(line_with(" 2.0us-4.1us"), " 2.0us-4.1us :     0 |                                     |");
	UT_ASSERT_STR_EQ(line_with(" 4.1us-8.2us"),
			 " 4.1us-8.2us :   120 |*************************************|");
	UT_ASSERT_STR_EQ(line_with("8.2us-16.4us"), "8.2us-16.4us :     1 |*                                    |");
	UT_ASSERT_STR_EQ(line_with("512ns"), "");
	UT_ASSERT_STR_EQ(line_with("16.4us-"), "");
	UT_ASSERT_EQ_INT(nr_lines(), 20);
}

/* the bars follow the width; under the minimum the minimum is used */
UT_TEST(width)
{
	render(RING_FULL(HIST_4), 100);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT((int)strlen(line_with(" 4.1us-8.2us")), 100);
	UT_ASSERT_STR_CONTAINS(line_with(" 4.1us-8.2us"), bar(77, 77));
	UT_ASSERT_EQ_INT((int)strlen(line_with("  no sleep")), 100);

	render(RING_FULL(HIST_4), 10);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT((int)strlen(line_with(" 4.1us-8.2us")), RV_WIDTH_MIN);
	UT_ASSERT_STR_CONTAINS(line_with(" 4.1us-8.2us"), bar(17, 17));
	UT_ASSERT_STR_CONTAINS(line_with(" 1.0us-2.0us"), bar(1, 17));
}

/* paid-off windows, none timed yet: no histogram, a note */
UT_TEST(empty_histogram)
{
	render(RING_FULL(HIST_0), 60);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line_with("paid-off"),
			 "paid-off windows by length: none timed yet (a 1-in-16 sample)");
	UT_ASSERT_STR_EQ(line_with("    duration"), "");
	UT_ASSERT(!strchr(out, '*'));

	/* no window at all (NAPI off): nothing about lengths */
	render("{\"pid\":1,\"fd\":2,\"napi\":{\"enabled\":false},"
	       "\"waits\":{\"total\":0,\"no_sleep\":0,\"slept\":0},"
	       "\"busy_poll\":{\"windows\":0,\"paid_off\":0,\"hit_rate\":null,"
	       "\"time_ns\":0,\"hist_log2_ns\":" HIST_0 "}}", 80);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line_with("NAPI  "), "NAPI           off");
	UT_ASSERT_STR_EQ(line_with("waits"), "waits          0 blocked");
	UT_ASSERT_STR_EQ(line_with("  no sleep"), "");
	UT_ASSERT_STR_EQ(line_with("busy polling"), "busy polling   no window yet");
	UT_ASSERT_STR_EQ(line_with("paid-off"), "");
	UT_ASSERT(!strchr(out, '|'));
}

/* quote, backslash, newline in comm; the daemon's prose keeps its quotes */
UT_TEST(header_escaped)
{
	render("{\"pid\":1,\"fd\":2,\"comm\":\"a\\\"b\\\\c\\nd\\u001b[2J\","
	       "\"managed_by\":\"none\",\"tunable\":false,"
	       "\"reason\":\"app set \\\"busy_poll\\\"\\nitself\","
	       "\"tuning\":{\"pinned\":true,\"hands_off\":false,"
	       "\"error\":\"register: \\\"EEXIST\\\"\\n\","
	       "\"last_decision\":\"\"}}", 80);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line_with("pid "), "pid 1  comm a\\\"b\\\\c\\nd\\x1b[2J  fd 2");
	UT_ASSERT_STR_EQ(line_with("tunable"), "tunable        no: app set \"busy_poll\"\\nitself");
	UT_ASSERT_STR_EQ(line_with("tuning error"), "tuning error   register: \"EEXIST\"\\n");
	UT_ASSERT_STR_EQ(line_with("managed by"), "managed by     none, pinned by uringtune set");
	/* an empty last_decision is no line */
	UT_ASSERT_STR_EQ(line_with("last decision"), "");
	UT_ASSERT(!strchr(out, '\033'));
}

/* observe mode: the advice and its why; the decisions, oldest first, escaped */
UT_TEST(advice_and_decisions)
{
	render("{\"pid\":1,\"fd\":2,\"tuning\":{\"advice\":{\"enabled\":true,"
	       "\"busy_poll_us\":26,\"prefer\":false,\"tracking\":\"dynamic\","
	       "\"why\":\"timeout 50 -> 26 us\",\"since\":\"2026-12-02T04:06:08.000Z\"},"
	       "\"decisions\":[{\"time\":\"2026-12-02T04:05:07.944Z\",\"busy_poll_us\":50,"
	       "\"enabled\":true,\"prefer\":true,\"why\":\"initial\"},"
	       "{\"time\":\"2026-12-02T04:06:08.000Z\",\"busy_poll_us\":0,\"enabled\":false,"
	       "\"prefer\":false,\"why\":\"off:\\u001b[2J\\n\"}]}}", 80);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line_with("advice "), "advice         26us, dynamic tracking, since "
			 "2026-12-02T04:06:08.000Z (what tune mode would set)");
	UT_ASSERT_STR_EQ(line_with("               timeout"), "               timeout 50 -> 26 us");
	UT_ASSERT_STR_EQ(line_with("decisions"), "decisions      2, oldest first (time UTC, "
			 "setting, why):");
	UT_ASSERT_STR_EQ(line_with("  2026-12-02T04:05"),
			 "  2026-12-02T04:05:07.944Z  50us+prefer     initial");
	UT_ASSERT_STR_EQ(line_with("  2026-12-02T04:06"),
			 "  2026-12-02T04:06:08.000Z  off             off:\\x1b[2J\\n");
	UT_ASSERT(!strchr(out, '\033'));
	/* no advice (null), no decisions: no lines */
	render("{\"pid\":1,\"fd\":2,\"tuning\":{\"advice\":null,\"decisions\":[]}}", 80);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line_with("advice"), "");
	UT_ASSERT_STR_EQ(line_with("decisions"), "");
}

/* an IOPOLL ring's mode is the daemon's word too: escaped like the rest */
UT_TEST(iopoll_mode_escaped)
{
	render("{\"pid\":1,\"fd\":2,\"iopoll\":{\"mode\":\"cl\\u001b[2Jassic\",\"completions\":0,"
	       "\"advice\":{\"why\":\"too few\"}}}", 80);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line_with("iopoll "),
			 "iopoll         cl\\x1b[2Jassic, 0 completions, 0 in flight, p50 -, p99 -");
	UT_ASSERT(!strchr(out, '\033'));
}

/* the ring's program's hybrid verdict, with the numbers behind it */
UT_TEST(iopoll_verdict)
{
	render("{\"pid\":1,\"fd\":2,\"iopoll\":{\"mode\":\"classic\",\"completions\":5,"
	       "\"advice\":{\"why\":\"w\"},\"verdict\":{\"comm\":\"fio\",\"exe\":\"/usr/bin/fio\","
	       "\"verdict\":\"classic\",\"why\":\"classic: hybrid lost 40% IOPS on 3 windows "
	       "(bound 10%)\\u001b\",\"classic\":{\"reads\":30000,\"cpu_per_read_ns\":1000.0,"
	       "\"iops\":10000.0,\"windows\":3,\"rings\":1},\"hybrid\":{\"reads\":0,"
	       "\"cpu_per_read_ns\":null,\"iops\":null,\"windows\":0,\"rings\":0},"
	       "\"measured\":null,\"predicted\":{\"cpu_per_read_saving\":0.5,"
	       "\"iops_change\":-0.25,\"age_s\":12},\"updated\":1}}}", 80);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line_with("hybrid verdict"), "hybrid verdict classic: hybrid lost 40% "
			 "IOPS on 3 windows (bound 10%)\\x1b");
	UT_ASSERT_STR_EQ(line_with("  classic"), "  classic      1.0us CPU per read, 10000 IOPS "
			 "(3 windows, 1 ring)");
	UT_ASSERT_STR_EQ(line_with("  hybrid"), "  hybrid       no reads measured (0 windows, "
			 "0 rings)");
	UT_ASSERT_STR_EQ(line_with("  predicted"), "  predicted    50% less CPU per read, -25% "
			 "IOPS (12 s ago)");
	UT_ASSERT(!strchr(out, '\033'));
	/* nothing known of the program: one line; an older daemon: none */
	render("{\"pid\":1,\"fd\":2,\"iopoll\":{\"mode\":\"classic\",\"verdict\":null}}", 80);
	UT_ASSERT_STR_EQ(line_with("hybrid verdict"), "hybrid verdict none yet: no window of "
			 "this program measured");
	render("{\"pid\":1,\"fd\":2,\"iopoll\":{\"mode\":\"classic\"}}", 80);
	UT_ASSERT_STR_EQ(line_with("hybrid verdict"), "");
}

/* a ring set up through the agent: managed "(agent)", what it did, what waits */
UT_TEST(agent_ring)
{
	render("{\"pid\":7,\"fd\":4,\"comm\":\"pingpong\",\"managed_by\":\"uringtune\","
	       "\"managed_via\":\"agent\",\"tunable\":true,"
	       "\"agent\":{\"entry\":\"io_uring_queue_init\",\"hybrid\":\"not an IOPOLL ring\","
	       "\"napi_at_setup\":\"registered\",\"pending\":true,\"pending_s\":2.25,"
	       "\"decision\":\"NAPI: 50 us, registered by the agent\"}}", 80);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line_with("managed by"), "managed by     uringtune (agent)");
	UT_ASSERT_STR_EQ(line_with("agent "),
			 "agent          set up through io_uring_queue_init; hybrid: not an IOPOLL "
			 "ring; NAPI at setup: registered; a decision waits 2.2 s for the ring's "
			 "next submit or wait");
	UT_ASSERT_STR_EQ(line_with("agent decision"),
			 "agent decision NAPI: 50 us, registered by the agent");
	/* nothing pending: no wait said */
	render("{\"pid\":7,\"managed_by\":\"uringtune\",\"managed_via\":\"register\","
	       "\"agent\":{\"entry\":\"syscall\",\"hybrid\":\"added\","
	       "\"napi_at_setup\":\"not registered at setup\",\"pending\":false}}", 80);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(line_with("managed by"), "managed by     uringtune");
	UT_ASSERT_STR_EQ(line_with("agent "), "agent          set up through syscall; hybrid: added; "
			 "NAPI at setup: not registered at setup");
}

/* a ring with nothing but its pid: dashes, no sections that need data */
UT_TEST(missing_fields)
{
	render("{\"pid\":9}", 80);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_STR_EQ(out,
		"pid 9  comm -  fd -\n"
		"setup flags    -\n"
		"NAPI           -\n"
		"NAPI IDs       seen -, busy-polled -\n"
		"managed by     -\n"
		"tunable        -\n"
		"\n"
		"waits          -\n"
		"\n"
		"busy polling   -\n");
}

UT_TEST(find)
{
	struct json_object *reply, *r;
	const char *why = NULL;
	int64_t fd;

	reply = json_tokener_parse("{\"rings\":[{\"pid\":7,\"fd\":3},{\"pid\":7},"
				   "5,{\"pid\":7,\"fd\":4}]}");
	UT_ASSERT(reply);
	UT_ASSERT_EQ_INT(rv_find(reply, 7, 4, &r, &why), 0);
	UT_ASSERT(r && jget_i64(r, "fd", &fd) && fd == 4);
	UT_ASSERT_EQ_INT(rv_find(reply, 7, 5, &r, &why), -ENOENT);
	UT_ASSERT(!r);
	UT_ASSERT_EQ_INT(rv_find(reply, 8, 3, &r, &why), -ENOENT);
	json_object_put(reply);

	reply = json_tokener_parse("{\"daemon\":{}}");
	UT_ASSERT_EQ_INT(rv_find(reply, 7, 4, &r, &why), -EINVAL);
	UT_ASSERT_STR_EQ(why, "no \"rings\" array");
	json_object_put(reply);
}

int main(void)
{
	ut_run("slot_labels", slot_labels);
	ut_run("durations", durations);
	ut_run("bar_scaling", bar_scaling);
	ut_run("full_ring", full_ring);
	ut_run("bill_lines", bill_lines);
	ut_run("width", width);
	ut_run("empty_histogram", empty_histogram);
	ut_run("header_escaped", header_escaped);
	ut_run("iopoll_mode_escaped", iopoll_mode_escaped);
	ut_run("iopoll_verdict", iopoll_verdict);
	ut_run("agent_ring", agent_ring);
	ut_run("advice_and_decisions", advice_and_decisions);
	ut_run("missing_fields", missing_fields);
	ut_run("find", find);
	free(out);
	return ut_finish();
}
