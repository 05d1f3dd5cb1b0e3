// SPDX-License-Identifier: GPL-2.0-only
/*
 * config/uringtune.ini: a table of keys, each with its parser, parsed with
 * libinih. Strict on purpose: a typo in a tuning daemon's configuration must
 * stop it, not be silently ignored, so any unknown section or key, duplicate,
 * empty or bad value refuses the whole file.
 *
 * Lines reach libinih through read_line() rather than ini_parse() so that we
 * see every raw line: libinih would split an overlong line in two and parse
 * the tail as a line of its own, read an indented line after a key as a
 * continuation of that key's value, never report a section without keys, and
 * treat a directory as an empty file.
 */
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "config.h"
#include "log.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define DEFAULT_SOCKET		"/run/uringtune/uringtune.sock"
#define DEFAULT_STATE_DIR	"/var/lib/uringtune"

struct config_key;

/*
 * Parse @value into @field (inside a struct ut_config). On a bad value,
 * return -EINVAL and write "expected ..., got ..." to @why.
 */
typedef int (*config_parse_fn)(const struct config_key *key, const char *value,
			       void *field, char *why, size_t whylen);

struct config_key {
	const char *section;
	const char *name;
	config_parse_fn parse;
	size_t offset;			/* of the field in struct ut_config */
	size_t size;			/* of the field: bounds strings */
	unsigned long long min, max;	/* integers only */
	const char *doc;
};

static int parse_mode(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen);
static int parse_path(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen);
static int parse_uint(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen);
static int parse_log_level(const struct config_key *key, const char *value,
			   void *field, char *why, size_t whylen);

#define FIELD(f)	offsetof(struct ut_config, f), \
			sizeof(((struct ut_config *)0)->f)

/* error messages list sections and keys in this order */
static const struct config_key config_keys[] = {
	{ "daemon", "mode", parse_mode, FIELD(mode), 0, 0,
	  "observe only watches rings; tune also changes their NAPI settings" },
	{ "daemon", "socket", parse_path, FIELD(socket_path), 0, 0,
	  "unix socket the uringtune CLI talks to" },
	{ "daemon", "state_dir", parse_path, FIELD(state_dir), 0, 0,
	  "directory for state kept across restarts" },
	{ "daemon", "tick_ms", parse_uint, FIELD(tick_ms), 50, 60000,
	  "how often the ring registry is reconciled with the kernel" },
	{ "daemon", "max_rings", parse_uint, FIELD(max_rings), 64, 1048576,
	  "capacity of the BPF map of rings" },
	{ "daemon", "log_level", parse_log_level, FIELD(log_level), 0, 0,
	  "least severe message logged" },
};

struct parse_ctx {
	const char *path;
	FILE *file;
	char *line;			/* getline() buffer */
	size_t line_cap;
	unsigned int lineno;		/* of the line being parsed */
	struct ut_config cfg;
	unsigned int set_on[ARRAY_SIZE(config_keys)];	/* line, 0 = not set */
	int err;			/* first error, negative errno */
	unsigned int err_line;
	char *msg;
	size_t msglen;
};

void config_defaults(struct ut_config *cfg)
{
	/* zero the padding too, so configurations compare with memcmp() */
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = UT_MODE_OBSERVE;
	snprintf(cfg->socket_path, sizeof(cfg->socket_path), "%s", DEFAULT_SOCKET);
	snprintf(cfg->state_dir, sizeof(cfg->state_dir), "%s", DEFAULT_STATE_DIR);
	cfg->tick_ms = 1000;
	cfg->max_rings = 16384;
	cfg->log_level = LOG_INFO;
}

const char *config_mode_name(enum ut_mode mode)
{
	switch (mode) {
	case UT_MODE_OBSERVE:
		return "observe";
	case UT_MODE_TUNE:
		return "tune";
	}
	return "unknown";
}

int config_mode_from_name(const char *name, enum ut_mode *mode)
{
	if (!name)
		return -EINVAL;
	if (strcmp(name, "observe") == 0)
		*mode = UT_MODE_OBSERVE;
	else if (strcmp(name, "tune") == 0)
		*mode = UT_MODE_TUNE;
	else
		return -EINVAL;
	return 0;
}

/* "expected <what>, got '<value>'": every bad value is reported this way */
__attribute__((format(printf, 4, 5)))
static int bad_value(char *why, size_t whylen, const char *value,
		     const char *fmt, ...)
{
	char expected[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(expected, sizeof(expected), fmt, ap);
	va_end(ap);
	if (*value)
		snprintf(why, whylen, "expected %s, got '%s'", expected, value);
	else
		snprintf(why, whylen, "expected %s, got an empty value", expected);
	return -EINVAL;
}

static int parse_mode(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen)
{
	(void)key;
	if (config_mode_from_name(value, field))
		return bad_value(why, whylen, value, "observe or tune");
	return 0;
}

static int parse_log_level(const struct config_key *key, const char *value,
			   void *field, char *why, size_t whylen)
{
	int level = log_level_from_name(value);

	(void)key;
	if (level < 0)
		return bad_value(why, whylen, value,
				 "error, warning, notice, info or debug");
	*(int *)field = level;
	return 0;
}

/* an unsigned int in [key->min, key->max], decimal digits only */
static int parse_uint(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen)
{
	unsigned long long v;
	char *end;

	/* strtoull() would skip blanks and accept a sign, even '-' */
	if (*value < '0' || *value > '9')
		goto bad;
	errno = 0;
	v = strtoull(value, &end, 10);
	if (errno || *end || v < key->min || v > key->max)
		goto bad;
	*(unsigned int *)field = (unsigned int)v;
	return 0;
bad:
	return bad_value(why, whylen, value, "an integer from %llu to %llu",
			 key->min, key->max);
}

/*
 * An absolute path that fits the field (for socket, sun_path). Whitespace is
 * refused: libinih only strips ';' comments, so "/run/x # note" would
 * otherwise silently become a path with a space in it.
 */
static int parse_path(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen)
{
	size_t len = strlen(value);

	if (value[0] != '/')
		return bad_value(why, whylen, value, "an absolute path");
	if (strpbrk(value, " \t\r\n\f\v"))
		return bad_value(why, whylen, value,
				 "an absolute path without whitespace");
	if (len >= key->size) {
		snprintf(why, whylen,
			 "expected an absolute path of at most %zu bytes, got %zu bytes",
			 key->size - 1, len);
		return -EINVAL;
	}
	memcpy(field, value, len + 1);
	return 0;
}

/* record the first error only: it is the one the operator must fix first */
__attribute__((format(printf, 3, 4)))
static void ctx_error(struct parse_ctx *ctx, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ctx->err)
		return;
	ctx->err = err;
	ctx->err_line = ctx->lineno;
	if (!ctx->msg || !ctx->msglen)
		return;
	n = snprintf(ctx->msg, ctx->msglen, "%s: ", ctx->path);
	if (n < 0 || (size_t)n >= ctx->msglen)
		return;
	va_start(ap, fmt);
	vsnprintf(ctx->msg + n, ctx->msglen - n, fmt, ap);
	va_end(ap);
}

/* is @name (@len bytes, not terminated) the section of one of the first @nr keys */
static bool section_in(const char *name, size_t len, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (strlen(config_keys[i].section) == len &&
		    strncmp(config_keys[i].section, name, len) == 0)
			return true;
	return false;
}

static bool section_known(const char *name, size_t len)
{
	return section_in(name, len, ARRAY_SIZE(config_keys));
}

static bool section_known_before(const char *name, size_t nr)
{
	return section_in(name, strlen(name), nr);
}

/* "a, b, c": the known sections, or the known keys of @section */
static const char *known_list(char *buf, size_t len, const char *section)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++) {
		const struct config_key *k = &config_keys[i];
		const char *item;
		int n;

		if (section) {
			if (strcmp(k->section, section))
				continue;
			item = k->name;
		} else {
			/* each section once, where its first key is */
			if (section_known_before(k->section, i))
				continue;
			item = k->section;
		}
		n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", item);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += n;
	}
	return buf;
}

static void unknown_section(struct parse_ctx *ctx, const char *name, int len)
{
	char known[256];

	ctx_error(ctx, -EINVAL, "[%.*s]: unknown section (known sections: %s)",
		  len, name, known_list(known, sizeof(known), NULL));
}

/*
 * libinih's reader: one line per call, like fgets(). Refuses lines that do
 * not fit @size instead of letting libinih split them, strips leading blanks
 * (no multi-line values: an indented key is a key) and checks section headers
 * here, as libinih never tells the handler about a section.
 */
static char *read_line(char *str, int size, void *stream)
{
	struct parse_ctx *ctx = stream;
	size_t max = size > 2 ? (size_t)size - 2 : 0;	/* room for "\n\0" */
	size_t len;
	ssize_t n;
	char *p;

	/* stop parsing at the first error, libinih would carry on */
	if (ctx->err)
		return NULL;
	errno = 0;
	n = getline(&ctx->line, &ctx->line_cap, ctx->file);
	if (n < 0) {
		if (ferror(ctx->file)) {
			int err = errno ? errno : EIO;

			ctx_error(ctx, -err, "cannot read: %s", strerror(err));
		}
		return NULL;
	}
	ctx->lineno++;
	p = ctx->line;
	if (n && p[n - 1] == '\n')
		p[--n] = '\0';
	if (strlen(p) != (size_t)n) {
		ctx_error(ctx, -EINVAL, "line %u: expected text, got a NUL byte",
			  ctx->lineno);
		return NULL;
	}
	if ((size_t)n > max) {
		ctx_error(ctx, -EINVAL,
			  "line %u: too long: expected at most %zu characters, got %zd",
			  ctx->lineno, max, n);
		return NULL;
	}
	if (ctx->lineno == 1 && strncmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	p += strspn(p, " \t\r\f\v");
	if (p[0] == '[') {
		char *end = strchr(p, ']');

		/* no ']': libinih reports the malformed line */
		if (end && !section_known(p + 1, end - p - 1)) {
			unknown_section(ctx, p + 1, (int)(end - p - 1));
			return NULL;
		}
	}
	/* fits: strlen(p) <= n <= size - 2 */
	len = strlen(p);
	memcpy(str, p, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	return str;
}

static int handler(void *user, const char *section, const char *name,
		   const char *value)
{
	struct parse_ctx *ctx = user;
	const struct config_key *key = NULL;
	char why[512];
	size_t i;

	if (ctx->err)
		return 0;
	if (!section[0]) {
		char known[256];

		ctx_error(ctx, -EINVAL, "%s: key before any [section] (known sections: %s)",
			  name, known_list(known, sizeof(known), NULL));
		return 0;
	}
	if (!section_known(section, strlen(section))) {
		unknown_section(ctx, section, (int)strlen(section));
		return 0;
	}
	if (!name[0]) {
		ctx_error(ctx, -EINVAL, "[%s]: expected a key before '=', got '= %s'",
			  section, value);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(config_keys); i++) {
		if (strcmp(config_keys[i].section, section) == 0 &&
		    strcmp(config_keys[i].name, name) == 0) {
			key = &config_keys[i];
			break;
		}
	}
	if (!key) {
		char known[256];

		ctx_error(ctx, -EINVAL, "[%s] %s: unknown key (known keys: %s)",
			  section, name, known_list(known, sizeof(known), section));
		return 0;
	}
	if (ctx->set_on[i]) {
		ctx_error(ctx, -EINVAL, "[%s] %s: duplicate key, already set on line %u",
			  section, name, ctx->set_on[i]);
		return 0;
	}
	ctx->set_on[i] = ctx->lineno;
	if (key->parse(key, value, (char *)&ctx->cfg + key->offset,
		       why, sizeof(why))) {
		ctx_error(ctx, -EINVAL, "[%s] %s: %s", section, name, why);
		return 0;
	}
	return 1;
}

int config_load(const char *path, struct ut_config *out, char *err, size_t errlen)
{
	struct parse_ctx ctx = {
		.path = path,
		.msg = err,
		.msglen = errlen,
	};
	int ret;

	if (err && errlen)
		err[0] = '\0';
	/* parse into a copy: *out changes only if the whole file is good */
	config_defaults(&ctx.cfg);

	ctx.file = fopen(path, "re");
	if (!ctx.file) {
		ret = errno ? -errno : -EIO;
		ctx_error(&ctx, ret, "cannot open: %s", strerror(-ret));
		return ret;
	}

	ret = ini_parse_stream(read_line, &ctx, handler, &ctx);
	/*
	 * A positive return is the first line libinih failed to parse or whose
	 * key the handler refused; report whichever of that and our own error
	 * comes first in the file.
	 */
	if (ret > 0 && (!ctx.err || (unsigned int)ret < ctx.err_line)) {
		ctx.err = 0;	/* replace our error from further down */
		ctx.lineno = ret;
		ctx_error(&ctx, -EINVAL, "line %d: not a key = value line", ret);
	} else if (ret < 0 && !ctx.err) {
		/* -2: libinih could not allocate its line buffer */
		ctx_error(&ctx, -ENOMEM, "cannot parse: %s", strerror(ENOMEM));
	}
	ret = ctx.err;
	if (!ret)
		*out = ctx.cfg;

	free(ctx.line);
	fclose(ctx.file);
	return ret;
}
