/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * uringtuned's configuration: config/uringtune.ini parsed with libinih.
 * Parsing is all-or-nothing: a file with any error leaves *out untouched, so
 * a reload can keep the running configuration (parse, then swap).
 */
#ifndef UT_CONFIG_H
#define UT_CONFIG_H

#include <limits.h>
#include <stddef.h>
#include <sys/un.h>

enum ut_mode {
	UT_MODE_OBSERVE,	/* watch and report, change nothing */
	UT_MODE_TUNE,		/* also act on rings */
};

struct ut_config {
	enum ut_mode mode;
	char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char state_dir[PATH_MAX];
	unsigned int tick_ms;		/* registry refresh / reconcile interval */
	unsigned int max_rings;		/* capacity of the BPF ring map */
	int log_level;			/* LOG_ERR .. LOG_DEBUG */
};

void config_defaults(struct ut_config *cfg);

/*
 * Parse @path over the defaults. On error returns a negative errno, leaves
 * *out unchanged and writes one line to @err: "PATH: [section] key: what is
 * wrong" (or "PATH: what is wrong" for file-level problems).
 */
int config_load(const char *path, struct ut_config *out, char *err, size_t errlen);

const char *config_mode_name(enum ut_mode mode);
/* returns -EINVAL for anything but "observe" or "tune" */
int config_mode_from_name(const char *name, enum ut_mode *mode);

#endif /* UT_CONFIG_H */
