// SPDX-License-Identifier: GPL-2.0-only
/*
 * log.c's output step: control characters escaped whatever the message
 * quotes (a comm of "x\n<0>y" stays one line at its own priority), a
 * timestamp off the journal, the "<N>" prefix on it.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "unit.h"

static const struct timespec when = { .tv_sec = 1796165941, .tv_nsec = 123456789 };

UT_TEST(escapes_control_bytes)
{
	char out[64];

	UT_ASSERT_EQ_INT(log_escape(out, sizeof(out), "a\nb\tc\x7f" "d\x1b[31m"), 24);
	UT_ASSERT_STR_EQ(out, "a\\x0ab\\x09c\\x7fd\\x1b[31m");
	/* printable ASCII and UTF-8 pass as they are */
	log_escape(out, sizeof(out), "caf\xc3\xa9 \\x41");
	UT_ASSERT_STR_EQ(out, "caf\xc3\xa9 \\x41");
}

UT_TEST(cut_never_inside_an_escape)
{
	char out[6];

	UT_ASSERT_EQ_INT(log_escape(out, sizeof(out), "ab\ncd"), 2);
	UT_ASSERT_STR_EQ(out, "ab");
	UT_ASSERT_EQ_INT(log_escape(out, sizeof(out), "abcdefgh"), 5);
	UT_ASSERT_STR_EQ(out, "abcde");
}

/* the attack: a process name that would forge an emergency line */
UT_TEST(forged_priority_stays_one_line)
{
	char line[256];

	log_format_line(line, sizeof(line), LOG_INFO, "ring pid=1 comm=x\n<0>y fd=3: on", true,
			&when);
	UT_ASSERT_STR_EQ(line, "<6>ring pid=1 comm=x\\x0a<0>y fd=3: on\n");
	UT_ASSERT(strchr(line, '\n') == line + strlen(line) - 1);
	log_format_line(line, sizeof(line), LOG_WARNING, "x\r\n\x01", false, &when);
	UT_ASSERT_STR_EQ(line, "2026-12-01T22:59:01.123Z uringtuned: warning: x\\x0d\\x0a\\x01\n");
}

UT_TEST(timestamp_off_the_journal_only)
{
	char line[256];

	log_format_line(line, sizeof(line), LOG_ERR, "boom", false, &when);
	UT_ASSERT_STR_EQ(line, "2026-12-01T22:59:01.123Z uringtuned: error: boom\n");
	log_format_line(line, sizeof(line), LOG_DEBUG, "quiet", true, &when);
	UT_ASSERT_STR_EQ(line, "<7>quiet\n");
}

int main(void)
{
	ut_run("escapes_control_bytes", escapes_control_bytes);
	ut_run("cut_never_inside_an_escape", cut_never_inside_an_escape);
	ut_run("forged_priority_stays_one_line", forged_priority_stays_one_line);
	ut_run("timestamp_off_the_journal_only", timestamp_off_the_journal_only);
	return ut_finish();
}
