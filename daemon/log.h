/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Logging for uringtuned: one line per message on stderr. Under systemd
 * (stderr is the stream JOURNAL_STREAM names) each line carries a <N>
 * priority prefix that journald understands (sd-daemon.h); elsewhere it
 * reads as "2026-12-01T22:59:01.123Z uringtuned: level: ...". Control
 * characters in a message are escaped as \xNN, so nothing a message quotes
 * (a process name, a path) can start a line of its own.
 */
#ifndef UT_LOG_H
#define UT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <syslog.h>
#include <time.h>

/* a message longer than this is cut */
#define LOG_LINE_MAX	1024

/* LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG from syslog.h */
void log_set_level(int level);
int log_get_level(void);
/* returns -1 for an unknown name */
int log_level_from_name(const char *name);

void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * @src into @dst (@len bytes, NUL included) with every byte below 0x20 and
 * 0x7f written as \xNN; cut short, never inside an escape. Returns the length.
 */
size_t log_escape(char *dst, size_t len, const char *src);
/*
 * The line log_msg() writes for @msg, newline included: "<N>msg" for the
 * journal, else "TIMESTAMP uringtuned: LEVEL: msg" with @now (CLOCK_REALTIME).
 */
void log_format_line(char *out, size_t len, int level, const char *msg, bool journal,
		     const struct timespec *now);

#define log_err(...)	log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...)	log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	log_msg(LOG_DEBUG, __VA_ARGS__)

/*
 * One line about one ring (struct ut_ring, daemon/ring.h), with the prefix
 * every such line carries: "ring pid=P comm=C fd=F: ...".
 */
#define log_ring(level, ring, fmt, ...)						\
	log_msg(level, "ring pid=%d comm=%s fd=%d: " fmt, (ring)->obs.holder.pid,	\
		(ring)->obs.holder.comm, (ring)->obs.holder.fd, ##__VA_ARGS__)

#endif /* UT_LOG_H */
