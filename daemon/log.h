/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Logging for uringtuned: one line per message on stderr. Under systemd
 * (JOURNAL_STREAM set) each line carries a <N> priority prefix that journald
 * understands (sd-daemon.h); on a terminal it reads as "uringtuned: level: ...".
 */
#ifndef UT_LOG_H
#define UT_LOG_H

#include <stdbool.h>
#include <syslog.h>

/* LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG from syslog.h */
void log_set_level(int level);
int log_get_level(void);
/* returns -1 for an unknown name */
int log_level_from_name(const char *name);

void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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
