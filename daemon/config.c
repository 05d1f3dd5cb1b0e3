// SPDX-License-Identifier: GPL-2.0-only
/*
 * config/uringtune.ini: a table of keys, each with its parser, parsed with
 * libinih. Strict on purpose: a typo in a tuning daemon's configuration must
 * stop it, not be silently ignored, so any unknown section or key, duplicate,
 * empty or bad value refuses the whole file, as do [napi] timeouts out of
 * order (checked once the whole file is read). User names in [select] are
 * resolved to uids while parsing.
 *
 * Lines reach libinih through read_line() rather than ini_parse() so that we
 * see every raw line: libinih would split an overlong line in two and parse
 * the tail as a line of its own, read an indented line after a key as a
 * continuation of that key's value, never report a section without keys, and
 * treat a directory as an empty file.
 */
#include <errno.h>
#include <ini.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "agent_abi.h"
#include "config.h"
#include "log.h"
#include "paths.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define DEFAULT_STATE_DIR	"/var/lib/uringtune"
/* what Debian's prometheus-node-exporter reads (--collector.textfile.directory) */
#define DEFAULT_TEXTFILE_DIR	"/var/lib/prometheus/node-exporter"
#define DEFAULT_AGENT_PAGE	"/run/uringtune/agent.page"

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
	size_t size;			/* of the field: bounds strings and lists */
	size_t count;			/* lists: offset of their element count */
	unsigned long long min, max;	/* numbers; lists: max is the capacity */
	const char *doc;
};

static int parse_mode(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen);
static int parse_iopoll_stats(const struct config_key *key, const char *value,
			      void *field, char *why, size_t whylen);
static int parse_path(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen);
static int parse_uint(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen);
static int parse_log_level(const struct config_key *key, const char *value,
			   void *field, char *why, size_t whylen);
static int parse_bool(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen);
static int parse_tracking(const struct config_key *key, const char *value,
			  void *field, char *why, size_t whylen);
static int parse_decimal(const struct config_key *key, const char *value,
			 void *field, char *why, size_t whylen);
static int parse_comms(const struct config_key *key, const char *value,
		       void *field, char *why, size_t whylen);
static int parse_uids(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen);
static int parse_cgroups(const struct config_key *key, const char *value,
			 void *field, char *why, size_t whylen);

#define FIELD(f)	.offset = offsetof(struct ut_config, f), \
			.size = sizeof(((struct ut_config *)0)->f)
/* a [select] list: the array f, its count n_f, UT_SELECT_MAX elements */
#define LIST(f)		FIELD(select.f), \
			.count = offsetof(struct ut_config, select.n_##f), \
			.max = UT_SELECT_MAX

/* an [agent] list of process names */
#define AGENT_LIST(f)	FIELD(agent.f), \
			.count = offsetof(struct ut_config, agent.n_##f), \
			.max = UT_SELECT_MAX

/* error messages list sections and keys in this order */
static const struct config_key config_keys[] = {
	{ "daemon", "mode", parse_mode, FIELD(mode),
	  .doc = "observe only watches rings; tune also changes their NAPI settings" },
	{ "daemon", "socket", parse_path, FIELD(socket_path),
	  .doc = "unix socket the uringtune CLI talks to" },
	{ "daemon", "state_dir", parse_path, FIELD(state_dir),
	  .doc = "directory for state kept across restarts" },
	{ "daemon", "tick_ms", parse_uint, FIELD(tick_ms), .min = 50, .max = 60000,
	  .doc = "how often the ring registry is reconciled with the kernel" },
	{ "daemon", "max_rings", parse_uint, FIELD(max_rings), .min = 64, .max = 1048576,
	  .doc = "capacity of the BPF map of rings" },
	{ "daemon", "log_level", parse_log_level, FIELD(log_level),
	  .doc = "least severe message logged" },
	{ "daemon", "iopoll_stats", parse_iopoll_stats, FIELD(iopoll_stats),
	  .doc = "when to time IOPOLL requests: auto, always or off" },

	/* the kernel caps a ring's busy_poll_to at 10 ms */
	{ "napi", "min_busy_poll_us", parse_uint, FIELD(napi.min_us), .min = 1, .max = 10000,
	  .doc = "shortest busy-poll timeout the tuner gives a ring" },
	{ "napi", "max_busy_poll_us", parse_uint, FIELD(napi.max_us), .min = 1, .max = 10000,
	  .doc = "longest busy-poll timeout the tuner gives a ring" },
	{ "napi", "initial_busy_poll_us", parse_uint, FIELD(napi.initial_us),
	  .min = 1, .max = 10000,
	  .doc = "timeout a ring gets when it is first tuned" },
	{ "napi", "prefer_busy_poll", parse_bool, FIELD(napi.prefer),
	  .doc = "the rings' prefer_busy_poll flag" },
	{ "napi", "tracking", parse_tracking, FIELD(napi.tracking),
	  .doc = "how the kernel learns which NAPI instances a ring polls" },
	{ "napi", "static_after_s", parse_uint, FIELD(napi.static_after_s),
	  .min = 1, .max = 86400,
	  .doc = "auto tracking: NAPI IDs unchanged this long make it static" },
	{ "napi", "min_efficiency", parse_decimal, FIELD(napi.min_efficiency),
	  .min = 0, .max = 100,
	  .doc = "latency saved per unit of CPU spun below which NAPI goes off" },
	{ "napi", "wakeup_cost_us", parse_uint, FIELD(napi.wakeup_cost_us),
	  .min = 1, .max = 10000,
	  .doc = "latency one avoided sleep saves" },
	{ "napi", "min_windows", parse_uint, FIELD(napi.min_windows),
	  .min = 1, .max = 100000000,
	  .doc = "busy-poll windows of evidence needed before a decision" },
	{ "napi", "settle_s", parse_uint, FIELD(napi.settle_s), .min = 0, .max = 86400,
	  .doc = "least time between two changes of a ring" },
	{ "napi", "retry_s", parse_uint, FIELD(napi.retry_s), .min = 1, .max = 86400,
	  .doc = "how long NAPI stays off before it is tried again" },
	{ "napi", "change_pct", parse_uint, FIELD(napi.change_pct), .min = 1, .max = 1000,
	  .doc = "timeout changes of at most this many percent are skipped" },
	{ "napi", "quantile_pct", parse_uint, FIELD(napi.quantile_pct),
	  .min = 50, .max = 100,
	  .doc = "percentage of paid-off windows the timeout covers" },
	{ "napi", "headroom_pct", parse_uint, FIELD(napi.headroom_pct),
	  .min = 0, .max = 1000,
	  .doc = "added on top of that quantile" },

	{ "export", "textfile", parse_bool, FIELD(export_textfile),
	  .doc = "write metrics for node_exporter's textfile collector" },
	{ "export", "textfile_dir", parse_path, FIELD(textfile_dir),
	  .doc = "directory node_exporter's textfile collector reads" },

	{ "select", "include_comm", parse_comms, LIST(include_comm),
	  .doc = "only processes with these names" },
	{ "select", "exclude_comm", parse_comms, LIST(exclude_comm),
	  .doc = "never processes with these names" },
	{ "select", "include_uid", parse_uids, LIST(include_uid),
	  .doc = "only processes of these users" },
	{ "select", "exclude_uid", parse_uids, LIST(exclude_uid),
	  .doc = "never processes of these users" },
	{ "select", "include_cgroup", parse_cgroups, LIST(include_cgroup),
	  .doc = "only processes in these cgroups" },
	{ "select", "exclude_cgroup", parse_cgroups, LIST(exclude_cgroup),
	  .doc = "never processes in these cgroups" },

	{ "agent", "enabled", parse_bool, FIELD(agent.enabled),
	  .doc = "answer liburingtune-agent.so at ring setup" },
	{ "agent", "socket", parse_path, FIELD(agent.socket_path),
	  .doc = "unix socket the agents ask" },
	{ "agent", "page", parse_path, FIELD(agent.page_path),
	  .doc = "policy page the agents map read-only" },
	{ "agent", "hybrid_comm", parse_comms, AGENT_LIST(hybrid_comm),
	  .doc = "processes whose IOPOLL rings get HYBRID_IOPOLL" },
	{ "agent", "hybrid_auto_comm", parse_comms, AGENT_LIST(hybrid_auto_comm),
	  .doc = "processes whose IOPOLL rings get it when the advisor says so" },
	{ "agent", "napi_comm", parse_comms, AGENT_LIST(napi_comm),
	  .doc = "processes whose SINGLE_ISSUER rings get NAPI busy polling" },
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
	snprintf(cfg->socket_path, sizeof(cfg->socket_path), "%s", UT_CONTROL_SOCKET);
	snprintf(cfg->state_dir, sizeof(cfg->state_dir), "%s", DEFAULT_STATE_DIR);
	cfg->tick_ms = 1000;
	cfg->max_rings = 16384;
	cfg->log_level = LOG_INFO;

	cfg->napi.min_us = 10;
	cfg->napi.max_us = 200;
	cfg->napi.initial_us = 50;
	cfg->napi.prefer = false;
	cfg->napi.tracking = TUNER_TRACK_AUTO;
	cfg->napi.static_after_s = 30;
	cfg->napi.min_efficiency = 0.2;
	cfg->napi.wakeup_cost_us = 10;
	cfg->napi.min_windows = 1000;
	cfg->napi.settle_s = 5;
	cfg->napi.retry_s = 60;
	cfg->napi.change_pct = 25;
	cfg->napi.quantile_pct = 95;
	cfg->napi.headroom_pct = 50;
	/* cfg->select: every list empty, everyone is selected */

	cfg->export_textfile = true;
	snprintf(cfg->textfile_dir, sizeof(cfg->textfile_dir), "%s", DEFAULT_TEXTFILE_DIR);

	cfg->agent.enabled = true;
	snprintf(cfg->agent.socket_path, sizeof(cfg->agent.socket_path), "%s", UT_AGENT_SOCKET);
	snprintf(cfg->agent.page_path, sizeof(cfg->agent.page_path), "%s", DEFAULT_AGENT_PAGE);
	/* cfg->agent lists: empty, only uringtune exec's flags ask for anything */
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

static int parse_iopoll_stats(const struct config_key *key, const char *value,
			      void *field, char *why, size_t whylen)
{
	(void)key;
	if (iopoll_stats_from_name(value, field))
		return bad_value(why, whylen, value, "auto, always or off");
	return 0;
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

static int parse_bool(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	(void)key;
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcmp(value, yes[i]) == 0) {
			*(bool *)field = true;
			return 0;
		}
		if (strcmp(value, no[i]) == 0) {
			*(bool *)field = false;
			return 0;
		}
	}
	return bad_value(why, whylen, value,
			 "yes or no (or true/false, on/off, 1/0)");
}

static int parse_tracking(const struct config_key *key, const char *value,
			  void *field, char *why, size_t whylen)
{
	(void)key;
	if (tuner_tracking_from_name(value, field))
		return bad_value(why, whylen, value, "dynamic, static or auto");
	return 0;
}

/*
 * A double in [key->min, key->max] written as a plain decimal: "0.2", "5",
 * ".5", "2e-1". strtod() alone would also take blanks, a sign, "inf", "nan"
 * and hex ("0x1p-2"). No setlocale() in uringtuned: the point is '.'.
 */
static int parse_decimal(const struct config_key *key, const char *value,
			 void *field, char *why, size_t whylen)
{
	char *end;
	double v;

	if (!((value[0] >= '0' && value[0] <= '9') || value[0] == '.') ||
	    strpbrk(value, "xX"))
		goto bad;
	/* overflow gives HUGE_VAL and underflow a value near 0: both range-checked */
	v = strtod(value, &end);
	if (end == value || *end || !(v >= (double)key->min && v <= (double)key->max))
		goto bad;
	*(double *)field = v;
	return 0;
bad:
	return bad_value(why, whylen, value, "a decimal from %llu to %llu",
			 key->min, key->max);
}

/*
 * [select] lists: elements separated by commas and/or blanks. A comma needs
 * an element on each side, so "a,,b", ",a" and "a," are refused as likely
 * typos.
 */
struct list_kind {
	const char *what;		/* "process names": what the elements are */
	const char *noun;		/* "names": for "expected at most 16 names" */
	/* check one element (@len bytes, not terminated) and store it in @slot */
	int (*parse)(const char *elem, size_t len, void *slot, size_t slot_size,
		     char *why, size_t whylen);
};

#define LIST_BLANKS	" \t"

/*
 * The next element of a list at *@pos: its start and length in *@len, NULL
 * at the end. -EINVAL for an empty element.
 */
static int list_next(const char **pos, const char **elem, size_t *len)
{
	const char *p = *pos + strspn(*pos, LIST_BLANKS);

	*elem = NULL;
	if (!*p)
		return 0;
	if (*p == ',')
		return -EINVAL;
	*elem = p;
	*len = strcspn(p, LIST_BLANKS ",");
	p += *len;
	p += strspn(p, LIST_BLANKS);
	if (*p == ',') {
		p++;
		p += strspn(p, LIST_BLANKS);
		if (!*p || *p == ',')
			return -EINVAL;
	}
	*pos = p;
	return 0;
}

static int parse_list(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen,
		      const struct list_kind *kind)
{
	/* field is at key->offset of a struct ut_config, its count at key->count */
	unsigned int *count = (unsigned int *)((char *)field - key->offset + key->count);
	size_t slot_size = key->size / key->max;
	unsigned long long n = 0;
	const char *pos, *elem;
	size_t len;

	/* count first: "expected at most 16 names, got 17" names the total */
	for (pos = value; ; n++) {
		if (list_next(&pos, &elem, &len))
			return bad_value(why, whylen, value,
					 "%s separated by commas or spaces", kind->what);
		if (!elem)
			break;
	}
	if (!n)
		return bad_value(why, whylen, value, "%s", kind->what);
	if (n > key->max) {
		snprintf(why, whylen, "expected at most %llu %s, got %llu",
			 key->max, kind->noun, n);
		return -EINVAL;
	}
	n = 0;
	for (pos = value; !list_next(&pos, &elem, &len) && elem; n++) {
		int ret = kind->parse(elem, len, (char *)field + n * slot_size,
				      slot_size, why, whylen);

		if (ret)
			return ret;
	}
	*count = (unsigned int)n;
	return 0;
}

static int parse_comm(const char *elem, size_t len, void *slot, size_t slot_size,
		      char *why, size_t whylen)
{
	/* "nginx # web" would otherwise add "#", "web" as process names */
	if (elem[0] == '#') {
		snprintf(why, whylen, "expected process names, got '%.*s' "
			 "(a comment goes on a line of its own)", (int)len, elem);
		return -EINVAL;
	}
	if (len >= slot_size) {
		snprintf(why, whylen, "expected process names of at most %zu bytes, got '%.*s'",
			 slot_size - 1, (int)len, elem);
		return -EINVAL;
	}
	memcpy(slot, elem, len);
	((char *)slot)[len] = '\0';
	return 0;
}

/* what getpwnam_r() returns for "no such user" besides 0 (see its manual) */
static bool user_unknown(int err)
{
	return err == 0 || err == ENOENT || err == ESRCH || err == EBADF || err == EPERM;
}

/* a uid in decimal, or a user name looked up now in the passwd database */
static int parse_uid(const char *elem, size_t len, void *slot, size_t slot_size,
		     char *why, size_t whylen)
{
	struct passwd pw, *res = NULL;
	char name[256], *buf = NULL;
	size_t buflen = 1024;
	int err;

	(void)slot_size;
	if (len >= sizeof(name))
		goto unknown;
	memcpy(name, elem, len);
	name[len] = '\0';
	if (strspn(name, "0123456789") == len) {
		unsigned long long v;

		errno = 0;
		v = strtoull(name, NULL, 10);
		/* (uid_t)-1 is no one: chown(2)'s "unchanged" */
		if (errno || v >= (uid_t)-1) {
			snprintf(why, whylen,
				 "expected user names or uids from 0 to %u, got '%s'",
				 (unsigned int)(uid_t)-1 - 1, name);
			return -EINVAL;
		}
		*(uid_t *)slot = (uid_t)v;
		return 0;
	}
	for (;;) {
		char *more = realloc(buf, buflen);

		if (!more) {
			err = ENOMEM;
			break;
		}
		buf = more;
		err = getpwnam_r(name, &pw, buf, buflen, &res);
		if (err != ERANGE || buflen >= (1u << 20))
			break;
		buflen *= 2;
	}
	free(buf);
	if (res) {
		*(uid_t *)slot = pw.pw_uid;
		return 0;
	}
	if (!user_unknown(err)) {
		snprintf(why, whylen, "cannot look up user '%s': %s", name, strerror(err));
		return -EINVAL;
	}
unknown:
	snprintf(why, whylen, "expected user names or uids, got unknown user '%.*s'",
		 (int)len, elem);
	return -EINVAL;
}

/*
 * An absolute cgroup v2 path as /proc/PID/cgroup shows it: repeated and
 * trailing '/' dropped ("/a//b/" is "/a/b"), "." and ".." refused.
 */
static int parse_cgroup(const char *elem, size_t len, void *slot, size_t slot_size,
			char *why, size_t whylen)
{
	char *out = slot;
	size_t n = 0, i = 0;

	if (elem[0] != '/') {
		snprintf(why, whylen, "expected absolute cgroup paths, got '%.*s'",
			 (int)len, elem);
		return -EINVAL;
	}
	while (i < len) {
		size_t clen;

		while (i < len && elem[i] == '/')
			i++;
		for (clen = 0; i + clen < len && elem[i + clen] != '/'; clen++)
			;
		if (!clen)
			break;
		if ((clen == 1 && elem[i] == '.') ||
		    (clen == 2 && elem[i] == '.' && elem[i + 1] == '.')) {
			snprintf(why, whylen, "expected absolute cgroup paths without "
				 "'.' or '..', got '%.*s'", (int)len, elem);
			return -EINVAL;
		}
		if (n + 1 + clen >= slot_size) {
			snprintf(why, whylen, "expected absolute cgroup paths of at most "
				 "%zu bytes, got %zu bytes", slot_size - 1, len);
			return -EINVAL;
		}
		out[n++] = '/';
		memcpy(out + n, elem + i, clen);
		n += clen;
		i += clen;
	}
	if (!n)
		out[n++] = '/';
	out[n] = '\0';
	return 0;
}

static const struct list_kind comm_list = { "process names", "names", parse_comm };
static const struct list_kind uid_list = { "user names or uids", "users", parse_uid };
static const struct list_kind cgroup_list = { "absolute cgroup paths", "cgroups",
					      parse_cgroup };

static int parse_comms(const struct config_key *key, const char *value,
		       void *field, char *why, size_t whylen)
{
	return parse_list(key, value, field, why, whylen, &comm_list);
}

static int parse_uids(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen)
{
	return parse_list(key, value, field, why, whylen, &uid_list);
}

static int parse_cgroups(const struct config_key *key, const char *value,
			 void *field, char *why, size_t whylen)
{
	return parse_list(key, value, field, why, whylen, &cgroup_list);
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
	char known[512];

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
		char known[512];

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
		char known[512];

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

/* " (the default)" if [@section] @name was not set in the file */
static const char *if_default(const struct parse_ctx *ctx, const char *section,
			      const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++)
		if (strcmp(config_keys[i].section, section) == 0 &&
		    strcmp(config_keys[i].name, name) == 0)
			return ctx->set_on[i] ? "" : " (the default)";
	return "";
}

/* checks across keys, once the whole file is read */
static void check_napi(struct parse_ctx *ctx)
{
	const struct tuner_policy *napi = &ctx->cfg.napi;

	if (napi->min_us > napi->max_us) {
		ctx_error(ctx, -EINVAL, "[napi] max_busy_poll_us: expected at least "
			  "min_busy_poll_us (%u), got %u%s", napi->min_us, napi->max_us,
			  if_default(ctx, "napi", "max_busy_poll_us"));
	} else if (napi->initial_us < napi->min_us || napi->initial_us > napi->max_us) {
		ctx_error(ctx, -EINVAL, "[napi] initial_busy_poll_us: expected a value "
			  "from min_busy_poll_us (%u) to max_busy_poll_us (%u), got %u%s",
			  napi->min_us, napi->max_us, napi->initial_us,
			  if_default(ctx, "napi", "initial_busy_poll_us"));
	}
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
	if (!ctx.err)
		check_napi(&ctx);
	ret = ctx.err;
	if (!ret)
		*out = ctx.cfg;

	free(ctx.line);
	fclose(ctx.file);
	return ret;
}

bool config_comm_in(const char (*list)[16], unsigned int n, const char *comm)
{
	for (unsigned int i = 0; comm && i < n; i++)
		if (strncmp(list[i], comm, sizeof(list[i])) == 0)
			return true;
	return false;
}

static bool uid_in(const uid_t *list, unsigned int n, uid_t uid)
{
	for (unsigned int i = 0; i < n; i++)
		if (list[i] == uid)
			return true;
	return false;
}

/* @cgroup is @rule or below it: "/a" holds "/a" and "/a/b", not "/ab" */
static bool cgroup_in(const char (*list)[UT_CGROUP_PATH_MAX], unsigned int n,
		      const char *cgroup)
{
	for (unsigned int i = 0; cgroup && i < n; i++) {
		size_t len = strlen(list[i]);

		/* rules are normalized: only "/" itself ends in '/' */
		if (len == 1 && cgroup[0] == '/')
			return true;
		if (strncmp(cgroup, list[i], len) == 0 &&
		    (cgroup[len] == '\0' || cgroup[len] == '/'))
			return true;
	}
	return false;
}

bool config_selects(const struct ut_select *sel, const char *comm, uid_t uid,
		    const char *cgroup, const char **why)
{
	const char *unused;

	if (!why)
		why = &unused;
	if (config_comm_in(sel->exclude_comm, sel->n_exclude_comm, comm)) {
		*why = "excluded by exclude_comm";
		return false;
	}
	if (uid_in(sel->exclude_uid, sel->n_exclude_uid, uid)) {
		*why = "excluded by exclude_uid";
		return false;
	}
	if (cgroup_in(sel->exclude_cgroup, sel->n_exclude_cgroup, cgroup)) {
		*why = "excluded by exclude_cgroup";
		return false;
	}
	if ((sel->n_include_comm || sel->n_include_uid || sel->n_include_cgroup) &&
	    !config_comm_in(sel->include_comm, sel->n_include_comm, comm) &&
	    !uid_in(sel->include_uid, sel->n_include_uid, uid) &&
	    !cgroup_in(sel->include_cgroup, sel->n_include_cgroup, cgroup)) {
		*why = "matches no include rule";
		return false;
	}
	*why = "";
	return true;
}
