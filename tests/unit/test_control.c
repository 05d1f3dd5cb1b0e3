// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control socket's pure parts: the strict JSON check (duplicate keys at
 * any depth, json-c's lenient corners), request parsing, where a request line
 * ends, the caps on clients and the log rate limit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "control_access.h"
#include "control_json.h"
#include "control_limits.h"
#include "control_request.h"
#include "unit.h"

static char err[512];

/* control_json_check over a C string literal (NULs included) */
#define CHECK(lit)	control_json_check(lit, sizeof(lit) - 1, err, sizeof(err))
#define PARSE(lit, r)	control_request_parse(lit, sizeof(lit) - 1, r, err, sizeof(err))

UT_TEST(json_accepts_rfc8259)
{
	UT_ASSERT_EQ_INT(CHECK("{\"cmd\":\"status\"}"), 0);
	UT_ASSERT_EQ_INT(CHECK(" {\"a\" : [1, -0.5e+3, true, false, null, {}, []]}\r\n"), 0);
	UT_ASSERT_EQ_INT(CHECK("{\"a\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\"}"), 0);
	/* the same key in two objects is two keys */
	UT_ASSERT_EQ_INT(CHECK("{\"a\":{\"a\":1},\"b\":{\"a\":2}}"), 0);
	UT_ASSERT_EQ_INT(CHECK("[{\"a\":1},{\"a\":1}]"), 0);
	/* keys that differ after the same prefix */
	UT_ASSERT_EQ_INT(CHECK("{\"a\":1,\"ab\":2,\"\":3}"), 0);
}

UT_TEST(json_duplicate_keys)
{
	UT_ASSERT_EQ_INT(CHECK("{\"cmd\":\"status\",\"cmd\":\"reset\"}"), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "duplicate key \"cmd\"");
	UT_ASSERT_STR_CONTAINS(err, "at byte 16");
	/* equal once unescaped */
	UT_ASSERT_EQ_INT(CHECK("{\"cmd\":\"status\",\"c\\u006dd\":\"reset\"}"), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "duplicate key \"cmd\"");
	UT_ASSERT_EQ_INT(CHECK("{\"\\u00e9\":1,\"\xc3\xa9\":2}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"\\ud83d\\ude00\":1,\"\xf0\x9f\x98\x80\":2}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a/b\":1,\"a\\/b\":2}"), -EINVAL);
	/* nested, and after a nested object that had the key too */
	UT_ASSERT_EQ_INT(CHECK("{\"cmd\":\"set\",\"x\":{\"a\":1,\"a\":2}}"), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "duplicate key \"a\"");
	UT_ASSERT_EQ_INT(CHECK("{\"x\":[{\"y\":{\"a\":1,\"b\":2,\"a\":3}}]}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a\":{\"a\":1},\"a\":2}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"\":1,\"\":2}"), -EINVAL);
}

UT_TEST(json_refuses_what_json_c_reads_its_own_way)
{
	/* json-c cuts keys at a NUL: "cmd\u0000x" would be "cmd" */
	UT_ASSERT_EQ_INT(CHECK("{\"cmd\":\"status\",\"cmd\\u0000x\":\"reset\"}"), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "\\u0000");
	UT_ASSERT_EQ_INT(CHECK("{\"cmd\":\"status\\u0000x\"}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"cmd\":\"status\"}\0{\"cmd\":\"reset\"}"), -EINVAL);
	/* json-c's strict mode still takes these */
	UT_ASSERT_EQ_INT(CHECK("{'cmd':\"status\"}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a\":NaN}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a\":Infinity}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a\":1.}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a\":\"\x01\"}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a\":\"\\ud800\"}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a\":\"\\udc00\"}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a\":\"\\ud800\\u0041\"}"), -EINVAL);
	/* and the usual malformed texts */
	UT_ASSERT_EQ_INT(CHECK("{\"a\":01}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a\":-}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a\":1,}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a\":\"\\x\"}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a\":\"\\u12\"}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a\":\"abc"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a\":1"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a\" 1}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{a:1}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{/*c*/\"a\":1}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("{\"a\":tru}"), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK(""), -EINVAL);
	UT_ASSERT_EQ_INT(CHECK("  "), -EINVAL);
	/* one value: a second one is not ignored */
	UT_ASSERT_EQ_INT(CHECK("{\"cmd\":\"status\"}{\"cmd\":\"reset\"}"), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "one value per request");
	UT_ASSERT_EQ_INT(CHECK("{\"cmd\":\"status\"} x"), -EINVAL);
}

UT_TEST(json_depth)
{
	char deep[2 * (CONTROL_JSON_DEPTH + 1) + 1];
	int i;

	for (i = 0; i < CONTROL_JSON_DEPTH; i++) {
		deep[i] = '[';
		deep[CONTROL_JSON_DEPTH + i] = ']';
	}
	UT_ASSERT_EQ_INT(control_json_check(deep, 2 * CONTROL_JSON_DEPTH, err, sizeof(err)), 0);
	for (i = 0; i <= CONTROL_JSON_DEPTH; i++) {
		deep[i] = '[';
		deep[CONTROL_JSON_DEPTH + 1 + i] = ']';
	}
	UT_ASSERT_EQ_INT(control_json_check(deep, 2 * (CONTROL_JSON_DEPTH + 1), err, sizeof(err)),
			 -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "nested deeper");
}

/* many keys in one object: each compared with the others, none lost */
UT_TEST(json_many_keys)
{
	char buf[CONTROL_REQUEST_MAX];
	size_t n = 0;
	int i;

	n += snprintf(buf + n, sizeof(buf) - n, "{");
	for (i = 0; i < 300; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s\"k%d\":%d", i ? "," : "", i, i);
	n += snprintf(buf + n, sizeof(buf) - n, "}");
	UT_ASSERT_EQ_INT(control_json_check(buf, n, err, sizeof(err)), 0);
	n -= 1;
	n += snprintf(buf + n, sizeof(buf) - n, ",\"k0\":1}");
	UT_ASSERT_EQ_INT(control_json_check(buf, n, err, sizeof(err)), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "duplicate key \"k0\"");
}

UT_TEST(request_commands)
{
	struct control_request r;

	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\"}", &r), 0);
	UT_ASSERT_EQ_INT(r.cmd, CONTROL_STATUS);
	UT_ASSERT_EQ_INT(PARSE(" {\"cmd\":\"status\"} \r", &r), 0);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"reset\"}", &r), 0);
	UT_ASSERT_EQ_INT(r.cmd, CONTROL_RESET);
	UT_ASSERT(!r.ring);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"reset\",\"pid\":12,\"fd\":0}", &r), 0);
	UT_ASSERT(r.ring);
	UT_ASSERT_EQ_INT(r.pid, 12);
	UT_ASSERT_EQ_INT(r.fd, 0);
	/* what the CLI sends */
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"set\",\"pid\":7,\"fd\":5,\"busy_poll_us\":120,"
			       "\"prefer\":true,\"static\":false}", &r), 0);
	UT_ASSERT_EQ_INT(r.cmd, CONTROL_SET);
	UT_ASSERT_EQ_INT(r.pid, 7);
	UT_ASSERT_EQ_INT(r.fd, 5);
	UT_ASSERT_EQ_INT(r.busy_poll_us, 120);
	UT_ASSERT(r.prefer && !r.static_ids);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"set\",\"pid\":7,\"fd\":5,\"busy_poll_us\":10000}", &r), 0);
	UT_ASSERT(!r.prefer && !r.static_ids);
}

UT_TEST(request_refusals)
{
	struct control_request r;

	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"cmd\":\"reset\"}", &r), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "malformed request: at byte 16: duplicate key \"cmd\"");
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"set\",\"pid\":7,\"fd\":5,\"busy_poll_us\":50,"
			       "\"busy_poll_us\":10000}", &r), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "duplicate key \"busy_poll_us\"");
	UT_ASSERT_EQ_INT(PARSE("", &r), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "empty request");
	UT_ASSERT_EQ_INT(PARSE("[\"status\"]", &r), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "expected a JSON object");
	UT_ASSERT_EQ_INT(PARSE("{}", &r), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "no \"cmd\" string");
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":1}", &r), -EINVAL);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"stop\"}", &r), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "unknown command 'stop'");
	/* invalid UTF-8 (json-c checks it) */
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"x\":\"\xff\"}", &r), -EINVAL);
}

UT_TEST(request_unknown_keys_and_kinds)
{
	struct control_request r;

	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"status\",\"verbose\":true}", &r), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "status: unknown key \"verbose\" (known: view, pid, fd, comm)");
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"set\",\"pid\":7,\"fd\":5,\"busy_poll_us\":50,"
			       "\"prefer_busy_poll\":true}", &r), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "set: unknown key \"prefer_busy_poll\" (known: pid, fd, "
			       "busy_poll_us, prefer, static, force)");
	/* a word of the list is not a key: "fd, busy" or "us" */
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"set\",\"us\":1}", &r), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "unknown key \"us\"");
	/* the empty key, which every string contains (it once looped for ever) */
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"set\",\"\":4}", &r), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "set: unknown key \"\"");
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"reset\",\"busy_poll_us\":1}", &r), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "reset: unknown key \"busy_poll_us\"");
	/* "false" is not false */
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"set\",\"pid\":7,\"fd\":5,\"busy_poll_us\":50,"
			       "\"prefer\":\"false\"}", &r), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "as true or false");
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"set\",\"pid\":7,\"fd\":5,\"busy_poll_us\":50,"
			       "\"static\":1}", &r), -EINVAL);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"set\",\"pid\":\"7\",\"fd\":5,\"busy_poll_us\":50}", &r),
			 -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "set: expected \"pid\" and \"fd\" as non-negative integers");
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"set\",\"pid\":7.0,\"fd\":5,\"busy_poll_us\":50}", &r),
			 -EINVAL);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"reset\",\"pid\":0,\"fd\":5}", &r), -EINVAL);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"reset\",\"pid\":3,\"fd\":-1}", &r), -EINVAL);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"reset\",\"pid\":99999999999999999999,\"fd\":1}", &r),
			 -EINVAL);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"reset\",\"pid\":3}", &r), -EINVAL);
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"set\",\"busy_poll_us\":50}", &r), -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "set: expected \"pid\" and \"fd\"");
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"set\",\"pid\":7,\"fd\":5,\"busy_poll_us\":10001}", &r),
			 -EINVAL);
	UT_ASSERT_STR_CONTAINS(err, "from 1 to 10000");
	UT_ASSERT_EQ_INT(PARSE("{\"cmd\":\"set\",\"pid\":7,\"fd\":5}", &r), -EINVAL);
}

UT_TEST(request_frame)
{
	size_t len = 99;

	UT_ASSERT_EQ_INT(control_request_frame("{\"cm", 4, false, 16, &len), CONTROL_FRAME_MORE);
	UT_ASSERT_EQ_INT(control_request_frame("{}\n{}", 5, false, 16, &len), CONTROL_FRAME_LINE);
	UT_ASSERT_EQ_INT(len, 2);
	UT_ASSERT_EQ_INT(control_request_frame("{}", 2, true, 16, &len), CONTROL_FRAME_LINE);
	UT_ASSERT_EQ_INT(len, 2);
	UT_ASSERT_EQ_INT(control_request_frame("", 0, true, 16, &len), CONTROL_FRAME_EMPTY);
	UT_ASSERT_EQ_INT(control_request_frame("\n", 1, false, 16, &len), CONTROL_FRAME_LINE);
	UT_ASSERT_EQ_INT(len, 0);
	/* the cap counts the newline: 15 bytes and a newline fit in 16 */
	UT_ASSERT_EQ_INT(control_request_frame("xxxxxxxxxxxxxxx\n", 16, false, 16, &len),
			 CONTROL_FRAME_LINE);
	UT_ASSERT_EQ_INT(control_request_frame("xxxxxxxxxxxxxxxx", 16, false, 16, &len),
			 CONTROL_FRAME_TOO_LONG);
	UT_ASSERT_EQ_INT(control_request_frame("xxxxxxxxxxxxxxxx", 16, true, 16, &len),
			 CONTROL_FRAME_TOO_LONG);
}

UT_TEST(admit_caps)
{
	const struct control_limits lim = { .max_clients = 4, .max_per_uid = 2 };
	char why[256];

	UT_ASSERT_EQ_INT(control_admit(&lim, 0, 0), CONTROL_ADMIT);
	UT_ASSERT_EQ_INT(control_admit(&lim, 1, 1), CONTROL_ADMIT);
	UT_ASSERT_EQ_INT(control_admit(&lim, 2, 2), CONTROL_REFUSE_UID);
	/* another user still fits while one is at its cap */
	UT_ASSERT_EQ_INT(control_admit(&lim, 3, 1), CONTROL_ADMIT);
	UT_ASSERT_EQ_INT(control_admit(&lim, 4, 0), CONTROL_REFUSE_FULL);
	/* at both caps, the per-user one is named */
	UT_ASSERT_EQ_INT(control_admit(&lim, 4, 2), CONTROL_REFUSE_UID);
	control_admit_why(CONTROL_REFUSE_UID, &lim, 65534, why, sizeof(why));
	UT_ASSERT_STR_CONTAINS(why, "2 clients of uid 65534 are open (at most 2 per user");
	control_admit_why(CONTROL_REFUSE_FULL, &lim, 0, why, sizeof(why));
	UT_ASSERT_STR_CONTAINS(why, "4 clients are open (at most 4");
	/* the shipped caps leave room for 60 clients of one user */
	UT_ASSERT(CONTROL_MAX_PER_UID > 60 && CONTROL_MAX_CLIENTS >= CONTROL_MAX_PER_UID);
}

UT_TEST(note_rate_limit)
{
	struct control_note n = {};
	unsigned int more = 99;

	UT_ASSERT(control_note_due(&n, 1000, 60, &more));
	UT_ASSERT_EQ_INT(more, 0);
	UT_ASSERT(!control_note_due(&n, 1001, 60, &more));
	UT_ASSERT(!control_note_due(&n, 1059, 60, &more));
	UT_ASSERT(control_note_due(&n, 1060, 60, &more));
	UT_ASSERT_EQ_INT(more, 2);
	UT_ASSERT(control_note_due(&n, 5000, 60, &more));
	UT_ASSERT_EQ_INT(more, 0);
}

/* refused before anything runs: a reset in observe mode says so, a duplicate never gets there */
UT_TEST(handle_checks_before_acting)
{
	static struct ut_daemon d;
	char *out;

	d.cfg.mode = UT_MODE_OBSERVE;
	out = control_handle(&d, "{\"cmd\":\"reset\"}", 15);
	UT_ASSERT_STR_CONTAINS(out, "observe mode");
	free(out);
	out = control_handle(&d, "{\"cmd\":\"status\",\"cmd\":\"reset\"}", 30);
	UT_ASSERT_STR_CONTAINS(out, "{\"error\":\"malformed request: at byte 16: duplicate key");
	free(out);
	/* a NUL ends nothing: the bytes after it count */
	out = control_handle(&d, "{\"cmd\":\"reset\"}\0{}", 18);
	UT_ASSERT_STR_CONTAINS(out, "error");
	UT_ASSERT(!strstr(out, "observe mode"));
	free(out);
}

/* root all; a member of the status group (primary or supplementary) status only; else none */
UT_TEST(access_by_uid_and_groups)
{
	const gid_t groups[] = { 27, 990, 100 };

	UT_ASSERT_EQ_INT(control_access_of(0, 0, NULL, 0, CONTROL_NO_GROUP), CONTROL_ACCESS_ALL);
	UT_ASSERT_EQ_INT(control_access_of(0, 5, NULL, 0, 990), CONTROL_ACCESS_ALL);
	UT_ASSERT_EQ_INT(control_access_of(1000, 990, NULL, 0, 990), CONTROL_ACCESS_READ);
	UT_ASSERT_EQ_INT(control_access_of(1000, 1000, groups, 3, 990), CONTROL_ACCESS_READ);
	UT_ASSERT_EQ_INT(control_access_of(1000, 1000, groups, 1, 990), CONTROL_ACCESS_NONE);
	UT_ASSERT_EQ_INT(control_access_of(1000, 1000, groups, 3, 991), CONTROL_ACCESS_NONE);
	/* no group: a gid of -1 in a peer's list is no membership */
	UT_ASSERT_EQ_INT(control_access_of(1000, (gid_t)-1, NULL, 0, CONTROL_NO_GROUP),
			 CONTROL_ACCESS_NONE);

	UT_ASSERT(control_access_allows(CONTROL_ACCESS_ALL, CONTROL_SET));
	UT_ASSERT(control_access_allows(CONTROL_ACCESS_ALL, CONTROL_RESET));
	UT_ASSERT(control_access_allows(CONTROL_ACCESS_READ, CONTROL_STATUS));
	UT_ASSERT(!control_access_allows(CONTROL_ACCESS_READ, CONTROL_SET));
	UT_ASSERT(!control_access_allows(CONTROL_ACCESS_READ, CONTROL_RESET));
	UT_ASSERT(!control_access_allows(CONTROL_ACCESS_NONE, CONTROL_STATUS));
}

/* a reader's change is refused by name before anything is looked at; its status is served */
UT_TEST(reader_may_not_change)
{
	const struct control_who reader = {
		.access = CONTROL_ACCESS_READ, .uid = 1000, .group = "uringtune",
	};
	static struct ut_daemon d;
	struct control_reply r;

	d.cfg.mode = UT_MODE_TUNE;
	UT_ASSERT_EQ_INT(control_answer(&d, "{\"cmd\":\"reset\"}", 15, &reader, &r), 0);
	UT_ASSERT_STR_EQ(r.text, "{\"error\":\"reset: permission denied: changes are root's; "
			 "uid 1000 may read status only (a member of group uringtune)\"}");
	free(r.text);
	/* a bad request is still told what is wrong with it */
	UT_ASSERT_EQ_INT(control_answer(&d, "{\"cmd\":\"set\"}", 13, &reader, &r), 0);
	UT_ASSERT_STR_CONTAINS(r.text, "set: expected \\\"pid\\\" and \\\"fd\\\"");
	free(r.text);
}

UT_TEST(access_refusals_say_why)
{
	char buf[256];

	control_access_why(CONTROL_ACCESS_NONE, 1001, "", "uringtune", buf, sizeof(buf));
	UT_ASSERT_STR_EQ(buf, "permission denied: uid 1001 is neither root nor a member of "
			 "group uringtune (who may read status)");
	control_access_why(CONTROL_ACCESS_NONE, 1001, "", "", buf, sizeof(buf));
	UT_ASSERT_STR_CONTAINS(buf, "permission denied: uid 1001 is not root, and no group");
	control_access_why(CONTROL_ACCESS_READ, 1001, "set", "ops", buf, sizeof(buf));
	UT_ASSERT_STR_EQ(buf, "set: permission denied: changes are root's; uid 1001 may read "
			 "status only (a member of group ops)");
}

int main(void)
{
	ut_run("json_accepts_rfc8259", json_accepts_rfc8259);
	ut_run("json_duplicate_keys", json_duplicate_keys);
	ut_run("json_refuses_what_json_c_reads_its_own_way",
	       json_refuses_what_json_c_reads_its_own_way);
	ut_run("json_depth", json_depth);
	ut_run("json_many_keys", json_many_keys);
	ut_run("request_commands", request_commands);
	ut_run("request_refusals", request_refusals);
	ut_run("request_unknown_keys_and_kinds", request_unknown_keys_and_kinds);
	ut_run("request_frame", request_frame);
	ut_run("admit_caps", admit_caps);
	ut_run("note_rate_limit", note_rate_limit);
	ut_run("handle_checks_before_acting", handle_checks_before_acting);
	ut_run("access_by_uid_and_groups", access_by_uid_and_groups);
	ut_run("reader_may_not_change", reader_may_not_change);
	ut_run("access_refusals_say_why", access_refusals_say_why);
	return ut_finish();
}
