// SPDX-License-Identifier: GPL-2.0-only
/* Logging: journald priority prefixes under systemd, plain text otherwise. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* journald reads "<N>" prefixes on a stream it owns (sd-daemon.h SD_ERR...) */
static bool to_journal(void)
{
	static int cached = -1;

	if (cached < 0)
		cached = getenv("JOURNAL_STREAM") != NULL;
	return cached;
}

void log_msg(int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (level > log_level)
		return;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);

	if (to_journal())
		fprintf(stderr, "<%d>%s\n", level, buf);
	else
		fprintf(stderr, "uringtuned: %s: %s\n",
			level >= 0 && level <= LOG_DEBUG && level_names[level] ?
				level_names[level] : "log", buf);
}
