// SPDX-License-Identifier: GPL-2.0-only
/*
 * Logging: journald priority prefixes under systemd, plain text with a
 * timestamp otherwise. Every line is escaped on its way out (log_escape()),
 * whatever the caller put in it: process names and paths come from other
 * users, and a comm of "x\n<0>y" must not become a second, emergency-priority
 * line in the journal.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static int log_level = LOG_INFO;

static const char *const level_names[] = {
	[LOG_ERR] = "error",
	[LOG_WARNING] = "warning",
	[LOG_NOTICE] = "notice",
	[LOG_INFO] = "info",
	[LOG_DEBUG] = "debug",
};

void log_set_level(int level)
{
	log_level = level;
}

int log_get_level(void)
{
	return log_level;
}

int log_level_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (level_names[i] && strcmp(level_names[i], name) == 0)
			return (int)i;
	return -1;
}

size_t log_escape(char *dst, size_t len, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	size_t k = 0;

	if (!len)
		return 0;
	for (const unsigned char *p = (const unsigned char *)src; *p; p++) {
		/* control characters (newline, ESC, ...) and DEL: never raw */
		bool esc = *p < 0x20 || *p == 0x7f;
		size_t need = esc ? 4 : 1;

		if (k + need >= len)
			break;	/* cut before an escape, never inside one */
		if (esc) {
			dst[k++] = '\\';
			dst[k++] = 'x';
			dst[k++] = hex[*p >> 4];
			dst[k++] = hex[*p & 0xf];
		} else {
			dst[k++] = (char)*p;
		}
	}
	dst[k] = '\0';
	return k;
}

void log_format_line(char *out, size_t len, int level, const char *msg, bool journal,
		     const struct timespec *now)
{
	char esc[LOG_LINE_MAX], stamp[64] = "";
	const char *name = level >= 0 && level <= LOG_DEBUG && level_names[level] ?
			   level_names[level] : "log";
	struct tm tm;

	log_escape(esc, sizeof(esc), msg);
	if (journal) {
		snprintf(out, len, "<%d>%s\n", level, esc);
		return;
	}
	/* ISO 8601 UTC with milliseconds: 2026-12-01T22:59:01.123Z */
	if (gmtime_r(&now->tv_sec, &tm))
		snprintf(stamp, sizeof(stamp), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ ",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			 tm.tm_sec, now->tv_nsec / 1000000);
	snprintf(out, len, "%suringtuned: %s: %s\n", stamp, name, esc);
}

/*
 * journald reads "<N>" prefixes on a stream it owns (sd-daemon.h SD_ERR...).
 * JOURNAL_STREAM is "DEV:INODE" of that stream: a variable inherited by a
 * daemon started from a shell inside a service names another stream than
 * our stderr, and then the lines are a terminal's (systemd.exec(5)).
 */
static bool to_journal(void)
{
	static int cached = -1;
	unsigned long long dev, ino;
	const char *e;
	struct stat st;

	if (cached >= 0)
		return cached;
	e = getenv("JOURNAL_STREAM");
	cached = e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) == 0 &&
		 st.st_dev == dev && st.st_ino == ino;
	return cached;
}

void log_msg(int level, const char *fmt, ...)
{
	char buf[LOG_LINE_MAX], line[LOG_LINE_MAX + 64];
	struct timespec now;
	va_list ap;

	if (level > log_level)
		return;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	clock_gettime(CLOCK_REALTIME, &now);
	log_format_line(line, sizeof(line), level, buf, to_journal(), &now);
	fputs(line, stderr);
}
