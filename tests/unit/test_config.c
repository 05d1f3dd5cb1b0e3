// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_load(): defaults, every key's values, and the exact text of every
 * class of error, since operators act on those lines.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "config.h"
#include "unit.h"

#define SENTINEL	0xa5

struct load {
	char path[64];
	int ret;
	char err[1024];
	struct ut_config cfg;
	char want[1024];	/* scratch for expected messages */
};

/*
 * Write @text to a temporary file and load it into l->cfg, which starts
 * filled with SENTINEL bytes so that a failed load can be told apart.
 */
static void load(struct load *l, const char *text)
{
	size_t len = strlen(text);
	int fd;

	memset(l, 0, sizeof(*l));
	memset(&l->cfg, SENTINEL, sizeof(l->cfg));
	snprintf(l->path, sizeof(l->path), "/tmp/uringtune-test-XXXXXX");
	fd = mkstemp(l->path);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		perror("test_config: temporary file");
		exit(2);
	}
	close(fd);
	l->ret = config_load(l->path, &l->cfg, l->err, sizeof(l->err));
	unlink(l->path);
}

/* "PATH: @what": what config_load() should have written */
static const char *want(struct load *l, const char *what)
{
	snprintf(l->want, sizeof(l->want), "%s: %s", l->path, what);
	return l->want;
}

static int unchanged(const struct ut_config *cfg)
{
	const unsigned char *p = (const unsigned char *)cfg;

	for (size_t i = 0; i < sizeof(*cfg); i++)
		if (p[i] != SENTINEL)
			return 0;
	return 1;
}

/* a refused file: -EINVAL, the exact message, *out untouched */
#define ASSERT_REFUSED(l, text, what) do {				\
	load(l, text);							\
	UT_ASSERT_STR_EQ((l)->err, want(l, what));			\
	UT_ASSERT_EQ_INT((l)->ret, -EINVAL);				\
	UT_ASSERT(unchanged(&(l)->cfg));				\
} while (0)

#define ASSERT_LOADS(l, text) do {					\
	load(l, text);							\
	UT_ASSERT_STR_EQ((l)->err, "");					\
	UT_ASSERT_EQ_INT((l)->ret, 0);					\
} while (0)

UT_TEST(defaults)
{
	struct ut_config def;

	config_defaults(&def);
	UT_ASSERT_EQ_INT(def.mode, UT_MODE_OBSERVE);
	UT_ASSERT_STR_EQ(def.socket_path, "/run/uringtune/uringtune.sock");
	UT_ASSERT_STR_EQ(def.state_dir, "/var/lib/uringtune");
	UT_ASSERT_STR_EQ(def.status_group, "uringtune");
	UT_ASSERT_EQ_INT(def.tick_ms, 1000);
	UT_ASSERT_EQ_INT(def.max_rings, 16384);
	UT_ASSERT_EQ_INT(def.log_level, LOG_INFO);

	UT_ASSERT_EQ_INT(def.napi.min_us, 10);
	UT_ASSERT_EQ_INT(def.napi.max_us, 200);
	UT_ASSERT_EQ_INT(def.napi.initial_us, 50);
	UT_ASSERT(!def.napi.prefer);
	UT_ASSERT_EQ_INT(def.napi.tracking, TUNER_TRACK_AUTO);
	UT_ASSERT_EQ_INT(def.napi.static_after_s, 30);
	UT_ASSERT(def.napi.min_efficiency == 0.2);
	UT_ASSERT_EQ_INT(def.napi.wakeup_cost_us, 0);	/* measured */
	UT_ASSERT_EQ_INT(def.napi.min_windows, 1000);
	UT_ASSERT_EQ_INT(def.napi.settle_s, 5);
	UT_ASSERT_EQ_INT(def.napi.retry_s, 60);
	UT_ASSERT_EQ_INT(def.napi.change_pct, 25);
	UT_ASSERT_EQ_INT(def.napi.quantile_pct, 95);
	UT_ASSERT_EQ_INT(def.napi.headroom_pct, 50);

	UT_ASSERT_EQ_INT(def.select.n_include_comm, 0);
	UT_ASSERT_EQ_INT(def.select.n_exclude_comm, 0);
	UT_ASSERT_EQ_INT(def.select.n_include_uid, 0);
	UT_ASSERT_EQ_INT(def.select.n_exclude_uid, 0);
	UT_ASSERT_EQ_INT(def.select.n_include_cgroup, 0);
	UT_ASSERT_EQ_INT(def.select.n_exclude_cgroup, 0);

	UT_ASSERT(def.export_textfile);
	UT_ASSERT(!def.export_ring_histograms);
	UT_ASSERT_STR_EQ(def.textfile_dir, "/var/lib/prometheus/node-exporter");
	UT_ASSERT_EQ_INT(def.export_interval_s, 15);
}

UT_TEST(empty_file_gives_defaults)
{
	struct ut_config def;
	struct load l;

	config_defaults(&def);
	ASSERT_LOADS(&l, "");
	UT_ASSERT(memcmp(&l.cfg, &def, sizeof(def)) == 0);
	ASSERT_LOADS(&l, "# nothing set\n; still nothing\n\n[daemon]\n");
	UT_ASSERT(memcmp(&l.cfg, &def, sizeof(def)) == 0);
}

UT_TEST(mode_values)
{
	struct load l;

	ASSERT_LOADS(&l, "[daemon]\nmode = tune\n");
	UT_ASSERT_EQ_INT(l.cfg.mode, UT_MODE_TUNE);
	ASSERT_LOADS(&l, "[daemon]\nmode = observe\n");
	UT_ASSERT_EQ_INT(l.cfg.mode, UT_MODE_OBSERVE);
}

UT_TEST(path_values)
{
	char text[256], path[128];
	struct load l;

	ASSERT_LOADS(&l, "[daemon]\nsocket = /tmp/u.sock\nstate_dir = /srv/ut\n");
	UT_ASSERT_STR_EQ(l.cfg.socket_path, "/tmp/u.sock");
	UT_ASSERT_STR_EQ(l.cfg.state_dir, "/srv/ut");

	/* sun_path holds 107 bytes and the NUL */
	memset(path, 'a', 107);
	path[0] = '/';
	path[107] = '\0';
	snprintf(text, sizeof(text), "[daemon]\nsocket = %s\n", path);
	ASSERT_LOADS(&l, text);
	UT_ASSERT_STR_EQ(l.cfg.socket_path, path);
}

/* a group name, not resolved (it may not exist yet), or nothing: root only */
UT_TEST(status_group_values)
{
	struct load l;

	ASSERT_LOADS(&l, "[daemon]\nstatus_group = ops-ro_2.x\n");
	UT_ASSERT_STR_EQ(l.cfg.status_group, "ops-ro_2.x");
	ASSERT_LOADS(&l, "[daemon]\nstatus_group = no_such_group_here\n");
	UT_ASSERT_STR_EQ(l.cfg.status_group, "no_such_group_here");
	ASSERT_LOADS(&l, "[daemon]\nstatus_group =\n");
	UT_ASSERT_STR_EQ(l.cfg.status_group, "");
	ASSERT_REFUSED(&l, "[daemon]\nstatus_group = 1ops\n",
		       "[daemon] status_group: expected a group name (a letter or '_', then "
		       "letters, digits, '_', '.' or '-'; at most 31 bytes), or nothing, got '1ops'");
	ASSERT_REFUSED(&l, "[daemon]\nstatus_group = a b\n",
		       "[daemon] status_group: expected a group name (a letter or '_', then "
		       "letters, digits, '_', '.' or '-'; at most 31 bytes), or nothing, got 'a b'");
	ASSERT_REFUSED(&l, "[daemon]\nstatus_group = abcdefghijabcdefghijabcdefghijab\n",
		       "[daemon] status_group: expected a group name (a letter or '_', then "
		       "letters, digits, '_', '.' or '-'; at most 31 bytes), or nothing, got "
		       "'abcdefghijabcdefghijabcdefghijab'");
}

UT_TEST(integer_values)
{
	struct load l;

	ASSERT_LOADS(&l, "[daemon]\ntick_ms = 50\nmax_rings = 64\n");
	UT_ASSERT_EQ_INT(l.cfg.tick_ms, 50);
	UT_ASSERT_EQ_INT(l.cfg.max_rings, 64);
	ASSERT_LOADS(&l, "[daemon]\ntick_ms = 60000\nmax_rings = 1048576\n");
	UT_ASSERT_EQ_INT(l.cfg.tick_ms, 60000);
	UT_ASSERT_EQ_INT(l.cfg.max_rings, 1048576);
	/* decimal even with a leading zero */
	ASSERT_LOADS(&l, "[daemon]\ntick_ms = 0250\n");
	UT_ASSERT_EQ_INT(l.cfg.tick_ms, 250);
}

UT_TEST(log_level_values)
{
	static const struct {
		const char *name;
		int level;
	} levels[] = {
		{ "error", LOG_ERR }, { "warning", LOG_WARNING },
		{ "notice", LOG_NOTICE }, { "info", LOG_INFO },
		{ "debug", LOG_DEBUG },
	};
	char text[64];
	struct load l;

	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		snprintf(text, sizeof(text), "[daemon]\nlog_level = %s\n",
			 levels[i].name);
		ASSERT_LOADS(&l, text);
		UT_ASSERT_EQ_INT(l.cfg.log_level, levels[i].level);
	}
}

/* indentation, CRLF, ';' comments, "key: value" and a BOM are all fine */
UT_TEST(all_keys_with_layout)
{
	struct load l;

	ASSERT_LOADS(&l, "\xef\xbb\xbf# all keys\r\n"
		     "[daemon]\r\n"
		     "  mode = tune ; changes rings\r\n"
		     "  socket=/run/x.sock\r\n"
		     "\tstate_dir =   /var/x   \r\n"
		     "  tick_ms = 200\r\n"
		     "max_rings: 128\r\n"
		     "log_level = debug");
	UT_ASSERT_EQ_INT(l.cfg.mode, UT_MODE_TUNE);
	UT_ASSERT_STR_EQ(l.cfg.socket_path, "/run/x.sock");
	UT_ASSERT_STR_EQ(l.cfg.state_dir, "/var/x");
	UT_ASSERT_EQ_INT(l.cfg.tick_ms, 200);
	UT_ASSERT_EQ_INT(l.cfg.max_rings, 128);
	UT_ASSERT_EQ_INT(l.cfg.log_level, LOG_DEBUG);
}

UT_TEST(unknown_key)
{
	struct load l;

	ASSERT_REFUSED(&l, "[daemon]\ncolour = blue\n",
		       "[daemon] colour: unknown key (known keys: mode, socket, status_group, "
		       "state_dir, tick_ms, sweep_cpu_pct, max_rings, log_level, iopoll_stats)");
	/* names are case sensitive */
	ASSERT_REFUSED(&l, "[daemon]\nMode = tune\n",
		       "[daemon] Mode: unknown key (known keys: mode, socket, status_group, "
		       "state_dir, tick_ms, sweep_cpu_pct, max_rings, log_level, iopoll_stats)");
	ASSERT_REFUSED(&l, "[daemon]\n= tune\n",
		       "[daemon]: expected a key before '=', got '= tune'");
}

UT_TEST(unknown_section)
{
	struct load l;

	ASSERT_REFUSED(&l, "[bogus]\nmode = tune\n",
		       "[bogus]: unknown section (known sections: daemon, napi, export, select, agent)");
	/* even without keys: likely a typo of a section meant to be used */
	ASSERT_REFUSED(&l, "[daemon]\nmode = tune\n[deamon]\n",
		       "[deamon]: unknown section (known sections: daemon, napi, export, select, agent)");
	ASSERT_REFUSED(&l, "mode = tune\n[daemon]\n",
		       "mode: key before any [section] (known sections: daemon, napi, export, select, agent)");
}

UT_TEST(bad_enum)
{
	struct load l;

	ASSERT_REFUSED(&l, "[daemon]\nmode = fast\n",
		       "[daemon] mode: expected observe or tune, got 'fast'");
	ASSERT_REFUSED(&l, "[daemon]\nmode = Tune\n",
		       "[daemon] mode: expected observe or tune, got 'Tune'");
	ASSERT_REFUSED(&l, "[daemon]\nlog_level = loud\n",
		       "[daemon] log_level: expected error, warning, notice, "
		       "info or debug, got 'loud'");
	/* the syslog.h number is not a name */
	ASSERT_REFUSED(&l, "[daemon]\nlog_level = 7\n",
		       "[daemon] log_level: expected error, warning, notice, "
		       "info or debug, got '7'");
}

UT_TEST(integer_out_of_range)
{
	struct load l;

	ASSERT_REFUSED(&l, "[daemon]\ntick_ms = 5\n",
		       "[daemon] tick_ms: expected an integer from 50 to 60000, got '5'");
	ASSERT_REFUSED(&l, "[daemon]\ntick_ms = 49\n",
		       "[daemon] tick_ms: expected an integer from 50 to 60000, got '49'");
	ASSERT_REFUSED(&l, "[daemon]\ntick_ms = 60001\n",
		       "[daemon] tick_ms: expected an integer from 50 to 60000, got '60001'");
	ASSERT_REFUSED(&l, "[daemon]\nmax_rings = 63\n",
		       "[daemon] max_rings: expected an integer from 64 to 1048576, got '63'");
	ASSERT_REFUSED(&l, "[daemon]\nmax_rings = 1048577\n",
		       "[daemon] max_rings: expected an integer from 64 to 1048576, got '1048577'");
	/* past unsigned long long, and past unsigned int (no wrap to 1000) */
	ASSERT_REFUSED(&l, "[daemon]\ntick_ms = 99999999999999999999999\n",
		       "[daemon] tick_ms: expected an integer from 50 to 60000, "
		       "got '99999999999999999999999'");
	ASSERT_REFUSED(&l, "[daemon]\ntick_ms = 4294968296\n",
		       "[daemon] tick_ms: expected an integer from 50 to 60000, "
		       "got '4294968296'");
}

UT_TEST(integer_with_garbage)
{
	static const char *const bad[] = {
		"100ms", "100 ms", "0x100", "1e3", "-100", "+100", "1,000",
		"100.0", "- 100",
	};
	char text[64], what[128];
	struct load l;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[daemon]\ntick_ms = %s\n", bad[i]);
		snprintf(what, sizeof(what), "[daemon] tick_ms: expected an "
			 "integer from 50 to 60000, got '%s'", bad[i]);
		ASSERT_REFUSED(&l, text, what);
	}
}

UT_TEST(empty_value)
{
	struct load l;

	ASSERT_REFUSED(&l, "[daemon]\nmode =\n",
		       "[daemon] mode: expected observe or tune, got an empty value");
	ASSERT_REFUSED(&l, "[daemon]\ntick_ms = ; commented out\n",
		       "[daemon] tick_ms: expected an integer from 50 to 60000, "
		       "got an empty value");
	ASSERT_REFUSED(&l, "[daemon]\nstate_dir =\n",
		       "[daemon] state_dir: expected an absolute path, got an empty value");
}

UT_TEST(bad_paths)
{
	char text[256], path[128];
	struct load l;

	ASSERT_REFUSED(&l, "[daemon]\nsocket = run/u.sock\n",
		       "[daemon] socket: expected an absolute path, got 'run/u.sock'");
	ASSERT_REFUSED(&l, "[daemon]\nstate_dir = ./state\n",
		       "[daemon] state_dir: expected an absolute path, got './state'");
	/* a '#' comment after a value is part of the value */
	ASSERT_REFUSED(&l, "[daemon]\nstate_dir = /var/x # old\n",
		       "[daemon] state_dir: expected an absolute path without "
		       "whitespace, got '/var/x # old'");

	memset(path, 'a', 108);
	path[0] = '/';
	path[108] = '\0';
	snprintf(text, sizeof(text), "[daemon]\nsocket = %s\n", path);
	ASSERT_REFUSED(&l, text,
		       "[daemon] socket: expected an absolute path of at most "
		       "107 bytes, got 108 bytes");
}

UT_TEST(duplicate_key)
{
	struct load l;

	ASSERT_REFUSED(&l, "[daemon]\nmode = tune\nmode = tune\n",
		       "[daemon] mode: duplicate key, already set on line 2");
	/* a section may be reopened, its keys still count once */
	ASSERT_REFUSED(&l, "[daemon]\ntick_ms = 100\n[daemon]\n\ntick_ms = 200\n",
		       "[daemon] tick_ms: duplicate key, already set on line 2");
}

UT_TEST(malformed_line)
{
	struct load l;

	ASSERT_REFUSED(&l, "[daemon]\nmode = tune\ntick_ms 100\n",
		       "line 3: not a key = value line");
	ASSERT_REFUSED(&l, "[daemon\nmode = tune\n",
		       "line 1: not a key = value line");
	/* the first error in the file is the one reported */
	ASSERT_REFUSED(&l, "[daemon]\nmode\ncolour = blue\n",
		       "line 2: not a key = value line");
	ASSERT_REFUSED(&l, "[daemon]\nmode = fast\nbroken\n",
		       "[daemon] mode: expected observe or tune, got 'fast'");
}

/* libinih would split a long line and parse its tail as a line of its own */
UT_TEST(long_line)
{
	char text[512];
	struct load l;
	int n;

	n = snprintf(text, sizeof(text), "[daemon]\n#");
	memset(text + n, 'x', 197);
	snprintf(text + n + 197, sizeof(text) - n - 197, " = 1\nmode = tune\n");
	ASSERT_REFUSED(&l, text,
		       "line 2: too long: expected at most 198 characters, got 202");

	/* 198 characters are fine */
	n = snprintf(text, sizeof(text), "[daemon]\n#");
	memset(text + n, 'x', 197);
	snprintf(text + n + 197, sizeof(text) - n - 197, "\nmode = tune\n");
	ASSERT_LOADS(&l, text);
	UT_ASSERT_EQ_INT(l.cfg.mode, UT_MODE_TUNE);
}

UT_TEST(missing_file)
{
	struct ut_config cfg;
	char err[256];
	int ret;

	memset(&cfg, SENTINEL, sizeof(cfg));
	ret = config_load("/nonexistent/uringtune.ini", &cfg, err, sizeof(err));
	UT_ASSERT_EQ_INT(ret, -ENOENT);
	UT_ASSERT_STR_EQ(err, "/nonexistent/uringtune.ini: cannot open: "
			 "No such file or directory");
	UT_ASSERT(unchanged(&cfg));
}

/* fopen() opens a directory; reading it must fail, not yield defaults */
UT_TEST(directory)
{
	struct ut_config cfg;
	char err[256];
	int ret;

	memset(&cfg, SENTINEL, sizeof(cfg));
	ret = config_load("/tmp", &cfg, err, sizeof(err));
	UT_ASSERT_EQ_INT(ret, -EISDIR);
	UT_ASSERT_STR_EQ(err, "/tmp: cannot read: Is a directory");
	UT_ASSERT(unchanged(&cfg));
}

/* good keys before the bad one must not leak into *out */
UT_TEST(failure_leaves_out_unchanged)
{
	struct load l;

	ASSERT_REFUSED(&l, "[daemon]\nmode = tune\nsocket = /x.sock\n"
		       "tick_ms = 100\nmax_rings = 5\n",
		       "[daemon] max_rings: expected an integer from 64 to 1048576, got '5'");
	/* a NULL or empty err buffer is allowed */
	UT_ASSERT_EQ_INT(config_load("/nonexistent", &l.cfg, NULL, 0), -ENOENT);
	UT_ASSERT(unchanged(&l.cfg));
}

UT_TEST(napi_values)
{
	struct load l;

	ASSERT_LOADS(&l, "[napi]\n"
		     "min_busy_poll_us = 5\n"
		     "max_busy_poll_us = 10000\n"
		     "initial_busy_poll_us = 100\n"
		     "prefer_busy_poll = yes\n"
		     "tracking = static\n"
		     "static_after_s = 600\n"
		     "min_efficiency = 1.5\n"
		     "wakeup_cost_us = 25\n"
		     "min_windows = 100000000\n"
		     "settle_s = 0\n"
		     "retry_s = 86400\n"
		     "change_pct = 1000\n"
		     "quantile_pct = 50\n"
		     "headroom_pct = 0\n");
	UT_ASSERT_EQ_INT(l.cfg.napi.min_us, 5);
	UT_ASSERT_EQ_INT(l.cfg.napi.max_us, 10000);
	UT_ASSERT_EQ_INT(l.cfg.napi.initial_us, 100);
	UT_ASSERT(l.cfg.napi.prefer);
	UT_ASSERT_EQ_INT(l.cfg.napi.tracking, TUNER_TRACK_STATIC);
	UT_ASSERT_EQ_INT(l.cfg.napi.static_after_s, 600);
	UT_ASSERT(l.cfg.napi.min_efficiency == 1.5);
	UT_ASSERT_EQ_INT(l.cfg.napi.wakeup_cost_us, 25);
	UT_ASSERT_EQ_INT(l.cfg.napi.min_windows, 100000000);
	UT_ASSERT_EQ_INT(l.cfg.napi.settle_s, 0);
	UT_ASSERT_EQ_INT(l.cfg.napi.retry_s, 86400);
	UT_ASSERT_EQ_INT(l.cfg.napi.change_pct, 1000);
	UT_ASSERT_EQ_INT(l.cfg.napi.quantile_pct, 50);
	UT_ASSERT_EQ_INT(l.cfg.napi.headroom_pct, 0);
	/* the other sections keep their defaults */
	UT_ASSERT_EQ_INT(l.cfg.tick_ms, 1000);
	UT_ASSERT_EQ_INT(l.cfg.select.n_include_comm, 0);
}

#define POLICY(f)	offsetof(struct tuner_policy, f)

/* [napi]'s integers: each bound loads, one past it is refused */
static const struct {
	const char *name;
	unsigned int min, max;
	size_t offset;		/* in struct tuner_policy */
	int timeout;		/* ordered against the other timeouts */
} napi_uints[] = {
	{ "min_busy_poll_us", 1, 10000, POLICY(min_us), 1 },
	{ "max_busy_poll_us", 1, 10000, POLICY(max_us), 1 },
	{ "initial_busy_poll_us", 1, 10000, POLICY(initial_us), 1 },
	{ "static_after_s", 1, 86400, POLICY(static_after_s), 0 },
	{ "wakeup_cost_us", 0, 10000, POLICY(wakeup_cost_us), 0 },
	{ "min_windows", 1, 100000000, POLICY(min_windows), 0 },
	{ "settle_s", 0, 86400, POLICY(settle_s), 0 },
	{ "retry_s", 1, 86400, POLICY(retry_s), 0 },
	{ "change_pct", 1, 1000, POLICY(change_pct), 0 },
	{ "quantile_pct", 50, 100, POLICY(quantile_pct), 0 },
	{ "headroom_pct", 0, 1000, POLICY(headroom_pct), 0 },
};

static unsigned int policy_uint(const struct tuner_policy *p, size_t offset)
{
	return *(const unsigned int *)((const char *)p + offset);
}

UT_TEST(napi_integer_bounds)
{
	char text[128], what[256];
	struct load l;

	for (size_t i = 0; i < sizeof(napi_uints) / sizeof(napi_uints[0]); i++) {
		unsigned int bound[2] = { napi_uints[i].min, napi_uints[i].max };
		unsigned long long past[2] = { napi_uints[i].min - 1ull,
					       napi_uints[i].max + 1ull };

		for (int b = 0; b < 2; b++) {
			if (napi_uints[i].timeout)
				continue;	/* see busy_poll_bounds */
			snprintf(text, sizeof(text), "[napi]\n%s = %u\n",
				 napi_uints[i].name, bound[b]);
			ASSERT_LOADS(&l, text);
			UT_ASSERT_EQ_INT(policy_uint(&l.cfg.napi, napi_uints[i].offset),
					 bound[b]);
		}
		for (int b = 0; b < 2; b++) {
			if (b == 0 && napi_uints[i].min == 0)
				continue;
			snprintf(text, sizeof(text), "[napi]\n%s = %llu\n",
				 napi_uints[i].name, past[b]);
			snprintf(what, sizeof(what), "[napi] %s: expected an integer "
				 "from %u to %u, got '%llu'", napi_uints[i].name,
				 napi_uints[i].min, napi_uints[i].max, past[b]);
			ASSERT_REFUSED(&l, text, what);
		}
	}
}

UT_TEST(busy_poll_bounds)
{
	struct load l;

	ASSERT_LOADS(&l, "[napi]\nmin_busy_poll_us = 1\ninitial_busy_poll_us = 1\n"
		     "max_busy_poll_us = 1\n");
	UT_ASSERT_EQ_INT(l.cfg.napi.min_us, 1);
	UT_ASSERT_EQ_INT(l.cfg.napi.initial_us, 1);
	UT_ASSERT_EQ_INT(l.cfg.napi.max_us, 1);
	ASSERT_LOADS(&l, "[napi]\nmin_busy_poll_us = 10000\n"
		     "initial_busy_poll_us = 10000\nmax_busy_poll_us = 10000\n");
	UT_ASSERT_EQ_INT(l.cfg.napi.min_us, 10000);
	UT_ASSERT_EQ_INT(l.cfg.napi.initial_us, 10000);
	UT_ASSERT_EQ_INT(l.cfg.napi.max_us, 10000);
}

UT_TEST(bool_values)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	char text[64];
	struct load l;

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		snprintf(text, sizeof(text), "[napi]\nprefer_busy_poll = %s\n", yes[i]);
		ASSERT_LOADS(&l, text);
		UT_ASSERT(l.cfg.napi.prefer);
		snprintf(text, sizeof(text), "[napi]\nprefer_busy_poll = %s\n", no[i]);
		ASSERT_LOADS(&l, text);
		UT_ASSERT(!l.cfg.napi.prefer);
	}
}

UT_TEST(bad_bool)
{
	static const char *const bad[] = { "maybe", "Yes", "TRUE", "y", "2", "01", "yes no" };
	char text[64], what[128];
	struct load l;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[napi]\nprefer_busy_poll = %s\n", bad[i]);
		snprintf(what, sizeof(what), "[napi] prefer_busy_poll: expected yes "
			 "or no (or true/false, on/off, 1/0), got '%s'", bad[i]);
		ASSERT_REFUSED(&l, text, what);
	}
	ASSERT_REFUSED(&l, "[napi]\nprefer_busy_poll =\n",
		       "[napi] prefer_busy_poll: expected yes or no (or true/false, "
		       "on/off, 1/0), got an empty value");
}

UT_TEST(tracking_values)
{
	struct load l;

	ASSERT_LOADS(&l, "[napi]\ntracking = dynamic\n");
	UT_ASSERT_EQ_INT(l.cfg.napi.tracking, TUNER_TRACK_DYNAMIC);
	ASSERT_LOADS(&l, "[napi]\ntracking = static\n");
	UT_ASSERT_EQ_INT(l.cfg.napi.tracking, TUNER_TRACK_STATIC);
	ASSERT_LOADS(&l, "[napi]\ntracking = auto\n");
	UT_ASSERT_EQ_INT(l.cfg.napi.tracking, TUNER_TRACK_AUTO);

	ASSERT_REFUSED(&l, "[napi]\ntracking = Static\n",
		       "[napi] tracking: expected dynamic, static or auto, got 'Static'");
	ASSERT_REFUSED(&l, "[napi]\ntracking = 1\n",
		       "[napi] tracking: expected dynamic, static or auto, got '1'");
}

UT_TEST(decimal_values)
{
	static const struct {
		const char *text;
		double value;
	} good[] = {
		{ "0", 0 }, { "100", 100 }, { "0.2", 0.2 }, { "1.5", 1.5 },
		{ ".5", 0.5 }, { "2.", 2 }, { "0.000", 0 }, { "100.000", 100 },
		{ "2e-1", 0.2 }, { "1E2", 100 }, { "007.25", 7.25 },
	};
	char text[64];
	struct load l;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(text, sizeof(text), "[napi]\nmin_efficiency = %s\n", good[i].text);
		ASSERT_LOADS(&l, text);
		UT_ASSERT(l.cfg.napi.min_efficiency == good[i].value);
	}
	/* libinih strips the blanks around a value before it is parsed */
	ASSERT_LOADS(&l, "[napi]\nmin_efficiency = \t 1 \t\n");
	UT_ASSERT(l.cfg.napi.min_efficiency == 1);
}

UT_TEST(bad_decimal)
{
	static const char *const bad[] = {
		"nan", "NaN", "nan(1)", "inf", "infinity", "-inf", "1e999",
		"0x1", "0x1p-2", "0X.8", "-1", "+1", "-0", "- 1",
		"\xc2\xa0" "1",		/* a no-break space: blanks are stripped */
		"100.5", "1e3", "1,5", "1.5.1", "1e", "1e+", ".", "e1",
		"0.2 # default", "1 2", "5%",
	};
	char text[64], what[128];
	struct load l;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[napi]\nmin_efficiency = %s\n", bad[i]);
		snprintf(what, sizeof(what), "[napi] min_efficiency: expected a "
			 "decimal from 0 to 100, got '%s'", bad[i]);
		ASSERT_REFUSED(&l, text, what);
	}
	ASSERT_REFUSED(&l, "[napi]\nmin_efficiency =\n",
		       "[napi] min_efficiency: expected a decimal from 0 to 100, "
		       "got an empty value");
}

/* hybrid = auto's bounds: fractions, 0 to 1 */
UT_TEST(hybrid_bounds)
{
	struct ut_config def;
	struct load l;

	config_defaults(&def);
	UT_ASSERT(def.agent.hybrid_min_saving == 0.25);
	UT_ASSERT(def.agent.hybrid_max_loss == 0.10);
	ASSERT_LOADS(&l, "[agent]\nhybrid_min_saving = 0.4\nhybrid_max_loss = 0\n");
	UT_ASSERT(l.cfg.agent.hybrid_min_saving == 0.4);
	UT_ASSERT(l.cfg.agent.hybrid_max_loss == 0);
	ASSERT_LOADS(&l, "[agent]\nhybrid_min_saving = 1\nhybrid_max_loss = 1\n");
	UT_ASSERT(l.cfg.agent.hybrid_min_saving == 1);
	ASSERT_REFUSED(&l, "[agent]\nhybrid_max_loss = 1.5\n",
		       "[agent] hybrid_max_loss: expected a decimal from 0 to 1, got '1.5'");
	ASSERT_REFUSED(&l, "[agent]\nhybrid_min_saving = 25%\n",
		       "[agent] hybrid_min_saving: expected a decimal from 0 to 1, got '25%'");
	ASSERT_REFUSED(&l, "[agent]\nhybrid_min_saving = -0.1\n",
		       "[agent] hybrid_min_saving: expected a decimal from 0 to 1, got '-0.1'");
}

UT_TEST(busy_poll_order)
{
	struct load l;

	ASSERT_REFUSED(&l, "[napi]\ninitial_busy_poll_us = 500\n",
		       "[napi] initial_busy_poll_us: expected a value from "
		       "min_busy_poll_us (10) to max_busy_poll_us (200), got 500");
	ASSERT_REFUSED(&l, "[napi]\nmin_busy_poll_us = 20\ninitial_busy_poll_us = 19\n",
		       "[napi] initial_busy_poll_us: expected a value from "
		       "min_busy_poll_us (20) to max_busy_poll_us (200), got 19");
	/* min > max is reported first, even with initial out of range too */
	ASSERT_REFUSED(&l, "[napi]\nmin_busy_poll_us = 300\nmax_busy_poll_us = 200\n"
		       "initial_busy_poll_us = 5000\n",
		       "[napi] max_busy_poll_us: expected at least "
		       "min_busy_poll_us (300), got 200");
	/* the order does not matter: checked once the file is read */
	ASSERT_REFUSED(&l, "[napi]\nmax_busy_poll_us = 20\nmin_busy_poll_us = 30\n",
		       "[napi] max_busy_poll_us: expected at least "
		       "min_busy_poll_us (30), got 20");
	/* a value the file did not set is called the default */
	ASSERT_REFUSED(&l, "[napi]\nmin_busy_poll_us = 300\n",
		       "[napi] max_busy_poll_us: expected at least "
		       "min_busy_poll_us (300), got 200 (the default)");
	ASSERT_REFUSED(&l, "[napi]\nmax_busy_poll_us = 30\n",
		       "[napi] initial_busy_poll_us: expected a value from "
		       "min_busy_poll_us (10) to max_busy_poll_us (30), got 50 (the default)");
	/* an error while parsing comes before the order check */
	ASSERT_REFUSED(&l, "[napi]\ninitial_busy_poll_us = 500\ntracking = none\n",
		       "[napi] tracking: expected dynamic, static or auto, got 'none'");

	ASSERT_LOADS(&l, "[napi]\nmin_busy_poll_us = 20\nmax_busy_poll_us = 20\n"
		     "initial_busy_poll_us = 20\n");
	ASSERT_LOADS(&l, "[napi]\nmax_busy_poll_us = 50\n");
	UT_ASSERT_EQ_INT(l.cfg.napi.max_us, 50);
}

UT_TEST(napi_unknown_key)
{
	struct load l;

	ASSERT_REFUSED(&l, "[napi]\nbusy_poll_us = 50\n",
		       "[napi] busy_poll_us: unknown key (known keys: min_busy_poll_us, "
		       "max_busy_poll_us, initial_busy_poll_us, prefer_busy_poll, "
		       "tracking, static_after_s, min_efficiency, wakeup_cost_us, "
		       "min_windows, settle_s, retry_s, change_pct, quantile_pct, "
		       "headroom_pct)");
	/* keys belong to their section */
	ASSERT_REFUSED(&l, "[select]\ntick_ms = 100\n",
		       "[select] tick_ms: unknown key (known keys: include_comm, "
		       "exclude_comm, include_uid, exclude_uid, include_cgroup, "
		       "exclude_cgroup)");
}

UT_TEST(comm_lists)
{
	char text[256];
	struct load l;
	int n;

	ASSERT_LOADS(&l, "[select]\ninclude_comm = nginx\n");
	UT_ASSERT_EQ_INT(l.cfg.select.n_include_comm, 1);
	UT_ASSERT_STR_EQ(l.cfg.select.include_comm[0], "nginx");

	/* commas, blanks, or both */
	ASSERT_LOADS(&l, "[select]\ninclude_comm = nginx envoy,haproxy ,  redis-server,\tmemcached\t x\n"
		     "exclude_comm = a,b\n");
	UT_ASSERT_EQ_INT(l.cfg.select.n_include_comm, 6);
	UT_ASSERT_STR_EQ(l.cfg.select.include_comm[0], "nginx");
	UT_ASSERT_STR_EQ(l.cfg.select.include_comm[1], "envoy");
	UT_ASSERT_STR_EQ(l.cfg.select.include_comm[2], "haproxy");
	UT_ASSERT_STR_EQ(l.cfg.select.include_comm[3], "redis-server");
	UT_ASSERT_STR_EQ(l.cfg.select.include_comm[4], "memcached");
	UT_ASSERT_STR_EQ(l.cfg.select.include_comm[5], "x");
	UT_ASSERT_EQ_INT(l.cfg.select.n_exclude_comm, 2);
	UT_ASSERT_STR_EQ(l.cfg.select.exclude_comm[0], "a");
	UT_ASSERT_STR_EQ(l.cfg.select.exclude_comm[1], "b");

	/* 15 bytes: TASK_COMM_LEN without its NUL */
	ASSERT_LOADS(&l, "[select]\nexclude_comm = abcdefghijklmno\n");
	UT_ASSERT_STR_EQ(l.cfg.select.exclude_comm[0], "abcdefghijklmno");

	/* UT_SELECT_MAX names */
	n = snprintf(text, sizeof(text), "[select]\ninclude_comm =");
	for (int i = 0; i < UT_SELECT_MAX; i++)
		n += snprintf(text + n, sizeof(text) - n, " p%d", i);
	snprintf(text + n, sizeof(text) - n, "\n");
	ASSERT_LOADS(&l, text);
	UT_ASSERT_EQ_INT(l.cfg.select.n_include_comm, UT_SELECT_MAX);
	UT_ASSERT_STR_EQ(l.cfg.select.include_comm[UT_SELECT_MAX - 1], "p15");
}

UT_TEST(uid_lists)
{
	struct load l;

	ASSERT_LOADS(&l, "[select]\ninclude_uid = root\n");
	UT_ASSERT_EQ_INT(l.cfg.select.n_include_uid, 1);
	UT_ASSERT_EQ_INT(l.cfg.select.include_uid[0], 0);

	ASSERT_LOADS(&l, "[select]\nexclude_uid = 1000, root 65534,0\n");
	UT_ASSERT_EQ_INT(l.cfg.select.n_exclude_uid, 4);
	UT_ASSERT_EQ_INT(l.cfg.select.exclude_uid[0], 1000);
	UT_ASSERT_EQ_INT(l.cfg.select.exclude_uid[1], 0);
	UT_ASSERT_EQ_INT(l.cfg.select.exclude_uid[2], 65534);
	UT_ASSERT_EQ_INT(l.cfg.select.exclude_uid[3], 0);

	/* any uid but (uid_t)-1, with or without a known user */
	ASSERT_LOADS(&l, "[select]\ninclude_uid = 4294967294 00042\n");
	UT_ASSERT_EQ_INT(l.cfg.select.include_uid[0], 4294967294u);
	UT_ASSERT_EQ_INT(l.cfg.select.include_uid[1], 42);
}

UT_TEST(cgroup_lists)
{
	struct load l;

	ASSERT_LOADS(&l, "[select]\ninclude_cgroup = /system.slice/nginx.service\n");
	UT_ASSERT_EQ_INT(l.cfg.select.n_include_cgroup, 1);
	UT_ASSERT_STR_EQ(l.cfg.select.include_cgroup[0], "/system.slice/nginx.service");

	/* normalized as /proc/PID/cgroup shows paths */
	ASSERT_LOADS(&l, "[select]\nexclude_cgroup = /a/, /, //, /b//c//, //d,/e.f/..g/...\n");
	UT_ASSERT_EQ_INT(l.cfg.select.n_exclude_cgroup, 6);
	UT_ASSERT_STR_EQ(l.cfg.select.exclude_cgroup[0], "/a");
	UT_ASSERT_STR_EQ(l.cfg.select.exclude_cgroup[1], "/");
	UT_ASSERT_STR_EQ(l.cfg.select.exclude_cgroup[2], "/");
	UT_ASSERT_STR_EQ(l.cfg.select.exclude_cgroup[3], "/b/c");
	UT_ASSERT_STR_EQ(l.cfg.select.exclude_cgroup[4], "/d");
	UT_ASSERT_STR_EQ(l.cfg.select.exclude_cgroup[5], "/e.f/..g/...");
}

UT_TEST(bad_lists)
{
	char text[256], what[256];
	struct load l;
	int n;

	ASSERT_REFUSED(&l, "[select]\ninclude_comm = nginx averyveryverylongname\n",
		       "[select] include_comm: expected process names of at most "
		       "15 bytes, got 'averyveryverylongname'");
	ASSERT_REFUSED(&l, "[select]\nexclude_comm = abcdefghijklmnop\n",
		       "[select] exclude_comm: expected process names of at most "
		       "15 bytes, got 'abcdefghijklmnop'");
	/* a '#' after a value is part of it */
	ASSERT_REFUSED(&l, "[select]\ninclude_comm = nginx # web servers\n",
		       "[select] include_comm: expected process names, got '#' "
		       "(a comment goes on a line of its own)");

	/* empty elements */
	ASSERT_REFUSED(&l, "[select]\ninclude_comm = nginx,,envoy\n",
		       "[select] include_comm: expected process names separated "
		       "by commas or spaces, got 'nginx,,envoy'");
	ASSERT_REFUSED(&l, "[select]\ninclude_comm = nginx , , envoy\n",
		       "[select] include_comm: expected process names separated "
		       "by commas or spaces, got 'nginx , , envoy'");
	ASSERT_REFUSED(&l, "[select]\nexclude_uid = root,\n",
		       "[select] exclude_uid: expected user names or uids separated "
		       "by commas or spaces, got 'root,'");
	ASSERT_REFUSED(&l, "[select]\ninclude_cgroup = ,/a\n",
		       "[select] include_cgroup: expected absolute cgroup paths separated "
		       "by commas or spaces, got ',/a'");
	ASSERT_REFUSED(&l, "[select]\ninclude_comm = ,\n",
		       "[select] include_comm: expected process names separated "
		       "by commas or spaces, got ','");
	ASSERT_REFUSED(&l, "[select]\ninclude_comm =\n",
		       "[select] include_comm: expected process names, got an empty value");

	/* one more than UT_SELECT_MAX, whatever the elements */
	n = snprintf(text, sizeof(text), "[select]\ninclude_comm =");
	for (int i = 0; i <= UT_SELECT_MAX; i++)
		n += snprintf(text + n, sizeof(text) - n, " p%d", i);
	snprintf(text + n, sizeof(text) - n, "\n");
	ASSERT_REFUSED(&l, text,
		       "[select] include_comm: expected at most 16 names, got 17");
	n = snprintf(text, sizeof(text), "[select]\nexclude_uid =");
	for (int i = 0; i <= UT_SELECT_MAX; i++)
		n += snprintf(text + n, sizeof(text) - n, "%s%d", i ? "," : " ", i);
	snprintf(text + n, sizeof(text) - n, "\n");
	ASSERT_REFUSED(&l, text,
		       "[select] exclude_uid: expected at most 16 users, got 17");
	n = snprintf(text, sizeof(text), "[select]\nexclude_cgroup =");
	for (int i = 0; i <= UT_SELECT_MAX + 1; i++)
		n += snprintf(text + n, sizeof(text) - n, " /c%d", i);
	snprintf(text + n, sizeof(text) - n, "\n");
	ASSERT_REFUSED(&l, text,
		       "[select] exclude_cgroup: expected at most 16 cgroups, got 18");

	/* users */
	ASSERT_REFUSED(&l, "[select]\ninclude_uid = root uringtune-no-such-user\n",
		       "[select] include_uid: expected user names or uids, got "
		       "unknown user 'uringtune-no-such-user'");
	ASSERT_REFUSED(&l, "[select]\ninclude_uid = -1\n",
		       "[select] include_uid: expected user names or uids, got "
		       "unknown user '-1'");
	ASSERT_REFUSED(&l, "[select]\nexclude_uid = 4294967295\n",
		       "[select] exclude_uid: expected user names or uids from 0 to "
		       "4294967294, got '4294967295'");
	ASSERT_REFUSED(&l, "[select]\nexclude_uid = 99999999999999999999999\n",
		       "[select] exclude_uid: expected user names or uids from 0 to "
		       "4294967294, got '99999999999999999999999'");

	/* cgroups */
	ASSERT_REFUSED(&l, "[select]\ninclude_cgroup = system.slice/nginx.service\n",
		       "[select] include_cgroup: expected absolute cgroup paths, got "
		       "'system.slice/nginx.service'");
	ASSERT_REFUSED(&l, "[select]\nexclude_cgroup = /a ./b\n",
		       "[select] exclude_cgroup: expected absolute cgroup paths, got './b'");
	snprintf(what, sizeof(what), "[select] include_cgroup: expected absolute cgroup "
		 "paths without '.' or '..', got '%s'", "/a/../b");
	ASSERT_REFUSED(&l, "[select]\ninclude_cgroup = /a/../b\n", what);
	ASSERT_REFUSED(&l, "[select]\ninclude_cgroup = /a/.\n",
		       "[select] include_cgroup: expected absolute cgroup paths "
		       "without '.' or '..', got '/a/.'");

	/* good keys and elements before the bad one do not leak into *out */
	ASSERT_REFUSED(&l, "[select]\ninclude_comm = a b\nexclude_comm = c averyveryverylongname\n",
		       "[select] exclude_comm: expected process names of at most "
		       "15 bytes, got 'averyveryverylongname'");
}

UT_TEST(export_values)
{
	struct load l;

	ASSERT_LOADS(&l, "[export]\ntextfile = no\ntextfile_dir = /srv/prom/textfile\n");
	UT_ASSERT(!l.cfg.export_textfile);
	UT_ASSERT_STR_EQ(l.cfg.textfile_dir, "/srv/prom/textfile");
	ASSERT_LOADS(&l, "[export]\ntextfile = on\n");
	UT_ASSERT(l.cfg.export_textfile);
	UT_ASSERT_STR_EQ(l.cfg.textfile_dir, "/var/lib/prometheus/node-exporter");
	/* the other sections keep their defaults, and [export] theirs */
	ASSERT_LOADS(&l, "[export]\ntextfile_dir = /\n[daemon]\ntick_ms = 500\n");
	UT_ASSERT(l.cfg.export_textfile);
	UT_ASSERT_STR_EQ(l.cfg.textfile_dir, "/");
	UT_ASSERT_EQ_INT(l.cfg.tick_ms, 500);
	UT_ASSERT_EQ_INT(l.cfg.napi.max_us, 200);
	UT_ASSERT_EQ_INT(l.cfg.export_interval_s, 15);
	ASSERT_LOADS(&l, "[export]\ninterval_s = 1\n");
	UT_ASSERT_EQ_INT(l.cfg.export_interval_s, 1);
	/* per-ring histograms: off unless asked for (a fleet's cardinality) */
	UT_ASSERT(!l.cfg.export_ring_histograms);
	ASSERT_LOADS(&l, "[export]\nring_histograms = yes\n");
	UT_ASSERT(l.cfg.export_ring_histograms);
	ASSERT_LOADS(&l, "[export]\ninterval_s = 3600\n");
	UT_ASSERT_EQ_INT(l.cfg.export_interval_s, 3600);
}

UT_TEST(export_bad_values)
{
	struct load l;

	ASSERT_REFUSED(&l, "[export]\ntextfile = maybe\n",
		       "[export] textfile: expected yes or no (or true/false, "
		       "on/off, 1/0), got 'maybe'");
	/* off is said with textfile = no: an empty directory is refused */
	ASSERT_REFUSED(&l, "[export]\ntextfile_dir =\n",
		       "[export] textfile_dir: expected an absolute path, got an empty value");
	ASSERT_REFUSED(&l, "[export]\ntextfile_dir = var/lib/prometheus\n",
		       "[export] textfile_dir: expected an absolute path, got "
		       "'var/lib/prometheus'");
	ASSERT_REFUSED(&l, "[export]\ntextfile_dir = /var/x # node_exporter\n",
		       "[export] textfile_dir: expected an absolute path without "
		       "whitespace, got '/var/x # node_exporter'");
	ASSERT_REFUSED(&l, "[export]\ntextfile = yes\ntextfile = no\n",
		       "[export] textfile: duplicate key, already set on line 2");
	ASSERT_REFUSED(&l, "[export]\ndir = /tmp\n",
		       "[export] dir: unknown key (known keys: textfile, textfile_dir, "
		       "interval_s, ring_histograms)");
	ASSERT_REFUSED(&l, "[export]\nring_histograms = some\n",
		       "[export] ring_histograms: expected yes or no (or true/false, on/off, 1/0), "
		       "got 'some'");
	ASSERT_REFUSED(&l, "[export]\ninterval_s = 0\n",
		       "[export] interval_s: expected an integer from 1 to 3600, got '0'");
	ASSERT_REFUSED(&l, "[export]\ninterval_s = 3601\n",
		       "[export] interval_s: expected an integer from 1 to 3600, got '3601'");
	ASSERT_REFUSED(&l, "[export]\ninterval_s = 15s\n",
		       "[export] interval_s: expected an integer from 1 to 3600, got '15s'");
	/* [export] keys belong in [export] */
	ASSERT_REFUSED(&l, "[daemon]\ntextfile_dir = /tmp\n",
		       "[daemon] textfile_dir: unknown key (known keys: mode, socket, "
		       "status_group, state_dir, tick_ms, sweep_cpu_pct, max_rings, log_level, "
		       "iopoll_stats)");
}

/* the shipped file must load and match the built-in defaults */
UT_TEST(shipped_config)
{
	/* __FILE__ is tests/unit/test_config.c, relative to the repository */
	const char *self = __FILE__, *tail = "tests/unit/test_config.c";
	size_t root = strlen(self) > strlen(tail) ? strlen(self) - strlen(tail) : 0;
	struct ut_config cfg, def;
	char path[4096], err[512];

	snprintf(path, sizeof(path), "%.*sconfig/uringtune.ini", (int)root, self);
	config_defaults(&def);
	memset(&cfg, SENTINEL, sizeof(cfg));
	UT_ASSERT_EQ_INT(config_load(path, &cfg, err, sizeof(err)), 0);
	UT_ASSERT(memcmp(&cfg, &def, sizeof(def)) == 0);
}

UT_TEST(mode_names)
{
	enum ut_mode mode = UT_MODE_TUNE;

	UT_ASSERT_STR_EQ(config_mode_name(UT_MODE_OBSERVE), "observe");
	UT_ASSERT_STR_EQ(config_mode_name(UT_MODE_TUNE), "tune");
	UT_ASSERT_STR_EQ(config_mode_name((enum ut_mode)2), "unknown");
	UT_ASSERT_STR_EQ(config_mode_name((enum ut_mode)-1), "unknown");
	UT_ASSERT_EQ_INT(config_mode_from_name("observe", &mode), 0);
	UT_ASSERT_EQ_INT(mode, UT_MODE_OBSERVE);
	UT_ASSERT_EQ_INT(config_mode_from_name("tune", &mode), 0);
	UT_ASSERT_EQ_INT(mode, UT_MODE_TUNE);
	UT_ASSERT_EQ_INT(config_mode_from_name("Tune", &mode), -EINVAL);
	UT_ASSERT_EQ_INT(config_mode_from_name("", &mode), -EINVAL);
	UT_ASSERT_EQ_INT(config_mode_from_name(NULL, &mode), -EINVAL);
	UT_ASSERT_EQ_INT(mode, UT_MODE_TUNE);
}

int main(void)
{
	ut_run("defaults", defaults);
	ut_run("empty_file_gives_defaults", empty_file_gives_defaults);
	ut_run("mode_values", mode_values);
	ut_run("path_values", path_values);
	ut_run("integer_values", integer_values);
	ut_run("log_level_values", log_level_values);
	ut_run("all_keys_with_layout", all_keys_with_layout);
	ut_run("unknown_key", unknown_key);
	ut_run("unknown_section", unknown_section);
	ut_run("bad_enum", bad_enum);
	ut_run("integer_out_of_range", integer_out_of_range);
	ut_run("integer_with_garbage", integer_with_garbage);
	ut_run("empty_value", empty_value);
	ut_run("bad_paths", bad_paths);
	ut_run("duplicate_key", duplicate_key);
	ut_run("malformed_line", malformed_line);
	ut_run("long_line", long_line);
	ut_run("missing_file", missing_file);
	ut_run("directory", directory);
	ut_run("failure_leaves_out_unchanged", failure_leaves_out_unchanged);
	ut_run("napi_values", napi_values);
	ut_run("napi_integer_bounds", napi_integer_bounds);
	ut_run("busy_poll_bounds", busy_poll_bounds);
	ut_run("bool_values", bool_values);
	ut_run("bad_bool", bad_bool);
	ut_run("tracking_values", tracking_values);
	ut_run("decimal_values", decimal_values);
	ut_run("bad_decimal", bad_decimal);
	ut_run("busy_poll_order", busy_poll_order);
	ut_run("napi_unknown_key", napi_unknown_key);
	ut_run("comm_lists", comm_lists);
	ut_run("uid_lists", uid_lists);
	ut_run("cgroup_lists", cgroup_lists);
	ut_run("bad_lists", bad_lists);
	ut_run("export_values", export_values);
	ut_run("export_bad_values", export_bad_values);
	ut_run("shipped_config", shipped_config);
	ut_run("status_group_values", status_group_values);
	ut_run("hybrid_bounds", hybrid_bounds);
	ut_run("mode_names", mode_names);
	return ut_finish();
}
