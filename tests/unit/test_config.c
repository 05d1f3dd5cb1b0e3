// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_load(): defaults, every key's values, and the exact text of every
 * class of error, since operators act on those lines.
 */
#include <errno.h>
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
	UT_ASSERT_EQ_INT(def.tick_ms, 1000);
	UT_ASSERT_EQ_INT(def.max_rings, 16384);
	UT_ASSERT_EQ_INT(def.log_level, LOG_INFO);
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
		       "[daemon] colour: unknown key (known keys: mode, socket, "
		       "state_dir, tick_ms, max_rings, log_level)");
	/* names are case sensitive */
	ASSERT_REFUSED(&l, "[daemon]\nMode = tune\n",
		       "[daemon] Mode: unknown key (known keys: mode, socket, "
		       "state_dir, tick_ms, max_rings, log_level)");
	ASSERT_REFUSED(&l, "[daemon]\n= tune\n",
		       "[daemon]: expected a key before '=', got '= tune'");
}

UT_TEST(unknown_section)
{
	struct load l;

	ASSERT_REFUSED(&l, "[bogus]\nmode = tune\n",
		       "[bogus]: unknown section (known sections: daemon)");
	/* even without keys: likely a typo of a section meant to be used */
	ASSERT_REFUSED(&l, "[daemon]\nmode = tune\n[deamon]\n",
		       "[deamon]: unknown section (known sections: daemon)");
	ASSERT_REFUSED(&l, "mode = tune\n[daemon]\n",
		       "mode: key before any [section] (known sections: daemon)");
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
	ut_run("shipped_config", shipped_config);
	ut_run("mode_names", mode_names);
	return ut_finish();
}
